/**
 * The metering cases (billing, limits, idempotency, audit) every backend runs, through the real
 * server (the real pipeline, `StrataLive`) on loopback: `Metering.test.ts` runs them on SQLite,
 * `MeteringPostgres.integration.test.ts` on Postgres. Teams are set up through the Store on the
 * server's own database; a page server that counts its hits proves what was (not) executed, and
 * every scrape asks for `maxAge: 0` unless told otherwise, so the cache never stands in for a run.
 */
import { chargeIdFor, paramsHash, Store, type TeamSettings, validateScrapeRequest } from "@strata/core"
import { layerPg, layerSqlite, sqliteFileIn, type StoreServices } from "@strata/store"
import { Effect, type Layer, ManagedRuntime, Redacted } from "effect"
import { readFileSync } from "node:fs"
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { join } from "node:path"
import { PDFDocument, StandardFonts } from "pdf-lib"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startTestServer, tempDir, type TestServer } from "./support.ts"

let site: Server
export let siteUrl = ""
const hits = new Map<string, number>()
export const hitsOf = (path: string) => hits.get(path) ?? 0
let pdfBytes: Uint8Array = new Uint8Array()
const allowPrivateBefore = process.env.STRATA_ALLOW_PRIVATE_URLS

const makePdf = async (pages: number) => {
  const pdf = await PDFDocument.create()
  const font = await pdf.embedFont(StandardFonts.Helvetica)
  for (let n = 1; n <= pages; n++) pdf.addPage([612, 792]).drawText(`Page ${n} of the survey`, { x: 72, y: 700, size: 18, font })
  return pdf.save()
}

/** Starts the counting page server (call in `beforeAll`); `stopSite` stops it. */
export const startSite = async () => {
  process.env.STRATA_ALLOW_PRIVATE_URLS = "1"
  pdfBytes = await makePdf(3)
  site = createServer((request, response) => {
    const url = new URL(request.url ?? "/", "http://x")
    hits.set(url.pathname, hitsOf(url.pathname) + 1)
    if (url.pathname === "/doc.pdf") {
      response.writeHead(200, { "content-type": "application/pdf" })
      response.end(pdfBytes)
      return
    }
    const html = `<!doctype html><html><head><title>${url.pathname}</title></head><body><main><h1>Page ${url.pathname}</h1>` +
      `<p>Some text that is long enough to be the main content of this page.</p></main></body></html>`
    const delay = Number(url.searchParams.get("ms") ?? "0")
    const timer = setTimeout(() => {
      response.writeHead(200, { "content-type": "text/html; charset=utf-8" })
      response.end(html)
    }, delay)
    response.on("close", () => clearTimeout(timer))
  })
  await new Promise<void>((resolve) => site.listen(0, "127.0.0.1", resolve))
  siteUrl = `http://127.0.0.1:${(site.address() as AddressInfo).port}`
}

export const stopSite = async () => {
  if (allowPrivateBefore === undefined) delete process.env.STRATA_ALLOW_PRIVATE_URLS
  else process.env.STRATA_ALLOW_PRIVATE_URLS = allowPrivateBefore
  site?.closeAllConnections()
  await new Promise((resolve) => site?.close(resolve))
}

/** A server on a database of its own (or on `database`, for replicas), and the store to set teams up with. */
export interface Deployment {
  readonly server: TestServer
  readonly store: ManagedRuntime.ManagedRuntime<Store, unknown>
  readonly database: string
  readonly close: () => Promise<void>
}

export type BackendName = "sqlite" | "pg"

const storeLayerFor = (backend: BackendName, database: string): Layer.Layer<StoreServices, unknown> =>
  backend === "pg"
    ? layerPg({ url: Redacted.make(database), cacheMaxBytes: 1024 * 1024, maxConnections: 4 })
    : layerSqlite({ filename: database, cacheMaxBytes: 1024 * 1024 })

/**
 * A server with a store of its own: SQLite in a new data folder, or the Postgres database that
 * STRATA_DATABASE_URL names (effect reads the environment once per process, so a Postgres test
 * file sets it before its first server and all its servers share that database).
 */
