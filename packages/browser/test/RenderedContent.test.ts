/**
 * What the rendered HTML holds, against real Chromium: text a short timer adds after load (the
 * smart wait holds for a pending `setTimeout` armed early, not for a long or late one), and text
 * inside open shadow roots, slots filled as the reader sees them (`ComposedHtml.ts`). Found by
 * bench/browser; nothing here asserts a duration beyond "before the long timer fired".
 */
import { BrowserEngine, type BrowserRequest } from "@strata/core"
import { Layer, ManagedRuntime } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { layer } from "../src/index.ts"
import { html, serve, type Site } from "./Pages.ts"

let site: Site
let runtime: ManagedRuntime.ManagedRuntime<BrowserEngine, never>

const base: Omit<BrowserRequest, "url"> = { skipTlsVerification: false, mobile: false, waitFor: 0, actions: [] }
const render = async (path: string) => {
  const page = await runtime.runPromise(BrowserEngine.use((engine) => engine.render({ ...base, url: `${site.url}${path}` }, Date.now() + 45_000)))
  // The page's own scripts hold the test's strings too: only the markup counts.
  return new TextDecoder().decode(page.body).replace(/<script\b[\s\S]*?<\/script>/g, "")
}

const later = (ms: number, text: string) =>
  html(`<main id="m"></main><script>setTimeout(() => { document.getElementById("m").innerHTML = "<p>${text}</p>" }, ${ms})</script>`)

beforeAll(async () => {
  site = await serve({
    "/timer-1200": later(1200, "Written after a second and a bit."),
    "/timer-cleared": html(`<main id="m"><p>Kept as served.</p></main><script>const t = setTimeout(() => { document.getElementById("m").textContent = "never" }, 1500); clearTimeout(t)</script>`),
    "/timer-long": later(20_000, "Written after twenty seconds."),
    "/ticks": html(`<main id="m"></main><script>let n = 0; const t = setInterval(() => {
      document.getElementById("m").insertAdjacentHTML("beforeend", "<p>Tick number " + ++n + " arrived.</p>"); if (n === 5) clearInterval(t) }, 200)</script>`),
    "/carousel": html(`<main><p id="slide">Slide one of the carousel.</p></main><script>setInterval(() => { document.getElementById("slide").dataset.turn = String(Date.now()) }, 5000)</script>`),
    "/shadow": html(`<main><story-card><span slot="title">Slotted title text</span><p>Light paragraph in the default slot.</p></story-card><plain-card></plain-card></main><script>
      customElements.define("story-card", class extends HTMLElement {
        connectedCallback() {
          const root = this.attachShadow({ mode: "open" })
          root.innerHTML = "<style>p { color: red }</style><h2><slot name=title>Fallback title</slot></h2><p>Text inside the shadow root.</p><inner-note></inner-note><slot></slot><slot name=missing>Fallback for an empty slot.</slot>"
        }
      })
      customElements.define("inner-note", class extends HTMLElement {
        connectedCallback() { this.attachShadow({ mode: "open" }).innerHTML = "<em>A nested shadow root.</em>" }
      })
      customElements.define("plain-card", class extends HTMLElement {
        connectedCallback() { this.attachShadow({ mode: "closed" }).innerHTML = "<p>Closed root text.</p>" }
      })
    </script>`),
    "/light": html(`<main><p id="x">Only light DOM &amp; an entity.</p></main><script>document.getElementById("x").dataset.seen = "1"</script>`)
  })
  runtime = ManagedRuntime.make(layer({ concurrency: 2, policy: { allowPrivate: false, allowedOrigins: [site.url] } }) as Layer.Layer<BrowserEngine>)
})

afterAll(async () => {
  await runtime?.dispose()
  await site?.close()
})

describe("the smart wait and timers", () => {
  it("waits for a short timer armed at load to fire", async () => {
    expect(await render("/timer-1200")).toContain("Written after a second and a bit.")
  })

  it("does not wait for a cleared timer, nor for a long one", async () => {
    expect(await render("/timer-cleared")).toContain("Kept as served.")
    const started = Date.now()
    const long = await render("/timer-long")
    expect(long).not.toContain("Written after twenty seconds.")
    expect(Date.now() - started).toBeLessThan(20_000)
  })
})

describe("the smart wait and intervals", () => {
  it("waits out the gaps of a short interval that adds content, until it is cleared", async () => {
    const body = await render("/ticks")
    for (let n = 1; n <= 5; n++) expect(body).toContain(`Tick number ${n} arrived.`)
  })

  it("does not wait for a long interval (a carousel turning every 5 s)", async () => {
    const started = Date.now()
    expect(await render("/carousel")).toContain("Slide one of the carousel.")
    expect(Date.now() - started).toBeLessThan(5000)
  })
})

describe("shadow roots in the rendered HTML", () => {
  it("flattens open shadow roots with their slots as the reader sees them", async () => {
    const body = await render("/shadow")
    expect(body).toContain("Text inside the shadow root.")
    expect(body).toContain("A nested shadow root.")
    expect(body).toContain("Slotted title text")
    expect(body).not.toContain("Fallback title")
    expect(body).toContain("Light paragraph in the default slot.")
    expect(body).toContain("Fallback for an empty slot.")
    // A closed root is the page's own business.
    expect(body).not.toContain("Closed root text.")
    expect(body.startsWith("<!DOCTYPE html>")).toBe(true)
  })

  it("leaves a page without shadow roots as Chromium serializes it", async () => {
    const body = await render("/light")
    expect(body).toContain(`<p id="x" data-seen="1">Only light DOM &amp; an entity.</p>`)
  })
})
