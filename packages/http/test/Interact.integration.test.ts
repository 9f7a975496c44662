/**
 * `POST /v2/scrape/{scrapeId}/interact` and `DELETE` end to end: `Strata.layer` with the real
 * Chromium behind the real server on a random loopback port, against pages this test serves on
 * 127.0.0.1 (the one origin the server may reach; every other private address stays blocked).
 */
import Firecrawl from "@mendable/firecrawl-js"
import { Store } from "@strata/core"
import { layerSqlite, sqliteFileIn } from "@strata/store"
import { Effect, ManagedRuntime, Option } from "effect"
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startTestServer, tempDir, type TestServer } from "./support.ts"

const KEY = "interact-key"
const OTHER_KEY = "interact-other-key"

const page = (body: string) => `<!doctype html><html><head><meta charset="utf-8"><title>Harbour log</title></head><body>${body}</body></html>`

let site: Server
let siteUrl: string
let secret: Server
let secretUrl: string
let secretHits = 0
/** Requests an interact call's code made: a call refused before it runs makes none. */
let ranHits = 0
let server: TestServer
let serverData: string

const routes = (): Record<string, string> => ({
  // Each click on #add appends a boat; the scrape's action adds the second.
  "/log": page(`<main><h1>Harbour log</h1><ul id="boats"><li>Kestrel</li></ul>
    <button id="add" onclick="const li = document.createElement('li'); li.textContent = ['Kestrel', 'Marigold', 'Osprey', 'Tern'][document.querySelectorAll('#boats li').length]; document.getElementById('boats').append(li)">Add</button></main>`),
  // Shows the cookie and localStorage it starts with, for the profile tests.
  "/state": page(`<main><h1>State</h1><p id="state"></p><script>
    document.getElementById("state").textContent = "cookie=" + (document.cookie || "none") + " stored=" + (localStorage.getItem("boat") ?? "none")
  </script></main>`)
})

const post = async (path: string, body: unknown, key = KEY) => {
  const response = await fetch(`${server.url}${path}`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify(body)
  })
  return { status: response.status, body: await response.json() as Record<string, any> }
}

const scrape = async (body: Record<string, unknown>) => {
  const { status, body: reply } = await post("/v2/scrape", body)
  expect(status, JSON.stringify(reply)).toBe(200)
  const scrapeId = reply.data.metadata.scrapeId as string
  expect(scrapeId).toMatch(/^[0-9a-f-]{36}$/)
  return { data: reply.data, scrapeId }
}

const interact = (scrapeId: string, body: unknown, key = KEY) => post(`/v2/scrape/${scrapeId}/interact`, body, key)

const stop = async (scrapeId: string, key = KEY) => {
  const response = await fetch(`${server.url}/v2/scrape/${scrapeId}/interact`, { method: "DELETE", headers: { authorization: `Bearer ${key}` } })
  return { status: response.status, body: await response.json() as Record<string, any> }
}

beforeAll(async () => {
  const pages = routes()
  site = createServer((request, response) => {
    if ((request.url ?? "").startsWith("/ran")) {
      ranHits++
      return void response.writeHead(204, { "access-control-allow-origin": "*" }).end()
    }
    const body = pages[(request.url ?? "/").split("?")[0]]
    if (body === undefined) return void response.writeHead(404).end()
    response.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(body)
  })
  await new Promise<void>((resolve) => site.listen(0, "127.0.0.1", resolve))
  siteUrl = `http://127.0.0.1:${(site.address() as AddressInfo).port}`
  // A private service the page must never reach: loopback, but not the allowed origin.
  secret = createServer((_request, response) => {
    secretHits++
    response.writeHead(200, { "content-type": "text/plain", "access-control-allow-origin": "*" }).end("the harbour master's password")
  })
  await new Promise<void>((resolve) => secret.listen(0, "127.0.0.1", resolve))
  secretUrl = `http://127.0.0.1:${(secret.address() as AddressInfo).port}/secret`
  const { Strata } = await import("strata")
  server = await startTestServer(
    Strata.layer({
      fetch: { allowPrivateUrls: false, allowedOrigins: [siteUrl] },
      browser: { concurrency: 2, dataDir: tempDir("strata-profiles-"), interact: { maxSessions: 3 } },
      ocr: false,
      isolation: false
    }),
    { apiKeys: [KEY, OTHER_KEY], dataDir: (serverData = tempDir()) }
  )
}, 60_000)

