/**
 * The page cache's end-to-end suite, run on SQLite (Cache.integration.test.ts) and on Postgres
 * (CachePostgres.integration.test.ts): `Strata.layer` (fetch engine and real Chromium) behind the
 * real server on a random loopback port, scraping pages the suite serves on 127.0.0.1 and counts
 * the requests of. The server opens its store as it does in production (its data folder's SQLite
 * file, or STRATA_DATABASE_URL); rows are read back through a second store on the same database.
 *
 * One backend per test file: effect reads the environment once per process (its default config
 * provider is a snapshot), so STRATA_DATABASE_URL must be set before anything reads it.
 */
import { cacheKey, type CachedPage, decodeScrapeRequest, Store } from "@strata/core"
import { layerPg, layerSqlite, sqliteFileIn, type StoreServices } from "@strata/store"
import { Effect, Layer, ManagedRuntime, Option, Redacted } from "effect"
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { DatabaseSync } from "node:sqlite"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startTestServer, tempDir, type TestServer } from "./support.ts"

const KEY = "cache-e2e-key"

const page = (title: string, body: string) =>
  `<!doctype html><html><head><meta charset="utf-8"><title>${title}</title></head><body>${body}</body></html>`

const article = (title: string) =>
  page(title, `<article><h1>${title}</h1><p>${"The harbour fills and empties twice a day with the tide. ".repeat(20)}</p></article>`)

/** Requests the site received, by path and query. */
const hits = new Map<string, number>()
const hitsOf = (path: string) => hits.get(path) ?? 0

let site: Server
let siteUrl: string

const serveSite = (request: { url?: string | undefined; headers: Record<string, unknown> }, response: import("node:http").ServerResponse) => {
  const url = request.url ?? "/"
  hits.set(url, hitsOf(url) + 1)
  const path = url.split("?")[0]
  const html = (body: string) => response.writeHead(200, { "content-type": "text/html; charset=utf-8", "x-site": "harbour" }).end(body)
  switch (path) {
    // A page whose text says which request made it: a second fetch would show another number.
    case "/article":
      return html(article(`Tide table ${hitsOf(url)}`))
    // Slow enough that concurrent scrapes overlap.
    case "/slow":
      return void setTimeout(() => html(article(`Slow tide ${hitsOf(url)}`)), 400)
    // Slower than the shorter timeout below.
    case "/slower":
      return void setTimeout(() => html(article(`Slower tide ${hitsOf(url)}`)), 1500)
    // Empty until its script runs: the automatic choice sends it to the browser.
    case "/spa":
      return html(page("Harbour", `<div id="root"></div><script src="/app.js?${url.split("?")[1] ?? ""}"></script>`))
    case "/app.js":
      return void response.writeHead(200, { "content-type": "text/javascript" }).end(
        `document.getElementById("root").innerHTML = "<main><h1>Harbour boats</h1><p>Kestrel, Marigold and Osprey are moored in the harbour this week.</p></main>"`
      )
    default:
      return void response.writeHead(404).end()
  }
}

/** Starts the server with STRATA_DATABASE_URL as it is now (set it first for Postgres). */
const startServerHere = async (databaseUrl: string | undefined) => {
  const dataDir = tempDir("strata-cache-")
  const { Strata } = await import("strata")
  const server = await startTestServer(
    Strata.layer({ fetch: { allowPrivateUrls: false, allowedOrigins: [siteUrl] }, browser: { concurrency: 2 }, ocr: false, isolation: false }),
    { apiKeys: [KEY], dataDir }
  )
  const rows = databaseUrl === undefined
    ? layerSqlite({ filename: sqliteFileIn(dataDir), cacheMaxBytes: 1024 ** 3 })
    : layerPg({ url: Redacted.make(databaseUrl), cacheMaxBytes: 1024 ** 3 })
  return { server, rows: ManagedRuntime.make(rows as Layer.Layer<StoreServices, unknown>), dataDir }
}

/**
 * The suite on one backend: `database` gives STRATA_DATABASE_URL (already in the environment)
 * for Postgres, undefined for SQLite under the server's data folder.
 */
