/**
 * `changeTracking` end to end, run on SQLite (ChangeTracking.test.ts) and on Postgres
 * (ChangeTrackingPostgres.integration.test.ts): `Strata.layer` (fetch engine, no browser) behind
 * the real server on a random loopback port, scraping pages this suite serves on 127.0.0.1 and
 * changes between scrapes. Two servers share the store: one without a language model (json mode
 * offline) and one asking a small OpenAI-compatible server started here. Teams and keys are made
 * through a second store on the same database, as the CLI does.
 *
 * One backend per test file: effect reads the environment once per process, so
 * STRATA_DATABASE_URL must be set before anything reads it.
 */
import { OpenAiCompatible, Store } from "@strata/core"
import { layerPg, layerSqlite, sqliteFileIn, type StoreServices } from "@strata/store"
import { applyPatch } from "diff"
import { Effect, type Layer, ManagedRuntime, Redacted } from "effect"
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startTestServer, tempDir, type TestServer } from "./support.ts"

const KEY = "change-tracking-key"

/** What each path answers now; a test changes it between scrapes. */
const pages = new Map<string, { status: number; html: string }>()
const setPage = (path: string, body: string, status = 200) =>
  pages.set(path, { status, html: `<!doctype html><html><head><title>${path}</title></head><body><main>${body}</main></body></html>` })

let site: Server
let siteUrl = ""
let model: Server
let modelUrl = ""
/** What the fake model answers to an extraction, and how many it was asked. */
let modelAnswer = "{}"
let modelCalls = 0
let visits = 0

