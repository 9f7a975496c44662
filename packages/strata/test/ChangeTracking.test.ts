/**
 * changeTracking in the library: refused (400 `NotSupported`) without a store, since there is
 * nowhere to keep a page's history; with one (`cache`), the default team's history, compared
 * across handles on the same database. Scrapes a page this test serves on 127.0.0.1.
 */
import { layerSqlite } from "@strata/store"
import { mkdtempSync } from "node:fs"
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { createStrata, type ScrapeError } from "../src/index.ts"

let site: Server
let base = ""
let price = "$10"

beforeAll(async () => {
  site = createServer((_request, response) => {
    response.writeHead(200, { "content-type": "text/html; charset=utf-8" })
    response.end(`<html><head><title>Price</title></head><body><main><h1>Price</h1><p>It costs ${price}.</p></main></body></html>`)
  })
  await new Promise<void>((resolve) => site.listen(0, "127.0.0.1", resolve))
  base = `http://127.0.0.1:${(site.address() as AddressInfo).port}`
})

afterAll(async () => {
  site.closeAllConnections()
  await new Promise((resolve) => site.close(resolve))
})

const options = () => ({ fetch: { allowPrivateUrls: false, allowedOrigins: [base] }, browser: false as const, ocr: false as const, isolation: false as const })
const formats = ["markdown" as const, { type: "changeTracking" as const, modes: ["git-diff" as const] }]

describe("changeTracking in the library", () => {
  it("is refused without a store, before anything is fetched", async () => {
    await using strata = createStrata(options())
    const refused = await strata.scrape(`${base}/price`, { formats }).catch((error: ScrapeError) => error)
    expect((refused as ScrapeError).reason._tag).toBe("NotSupported")
    expect((refused as ScrapeError).message).toContain("no state store")
  })

  it("with a store, compares with the last scrape, also from another handle on the same database", async () => {
    const filename = join(mkdtempSync(join(tmpdir(), "strata-lib-changes-")), "own.db")
    const store = () => layerSqlite({ filename, cacheMaxBytes: 1024 * 1024 })
    {
      await using strata = createStrata({ ...options(), cache: store() })
      expect((await strata.scrape(`${base}/price`, { formats })).changeTracking?.changeStatus).toBe("new")
    }
    price = "$12"
    await using again = createStrata({ ...options(), cache: store() })
    const changed = await again.scrape(`${base}/price`, { formats })
    expect(changed.changeTracking?.changeStatus).toBe("changed")
    expect(changed.changeTracking?.diff).toContain("-It costs $10.\n+It costs $12.")
  })
})
