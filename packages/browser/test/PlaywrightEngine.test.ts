/**
 * The engine against real Chromium and pages on loopback: rendering, waiting, device and place
 * (geolocation included), service workers blocked, the SSRF proxy, a crash mid-request. Timeouts
 * are generous and nothing asserts a duration: the test machine is small and shared.
 */
import { BrowserEngine, type BrowserRequest, type ScrapeError } from "@strata/core"
import { Effect, Exit, Layer, ManagedRuntime } from "effect"
import { execFileSync } from "node:child_process"
import { readFileSync } from "node:fs"
import { createServer as createHttpsServer } from "node:https"
import type { AddressInfo } from "node:net"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { layer } from "../src/index.ts"
import { html, serve, type Site, scriptRendered, singlePageApp, singlePageAppScript } from "./Pages.ts"

let site: Site
let other: Site
let runtime: ManagedRuntime.ManagedRuntime<BrowserEngine, never>
let hanging = 0
let hangingClosed = 0
/** Where each render's context came from: a spare made ahead of it, or made for it. */
const contexts: Array<"spare" | "new"> = []

const base: Omit<BrowserRequest, "url"> = { skipTlsVerification: false, mobile: false, waitFor: 0, actions: [] }
const render = (request: Partial<BrowserRequest> & { url: string }, timeout = 45_000) =>
  runtime.runPromise(BrowserEngine.use((engine) => engine.render({ ...base, ...request }, Date.now() + timeout)))
const renderExit = (request: Partial<BrowserRequest> & { url: string }, timeout = 45_000) =>
  runtime.runPromise(Effect.exit(BrowserEngine.use((engine) => engine.render({ ...base, ...request }, Date.now() + timeout))))
const text = (body: Uint8Array) => new TextDecoder().decode(body)
const failure = (exit: Exit.Exit<unknown, ScrapeError>): ScrapeError["reason"] => {
  if (Exit.isSuccess(exit)) throw new Error("expected a failure")
  const error = exit.cause.reasons.find((r) => r._tag === "Fail")
  if (error === undefined || error._tag !== "Fail") throw new Error(`expected a typed failure, got ${String(exit.cause)}`)
  return error.error.reason
}

/** Tries to register a service worker (127.0.0.1 is a secure context, where one would register), and says what came of it. */
const serviceWorkerPage = html(`<p id="sw">pending</p><script>
(async () => {
  let outcome
  try {
    const registration = await navigator.serviceWorker.register("/sw.js")
    outcome = registration ? "registered" : "no registration"
  } catch (error) {
    outcome = "refused " + error.name
  }
  const registrations = await navigator.serviceWorker.getRegistrations()
  const out = document.getElementById("sw")
  out.textContent = outcome + "|" + registrations.length + "|" + String(navigator.serviceWorker.controller)
  out.className = "done"
})()
</script>`)

/** Reads the position the browser gives the page. */
const geolocationPage = html(`<p id="geo">pending</p><script>
const out = document.getElementById("geo")
const show = (text) => { out.textContent = text; out.className = "done" }
navigator.geolocation.getCurrentPosition((p) => show(p.coords.latitude + "," + p.coords.longitude), (e) => show("error " + e.code), { timeout: 10000 })
</script>`)

const probe = `<pre id="probe"></pre><script>
document.getElementById("probe").textContent = JSON.stringify({
  ua: navigator.userAgent, width: window.innerWidth, touch: navigator.maxTouchPoints,
  dpr: window.devicePixelRatio, tz: Intl.DateTimeFormat().resolvedOptions().timeZone, lang: navigator.language
})</script>`