export const cacheSuite = (name: "sqlite" | "pg", database: () => string | undefined) =>
describe(`the page cache on ${name}`, () => {
  let server: TestServer
  let rows: ManagedRuntime.ManagedRuntime<StoreServices, unknown>
  let dataDir: string
  const backend = { name }

  beforeAll(async () => {
    site = createServer(serveSite)
    await new Promise<void>((resolve) => site.listen(0, "127.0.0.1", resolve))
    siteUrl = `http://127.0.0.1:${(site.address() as AddressInfo).port}`
    ;({ server, rows, dataDir } = await startServerHere(database()))
  }, 120_000)

  afterAll(async () => {
    await server?.close()
    await rows?.dispose()
    site?.closeAllConnections()
    await new Promise((resolve) => site?.close(resolve))
  })

  const scrape = async (body: Record<string, unknown>) => {
    const response = await fetch(`${server.url}/v2/scrape`, {
      method: "POST",
      headers: { authorization: `Bearer ${KEY}`, "content-type": "application/json" },
      body: JSON.stringify(body)
    })
    return { status: response.status, body: await response.json() as Record<string, any> }
  }

  /** The row the cache keeps for a request (decoded as the server decodes it). */
  const rowFor = (body: Record<string, unknown>): Promise<Option.Option<CachedPage>> =>
    rows.runPromise(
      Effect.gen(function*() {
        const request = yield* decodeScrapeRequest(body)
        const store = yield* Store
        return yield* store.cacheGet(cacheKey(request))
      })
    )

  /** Waits for the row a scrape writes after answering (the write never delays the answer). */
  const rowWritten = async (body: Record<string, unknown>) => {
    for (let i = 0; i < 100; i++) {
      const row = await rowFor(body)
      if (Option.isSome(row)) return row.value
      await new Promise((resolve) => setTimeout(resolve, 20))
    }
    throw new Error(`no cache row for ${JSON.stringify(body)}`)
  }

  const pathOf = (label: string) => `/article?case=${backend.name}-${label}`

  it("serves a second identical scrape from the cache, formats computed again", async () => {
    const path = pathOf("hit")
    const first = await scrape({ url: `${siteUrl}${path}`, formats: ["markdown"] })
    expect(first.status).toBe(200)
    expect(first.body.data.metadata.cacheState).toBe("miss")
    expect(first.body.data.metadata.cachedAt).toBeUndefined()
    expect(first.body.data.markdown).toContain("# Tide table 1")
    const row = await rowWritten({ url: `${siteUrl}${path}` })
    expect(row.status).toBe(200)
    expect(row.headers["x-site"]).toBe("harbour")
    expect(row.meta.engine).toBe("fetch")

    const second = await scrape({ url: `${siteUrl}${path}`, formats: ["html", "links"], onlyMainContent: false })
    expect(second.status).toBe(200)
    expect(hitsOf(path)).toBe(1)
    expect(second.body.data.metadata.cacheState).toBe("hit")
    expect(second.body.data.metadata.cachedAt).toBe(new Date(row.fetchedAt).toISOString())
    expect(second.body.data.metadata.sourceURL).toBe(`${siteUrl}${path}`)
    expect(second.body.data.metadata.statusCode).toBe(200)
    expect(second.body.data.html).toContain("<h1>Tide table 1</h1>")
    expect(second.body.data.markdown).toBeUndefined()
    // The same request again: the same data (the rendering may be reused), a scrape id of its own.
    const third = await scrape({ url: `${siteUrl}${path}`, formats: ["html", "links"], onlyMainContent: false })
    expect(third.body.data.html).toBe(second.body.data.html)
    expect(third.body.data.links).toEqual(second.body.data.links)
    expect(third.body.data.metadata.cacheState).toBe("hit")
    expect(third.body.data.metadata.scrapeId).not.toBe(second.body.data.metadata.scrapeId)
    // The same page by another spelling of its URL (the cache's normalisation).
    const respelled = await scrape({ url: `${siteUrl}${path}#top` })
    expect(respelled.body.data.metadata.cacheState).toBe("hit")
    expect(hitsOf(path)).toBe(1)
  })

  it("fetches again for maxAge: 0 and when the copy is older than maxAge", async () => {
    const path = pathOf("maxage")
    await scrape({ url: `${siteUrl}${path}` })
    await rowWritten({ url: `${siteUrl}${path}` })
    const fresh = await scrape({ url: `${siteUrl}${path}`, maxAge: 0 })
    expect(hitsOf(path)).toBe(2)
    expect(fresh.body.data.markdown).toContain("# Tide table 2")
    expect(fresh.body.data.metadata.cacheState).toBeUndefined()
    await new Promise((resolve) => setTimeout(resolve, 300))
    const stale = await scrape({ url: `${siteUrl}${path}`, maxAge: 200 })
    expect(stale.body.data.metadata.cacheState).toBe("miss")
    expect(hitsOf(path)).toBe(3)
  })

  it("answers minAge from the cache alone: 404 SCRAPE_NO_CACHED_DATA on a miss, the copy on a hit", async () => {
    const path = pathOf("minage")
    const miss = await scrape({ url: `${siteUrl}${path}`, minAge: 1 })
    expect(miss.status).toBe(404)
    expect(miss.body).toMatchObject({ success: false, code: "SCRAPE_NO_CACHED_DATA" })
    expect(hitsOf(path)).toBe(0)
    await scrape({ url: `${siteUrl}${path}` })
    await rowWritten({ url: `${siteUrl}${path}` })
    // Younger than the minimum age asked for: still no fit.
    expect((await scrape({ url: `${siteUrl}${path}`, minAge: 60_000 })).body.code).toBe("SCRAPE_NO_CACHED_DATA")
    const hit = await scrape({ url: `${siteUrl}${path}`, minAge: 1 })
    expect(hit.status).toBe(200)
    expect(hit.body.data.metadata.cacheState).toBe("hit")
    expect(hitsOf(path)).toBe(1)
  })

  it("answers lockdown from the cache alone and never fetches; the URL is not logged", async () => {
    const path = pathOf("lockdown")
    const miss = await scrape({ url: `${siteUrl}${path}`, lockdown: true })
    expect(miss.status).toBe(404)
    expect(miss.body).toMatchObject({ success: false, code: "SCRAPE_LOCKDOWN_CACHE_MISS" })
    expect(hitsOf(path)).toBe(0)
    await scrape({ url: `${siteUrl}${path}` })
    await rowWritten({ url: `${siteUrl}${path}` })
    const hit = await scrape({ url: `${siteUrl}${path}`, lockdown: true, formats: ["markdown"] })
    expect(hit.status).toBe(200)
    expect(hit.body.data.markdown).toContain("# Tide table 1")
    expect(hit.body.data.metadata.cacheState).toBe("hit")
    expect(hitsOf(path)).toBe(1)
    expect(JSON.stringify(server.logs.filter((line) => line.status === 404))).not.toContain(path)
  })

  it("leaves no row for storeInCache: false or zero data retention", async () => {
    for (const [name, option] of [["nostore", { storeInCache: false }], ["zdr", { zeroDataRetention: true }]] as const) {
      const path = pathOf(name)
      const answer = await scrape({ url: `${siteUrl}${path}`, ...option })
      expect(answer.status).toBe(200)
      await new Promise((resolve) => setTimeout(resolve, 300))
      expect(Option.isNone(await rowFor({ url: `${siteUrl}${path}` }))).toBe(true)
      // And the next scrape of the page fetches it.
      const next = await scrape({ url: `${siteUrl}${path}` })
      expect(next.body.data.metadata.cacheState).toBe("miss")
      expect(hitsOf(path)).toBe(2)
    }
  })

  it("leaves no row for a team with zero data retention", async () => {
    const key = await rows.runPromise(Effect.gen(function*() {
      const store = yield* Store
      yield* store.setTeam(`zdr-${backend.name}`, { zdr: true })
      return (yield* store.createKey(`zdr-${backend.name}`)).key
    }))
    const path = pathOf("team-zdr")
    const response = await fetch(`${server.url}/v2/scrape`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({ url: `${siteUrl}${path}` })
    })
    expect(response.status).toBe(200)
    await new Promise((resolve) => setTimeout(resolve, 300))
    expect(Option.isNone(await rowFor({ url: `${siteUrl}${path}` }))).toBe(true)
  })

  it("keeps other entries for another mobile or location", async () => {
    const path = pathOf("variants")
    const url = `${siteUrl}${path}`
    await scrape({ url })
    await rowWritten({ url })
    const mobile = await scrape({ url, mobile: true })
    expect(mobile.status).toBe(200)
    expect(mobile.body.data.metadata.cacheState).toBe("miss")
    expect(hitsOf(path)).toBe(2)
    await rowWritten({ url, mobile: true })
    const german = await scrape({ url, location: { country: "DE" } })
    expect(german.body.data.metadata.cacheState).toBe("miss")
    expect(hitsOf(path)).toBe(3)
    await rowWritten({ url, location: { country: "DE" } })
    // Each variant is then a hit of its own.
    for (const variant of [{}, { mobile: true }, { location: { country: "DE" } }]) {
      expect((await scrape({ url, ...variant })).body.data.metadata.cacheState).toBe("hit")
    }
    expect(hitsOf(path)).toBe(3)
  })

  it("treats waitFor as a minimum: a longer wait serves a shorter one, not the reverse", async () => {
    const path = pathOf("waitfor")
    const url = `${siteUrl}${path}`
    await scrape({ url, waitFor: 600 })
    const row = await rowWritten({ url })
    expect(row.meta).toMatchObject({ engine: "browser", waitMs: 600 })
    expect((await scrape({ url, waitFor: 300 })).body.data.metadata.cacheState).toBe("hit")
    expect((await scrape({ url })).body.data.metadata.cacheState).toBe("hit")
    expect(hitsOf(path)).toBe(1)
    const longer = await scrape({ url, waitFor: 1000 })
    expect(longer.body.data.metadata.cacheState).toBe("miss")
    expect(hitsOf(path)).toBe(2)
  })

  it("fetches once for 8 concurrent identical scrapes", async () => {
    const path = `/slow?case=${backend.name}`
    const answers = await Promise.all(Array.from({ length: 8 }, () => scrape({ url: `${siteUrl}${path}` })))
    expect(answers.map((a) => a.status)).toEqual(Array(8).fill(200))
    expect(hitsOf(path)).toBe(1)
    for (const answer of answers) expect(answer.body.data.markdown).toContain("# Slow tide 1")
  })

  it("fetches for itself when the scrape it waited on ran out of its own time", async () => {
    const path = `/slower?case=${backend.name}`
    const [short, long] = await Promise.all([
      scrape({ url: `${siteUrl}${path}`, timeout: 1000 }),
      new Promise((resolve) => setTimeout(resolve, 100)).then(() => scrape({ url: `${siteUrl}${path}`, timeout: 10_000 }))
    ])
    expect(short.status).toBe(408)
    expect(long.status).toBe(200)
    expect(long.body.data.markdown).toContain("# Slower tide")
    expect(hitsOf(path)).toBe(2)
  })

  it("serves a browser-rendered page from the cache, scripts not run again", async () => {
    const query = `case=${backend.name}`
    const url = `${siteUrl}/spa?${query}`
    const first = await scrape({ url })
    expect(first.body.data.metadata.engine).toBe("browser")
    expect(first.body.data.markdown).toContain("# Harbour boats")
    await rowWritten({ url })
    const before = [hitsOf(`/spa?${query}`), hitsOf(`/app.js?${query}`)]
    const second = await scrape({ url, formats: ["markdown", "rawHtml"] })
    expect(second.body.data.metadata).toMatchObject({ cacheState: "hit", engine: "browser" })
    expect(second.body.data.markdown).toContain("Kestrel, Marigold and Osprey")
    expect(second.body.data.rawHtml).toContain("<h1>Harbour boats</h1>")
    expect([hitsOf(`/spa?${query}`), hitsOf(`/app.js?${query}`)]).toEqual(before)
  })

  it.runIf(backend.name === "sqlite")("serves a miss when the store fails, and 503 for lockdown", async () => {
    const path = pathOf("broken")
    // A real store failure: the cache's table is gone from under the server.
    const database = new DatabaseSync(sqliteFileIn(dataDir))
    database.exec("ALTER TABLE cache_entries RENAME TO cache_entries_gone")
    database.close()
    const answer = await scrape({ url: `${siteUrl}${path}` })
    expect(answer.status).toBe(200)
    expect(answer.body.data.markdown).toContain("# Tide table 1")
    expect(answer.body.data.metadata.cacheState).toBe("miss")
    const locked = await scrape({ url: `${siteUrl}${path}`, lockdown: true })
    expect(locked.status).toBe(503)
    expect(locked.body.code).toBe("SCRAPE_CACHE_UNAVAILABLE")
  })
})