afterAll(async () => {
  await server?.close()
  for (const closing of [site, secret]) {
    closing?.closeAllConnections()
    await new Promise((resolve) => closing?.close(resolve))
  }
})

describe("interact", () => {
  it("replays the scrape, runs code on the page it left, keeps the page between calls, and stops on DELETE", async () => {
    const { data, scrapeId } = await scrape({ url: `${siteUrl}/log`, formats: ["markdown"], actions: [{ type: "click", selector: "#add" }] })
    expect(data.markdown).toContain("Marigold")

    const first = await interact(scrapeId, { code: "console.log('reading'); console.warn('careful'); return [...document.querySelectorAll('#boats li')].map((li) => li.textContent)" })
    expect(first.status).toBe(200)
    expect(first.body).toMatchObject({ success: true, result: "[\"Kestrel\",\"Marigold\"]", stdout: "reading\n", stderr: "careful\n", exitCode: 0, killed: false })
    expect(first.body.error).toBeUndefined()
    expect(first.body.data).toBeUndefined()

    const second = await interact(scrapeId, { code: "document.getElementById('add').click(); return document.querySelector('#boats li:last-child').textContent", timeout: 10 })
    expect(second.body).toMatchObject({ success: true, result: "Osprey", sessionId: first.body.sessionId })
    const third = await interact(scrapeId, { code: "return document.querySelectorAll('#boats li').length", origin: "js-sdk@4.3.0" })
    expect(third.body).toMatchObject({ success: true, result: "3", sessionId: first.body.sessionId })

    const stopped = await stop(scrapeId)
    expect(stopped.status).toBe(200)
    expect(stopped.body).toMatchObject({ success: true, sessionId: first.body.sessionId, creditsBilled: 0 })
    expect(stopped.body.sessionDurationMs).toBeGreaterThan(0)

    const after = await interact(scrapeId, { code: "return 1" })
    expect(after.status).toBe(404)
    expect(after.body).toMatchObject({ success: false, code: "SCRAPE_NOT_FOUND" })
    expect((await stop(scrapeId)).status).toBe(404)
  })

  it("reports a thrown error and a timeout as failed runs, and the session goes on", async () => {
    const { scrapeId } = await scrape({ url: `${siteUrl}/log`, formats: ["markdown"], waitFor: 100 })
    const thrown = await interact(scrapeId, { code: "console.log('before'); throw new Error('no such boat')" })
    expect(thrown.status).toBe(200)
    expect(thrown.body).toMatchObject({ success: false, exitCode: 1, killed: false, stdout: "before\n" })
    expect(thrown.body.result).toBeUndefined()
    expect(thrown.body.stderr).toContain("Error: no such boat")
    expect(thrown.body.error).toContain("Error: no such boat")

    const syntax = await interact(scrapeId, { code: "return (" })
    expect(syntax.body).toMatchObject({ success: false, exitCode: 1 })
    expect(syntax.body.stderr).toContain("SyntaxError")

    // A loop holds the page's only thread: it is terminated, not waited out.
    const started = Date.now()
    const looping = await interact(scrapeId, { code: "console.log('spinning'); while (true) {}", timeout: 1 })
    expect(Date.now() - started).toBeLessThan(10_000)
    expect(looping.body).toMatchObject({ success: false, killed: true, exitCode: 124, stdout: "spinning\n" })
    expect(looping.body.result).toBeUndefined()
    expect(looping.body.error).toContain("time limit of 1000 ms")

    const waiting = await interact(scrapeId, { code: "await new Promise(() => {})", timeout: 1 })
    expect(waiting.body).toMatchObject({ success: false, killed: true, exitCode: 124 })

    // Output past 1,000,000 characters is cut, and says so.
    const flood = await interact(scrapeId, { code: "for (let i = 0; i < 150000; i++) console.log('0123456789'); return 'x'.repeat(10)" })
    expect(flood.body).toMatchObject({ success: true, truncated: true, result: "xxxxxxxxxx" })
    expect(flood.body.stdout.length).toBeLessThanOrEqual(1_000_000)
    expect(flood.body.stdout.length).toBeGreaterThan(900_000)
    expect(flood.body.stderr).toContain("[console output truncated at 1000000 characters]")

    const alive = await interact(scrapeId, { code: "console.log('still here'); return document.querySelector('h1').textContent" })
    expect(alive.body).toMatchObject({ success: true, result: "Harbour log", stdout: "still here\n", sessionId: thrown.body.sessionId })
    expect((await stop(scrapeId)).status).toBe(200)
  })

  it("stops the code of a client that went away, and a page script that holds the thread, and goes on", async () => {
    const { scrapeId } = await scrape({ url: `${siteUrl}/log`, formats: ["markdown"] })
    const opened = await interact(scrapeId, { code: "return 'open'" })
    expect(opened.body.success).toBe(true)
    // The client gives up on a loop with a 60 s limit after half a second.
    const abort = new AbortController()
    const gone = fetch(`${server.url}/v2/scrape/${scrapeId}/interact`, {
      method: "POST",
      headers: { authorization: `Bearer ${KEY}`, "content-type": "application/json" },
      body: JSON.stringify({ code: "while (true) {}", timeout: 60 }),
      signal: abort.signal
    }).catch((error: unknown) => error)
    await new Promise((resolve) => setTimeout(resolve, 500))
    abort.abort()
    await gone
    const started = Date.now()
    const next = await interact(scrapeId, { code: "return document.title" })
    expect(next.body).toMatchObject({ success: true, result: "Harbour log", sessionId: opened.body.sessionId })
    expect(Date.now() - started).toBeLessThan(4_000)

    // The page's own script loops: the next run says so and stops it; the one after runs.
    expect((await interact(scrapeId, { code: "setTimeout(() => { while (true) {} }, 50); return 'armed'" })).body.success).toBe(true)
    await new Promise((resolve) => setTimeout(resolve, 200))
    const busy = await interact(scrapeId, { code: "return 1" })
    expect(busy.body).toMatchObject({ success: false, exitCode: 1 })
    expect(busy.body.error).toContain("did not respond")
    expect(busy.body.error).toContain("has been stopped")
    expect((await interact(scrapeId, { code: "return 2" })).body).toMatchObject({ success: true, result: "2", sessionId: opened.body.sessionId })
    expect((await stop(scrapeId)).status).toBe(200)
  })

  it("answers 404 for an unknown id and for another key's scrape, in the contract's error shape", async () => {
    const unknown = await interact("2b7c1a8e-0000-4000-8000-000000000000", { code: "return 1" })
    expect(unknown.status).toBe(404)
    expect(unknown.body).toMatchObject({ success: false, code: "SCRAPE_NOT_FOUND" })
    expect(unknown.body.error).toContain("2b7c1a8e-0000-4000-8000-000000000000")

    const { scrapeId } = await scrape({ url: `${siteUrl}/log`, formats: ["markdown"] })
    const stranger = await interact(scrapeId, { code: "return document.title" }, OTHER_KEY)
    expect(stranger.status).toBe(404)
    // The same answer as an id never seen: ids cannot be probed.
    expect(stranger.body).toEqual({ ...unknown.body, error: unknown.body.error.replace("2b7c1a8e-0000-4000-8000-000000000000", scrapeId) })
    expect((await stop(scrapeId, OTHER_KEY)).status).toBe(404)
    // The owner still can.
    const owner = await interact(scrapeId, { code: "return document.title" })
    expect(owner.body).toMatchObject({ success: true, result: "Harbour log" })
    expect((await stop(scrapeId)).status).toBe(200)
  })

  it("works with the official SDK's interact and stopInteraction", async () => {
    const firecrawl = new Firecrawl({ apiKey: KEY, apiUrl: server.url })
    const document = await firecrawl.scrape(`${siteUrl}/log`, { formats: ["markdown"], actions: [{ type: "click", selector: "#add" }] })
    const scrapeId = document.metadata?.scrapeId as string
    const ran = await firecrawl.interact(scrapeId, { code: "console.log('hello from the page'); return document.querySelectorAll('#boats li').length", timeout: 20 })
    expect(ran).toMatchObject({ success: true, result: "2", stdout: "hello from the page\n", exitCode: 0, killed: false })
    const failed = await firecrawl.interact(scrapeId, { code: "throw new TypeError('no boats')" })
    expect(failed).toMatchObject({ success: false, exitCode: 1, error: "TypeError: no boats" })
    const stopped = await firecrawl.stopInteraction(scrapeId)
    expect(stopped).toMatchObject({ success: true, creditsBilled: 0 })
    await expect(firecrawl.interact(scrapeId, { code: "return 1" })).rejects.toMatchObject({ status: 404 })
  })

  it("accepts the scrapeId of a streamed (NDJSON) scrape", async () => {
    const response = await fetch(`${server.url}/v2/scrape`, {
      method: "POST",
      headers: { authorization: `Bearer ${KEY}`, "content-type": "application/json", accept: "application/x-ndjson" },
      body: JSON.stringify({ url: `${siteUrl}/log`, formats: ["markdown"], actions: [{ type: "click", selector: "#add" }] })
    })
    const lines = (await response.text()).trim().split("\n").map((line) => JSON.parse(line) as Record<string, any>)
    const done = lines.find((line) => line.type === "done")
    const scrapeId = done?.data.metadata.scrapeId as string
    expect(scrapeId).toMatch(/^[0-9a-f-]{36}$/)
    expect((await interact(scrapeId, { code: "return document.querySelectorAll('#boats li').length" })).body).toMatchObject({ success: true, result: "2" })
    expect((await stop(scrapeId)).status).toBe(200)
  })

  it("answers 409 for a scrape that kept no data (zero data retention): there is nothing to replay", async () => {
    const { scrapeId } = await scrape({ url: `${siteUrl}/log`, formats: ["markdown"], zeroDataRetention: true })
    const refused = await interact(scrapeId, { code: "return 1" })
    expect(refused.status).toBe(409)
    expect(refused.body).toMatchObject({ success: false, code: "SCRAPE_NOT_RETAINED" })
    expect(refused.body.error).toContain("zero data retention")
  })

  it("validates the body as Firecrawl's SDKs send it", async () => {
    const { scrapeId } = await scrape({ url: `${siteUrl}/log`, formats: ["markdown"] })
    const cases: Array<[unknown, string]> = [
      [{}, "code"],
      [{ code: "return 1", colour: "red" }, "colour"],
      [{ code: 42 }, "code"],
      [{ code: "" }, "code"],
      [{ code: "x".repeat(100_001) }, "code"],
      [{ prompt: "y".repeat(10_001) }, "prompt"],
      [{ code: "return 1", timeout: 301 }, "timeout"],
      [{ code: "return 1", timeout: 0 }, "timeout"],
      [{ code: "return 1", timeout: 1.5 }, "timeout"],
      [{ code: "print(1)", language: "python" }, "language"],
      [{ code: "return 1", language: "ruby" }, "language"],
      [[], ""]
    ]
    for (const [body, key] of cases) {
      const reply = await interact(scrapeId, body)
      expect(reply.status, JSON.stringify(body).slice(0, 80)).toBe(400)
      expect(reply.body).toMatchObject({ success: false, code: "BAD_REQUEST" })
      expect(reply.body.error).toContain(key)
    }
    for (const [type, text, message] of [["text/plain", "{\"code\":\"return 1\"}", "must be JSON"], ["application/json", "{\"code\":", "not valid JSON"]]) {
      const response = await fetch(`${server.url}/v2/scrape/${scrapeId}/interact`, { method: "POST", headers: { authorization: `Bearer ${KEY}`, "content-type": type }, body: text })
      expect(response.status).toBe(400)
      expect(await response.json()).toMatchObject({ success: false, code: "BAD_REQUEST", error: expect.stringContaining(message) })
    }
    const unauthenticated = await fetch(`${server.url}/v2/scrape/${scrapeId}/interact`, { method: "POST", headers: { "content-type": "application/json" }, body: "{\"code\":\"return 1\"}" })
    expect(unauthenticated.status).toBe(401)
    const prompt = await interact(scrapeId, { prompt: "Click the add button" })
    expect(prompt.status).toBe(400)
    expect(prompt.body.error).toContain("no language model is configured")
    // Both: code runs, as Firecrawl does.
    const both = await interact(scrapeId, { code: "return 'code ran'", prompt: "ignored", language: "node" })
    expect(both.body).toMatchObject({ success: true, result: "code ran" })
    expect((await stop(scrapeId)).status).toBe(200)
  })

  it("blocks a private address the session's page fetches", async () => {
    const { scrapeId } = await scrape({ url: `${siteUrl}/log`, formats: ["markdown"] })
    const reply = await interact(scrapeId, {
      code: `try { const r = await fetch(${JSON.stringify(secretUrl)}); return "status " + r.status + ": " + (await r.text()) } catch (error) { return "failed: " + error }`
    })
    expect(reply.body.success).toBe(true)
    expect(reply.body.result).not.toContain("password")
    expect(secretHits).toBe(0)
    // A navigation of the whole page there is refused too.
    const navigated = await interact(scrapeId, { code: `location.href = ${JSON.stringify(secretUrl)}; await new Promise((r) => setTimeout(r, 1000)); return document.body.innerText` })
    expect(JSON.stringify(navigated.body)).not.toContain("password")
    expect(secretHits).toBe(0)
    expect((await stop(scrapeId)).status).toBe(200)
  })

  it("saves a profile when a saving session stops, and a later scrape with it starts from that state", async () => {
    const name = `harbour-${Date.now()}`
    const before = await scrape({ url: `${siteUrl}/state`, formats: ["markdown"], profile: { name } })
    expect(before.data.markdown).toContain("cookie=none stored=none")
    const set = await interact(before.scrapeId, { code: "document.cookie = 'visited=yes; max-age=3600; path=/'; localStorage.setItem('boat', 'Marigold'); return document.cookie" })
    expect(set.body).toMatchObject({ success: true, result: "visited=yes" })
    expect((await stop(before.scrapeId)).status).toBe(200)

    const after = await scrape({ url: `${siteUrl}/state`, formats: ["markdown"], profile: { name, saveChanges: false } })
    expect(after.data.markdown).toContain("cookie=visited=yes stored=Marigold")
    // Another name starts empty.
    const other = await scrape({ url: `${siteUrl}/state`, formats: ["markdown"], profile: { name: `${name}-other` } })
    expect(other.data.markdown).toContain("cookie=none stored=none")
  })

  it("keeps each team's profiles apart: another team's scrape with the same name starts empty", async () => {
    // A key of another team, made in the server's own store.
    const store = ManagedRuntime.make(layerSqlite({ filename: sqliteFileIn(serverData), cacheMaxBytes: 1024 * 1024 }))
    const teamKey = await store.runPromise(Effect.flatMap(Store, (s) => Effect.andThen(s.setTeam("harbour-b", {}), s.createKey("harbour-b")))).then((created) => created.key)
    await store.dispose()
    const name = `team-${Date.now()}`
    const mine = await scrape({ url: `${siteUrl}/state`, formats: ["markdown"], profile: { name } })
    expect((await interact(mine.scrapeId, { code: "localStorage.setItem('boat', 'Tern'); return 'set'" })).body.success).toBe(true)
    expect((await stop(mine.scrapeId)).status).toBe(200)
    expect((await scrape({ url: `${siteUrl}/state`, formats: ["markdown"], profile: { name } })).data.markdown).toContain("stored=Tern")

    const theirs = await post("/v2/scrape", { url: `${siteUrl}/state`, formats: ["markdown"], profile: { name } }, teamKey)
    expect(theirs.status).toBe(200)
    expect(theirs.body.data.markdown).toContain("cookie=none stored=none")
  })

  it("lets one session at a time save to a profile: a second gets 409, a reader does not", async () => {
    const name = `shared-${Date.now()}`
    const first = await scrape({ url: `${siteUrl}/state`, formats: ["markdown"], profile: { name } })
    const second = await scrape({ url: `${siteUrl}/state`, formats: ["markdown"], profile: { name, saveChanges: true } })
    const reader = await scrape({ url: `${siteUrl}/state`, formats: ["markdown"], profile: { name, saveChanges: false } })
    expect((await interact(first.scrapeId, { code: "return 1" })).body.success).toBe(true)
    const refused = await interact(second.scrapeId, { code: "return 1" })
    expect(refused.status).toBe(409)
    expect(refused.body).toMatchObject({ success: false, code: "PROFILE_LOCKED" })
    expect(refused.body.error).toContain("Only one writer is allowed at a time")
    expect((await interact(reader.scrapeId, { code: "return 2" })).body).toMatchObject({ success: true, result: "2" })
    expect((await stop(first.scrapeId)).status).toBe(200)
    // Free again once the writer stopped.
    expect((await interact(second.scrapeId, { code: "return 3" })).body).toMatchObject({ success: true, result: "3" })
    expect((await stop(second.scrapeId)).status).toBe(200)
    expect((await stop(reader.scrapeId)).status).toBe(200)
  })

  it("bills each call once for its browser time, refuses it with 402 before it runs when credits are short, and holds the team's concurrency slot while it runs", async () => {
    // A team of the server's own store: 6 credits, one request at a time.
    const store = ManagedRuntime.make(layerSqlite({ filename: sqliteFileIn(serverData), cacheMaxBytes: 1024 * 1024 }))
    const teamKey = await store.runPromise(Effect.flatMap(Store, (s) => Effect.andThen(s.setTeam("billed", { credits: 6, concurrency: 1 }), s.createKey("billed")))).then((created) => created.key)
    const balance = () => store.runPromise(Effect.flatMap(Store, (s) => s.getTeam("billed"))).then((team) => Option.getOrThrow(team).credits)
    try {
      const scraped = await post("/v2/scrape", { url: `${siteUrl}/log`, formats: ["markdown"] }, teamKey)
      expect(scraped.body.data.metadata.creditsUsed).toBe(1)
      const scrapeId = scraped.body.data.metadata.scrapeId as string
      const ranBefore = ranHits

      // A call that takes a while, and a scrape sent while it runs: the scrape waits for the call's slot.
      const slow = interact(scrapeId, { code: `await fetch("${siteUrl}/ran?slow"); await new Promise((r) => setTimeout(r, 1500)); return "slow done"` }, teamKey)
      for (let i = 0; i < 100 && ranHits === ranBefore; i++) await new Promise((resolve) => setTimeout(resolve, 50))
      expect(ranHits).toBe(ranBefore + 1)
      const queued = await post("/v2/scrape", { url: `${siteUrl}/log`, formats: ["markdown"] }, teamKey)
      const call = await slow
      expect(call.status).toBe(200)
      expect(call.body).toMatchObject({ success: true, result: "slow done", creditsUsed: 2 })
      expect(queued.status).toBe(200)
      expect(queued.body.data.metadata).toMatchObject({ concurrencyLimited: true, creditsUsed: 1 })
      expect(queued.body.data.metadata.concurrencyQueueDurationMs).toBeGreaterThan(0)
      expect(await balance()).toBe(2)

      // A failed run used the browser too: it is charged.
      const thrown = await interact(scrapeId, { code: `await fetch("${siteUrl}/ran?thrown"); throw new Error("aground")` }, teamKey)
      expect(thrown.body).toMatchObject({ success: false, exitCode: 1, creditsUsed: 2 })
      expect(await balance()).toBe(0)

      // Nothing left: 402 before the code runs, and nothing charged.
      const refused = await interact(scrapeId, { code: `await fetch("${siteUrl}/ran?refused"); return 1` }, teamKey)
      expect(refused.status).toBe(402)
      expect(refused.body).toMatchObject({ success: false, code: "insufficient_credits" })
      expect(ranHits).toBe(ranBefore + 2)
      expect(await balance()).toBe(0)

      // An unknown scrape costs nothing either (checked with credits on the team again).
      await store.runPromise(Effect.flatMap(Store, (s) => s.setTeam("billed", { credits: 4, concurrency: 1 })))
      expect((await interact("00000000-0000-4000-8000-000000000000", { code: "return 1" }, teamKey)).status).toBe(404)
      expect(await balance()).toBe(4)
      expect((await stop(scrapeId, teamKey)).body).toMatchObject({ success: true, creditsBilled: 0 })
    } finally {
      await store.dispose()
    }
  })

  it("refuses a session past the limit with 429, and opens it once another stops", async () => {
    const ids = await Promise.all([1, 2, 3, 4].map(() => scrape({ url: `${siteUrl}/log`, formats: ["markdown"] }).then((s) => s.scrapeId)))
    for (const id of ids.slice(0, 3)) expect((await interact(id, { code: "return 1" })).status).toBe(200)
    const refused = await interact(ids[3], { code: "return 1" })
    expect(refused.status).toBe(429)
    expect(Object.keys(refused.body)).toEqual(["error"])
    expect(refused.body.error).toContain("maximum number of concurrent browser sessions (3)")
    expect((await stop(ids[0])).status).toBe(200)
    expect((await interact(ids[3], { code: "return 4" })).body).toMatchObject({ success: true, result: "4" })
    for (const id of ids.slice(1)) expect((await stop(id)).status).toBe(200)
  })
})