beforeAll(async () => {
  other = await serve({ "/secret": "internal admin page" })
  site = await serve({
    "/script": scriptRendered,
    "/spa": singlePageApp,
    "/app.js": (_q, r) => r.writeHead(200, { "content-type": "text/javascript" }).end(singlePageAppScript),
    "/api/items": (_q, r) => r.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(["anchor", "rope", "lantern"])),
    "/probe": html(probe, `<meta name="viewport" content="width=device-width, initial-scale=1">`),
    "/service-worker": serviceWorkerPage,
    "/sw.js": (_q, r) => r.writeHead(200, { "content-type": "text/javascript" }).end(`self.addEventListener("fetch", () => {})`),
    "/geolocation": geolocationPage,
    "/headers": (q, r) => r.writeHead(200, { "content-type": "text/html" }).end(html(`<p id="h">${q.headers["accept-language"]}|${q.headers["x-test"]}|${q.headers.cookie}</p>`)),
    // What an earlier render left behind, as the page and the server see it; then it leaves its own.
    "/storage": (q, r) => r.writeHead(200, { "content-type": "text/html", "set-cookie": "served=left-behind; Max-Age=3600" }).end(html(`<p id="seen">pending</p><script>
      document.getElementById("seen").textContent = "seen " + (localStorage.getItem("mark") ?? "none") + "|" + (sessionStorage.getItem("mark") ?? "none") + "|" + (document.cookie || "none") + "|${q.headers.cookie ?? "none"}"
      localStorage.setItem("mark", "left-behind"); sessionStorage.setItem("mark", "left-behind"); document.cookie = "mark=left-behind; max-age=3600"
    </script>`)),
    "/slow-forever": (request) => {
      hanging++
      request.socket.once("close", () => hangingClosed++)
    }
  })
  // The page's script targets the other server, whose port is known only now.
  const page = html(`<p id="result">pending</p><script>
    fetch("${other.url}/secret").then(() => "reached", () => "blocked").then((v) => { document.getElementById("result").textContent = v })
  </script>`)
  const socketPage = html(`<p id="result">pending</p><script>
    const socket = new WebSocket("ws://${other.url.slice("http://".length)}/socket")
    socket.onopen = () => { document.getElementById("result").textContent = "reached" }
    socket.onerror = () => { document.getElementById("result").textContent = "blocked" }
  </script>`)
  const withOther = await serve({
    "/reach-private": page,
    "/socket-private": socketPage,
    "/image-private": html(`<img src="${other.url}/secret.png"><p>An image from an internal host.</p>`),
    "/redirect-private": (_q, r) => r.writeHead(302, { location: `${other.url}/secret` }).end()
  })
  ;(site as { extra?: Site }).extra = withOther
  runtime = ManagedRuntime.make(layer({
    concurrency: 2,
    // Only the test pages' own origins are allowed: the other server stands for an internal service.
    policy: { allowPrivate: false, allowedOrigins: [site.url, withOther.url] },
    onContext: (source) => contexts.push(source)
  }) as Layer.Layer<BrowserEngine>)
})

afterAll(async () => {
  await runtime?.dispose()
  await site?.close()
  await other?.close()
  await (site as { extra?: Site } | undefined)?.extra?.close()
})

