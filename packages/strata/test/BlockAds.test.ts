/**
 * `blockAds` on a page the fetch engine serves (no browser in the layer): the packaged
 * cookie-notice rules remove a consent banner, by id (`#cookie-banner`) and by class
 * (`.consent-bar`), from the parsed page before main content is chosen, so its text is not in
 * the markdown; `blockAds: false` keeps it. The article around it is untouched.
 */
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { createStrata, type StrataClient } from "../src/index.ts"

let server: Server
let base = ""
let strata: StrataClient
let hits = 0

const paragraph = "The tide comes in twice a day, and the harbour wall was built to hold the spring tides back from the market square."
const page = `<html><head><title>Tides</title></head><body>
<div id="cookie-banner"><p>We use cookies to improve your experience. Accept all cookies?</p><button>Accept</button></div>
<main><h1>Tides</h1><p>${paragraph}</p><p>${paragraph}</p></main>
<div class="consent-bar"><p>Our 842 partners process your personal data.</p></div>
</body></html>`

beforeAll(async () => {
  server = createServer((_req, res) => {
    hits++
    res.setHeader("content-type", "text/html; charset=utf-8")
    res.end(page)
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  strata = createStrata({ browser: false, isolation: false, ocr: false, fetch: { allowPrivateUrls: true } })
})

afterAll(async () => {
  await strata?.close()
  server.closeAllConnections()
  server.close()
})

describe("blockAds through the fetch engine", () => {
  it("removes the consent banners by default (blockAds: true) and keeps them with blockAds: false", async () => {
    for (const onlyMainContent of [true, false]) {
      const blocked = await strata.scrape(`${base}/tides`, { formats: ["markdown"], onlyMainContent })
      expect(blocked.metadata?.engine).toBe("fetch")
      expect(blocked.markdown).toContain("The tide comes in twice a day")
      expect(blocked.markdown).not.toContain("We use cookies")
      expect(blocked.markdown).not.toContain("842 partners")

      const kept = await strata.scrape(`${base}/tides`, { formats: ["markdown"], onlyMainContent, blockAds: false })
      expect(kept.markdown).toContain("The tide comes in twice a day")
      if (!onlyMainContent) {
        expect(kept.markdown).toContain("We use cookies")
        expect(kept.markdown).toContain("842 partners")
      }
    }
    expect(hits).toBe(4)
  })

  it("keeps the banner in the page's HTML format only when blockAds is false", async () => {
    const blocked = await strata.scrape(`${base}/tides`, { formats: ["html"], onlyMainContent: false })
    expect(blocked.html).not.toContain("cookie-banner")
    const kept = await strata.scrape(`${base}/tides`, { formats: ["html"], onlyMainContent: false, blockAds: false })
    expect(kept.html).toContain("We use cookies")
  })
})