const listen = async (server: Server) => {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`
}

export const changeTrackingSuite = (name: "sqlite" | "pg", database: () => string | undefined) =>
describe(`changeTracking on ${name}`, () => {
  let offline: TestServer
  let modelled: TestServer
  let rows: ManagedRuntime.ManagedRuntime<StoreServices, unknown>
  /** Keys of the other teams: `other` (plain) and `private` (zero data retention). */
  const keys: Record<string, string> = {}

  beforeAll(async () => {
    site = createServer((request, response) => {
      const path = (request.url ?? "/").split("?")[0]!.replace(/\/+$/, "") || "/"
      // A page whose text says which request made it.
      if (path === "/counter") {
        visits++
        return void response.writeHead(200, { "content-type": "text/html; charset=utf-8" })
          .end(`<html><body><main><h1>Counter</h1><p>Visit number ${visits}.</p></main></body></html>`)
      }
      const page = pages.get(path)
      if (page === undefined) return void response.writeHead(404, { "content-type": "text/html" }).end("<html><body><h1>Not Found</h1></body></html>")
      response.writeHead(page.status, { "content-type": "text/html; charset=utf-8" }).end(page.html)
    })
    siteUrl = await listen(site)
    model = createServer((request, response) => {
      request.resume()
      request.on("end", () => {
        modelCalls++
        response.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({
          id: "c1",
          model: "fake-model-1",
          choices: [{ index: 0, message: { role: "assistant", content: modelAnswer } }],
          usage: { prompt_tokens: 50, completion_tokens: 5 }
        }))
      })
    })
    modelUrl = `${await listen(model)}/v1`

    const dataDir = tempDir("strata-changes-")
    const { Strata } = await import("strata")
    const base = { fetch: { allowPrivateUrls: false, allowedOrigins: [siteUrl] }, browser: false, ocr: false, isolation: false } as const
    offline = await startTestServer(Strata.layer({ ...base, languageModel: false }), { apiKeys: [KEY], dataDir })
    modelled = await startTestServer(
      Strata.layer({ ...base, languageModel: OpenAiCompatible.layer({ baseUrl: modelUrl, model: "fake-model", timeoutMs: 5000, maxRetries: 0 }) }),
      { apiKeys: [KEY], dataDir }
    )
    const url = database()
    const layer = url === undefined
      ? layerSqlite({ filename: sqliteFileIn(dataDir), cacheMaxBytes: 1024 ** 3 })
      : layerPg({ url: Redacted.make(url), cacheMaxBytes: 1024 ** 3 })
    rows = ManagedRuntime.make(layer as Layer.Layer<StoreServices, unknown>)
    for (const [team, zdr] of [["other", false], ["private", true]] as const) {
      keys[team] = await rows.runPromise(Effect.gen(function*() {
        const store = yield* Store
        yield* store.setTeam(team, { zdr })
        return (yield* store.createKey(team)).key
      }))
    }
  }, 120_000)

  afterAll(async () => {
    await Promise.all([offline?.close(), modelled?.close()])
    await rows?.dispose()
    for (const server of [site, model]) {
      server?.closeAllConnections()
      await new Promise((resolve) => server?.close(resolve))
    }
  })

  const scrape = async (path: string, body: Record<string, unknown>, options: { server?: TestServer; key?: string } = {}) => {
    const response = await fetch(`${(options.server ?? offline).url}/v2/scrape`, {
      method: "POST",
      headers: { authorization: `Bearer ${options.key ?? KEY}`, "content-type": "application/json" },
      body: JSON.stringify({ url: `${siteUrl}${path}`, ...body })
    })
    return { status: response.status, body: await response.json() as Record<string, any> }
  }

  const gitDiff = { formats: ["markdown", { type: "changeTracking", modes: ["git-diff"] }] }

  it("without markdown in formats: 400 in the contract's error shape, nothing fetched", async () => {
    const { status, body } = await scrape("/pricing", { formats: [{ type: "changeTracking" }] })
    expect(status).toBe(400)
    expect(body).toMatchObject({ success: false, code: "BAD_REQUEST" })
    expect(JSON.stringify(body)).toContain("The changeTracking format requires the markdown format to be specified as well")
  })

  it("new, then same through whitespace and URL spelling, then changed with a unified diff", async () => {
    setPage("/pricing", "<h1>Pricing</h1><p>Basic costs $10 a month.</p><p>Pro costs $20 a month.</p><p>Contact sales for more.</p>")
    const first = await scrape("/pricing", gitDiff)
    expect(first.status).toBe(200)
    expect(first.body.data.changeTracking).toEqual({ changeStatus: "new", previousScrapeAt: null, visibility: "visible" })

    setPage("/pricing", "<h1>Pricing</h1>\n\n<p>Basic   costs $10\n a month.</p>\n<p>Pro costs $20 a month.</p><p>Contact sales for more.</p>")
    const same = await scrape("/pricing/", gitDiff)
    expect(same.body.data.changeTracking.changeStatus).toBe("same")
    expect(same.body.data.changeTracking.diff).toBeUndefined()
    const firstAt = Date.parse(same.body.data.changeTracking.previousScrapeAt)
    expect(Number.isNaN(firstAt)).toBe(false)

    setPage("/pricing", "<h1>Pricing</h1><p>Basic costs $12 a month.</p><p>Pro costs $20 a month.</p><p>Contact sales for more.</p>")
    const changed = await scrape("/pricing", gitDiff)
    const tracking = changed.body.data.changeTracking
    expect(tracking.changeStatus).toBe("changed")
    expect(Date.parse(tracking.previousScrapeAt)).toBeGreaterThanOrEqual(firstAt)
    expect(tracking.diff.startsWith("--- previous.md\n+++ current.md\n@@ ")).toBe(true)
    expect(tracking.diff).toContain("\n-Basic costs $10 a month.\n+Basic costs $12 a month.\n")
    expect(tracking.diff).not.toContain("Pro costs $20 a month.\n+")
    // The diff takes the previous markdown to the current one.
    expect(applyPatch(`${same.body.data.markdown.trimEnd()}\n`, tracking.diff)).toBe(`${changed.body.data.markdown.trimEnd()}\n`)
    expect(tracking.json).toBeUndefined()
  })

  it("removed when the page answers 404 or 410, changed when it comes back", async () => {
    setPage("/menu", "<h1>Menu</h1><p>Soup of the day.</p>")
    expect((await scrape("/menu", gitDiff)).body.data.changeTracking.changeStatus).toBe("new")
    pages.delete("/menu")
    const gone = await scrape("/menu", gitDiff)
    expect(gone.body.data.metadata.statusCode).toBe(404)
    expect(gone.body.data.changeTracking.changeStatus).toBe("removed")
    expect(gone.body.data.changeTracking.previousScrapeAt).not.toBeNull()
    setPage("/menu", "<h1>Closed</h1>", 410)
    expect((await scrape("/menu", gitDiff)).body.data.changeTracking.changeStatus).toBe("removed")
    setPage("/menu", "<h1>Menu</h1><p>Soup of the day.</p><p>Bread.</p>")
    const back = await scrape("/menu", gitDiff)
    expect(back.body.data.changeTracking.changeStatus).toBe("changed")
    // Compared with the content the page had before it went.
    expect(back.body.data.changeTracking.diff).toContain("\n+Bread.\n")
    expect(back.body.data.changeTracking.diff).not.toContain("-Not Found")
  })

  it("each tag and each team keeps its own history", async () => {
    setPage("/tagged", "<h1>Tagged</h1><p>One.</p>")
    expect((await scrape("/tagged", gitDiff)).body.data.changeTracking.changeStatus).toBe("new")
    const tagged = { formats: ["markdown", { type: "changeTracking", tag: "weekly" }] }
    expect((await scrape("/tagged", tagged)).body.data.changeTracking.changeStatus).toBe("new")
    setPage("/tagged", "<h1>Tagged</h1><p>Two.</p>")
    expect((await scrape("/tagged", tagged)).body.data.changeTracking.changeStatus).toBe("changed")
    expect((await scrape("/tagged", tagged)).body.data.changeTracking.changeStatus).toBe("same")
    // Another team has never seen the page; the untagged history is still at "One."
    expect((await scrape("/tagged", gitDiff, { key: keys.other })).body.data.changeTracking.changeStatus).toBe("new")
    const untagged = await scrape("/tagged", gitDiff)
    expect(untagged.body.data.changeTracking.changeStatus).toBe("changed")
    expect(untagged.body.data.changeTracking.diff).toContain("\n-One.\n+Two.\n")
  })

  it("json mode offline: previous and current values per key of the schema, and a warning that says how", async () => {
    const schema = { type: "object", properties: { price: { type: "string" }, plan: { type: "string" } } }
    const json = { formats: ["markdown", { type: "changeTracking", modes: ["json", "git-diff"], schema }] }
    setPage("/plan", "<h1>Plan</h1><p>Plan: Basic</p><p>Price: $10</p>")
    const first = await scrape("/plan", json)
    expect(first.body.data.changeTracking).toMatchObject({
      changeStatus: "new",
      json: { price: { previous: null, current: "$10" }, plan: { previous: null, current: "Basic" } }
    })
    expect(first.body.data.warning).toContain("extracted offline")
    setPage("/plan", "<h1>Plan</h1><p>Plan: Basic</p><p>Price: $12</p>")
    const second = await scrape("/plan", json)
    expect(second.body.data.changeTracking.changeStatus).toBe("changed")
    expect(second.body.data.changeTracking.json).toEqual({
      price: { previous: "$10", current: "$12" },
      plan: { previous: "Basic", current: "Basic" }
    })
    expect(second.body.data.changeTracking.diff).toContain("+Price: $12")
    const same = await scrape("/plan", json)
    expect(same.body.data.changeTracking.changeStatus).toBe("same")
    expect(same.body.data.changeTracking.json.price).toEqual({ previous: "$12", current: "$12" })
    expect(same.body.data.warning).toContain("extracted offline")
    expect(modelCalls).toBe(0)
  })

  it("json mode with a language model: the model's values, compared with the snapshot's", async () => {
    const schema = { type: "object", properties: { headline: { type: "string" } } }
    const json = { formats: ["markdown", { type: "changeTracking", modes: ["json"], schema, tag: "model" }] }
    setPage("/news", "<h1>News</h1><p>The harbour opens on Monday.</p>")
    modelAnswer = JSON.stringify({ headline: "Harbour opens Monday" })
    const before = modelCalls
    const first = await scrape("/news", json, { server: modelled })
    expect(first.body.data.changeTracking.json).toEqual({ headline: { previous: null, current: "Harbour opens Monday" } })
    expect(first.body.data.warning ?? "").not.toContain("extracted offline")
    expect(first.body.data.metadata.llmCalls).toBe(1)
    setPage("/news", "<h1>News</h1><p>The harbour opens on Tuesday.</p>")
    modelAnswer = JSON.stringify({ headline: "Harbour opens Tuesday" })
    const second = await scrape("/news", json, { server: modelled })
    expect(second.body.data.changeTracking.changeStatus).toBe("changed")
    expect(second.body.data.changeTracking.json).toEqual({ headline: { previous: "Harbour opens Monday", current: "Harbour opens Tuesday" } })
    // One extraction per scrape: the previous values were kept, not asked again.
    expect(modelCalls - before).toBe(2)
    // The page unchanged: its snapshot's values stand, and the model is not asked (it would answer otherwise now).
    modelAnswer = JSON.stringify({ headline: "Something else entirely" })
    const same = await scrape("/news", json, { server: modelled })
    expect(same.body.data.changeTracking.changeStatus).toBe("same")
    expect(same.body.data.changeTracking.json).toEqual({ headline: { previous: "Harbour opens Tuesday", current: "Harbour opens Tuesday" } })
    expect(same.body.data.warning ?? "").not.toContain("extracted offline")
    expect(modelCalls - before).toBe(2)
  })

  it("concurrent scrapes of one page form one history: one new, each other compared with exactly one before it", async () => {
    const answers = await Promise.all(Array.from({ length: 8 }, () => scrape("/counter", gitDiff)))
    const tracking = answers.map((answer) => answer.body.data.changeTracking)
    expect(tracking.filter((t) => t.changeStatus === "new")).toHaveLength(1)
    expect(tracking.filter((t) => t.changeStatus === "changed")).toHaveLength(7)
    const visitIn = (line: string | undefined) => Number(/Visit number (\d+)/.exec(line ?? "")?.[1])
    const removedLines = tracking.filter((t) => t.diff !== undefined).map((t) => visitIn(t.diff.split("\n").find((l: string) => l.startsWith("-Visit"))))
    const shown = answers.map((answer) => visitIn(answer.body.data.markdown))
    // Each diff takes away a visit some other answer showed, and no visit is taken away twice.
    expect(new Set(removedLines).size).toBe(7)
    for (const visit of removedLines) expect(shown).toContain(visit)
  })

  it("zero data retention writes nothing: asked for, the team's setting, or lockdown", async () => {
    setPage("/secret", "<h1>Secret</h1><p>Nobody keeps this.</p>")
    const asked = await scrape("/secret", { ...gitDiff, zeroDataRetention: true })
    expect(asked.status).toBe(200)
    expect(asked.body.data.changeTracking).toBeUndefined()
    expect(asked.body.data.warning).toContain("not supported with zero data retention")
    const team = await scrape("/secret", gitDiff, { key: keys.private })
    expect(team.body.data.changeTracking).toBeUndefined()
    expect(team.body.data.warning).toContain("not supported with zero data retention")
    // Lockdown counts as zero data retention, and change tracking never reads the cache: a cache miss, nothing kept.
    const locked = await scrape("/secret", { ...gitDiff, lockdown: true })
    expect(locked.status).toBe(404)
    expect(locked.body).toMatchObject({ success: false, code: "SCRAPE_LOCKDOWN_CACHE_MISS" })
    // Had any of them kept a snapshot, this would be "same".
    expect((await scrape("/secret", gitDiff)).body.data.changeTracking.changeStatus).toBe("new")
    const missing = await rows.runPromise(Effect.gen(function*() {
      const store = yield* Store
      return yield* store.changeSwap({ teamId: "private", url: `https://127.0.0.1:${new URL(siteUrl).port}/secret`, tag: "" }, {
        markdown: "probe",
        status: 200,
        removed: false,
        scrapedAt: Date.now()
      })
    }))
    expect(missing._tag).toBe("None")
  })

  it("streamed (NDJSON) scrapes track changes too", async () => {
    setPage("/stream", "<h1>Stream</h1><p>First.</p>")
    await scrape("/stream", gitDiff)
    setPage("/stream", "<h1>Stream</h1><p>Second.</p>")
    const response = await fetch(`${offline.url}/v2/scrape`, {
      method: "POST",
      headers: { authorization: `Bearer ${KEY}`, "content-type": "application/json", accept: "application/x-ndjson" },
      body: JSON.stringify({ url: `${siteUrl}/stream`, ...gitDiff })
    })
    const lines = (await response.text()).trim().split("\n").map((line) => JSON.parse(line) as Record<string, any>)
    const done = lines.find((line) => line.data?.changeTracking !== undefined)
    expect(done?.data.changeTracking.changeStatus).toBe("changed")
    expect(done?.data.changeTracking.diff).toContain("\n-First.\n+Second.\n")
  })
})