describe("PlaywrightEngine", () => {
  it("renders a page whose text is written by its script", async () => {
    const page = await render({ url: `${site.url}/script` })
    expect(page.status).toBe(200)
    expect(page.contentType).toBe("text/html")
    expect(text(page.body)).toContain("Rendered by script: the tide comes in twice a day.")
  })

  it("waits for a single-page app to fetch and show its data", async () => {
    const page = await render({ url: `${site.url}/spa` })
    expect(text(page.body)).toContain("<h1>Inventory</h1>")
    expect(text(page.body)).toContain("<li>lantern</li>")
  })

  it("blocks a script's request to a private address the policy does not allow, and still returns the page", async () => {
    const extra = (site as unknown as { extra: Site }).extra
    const page = await render({ url: `${extra.url}/reach-private` })
    expect(text(page.body)).toContain(`<p id="result">blocked</p>`)
    expect(other.hits).toEqual([])
  })

  it("blocks a websocket and an image to a private address, and a redirect to one", async () => {
    const extra = (site as unknown as { extra: Site }).extra
    const socket = await render({ url: `${extra.url}/socket-private` })
    expect(text(socket.body)).toContain(`<p id="result">blocked</p>`)
    const image = await render({ url: `${extra.url}/image-private` })
    expect(text(image.body)).toContain("An image from an internal host.")
    const reason = failure(await renderExit({ url: `${extra.url}/redirect-private` }))
    expect(reason._tag).toBe("UrlBlocked")
    expect(reason.message).toContain("loopback")
    expect(other.hits).toEqual([])
    expect(other.connections()).toBe(0)
  })

  it("refuses a navigation to a private address the policy does not allow", async () => {
    const reason = failure(await renderExit({ url: `${other.url}/secret` }))
    expect(reason._tag).toBe("UrlBlocked")
    expect(other.hits).toEqual([])
  })

  it("emulates a phone: user agent, viewport, touch and device scale seen by the page", async () => {
    const page = await render({ url: `${site.url}/probe`, mobile: true })
    const seen = JSON.parse(/<pre id="probe">(.*?)<\/pre>/.exec(text(page.body))![1].replace(/&quot;/g, "\""))
    expect(seen.ua).toMatch(/Android.*Mobile/)
    expect(seen.width).toBe(412)
    expect(seen.touch).toBeGreaterThan(0)
    expect(seen.dpr).toBeCloseTo(2.625)
    const desktop = await render({ url: `${site.url}/probe` })
    expect(desktop.body.length).toBeGreaterThan(0)
    expect(text(desktop.body)).not.toMatch(/HeadlessChrome|Android/)
  })

  it("takes the locale and time zone from the location", async () => {
    const page = await render({ url: `${site.url}/probe`, location: { country: "JP" } })
    const seen = JSON.parse(/<pre id="probe">(.*?)<\/pre>/.exec(text(page.body))![1].replace(/&quot;/g, "\""))
    expect(seen.tz).toBe("Asia/Tokyo")
    expect(seen.lang).toBe("ja-JP")
  })

  it("gives the page the location's geolocation", async () => {
    for (const [country, position] of [["JP", "35.6762,139.6503"], ["BR", "-23.5505,-46.6333"]] as const) {
      const page = await render({ url: `${site.url}/geolocation`, location: { country }, actions: [{ type: "wait", selector: "#geo.done" }] })
      expect(text(page.body)).toContain(`<p id="geo" class="done">${position}</p>`)
    }
  })

  it("blocks a page's service worker registration: the script is never fetched and none is registered", async () => {
    const page = await render({ url: `${site.url}/service-worker`, actions: [{ type: "wait", selector: "#sw.done" }] })
    expect(text(page.body)).toContain(`<p id="sw" class="done">no registration|0|null</p>`)
    expect(site.hits.filter((hit) => hit.startsWith("/sw.js"))).toEqual([])
  })

  it("sends the caller's headers, cookies and the location's Accept-Language", async () => {
    const page = await render({ url: `${site.url}/headers`, location: { country: "DE" }, headers: { "X-Test": "yes", Cookie: "session=abc; theme=dark", Host: "elsewhere.example", Connection: "close" } })
    expect(text(page.body)).toContain(`<p id="h">de-DE,de;q=0.9,en;q=0.8|yes|session=abc; theme=dark</p>`)
    const own = await render({ url: `${site.url}/headers`, headers: { "Accept-Language": "fr-CH, fr" } })
    expect(text(own.body)).toContain(`<p id="h">fr-CH,fr;q=0.9|undefined|undefined</p>`)
    const plain = await render({ url: `${site.url}/headers` })
    expect(text(plain.body)).toContain(`<p id="h">en-US,en;q=0.9|undefined|undefined</p>`)
  })

  it("keeps renders apart: cookies and storage one page leaves are not seen by the next (spare contexts included)", async () => {
    for (let i = 0; i < 3; i++) {
      const page = await render({ url: `${site.url}/storage` })
      // The page's own cookie from its response, and nothing else: no storage, no earlier cookie, none sent.
      expect(text(page.body)).toContain(`<p id="seen">seen none|none|served=left-behind|none</p>`)
    }
  })

  it("serves the next render from a spare context whichever TLS setting the renders use (the API skips verification by default)", async () => {
    for (const skipTlsVerification of [true, false]) {
      const before = contexts.length
      for (let i = 0; i < 3; i++) expect(text((await render({ url: `${site.url}/script`, skipTlsVerification })).body)).toContain("Rendered by script")
      // The first may find a spare made for the other setting (closed, not used); the next two take one made for theirs.
      expect(contexts.slice(before + 1)).toEqual(["spare", "spare"])
    }
  })

  it("closes the page when its render is interrupted (the request's budget ran out upstream)", async () => {
    const exit = await runtime.runPromise(Effect.exit(
      BrowserEngine.use((engine) => engine.render({ ...base, url: `${site.url}/slow-forever` }, Date.now() + 60_000)).pipe(Effect.timeout("4 seconds"))
    ))
    expect(Exit.isFailure(exit)).toBe(true)
    expect(hanging).toBe(1)
    // The context closed, so Chromium dropped the connection the page was waiting on.
    for (let i = 0; i < 100 && hangingClosed === 0; i++) await new Promise((resolve) => setTimeout(resolve, 100))
    expect(hangingClosed).toBe(1)
  })

  it("answers a crash of Chromium mid-request with a clear error, and the next request works", async () => {
    const pending = renderExit({ url: `${site.url}/script`, actions: [{ type: "wait", milliseconds: 30_000 }] }, 60_000)
    // Wait until Chromium runs, then kill it (our own child process, by its id).
    let killed = false
    for (let i = 0; i < 100 && !killed; i++) {
      await new Promise((resolve) => setTimeout(resolve, 200))
      const children = execFileSync("ps", ["-o", "pid=,args=", "--ppid", String(process.pid)]).toString().split("\n")
      const chromium = children.find((line) => /chrom/i.test(line) && !/crashpad/.test(line))
      if (chromium !== undefined && i > 5) {
        process.kill(Number(chromium.trim().split(/\s+/)[0]), "SIGKILL")
        killed = true
      }
    }
    expect(killed).toBe(true)
    const reason = failure(await pending)
    expect(reason._tag).toBe("BrowserFailed")
    expect(reason.message).toMatch(/Chromium exited/)
    const next = await render({ url: `${site.url}/script` })
    expect(text(next.body)).toContain("Rendered by script")
  }, 180_000)
})

