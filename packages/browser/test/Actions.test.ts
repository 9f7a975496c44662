/**
 * Each action type against real Chromium, on pages served on loopback: what the page sees and
 * what each action returns, in action order; a click with no match; a failing action named by
 * index and type; infinite scroll and lazy images with the scroll action; a click that opens a
 * new tab (target=_blank, window.open) is followed.
 */
import { type ActionOutput, BrowserEngine, type BrowserRequest, type ResolvedAction, type ScrapeError } from "@strata/core"
import { Effect, Exit, type Layer, ManagedRuntime } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { layer } from "../src/index.ts"
import { html, serve, type Site } from "./Pages.ts"

let site: Site
let runtime: ManagedRuntime.ManagedRuntime<BrowserEngine, never>

const form = html(`
<input id="name"><button id="go" onclick="document.getElementById('out').textContent = 'Hello ' + document.getElementById('name').value">Go</button>
<p id="out"></p>
<div id="later"></div>
<script>setTimeout(() => { document.getElementById("later").innerHTML = '<span id="late">arrived late</span>' }, 1500)</script>
<form onsubmit="event.preventDefault(); document.getElementById('pressed').textContent = 'submitted'"><input id="q"></form>
<p id="pressed"></p>
<div id="box" style="height: 200px; overflow: auto"><div style="height: 2000px">tall</div></div>
<a id="to-feed" href="/feed">The feed</a>`)

const feed = html(`<div id="list"></div><img id="lazy" data-src="/pixel.png" width="10" height="10" alt="lazy">
<script>
  let n = 0
  const list = document.getElementById("list")
  const more = () => { for (let i = 0; i < 20; i++) { const p = document.createElement("p"); p.textContent = "Item " + (++n); p.style.height = "60px"; p.style.margin = "0"; list.appendChild(p) } }
  more()
  window.addEventListener("scroll", () => { if (innerHeight + scrollY >= document.body.scrollHeight - 100 && n < 60) more() })
  new IntersectionObserver((entries) => { for (const e of entries) if (e.isIntersecting) e.target.src = e.target.dataset.src })
    .observe(document.getElementById("lazy"))
</script>`)

// A 1x1 PNG.
const pixel = Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==", "base64")

const run = (url: string, actions: ReadonlyArray<ResolvedAction>, extra: Partial<BrowserRequest> = {}) =>
  runtime.runPromise(Effect.exit(BrowserEngine.use((engine) =>
    engine.render({ url, skipTlsVerification: false, mobile: false, waitFor: 0, actions, ...extra }, Date.now() + 60_000))))

const page = async (url: string, actions: ReadonlyArray<ResolvedAction>, extra: Partial<BrowserRequest> = {}) => {
  const exit = await run(url, actions, extra)
  if (Exit.isFailure(exit)) throw new Error(`render failed: ${String(exit.cause)}`)
  return exit.value
}

const of = <T extends ActionOutput["_tag"]>(outputs: ReadonlyArray<ActionOutput>, tag: T) =>
  outputs.filter((o): o is Extract<ActionOutput, { _tag: T }> => o._tag === tag)

/** Width and height from a PNG's IHDR. */
const pngSize = (bytes: Uint8Array) => {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  return { width: view.getUint32(16), height: view.getUint32(20) }
}

beforeAll(async () => {
  site = await serve({
    "/form": form,
    "/feed": feed,
    "/pixel.png": (_q, r) => r.writeHead(200, { "content-type": "image/png" }).end(pixel),
    "/opener": html(`<p>The opener page.</p><a id="blank" href="/opened" target="_blank">Open in a new tab</a>
      <button id="popup" onclick="window.open('/opened?via=script')">Open with a script</button>`),
    "/opened": html(`<main id="m"></main><script>fetch("/opened.json").then((r) => r.json()).then((d) => { document.getElementById("m").textContent = d.text })</script>`),
    "/opened.json": (_q, r) => r.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ text: "Rendered in the new tab." }))
  })
  runtime = ManagedRuntime.make(layer({ concurrency: 2, policy: { allowPrivate: true } }) as Layer.Layer<BrowserEngine>)
})

afterAll(async () => {
  await runtime?.dispose()
  await site?.close()
})

describe("a click that opens a new tab", () => {
  it("follows a target=_blank link and a window.open: later actions and the content read the new tab", async () => {
    for (const selector of ["#blank", "#popup"]) {
      const result = await page(`${site.url}/opener`, [
        { type: "click", selector, all: false },
        { type: "scrape" },
        { type: "executeJavascript", script: "return location.pathname" }
      ])
      const body = new TextDecoder().decode(result.body)
      expect(body).toContain("Rendered in the new tab.")
      expect(body).not.toContain("The opener page.")
      expect(result.url).toContain("/opened")
      expect(of(result.outputs, "Scrape")[0].html).toContain("Rendered in the new tab.")
      expect(of(result.outputs, "JavascriptReturn")[0].value).toBe("/opened")
    }
  })
})

