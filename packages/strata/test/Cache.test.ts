/**
 * The library's page cache: off by default (every scrape fetches, `lockdown` is refused), on with
 * `cache: true` (SQLite in STRATA_DATA_DIR/strata.db, set before anything in this file reads the
 * environment) or with a store layer of the caller's. Scrapes a page this test serves on
 * 127.0.0.1 and counts the requests of.
 */
import { layerSqlite } from "@strata/store"
import { existsSync, mkdtempSync } from "node:fs"
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { createStrata, type ScrapeError } from "../src/index.ts"

const dataDir = mkdtempSync(join(tmpdir(), "strata-lib-cache-"))
process.env.STRATA_DATA_DIR = dataDir

let site: Server
let base = ""
const hits = new Map<string, number>()

beforeAll(async () => {
  site = createServer((request, response) => {
    const url = request.url ?? "/"
    hits.set(url, (hits.get(url) ?? 0) + 1)
    response.writeHead(200, { "content-type": "text/html; charset=utf-8" })
    response.end(`<html><head><title>Lib</title></head><body><main><h1>Visit ${hits.get(url)}</h1><p>${"Words of the main content, plainly written. ".repeat(8)}</p></main></body></html>`)
  })
  await new Promise<void>((resolve) => site.listen(0, "127.0.0.1", resolve))
  base = `http://127.0.0.1:${(site.address() as AddressInfo).port}`
})

afterAll(async () => {
  site.closeAllConnections()
  await new Promise((resolve) => site.close(resolve))
})

const options = () => ({ fetch: { allowPrivateUrls: false, allowedOrigins: [base] }, browser: false as const, ocr: false as const, isolation: false as const })

/** Scrapes `path` until the second scrape is served from the cache (the row is written after the first answer). */
const scrapeTwice = async (strata: ReturnType<typeof createStrata>, path: string) => {
  const first = await strata.scrape(`${base}${path}`)
  for (let i = 0; i < 50; i++) {
    const next = await strata.scrape(`${base}${path}`, { minAge: 1 }).catch((error: ScrapeError) => error)
    if (!("reason" in next)) return { first, second: next }
    expect(next.reason._tag).toBe("NoCachedData")
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
  throw new Error("the page never reached the cache")
}

describe("the library's page cache", () => {
  it("is off by default: every scrape fetches, lockdown is refused", async () => {
    await using strata = createStrata(options())
    const first = await strata.scrape(`${base}/default`)
    const second = await strata.scrape(`${base}/default`)
    expect(hits.get("/default")).toBe(2)
    expect(second.markdown).toContain("# Visit 2")
    expect(first.metadata?.cacheState).toBeUndefined()
    const refused = await strata.scrape(`${base}/default`, { lockdown: true }).catch((error: ScrapeError) => error)
    expect((refused as ScrapeError).reason._tag).toBe("NotSupported")
    expect(existsSync(join(dataDir, "strata.db"))).toBe(false)
  })

  it("with cache: true, keeps pages in STRATA_DATA_DIR/strata.db and serves them again", async () => {
    await using strata = createStrata({ ...options(), cache: true })
    const { first, second } = await scrapeTwice(strata, "/on")
    expect(first.metadata?.cacheState).toBe("miss")
    expect(second.metadata?.cacheState).toBe("hit")
    expect(second.markdown).toContain("# Visit 1")
    expect(hits.get("/on")).toBe(1)
    expect(existsSync(join(dataDir, "strata.db"))).toBe(true)
  })

  it("uses a store layer it is given", async () => {
    const filename = join(mkdtempSync(join(tmpdir(), "strata-lib-store-")), "own.db")
    await using strata = createStrata({ ...options(), cache: layerSqlite({ filename, cacheMaxBytes: 1024 * 1024 }) })
    const { second } = await scrapeTwice(strata, "/own")
    expect(second.metadata?.cacheState).toBe("hit")
    expect(hits.get("/own")).toBe(1)
    expect(existsSync(filename)).toBe(true)
  })
})