describe("PlaywrightEngine pool", () => {
  it("renders at most `concurrency` pages at once; the others wait their turn", async () => {
    let inFlight = 0
    let most = 0
    const slow = await serve({
      "/slow": (_q, r) => {
        inFlight++
        most = Math.max(most, inFlight)
        setTimeout(() => {
          inFlight--
          r.writeHead(200, { "content-type": "text/html" }).end(html("<p>Slow but here.</p>"))
        }, 400)
      }
    })
    const single = ManagedRuntime.make(layer({ concurrency: 1, policy: { allowPrivate: true } }) as Layer.Layer<BrowserEngine>)
    try {
      const pages = await Promise.all([1, 2, 3].map((n) =>
        single.runPromise(BrowserEngine.use((engine) => engine.render({ ...base, url: `${slow.url}/slow?n=${n}` }, Date.now() + 60_000)))))
      expect(pages.map((p) => text(p.body).includes("Slow but here."))).toEqual([true, true, true])
      expect(most).toBe(1)
    } finally {
      await single.dispose()
      await slow.close()
    }
  }, 180_000)
})

describe("PlaywrightEngine over HTTPS", () => {
  it("tunnels HTTPS through the proxy, and skipTlsVerification decides whether a self-signed certificate passes", async () => {
    const tls = (name: string) => readFileSync(new URL(`../../core/test/fixtures/tls/${name}`, import.meta.url))
    const secure = createHttpsServer({ key: tls("key.pem"), cert: tls("cert.pem") }, (_q, r) => r.writeHead(200, { "content-type": "text/html" }).end(scriptRendered))
    await new Promise<void>((resolve) => secure.listen(0, "127.0.0.1", resolve))
    const origin = `https://127.0.0.1:${(secure.address() as AddressInfo).port}`
    const engine = ManagedRuntime.make(layer({ concurrency: 1, policy: { allowPrivate: false, allowedOrigins: [origin] } }) as Layer.Layer<BrowserEngine>)
    const renderHere = (skipTlsVerification: boolean) =>
      engine.runPromise(Effect.exit(BrowserEngine.use((e) => e.render({ ...base, url: `${origin}/`, skipTlsVerification }, Date.now() + 60_000))))
    try {
      const page = await renderHere(true)
      expect(Exit.isSuccess(page) && text(page.value.body)).toContain("Rendered by script")
      const refused = failure(await renderHere(false))
      expect(refused).toMatchObject({ _tag: "FetchFailed", kind: "tls" })
    } finally {
      await engine.dispose()
      secure.closeAllConnections()
      await new Promise((resolve) => secure.close(resolve))
    }
  }, 180_000)
})

describe("PlaywrightEngine idle", () => {
  it("stops Chromium after idleMs without a render, and starts it again for the next", async () => {
    const chromiumChildren = () =>
      execFileSync("ps", ["-o", "pid=,args=", "--ppid", String(process.pid)]).toString().split("\n").filter((line) => /chrom/i.test(line)).length
    const before = chromiumChildren()
    const idle = ManagedRuntime.make(layer({ concurrency: 1, idleMs: 1500, policy: { allowPrivate: true } }) as Layer.Layer<BrowserEngine>)
    const once = () => idle.runPromise(BrowserEngine.use((e) => e.render({ ...base, url: `${site.url}/script` }, Date.now() + 60_000)))
    try {
      expect(text((await once()).body)).toContain("Rendered by script")
      expect(chromiumChildren()).toBe(before + 1)
      for (let i = 0; i < 150 && chromiumChildren() > before; i++) await new Promise((resolve) => setTimeout(resolve, 200))
      expect(chromiumChildren()).toBe(before)
      expect(text((await once()).body)).toContain("Rendered by script")
    } finally {
      await idle.dispose()
    }
  }, 180_000)
})