describe("actions", () => {
  it("click, write, press, wait (selector and time), scrape and executeJavascript, in order", async () => {
    const result = await page(`${site.url}/form`, [
      { type: "click", selector: "#name", all: false },
      { type: "write", text: "Ada" },
      { type: "click", selector: "#go", all: false },
      { type: "wait", selector: "#late" },
      { type: "click", selector: "#q", all: false },
      { type: "write", text: "tides" },
      { type: "press", key: "Enter" },
      { type: "wait", milliseconds: 50 },
      { type: "scrape" },
      { type: "executeJavascript", script: "return document.getElementById('q').value + ' ' + document.title" },
      { type: "executeJavascript", script: "return { answer: 42 }" }
    ])
    const [scraped] = of(result.outputs, "Scrape")
    expect(scraped.index).toBe(8)
    expect(scraped.html).toContain(`<p id="out">Hello Ada</p>`)
    expect(scraped.html).toContain("arrived late")
    expect(scraped.html).toContain(`<p id="pressed">submitted</p>`)
    expect(of(result.outputs, "JavascriptReturn").map((o) => ({ type: o.type, value: o.value }))).toEqual([
      { type: "string", value: "tides Test page" },
      { type: "object", value: { answer: 42 } }
    ])
    expect(new TextDecoder().decode(result.body)).toContain("Hello Ada")
  })

  it("a click that navigates: the page returned is the one it led to", async () => {
    const result = await page(`${site.url}/form`, [{ type: "click", selector: "#to-feed", all: false }, { type: "scrape" }])
    expect(result.url).toBe(`${site.url}/feed`)
    expect(result.status).toBe(200)
    expect(of(result.outputs, "Scrape")[0].html).toContain("Item 1<")
    expect(new TextDecoder().decode(result.body)).toContain("Item 20<")
  })

  it("a click that matches nothing is not an error", async () => {
    const result = await page(`${site.url}/form`, [{ type: "click", selector: "#nothing-here", all: false }, { type: "click", selector: ".none", all: true }])
    expect(result.status).toBe(200)
  })

  it("screenshots (PNG, JPEG at a quality, a viewport, full page) and a PDF", async () => {
    const result = await page(`${site.url}/feed`, [
      { type: "screenshot", fullPage: false },
      { type: "screenshot", fullPage: false, quality: 50, viewport: { width: 800, height: 600 } },
      { type: "screenshot", fullPage: true },
      { type: "pdf", format: "A4", landscape: false, scale: 1 }
    ])
    const [first, jpeg, full] = of(result.outputs, "Screenshot").map((o) => o.file)
    expect(first.contentType).toBe("image/png")
    expect(pngSize(first.bytes)).toEqual({ width: 1366, height: 900 })
    expect(jpeg.contentType).toBe("image/jpeg")
    expect([...jpeg.bytes.subarray(0, 3)]).toEqual([0xff, 0xd8, 0xff])
    expect(pngSize(full.bytes).width).toBe(800)
    expect(pngSize(full.bytes).height).toBeGreaterThan(600)
    const [pdf] = of(result.outputs, "Pdf")
    expect(new TextDecoder().decode(pdf.file.bytes.subarray(0, 5))).toBe("%PDF-")
    expect(pdf.index).toBe(3)
  })

  it("the screenshot format takes a shot after the actions", async () => {
    const result = await page(`${site.url}/form`, [], { screenshot: { fullPage: false, viewport: { width: 640, height: 480 } } })
    expect(pngSize(result.screenshot!.bytes)).toEqual({ width: 640, height: 480 })
  })

  it("scrolls an infinite feed and lazy images into view", async () => {
    const before = await page(`${site.url}/feed`, [])
    expect(new TextDecoder().decode(before.body)).not.toContain("Item 21<")
    // A wheel turn stops at the page's end as it is then; the feed grows behind it, so turn a few more times.
    const after = await page(`${site.url}/feed`, Array(6).fill({ type: "scroll", direction: "down" }))
    const body = new TextDecoder().decode(after.body)
    expect(body).toContain("Item 60<")
    expect(body).toContain(` src="/pixel.png"`)
    expect(site.hits, JSON.stringify(site.hits)).toContain("/pixel.png")
  })

  it("scrolls an element by its selector", async () => {
    const result = await page(`${site.url}/form`, [
      { type: "scroll", direction: "down", selector: "#box" },
      { type: "executeJavascript", script: "return document.getElementById('box').scrollTop" }
    ])
    expect(of(result.outputs, "JavascriptReturn")[0].value).toBeGreaterThan(0)
  })

  it("names the failing action by index and type", async () => {
    for (const [actions, index, type] of [
      [[{ type: "wait", milliseconds: 1 }, { type: "executeJavascript", script: "throw new Error('boom')" }], 1, "executeJavascript"],
      [[{ type: "scroll", direction: "down", selector: "#missing" }], 0, "scroll"],
      [[{ type: "press", key: "NotAKey" }], 0, "press"]
    ] as const) {
      const exit = await run(`${site.url}/form`, actions as ReadonlyArray<ResolvedAction>)
      expect(Exit.isFailure(exit)).toBe(true)
      const reason = (Exit.isFailure(exit) ? exit.cause.reasons.find((r) => r._tag === "Fail") : undefined) as { error: ScrapeError } | undefined
      expect(reason?.error.reason).toMatchObject({ _tag: "BrowserFailed", kind: "action", action: { index, type } })
      expect(reason?.error.message).toContain(`Action ${index} (${type}) failed`)
    }
  })
})