export const deploy = async (
  backend: BackendName,
  options: { readonly config?: Parameters<typeof startTestServer>[1] } = {}
): Promise<Deployment> => {
  const dataDir = tempDir("strata-metering-")
  const database = backend === "pg" ? process.env.STRATA_DATABASE_URL! : sqliteFileIn(dataDir)
  const { Strata } = await import("strata")
  const server = await startTestServer(Strata.StrataLive, { apiKeys: ["default-key"], dataDir, ...options.config })
  const store = ManagedRuntime.make(storeLayerFor(backend, database))
  return {
    server,
    store,
    database,
    close: async () => {
      await server.close()
      await store.dispose()
    }
  }
}

export const withStore = <A, E>(deployment: Deployment, body: (store: Store["Service"]) => Effect.Effect<A, E>) =>
  deployment.store.runPromise(Effect.flatMap(Store, body))

/** A team with these settings and a fresh key for it. */
export const teamWith = (deployment: Deployment, teamId: string, settings: TeamSettings) =>
  withStore(deployment, (store) => Effect.andThen(store.setTeam(teamId, settings), store.createKey(teamId))).then((created) => created.key)

export const balanceOf = (deployment: Deployment, teamId: string) => withStore(deployment, (store) => store.balance(teamId))

export const scrape = async (server: { url: string }, key: string, body: Record<string, unknown>, headers: Record<string, string> = {}) => {
  const response = await fetch(`${server.url}/v2/scrape`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json", ...headers },
    body: JSON.stringify({ maxAge: 0, ...body })
  })
  return { status: response.status, headers: response.headers, body: (await response.json()) as Record<string, any> }
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** The cases every backend runs. */
export const meteringCases = (backend: BackendName) => {
describe(`metering on ${backend}`, () => {
  let deployment: Deployment
  beforeAll(async () => {
    deployment = await deploy(backend)
  }, 60_000)
  afterAll(() => deployment?.close())

  it("answers 402 with nothing executed when the balance is below the request's cost", async () => {
    const key = await teamWith(deployment, "broke", { credits: 0 })
    const before = hitsOf("/broke")
    const response = await scrape(deployment.server, key, { url: `${siteUrl}/broke` }, { "x-request-id": "broke-1" })
    expect(response.status).toBe(402)
    expect(response.body).toMatchObject({ success: false, code: "insufficient_credits", chargeId: chargeIdFor("broke", "broke-1") })
    expect(hitsOf("/broke")).toBe(before)
    // Zero data retention costs 1 more: 1 credit is not enough for it either.
    const zdrKey = await teamWith(deployment, "one-credit", { credits: 1 })
    const zdr = await scrape(deployment.server, zdrKey, { url: `${siteUrl}/broke`, zeroDataRetention: true })
    expect(zdr.status).toBe(402)
    expect(hitsOf("/broke")).toBe(before)
    expect(await balanceOf(deployment, "one-credit")).toBe(1)
  })

  it("charges a PDF 1 credit per page, and a flat 1 with parsers: []", async () => {
    const key = await teamWith(deployment, "pdf", { credits: 10 })
    const pages = await scrape(deployment.server, key, { url: `${siteUrl}/doc.pdf` })
    expect(pages.status).toBe(200)
    expect(pages.body.data.metadata).toMatchObject({ numPages: 3, creditsUsed: 3 })
    expect(await balanceOf(deployment, "pdf")).toBe(7)
    const flat = await scrape(deployment.server, key, { url: `${siteUrl}/doc.pdf`, parsers: [] })
    expect(flat.status).toBe(200)
    expect(flat.body.data.metadata.creditsUsed).toBe(1)
    expect(await balanceOf(deployment, "pdf")).toBe(6)
  })

  it("charges 16 concurrent requests exactly once each, and refuses past the balance", async () => {
    const key = await teamWith(deployment, "burst", { credits: 100 })
    const answers = await Promise.all(Array.from({ length: 16 }, (_, n) => scrape(deployment.server, key, { url: `${siteUrl}/burst/${n}` })))
    expect(answers.map((answer) => answer.status)).toEqual(Array(16).fill(200))
    expect(answers.reduce((sum, answer) => sum + answer.body.data.metadata.creditsUsed, 0)).toBe(16)
    expect(await balanceOf(deployment, "burst")).toBe(84)
    // 16 at once against 10 credits: exactly 10 are answered, the rest are refused, none is lost.
    const tightKey = await teamWith(deployment, "tight", { credits: 10 })
    const tight = await Promise.all(Array.from({ length: 16 }, (_, n) => scrape(deployment.server, tightKey, { url: `${siteUrl}/tight/${n}` })))
    expect(tight.filter((answer) => answer.status === 200)).toHaveLength(10)
    expect(tight.filter((answer) => answer.status === 402)).toHaveLength(6)
    expect(await balanceOf(deployment, "tight")).toBe(0)
  })

  it("answers 429 with { error } only past the team's rate limit, before anything runs", async () => {
    const key = await teamWith(deployment, "chatty", { rateLimit: 3 })
    const before = hitsOf("/chatty")
    for (let n = 0; n < 3; n++) expect((await scrape(deployment.server, key, { url: `${siteUrl}/chatty` })).status).toBe(200)
    const limited = await scrape(deployment.server, key, { url: `${siteUrl}/chatty` })
    expect(limited.status).toBe(429)
    expect(Object.keys(limited.body)).toEqual(["error"])
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0)
    expect(hitsOf("/chatty")).toBe(before + 3)
  })

  it("queues a team's requests first in, first out at concurrency 1 and reports the wait", async () => {
    const key = await teamWith(deployment, "single", { concurrency: 1 })
    const first = scrape(deployment.server, key, { url: `${siteUrl}/single/a?ms=1200` })
    await sleep(300)
    const secondSent = Date.now()
    const second = scrape(deployment.server, key, { url: `${siteUrl}/single/b?ms=600` })
    await sleep(100)
    const thirdSent = Date.now()
    const third = scrape(deployment.server, key, { url: `${siteUrl}/single/c` })
    const [a, b, c] = await Promise.all([first, second, third])
    expect([a.status, b.status, c.status]).toEqual([200, 200, 200])
    expect(a.body.data.metadata.concurrencyLimited).toBe(false)
    expect(a.body.data.metadata).not.toHaveProperty("concurrencyQueueDurationMs")
    expect(b.body.data.metadata.concurrencyLimited).toBe(true)
    expect(b.body.data.metadata.concurrencyQueueDurationMs).toBeGreaterThan(500)
    expect(c.body.data.metadata.concurrencyLimited).toBe(true)
    // First in, first out: the third got the slot only once the second (600 ms of page) gave it back.
    const secondRan = secondSent + b.body.data.metadata.concurrencyQueueDurationMs
    const thirdRan = thirdSent + c.body.data.metadata.concurrencyQueueDurationMs
    expect(thirdRan - secondRan).toBeGreaterThanOrEqual(550)
  })

  it("answers 408 SCRAPE_TIMEOUT once the queue wait passes two thirds of the timeout", async () => {
    const key = await teamWith(deployment, "waiting", { concurrency: 1 })
    const before = hitsOf("/waiting/b")
    const slow = scrape(deployment.server, key, { url: `${siteUrl}/waiting/a?ms=3500`, timeout: 10_000 })
    await sleep(300)
    const started = Date.now()
    const late = await scrape(deployment.server, key, { url: `${siteUrl}/waiting/b`, timeout: 1500 })
    const waited = Date.now() - started
    expect(late.status).toBe(408)
    expect(late.body).toMatchObject({ success: false, code: "SCRAPE_TIMEOUT" })
    // Given up at 2/3 of 1500 ms (1000 ms), long before the slot frees (3.5 s); slack for a loaded machine.
    expect(waited).toBeGreaterThanOrEqual(900)
    expect(waited).toBeLessThan(2500)
    expect(hitsOf("/waiting/b")).toBe(before)
    expect((await slow).status).toBe(200)
  })

  it("puts the request's chargeId on every error body when an x-request-id was sent: a bad body, a bad field, the queue's 408, the pipeline's 408", async () => {
    const key = await teamWith(deployment, "charged-errors", { credits: 20, concurrency: 1 })
    const expectCharged = (answer: { status: number; body: Record<string, any> }, status: number, code: string, requestId: string) => {
      expect(answer.status).toBe(status)
      expect(answer.body).toMatchObject({ success: false, code, chargeId: chargeIdFor("charged-errors", requestId) })
    }
    const notJson = await fetch(`${deployment.server.url}/v2/scrape`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json", "x-request-id": "bad-json-1" },
      body: "{ not json"
    })
    expectCharged({ status: notJson.status, body: (await notJson.json()) as Record<string, any> }, 400, "BAD_REQUEST", "bad-json-1")
    expectCharged(await scrape(deployment.server, key, { url: "not a url" }, { "x-request-id": "bad-url-1" }), 400, "BAD_REQUEST", "bad-url-1")
    expectCharged(await scrape(deployment.server, key, { url: `${siteUrl}/c`, formats: ["nonsense"] }, { "x-request-id": "bad-format-1" }), 400, "BAD_REQUEST", "bad-format-1")
    // The pipeline's own timeout: the page takes 3 s, the request allows 1 s.
    expectCharged(await scrape(deployment.server, key, { url: `${siteUrl}/charged-slow?ms=3000`, timeout: 1000 }, { "x-request-id": "slow-page-1" }), 408, "SCRAPE_TIMEOUT", "slow-page-1")
    // The queue's: one slot, held for 3 s; the waiter gives up at two thirds of 1.5 s.
    const holder = scrape(deployment.server, key, { url: `${siteUrl}/charged-hold?ms=3000`, timeout: 10_000 })
    await sleep(300)
    expectCharged(await scrape(deployment.server, key, { url: `${siteUrl}/charged-queued`, timeout: 1500 }, { "x-request-id": "queued-1" }), 408, "SCRAPE_TIMEOUT", "queued-1")
    expect((await holder).status).toBe(200)
    // Without an x-request-id, an uncharged error has none (the id would be random, and nothing was charged).
    const plain = await scrape(deployment.server, key, { url: "not a url" })
    expect(plain.body).not.toHaveProperty("chargeId")
  })

  it("replays a finished x-request-id without running or charging again", async () => {
    const key = await teamWith(deployment, "idem", { credits: 20 })
    const body = { url: `${siteUrl}/idem`, formats: ["markdown"] }
    const first = await scrape(deployment.server, key, body, { "x-request-id": "order-1" })
    expect(first.status).toBe(200)
    expect(first.headers.get("x-request-id")).toBe("order-1")
    const hitsAfter = hitsOf("/idem")
    const again = await scrape(deployment.server, key, { formats: ["markdown"], url: `${siteUrl}/idem` }, { "x-request-id": "order-1" })
    expect(again.status).toBe(200)
    expect(again.headers.get("x-request-id")).toBe("order-1")
    expect(again.body).toEqual(first.body)
    expect(again.body.data.metadata.scrapeId).toBe(first.body.data.metadata.scrapeId)
    expect(hitsOf("/idem")).toBe(hitsAfter)
    expect(await balanceOf(deployment, "idem")).toBe(19)
    // The same id with other parameters.
    const other = await scrape(deployment.server, key, { url: `${siteUrl}/idem-other` }, { "x-request-id": "order-1" })
    expect(other.status).toBe(409)
    expect(other.body).toEqual({ success: false, code: "duplicate_request", error: expect.any(String), chargeId: chargeIdFor("idem", "order-1") })
    // Another team's same id is its own.
    const otherTeam = await teamWith(deployment, "idem-2", { credits: 5 })
    expect((await scrape(deployment.server, otherTeam, body, { "x-request-id": "order-1" })).status).toBe(200)
  })

  it("answers 409 request_in_flight to a reuse while the original runs", async () => {
    const key = await teamWith(deployment, "inflight", { credits: 20 })
    const original = scrape(deployment.server, key, { url: `${siteUrl}/inflight?ms=1200` }, { "x-request-id": "slow-1" })
    await sleep(400)
    const reuse = await scrape(deployment.server, key, { url: `${siteUrl}/inflight?ms=1200` }, { "x-request-id": "slow-1" })
    expect(reuse.status).toBe(409)
    expect(reuse.body).toMatchObject({ success: false, code: "request_in_flight", chargeId: chargeIdFor("inflight", "slow-1") })
    expect((await original).status).toBe(200)
    expect(await balanceOf(deployment, "inflight")).toBe(19)
  })

  it("answers 503 request_unresolved for a claim that never finished, and lets a failed request run again", async () => {
    const key = await teamWith(deployment, "unresolved", { credits: 20 })
    const body = { url: `${siteUrl}/unresolved` }
    // What the server decodes: `scrape` sends `maxAge: 0` too.
    const decoded = await Effect.runPromise(validateScrapeRequest({ maxAge: 0, ...body }))
    // A replica that claimed the id and died a minute ago.
    await withStore(deployment, (store) =>
      store.beginRequest({ teamId: "unresolved", requestId: "lost-1", paramsHash: paramsHash(["scrape", decoded]), deadline: Date.now() - 60_000 }))
    const before = hitsOf("/unresolved")
    const answer = await scrape(deployment.server, key, body, { "x-request-id": "lost-1" })
    expect(answer.status).toBe(503)
    expect(answer.body).toMatchObject({ success: false, code: "request_unresolved", chargeId: chargeIdFor("unresolved", "lost-1") })
    expect(hitsOf("/unresolved")).toBe(before)
    // A failure is not charged and does not keep the id: the retry runs.
    const refused = { url: "http://127.0.0.1:1/nothing-listens" }
    const failed = await scrape(deployment.server, key, refused, { "x-request-id": "fails-1" })
    expect(failed.status).toBe(500)
    expect(failed.body.chargeId).toBe(chargeIdFor("unresolved", "fails-1"))
    expect((await scrape(deployment.server, key, refused, { "x-request-id": "fails-1" })).status).toBe(500)
    expect(await balanceOf(deployment, "unresolved")).toBe(20)
  })

  it("writes one audit event per request to a team's .jsonl sink, without the URL under zero data retention", async () => {
    const file = join(tempDir("strata-audit-"), "audit.jsonl")
    const key = await teamWith(deployment, "audited", { credits: 10, auditSink: file })
    await scrape(deployment.server, key, { url: `${siteUrl}/audited`, auditMetadata: { username: "alice@example.com" } })
    await scrape(deployment.server, key, { url: `${siteUrl}/audited-private`, zeroDataRetention: true })
    const form = new FormData()
    form.append("file", new Blob(["<h1>Uploaded</h1><p>An uploaded page.</p>"], { type: "text/html" }), "upload.html")
    expect((await fetch(`${deployment.server.url}/v2/parse`, { method: "POST", headers: { authorization: `Bearer ${key}` }, body: form })).status)
      .toBe(200)
    let lines: Array<Record<string, any>> = []
    for (let n = 0; n < 50 && lines.length < 3; n++) {
      await sleep(50)
      try {
        lines = readFileSync(file, "utf8").trim().split("\n").map((line) => JSON.parse(line))
      } catch {
        lines = []
      }
    }
    expect(lines).toHaveLength(3)
    expect(lines[0]).toMatchObject({
      team: "audited",
      endpoint: "/v2/scrape",
      status: 200,
      success: true,
      creditsUsed: 1,
      url: `${siteUrl}/audited`,
      auditMetadata: { username: "alice@example.com" }
    })
    expect(lines[0].durationMs).toBeGreaterThanOrEqual(0)
    expect(lines[1]).toMatchObject({ team: "audited", endpoint: "/v2/scrape", status: 200, creditsUsed: 2 })
    expect(lines[1]).not.toHaveProperty("url")
    expect(JSON.stringify(lines[1])).not.toContain("audited-private")
    expect(lines[2]).toMatchObject({ team: "audited", endpoint: "/v2/parse", status: 200, creditsUsed: 1 })
    expect(await balanceOf(deployment, "audited")).toBe(6)
  })

  it("leaves the URL out of the audit events of lockdown requests, a cache hit and a miss alike", async () => {
    const file = join(tempDir("strata-audit-"), "lockdown.jsonl")
    const key = await teamWith(deployment, "audited-lockdown", { credits: 20, auditSink: file })
    const bytes = await withStore(deployment, (store) => store.cacheBytes)
    expect((await scrape(deployment.server, key, { url: `${siteUrl}/audit-lockdown-kept` })).status).toBe(200)
    // The cache row is written after the answer: wait for it.
    for (let n = 0; n < 100 && (await withStore(deployment, (store) => store.cacheBytes)) === bytes; n++) await sleep(20)
    const hit = await scrape(deployment.server, key, { url: `${siteUrl}/audit-lockdown-kept`, lockdown: true, maxAge: undefined })
    expect(hit.body.data.metadata.cacheState).toBe("hit")
    const miss = await scrape(deployment.server, key, { url: `${siteUrl}/audit-lockdown-missing`, lockdown: true, maxAge: undefined })
    expect(miss.status).toBe(404)
    let lines: Array<Record<string, any>> = []
    for (let n = 0; n < 50 && lines.length < 3; n++) {
      await sleep(50)
      try {
        lines = readFileSync(file, "utf8").trim().split("\n").map((line) => JSON.parse(line))
      } catch {
        lines = []
      }
    }
    expect(lines.map((line) => [line.status, line.creditsUsed])).toEqual([[200, 1], [200, 5], [404, 1]])
    // The ordinary scrape's event names its URL, so the search below can find one.
    expect(lines[0].url).toBe(`${siteUrl}/audit-lockdown-kept`)
    for (const event of lines.slice(1)) {
      expect(event).toMatchObject({ team: "audited-lockdown", endpoint: "/v2/scrape" })
      expect(event).not.toHaveProperty("url")
      expect(JSON.stringify(event)).not.toContain("audit-lockdown")
    }
    expect(lines[2].code).toBe("SCRAPE_LOCKDOWN_CACHE_MISS")
  })

  it("charges a streamed (NDJSON) scrape when its done line comes, and answers parse's 402 with { error } only", async () => {
    const key = await teamWith(deployment, "streamer", { credits: 4 })
    const response = await fetch(`${deployment.server.url}/v2/scrape`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json", accept: "application/x-ndjson" },
      body: JSON.stringify({ url: `${siteUrl}/doc.pdf`, maxAge: 0 })
    })
    expect(response.status).toBe(200)
    const lines = (await response.text()).trim().split("\n").map((line) => JSON.parse(line))
    const done = lines.at(-1)
    expect(done).toMatchObject({ type: "done", success: true })
    expect(done.data.metadata.creditsUsed).toBe(3)
    expect(await balanceOf(deployment, "streamer")).toBe(1)
    // 1 credit left, the same PDF costs 3: the stream ends with an error line in place of done, nothing charged.
    const refused = await fetch(`${deployment.server.url}/v2/scrape`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json", accept: "application/x-ndjson" },
      body: JSON.stringify({ url: `${siteUrl}/doc.pdf`, maxAge: 0 })
    })
    const last = JSON.parse((await refused.text()).trim().split("\n").at(-1)!)
    expect(last).toMatchObject({ type: "error", status: 402, code: "insufficient_credits" })
    expect(await balanceOf(deployment, "streamer")).toBe(1)
    // Parse's 402 carries `error` only.
    const brokeKey = await teamWith(deployment, "broke-parse", { credits: 0 })
    const form = new FormData()
    form.append("file", new Blob(["<h1>Uploaded</h1>"], { type: "text/html" }), "upload.html")
    const parse = await fetch(`${deployment.server.url}/v2/parse`, { method: "POST", headers: { authorization: `Bearer ${brokeKey}` }, body: form })
    expect(parse.status).toBe(402)
    expect(Object.keys(await parse.json())).toEqual(["error"])
  })

  it("keeps no response of a zero-data-retention request: its x-request-id cannot be replayed", async () => {
    const key = await teamWith(deployment, "private", { credits: 10 })
    const body = { url: `${siteUrl}/private-page`, zeroDataRetention: true }
    expect((await scrape(deployment.server, key, body, { "x-request-id": "zdr-1" })).status).toBe(200)
    const again = await scrape(deployment.server, key, body, { "x-request-id": "zdr-1" })
    expect(again.status).toBe(409)
    expect(again.body).toMatchObject({ code: "duplicate_request", chargeId: chargeIdFor("private", "zdr-1") })
    expect(again.body.error).toContain("zero data retention")
    expect(await balanceOf(deployment, "private")).toBe(8)
    const kept = await withStore(deployment, (store) =>
      store.beginRequest({ teamId: "private", requestId: "zdr-1", paramsHash: "other", deadline: Date.now() }))
    expect(kept._tag).toBe("Conflict")
  })

  it("posts audit events to a webhook, and a webhook that fails never fails the request", async () => {
    const received: Array<Record<string, any>> = []
    const hook = createServer((request, response) => {
      let text = ""
      request.on("data", (chunk) => (text += chunk))
      request.on("end", () => {
        received.push(JSON.parse(text))
        response.end()
      })
    })
    await new Promise<void>((resolve) => hook.listen(0, "127.0.0.1", resolve))
    try {
      const hookUrl = `http://127.0.0.1:${(hook.address() as AddressInfo).port}/audit`
      const key = await teamWith(deployment, "hooked", { auditSink: hookUrl })
      const answer = await scrape(deployment.server, key, { url: `${siteUrl}/hooked`, auditMetadata: { username: "bob" } })
      expect(answer.status).toBe(200)
      for (let n = 0; n < 50 && received.length === 0; n++) await sleep(50)
      expect(received).toEqual([expect.objectContaining({ team: "hooked", status: 200, auditMetadata: { username: "bob" }, url: `${siteUrl}/hooked` })])
      // Nothing listens on port 1: the event is dropped (and logged), the request is answered as ever.
      const deadKey = await teamWith(deployment, "dead-hook", { auditSink: "http://127.0.0.1:1/audit" })
      expect((await scrape(deployment.server, deadKey, { url: `${siteUrl}/dead-hook` })).status).toBe(200)
      for (let n = 0; n < 50 && !deployment.server.logs.some((line) => line.msg === "audit event dropped"); n++) await sleep(50)
      expect(deployment.server.logs.some((line) => line.msg === "audit event dropped")).toBe(true)
    } finally {
      hook.closeAllConnections()
      await new Promise((resolve) => hook.close(resolve))
    }
  })

  it("charges lockdown 5 on a cache hit and 1 on a miss (a miss fetches nothing)", async () => {
    const key = await teamWith(deployment, "locked", { credits: 20 })
    const before = hitsOf("/locked-never")
    // `maxAge: undefined` drops the helper's 0: lockdown's own default (2 years) applies.
    const miss = await scrape(deployment.server, key, { url: `${siteUrl}/locked-never`, lockdown: true, maxAge: undefined }, { "x-request-id": "lock-1" })
    expect(miss.status).toBe(404)
    expect(miss.body).toMatchObject({ success: false, code: "SCRAPE_LOCKDOWN_CACHE_MISS", chargeId: chargeIdFor("locked", "lock-1") })
    expect(hitsOf("/locked-never")).toBe(before)
    expect(await balanceOf(deployment, "locked")).toBe(19)
    // The charged miss keeps its id, but not its answer (lockdown is zero data retention): no second run, no second charge.
    const reuse = await scrape(deployment.server, key, { url: `${siteUrl}/locked-never`, lockdown: true, maxAge: undefined }, { "x-request-id": "lock-1" })
    expect(reuse.body).toMatchObject({ code: "duplicate_request", chargeId: chargeIdFor("locked", "lock-1") })
    expect(await balanceOf(deployment, "locked")).toBe(19)
    const bytes = await withStore(deployment, (store) => store.cacheBytes)
    expect((await scrape(deployment.server, key, { url: `${siteUrl}/locked` })).status).toBe(200)
    // The cache row is written after the answer: wait for it.
    for (let n = 0; n < 100 && (await withStore(deployment, (store) => store.cacheBytes)) === bytes; n++) await sleep(20)
    const fetched = hitsOf("/locked")
    const hit = await scrape(deployment.server, key, { url: `${siteUrl}/locked`, lockdown: true, maxAge: undefined })
    expect(hit.status).toBe(200)
    expect(hit.body.data.metadata).toMatchObject({ cacheState: "hit", creditsUsed: 5 })
    expect(hitsOf("/locked")).toBe(fetched)
    expect(await balanceOf(deployment, "locked")).toBe(13)
  })

  it("audits requests refused before they ran: the team's rate limit, an invalid body", async () => {
    const file = join(tempDir("strata-audit-"), "refused.jsonl")
    const key = await teamWith(deployment, "refused", { rateLimit: 2, auditSink: file })
    const invalid = await fetch(`${deployment.server.url}/v2/scrape`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: "{ not json"
    })
    expect(invalid.status).toBe(400)
    expect((await scrape(deployment.server, key, { url: `${siteUrl}/refused` })).status).toBe(200)
    expect((await scrape(deployment.server, key, { url: `${siteUrl}/refused` })).status).toBe(429)
    let lines: Array<Record<string, any>> = []
    for (let n = 0; n < 50 && lines.length < 3; n++) {
      await sleep(50)
      try {
        lines = readFileSync(file, "utf8").trim().split("\n").map((line) => JSON.parse(line))
      } catch {
        lines = []
      }
    }
    expect(lines.map((line) => [line.status, line.success, line.creditsUsed])).toEqual([[400, false, 0], [200, true, 1], [429, false, 0]])
    expect(lines[0].code).toBe("BAD_REQUEST")
    expect(lines.every((line) => line.team === "refused" && line.endpoint === "/v2/scrape")).toBe(true)
  })

  it("gives a queued place and an x-request-id back when the client goes away", async () => {
    const key = await teamWith(deployment, "leaving", { concurrency: 1 })
    const holder = scrape(deployment.server, key, { url: `${siteUrl}/leaving/a?ms=1000` })
    await sleep(200)
    const gone = new AbortController()
    const abandoned = fetch(`${deployment.server.url}/v2/scrape`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json", "x-request-id": "gone-1" },
      body: JSON.stringify({ url: `${siteUrl}/leaving/b`, maxAge: 0 }),
      signal: gone.signal
    }).catch(() => "aborted")
    await sleep(200)
    gone.abort()
    expect(await abandoned).toBe("aborted")
    await sleep(100)
    const next = await scrape(deployment.server, key, { url: `${siteUrl}/leaving/c` })
    expect((await holder).status).toBe(200)
    expect(next.status).toBe(200)
    // Behind a place kept for the client that left, it would have waited for that place to lapse (5 s).
    expect(next.body.data.metadata.concurrencyQueueDurationMs).toBeLessThan(2500)
    // The id was never answered: it is free, and runs.
    const retry = await scrape(deployment.server, key, { url: `${siteUrl}/leaving/b` }, { "x-request-id": "gone-1" })
    expect(retry.status).toBe(200)
    expect(retry.body.data.metadata.concurrencyLimited).toBe(false)
  })

  it("replays a parse's x-request-id when the file and options are the same, and refuses another file", async () => {
    const key = await teamWith(deployment, "parser", { credits: 10 })
    const upload = (text: string) => {
      const form = new FormData()
      form.append("file", new Blob([text], { type: "text/html" }), "note.html")
      return fetch(`${deployment.server.url}/v2/parse`, { method: "POST", headers: { authorization: `Bearer ${key}`, "x-request-id": "upload-1" }, body: form })
        .then(async (response) => ({ status: response.status, body: (await response.json()) as Record<string, any> }))
    }
    const first = await upload("<h1>Note</h1><p>First upload.</p>")
    expect(first.status).toBe(200)
    const again = await upload("<h1>Note</h1><p>First upload.</p>")
    expect(again.body.data.metadata.scrapeId).toBe(first.body.data.metadata.scrapeId)
    const other = await upload("<h1>Note</h1><p>Another file.</p>")
    expect(other.status).toBe(409)
    expect(other.body.code).toBe("duplicate_request")
    expect(await balanceOf(deployment, "parser")).toBe(9)
  })

  it("leaves the default team unlimited and unmetered", async () => {
    const answer = await scrape(deployment.server, "default-key", { url: `${siteUrl}/default` })
    expect(answer.status).toBe(200)
    expect(answer.body.data.metadata.creditsUsed).toBe(1)
    expect(answer.body.data.metadata).not.toHaveProperty("concurrencyLimited")
  })
})
}
