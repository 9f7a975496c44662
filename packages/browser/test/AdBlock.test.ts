/**
 * `blockAds` against real Chromium: a request the packaged lists name never leaves the browser
 * (a counting server on loopback, reached through host names the lists block, which the SSRF
 * proxy maps to 127.0.0.1), and a consent banner's text is gone from the markdown, while
 * `blockAds: false` leaves both alone.
 */
import { BrowserEngine, type BrowserRequest, htmlToMarkdown } from "@strata/core"
import { Layer, ManagedRuntime } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { buildAdBlocker, trackerRules } from "../src/AdBlock.ts"
import { layer } from "../src/index.ts"
import { html, serve, type Site } from "./Pages.ts"

let site: Site
let ads: Site
let runtime: ManagedRuntime.ManagedRuntime<BrowserEngine, never>

const base: Omit<BrowserRequest, "url"> = { skipTlsVerification: false, mobile: false, waitFor: 0, actions: [] }
const render = async (path: string, blockAds: boolean) => {
  const page = await runtime.runPromise(BrowserEngine.use((engine) => engine.render({ ...base, url: `${site.url}${path}`, blockAds }, Date.now() + 45_000)))
  return htmlToMarkdown(new TextDecoder().decode(page.body).replace(/<script\b[\s\S]*?<\/script>/g, ""))
}
const hitsOf = (prefix: string) => ads.hits.filter((hit) => hit.startsWith(prefix)).length

// Host names the lists block (doubleclick: advertising; mmtro: site analytics; names without HSTS preloading, which would turn http into https), and one they do not.
const AD_HOST = "securepubads.g.doubleclick.net"
const TRACKER_HOST = "pixel.mmtro.com"
const PLAIN_HOST = "static.strata-fixtures.test"

beforeAll(async () => {
  ads = await serve({
    "/tag/js/gpt.js": (_q, r) => r.writeHead(200, { "content-type": "text/javascript" }).end(`document.body.insertAdjacentHTML("beforeend", "<p>Advert inserted by the ad script.</p>")`),
    "/collect": (_q, r) => r.writeHead(200, { "content-type": "image/gif" }).end(Buffer.from("R0lGODlhAQABAAAAACw=", "base64")),
    "/widget.js": (_q, r) => r.writeHead(200, { "content-type": "text/javascript" }).end(`document.body.insertAdjacentHTML("beforeend", "<p>Widget text from a plain host.</p>")`)
  })
  const port = new URL(ads.url).port
  site = await serve({
    "/article": html(`<main><h1>Tides</h1><p>The tide comes in twice a day.</p></main>
      <div id="cookie-banner"><p>We use cookies to improve your experience. Accept all?</p><button>Accept</button></div>
      <script src="http://${AD_HOST}:${port}/tag/js/gpt.js"></script>
      <img src="http://${TRACKER_HOST}:${port}/collect?v=1" alt="">
      <script src="http://${PLAIN_HOST}:${port}/widget.js"></script>
      <script>setTimeout(() => document.body.insertAdjacentHTML("beforeend",
        '<div id="onetrust-banner-sdk"><p>This site shares data with 842 partners.</p></div>'), 100)</script>`)
  })
  runtime = ManagedRuntime.make(layer({
    concurrency: 2,
    policy: { allowPrivate: true, hosts: { [AD_HOST]: "127.0.0.1", [TRACKER_HOST]: "127.0.0.1", [PLAIN_HOST]: "127.0.0.1" } }
  }) as Layer.Layer<BrowserEngine>)
})

afterAll(async () => {
  await runtime?.dispose()
  await site?.close()
  await ads?.close()
})

describe("blockAds", () => {
  it("does not request an ad script or a tracking pixel, and removes consent banners", async () => {
    const markdown = await render("/article", true)
    expect(markdown).toContain("The tide comes in twice a day.")
    // The plain host was requested through the same mapping: the blocked ones could have been.
    expect(hitsOf("/widget.js")).toBe(1)
    expect(markdown).toContain("Widget text from a plain host.")
    expect(hitsOf("/tag/js/gpt.js")).toBe(0)
    expect(hitsOf("/collect")).toBe(0)
    expect(markdown).not.toContain("Advert inserted by the ad script.")
    expect(markdown).not.toContain("We use cookies")
    expect(markdown).not.toContain("842 partners")
  })

  it("leaves the page as it is with blockAds: false", async () => {
    const before = { ad: hitsOf("/tag/js/gpt.js"), pixel: hitsOf("/collect") }
    const markdown = await render("/article", false)
    expect(hitsOf("/tag/js/gpt.js")).toBe(before.ad + 1)
    expect(hitsOf("/collect")).toBe(before.pixel + 1)
    expect(markdown).toContain("Advert inserted by the ad script.")
    expect(markdown).toContain("We use cookies to improve your experience.")
    expect(markdown).toContain("This site shares data with 842 partners.")
  })

  it("never blocks the page the scrape asked for, even on a listed host", async () => {
    const page = await runtime.runPromise(BrowserEngine.use((engine) =>
      engine.render({ ...base, url: `http://${AD_HOST}:${new URL(ads.url).port}/tag/js/gpt.js`, blockAds: true }, Date.now() + 45_000)
    ))
    expect(new TextDecoder().decode(page.body)).toContain("Advert inserted by the ad script.")
  })
})

describe("the packaged lists", () => {
  it("keeps the filter rules of the blocked categories, not the bare domains", () => {
    const rules = trackerRules([
      "! trackerdb_id:a trackerdb_category:advertising trackerdb_filter",
      "||ads.example^$3p",
      "! trackerdb_id:a trackerdb_category:advertising trackerdb_domain",
      "||example^",
      "! trackerdb_id:b trackerdb_category:hosting trackerdb_filter",
      "||cdn.example^$3p",
      ""
    ].join("\n"))
    expect(rules).toEqual(["||ads.example^$3p"])
  })

  it("builds an engine that tells ads from a page's own requests", () => {
    const blocker = buildAdBlocker()
    expect(blocker.stats.networkRules).toBeGreaterThan(1000)
    expect(blocker.stats.cosmeticRules).toBeGreaterThan(10_000)
    expect(blocker.blocks("https://securepubads.g.doubleclick.net/tag/js/gpt.js", "script", "https://news.example/")).toBe(true)
    expect(blocker.blocks("https://news.example/app.js", "script", "https://news.example/")).toBe(false)
    expect(blocker.selectors("https://news.example/", { ids: ["onetrust-banner-sdk"], classes: [], hrefs: [] })).toContain("#onetrust-banner-sdk")
  })
})
