/**
 * /ready and /metrics on the real server (SQLite): the text is Prometheus exposition a scraper
 * accepts, the counters move with the requests answered, probes are not requests in flight, the
 * reader pool's load and a queue's depth are read when scraped, and STRATA_METRICS decides who
 * may read it.
 */
import { DocumentReaders, JobQueue, MemoryJobQueue, type ReaderLoad } from "@strata/core"
import { Effect, Exit, Layer, Scope } from "effect"
import { afterAll, describe, expect, it } from "vitest"
import { serverConfigFromEnv } from "../src/index.ts"
import { parseExposition } from "./PrometheusParse.ts"
import { pipelineDouble, startTestServer, type TestServer } from "./support.ts"

const servers: Array<TestServer> = []
const scope = Effect.runSync(Scope.make())
afterAll(async () => {
  for (const server of servers) await server.close()
  await Effect.runPromise(Scope.close(scope, Exit.void))
})

const scrapeBody = JSON.stringify({ url: "https://example.com/" })
const scrape = (server: TestServer) =>
  fetch(`${server.url}/v2/scrape`, { method: "POST", headers: { authorization: "Bearer k", "content-type": "application/json" }, body: scrapeBody })

const metricsOf = async (server: TestServer, headers: Record<string, string> = {}) => {
  const response = await fetch(`${server.url}/metrics`, { headers })
  expect(response.status).toBe(200)
  expect(response.headers.get("content-type")).toBe("text/plain; version=0.0.4; charset=utf-8")
  return parseExposition(await response.text())
}

describe("/ready and /metrics", () => {
  it("exposes request counters, the reader pool and queue depth as Prometheus text, without a key", async () => {
    const queue = await Effect.runPromise(Scope.provide(MemoryJobQueue.make, scope))
    await Effect.runPromise(queue.define("corpus"))
    const load: { current: ReaderLoad } = { current: { size: 2, busy: 0, idle: 0, queued: 0 } }
    const readers = DocumentReaders.of({ supports: () => false, read: () => Effect.die("not read here"), load: () => load.current })
    let release: (() => void) | undefined
    const server = await startTestServer(
      Layer.mergeAll(
        pipelineDouble({
          scrape: (request) =>
            request.url.endsWith("/slow")
              ? Effect.promise(() => new Promise<void>((resolve) => (release = resolve))).pipe(Effect.as({ markdown: "slow" }))
              : Effect.succeed({ markdown: "done" }),
          parse: () => Effect.succeed({})
        }),
        Layer.succeed(JobQueue, queue),
        Layer.succeed(DocumentReaders, readers)
      ),
      { apiKeys: ["k"] }
    )
    servers.push(server)

    const ready = await fetch(`${server.url}/ready`)
    expect(ready.status).toBe(200)
    expect(await ready.json()).toEqual({ status: "ready", success: true })

    const before = await metricsOf(server)
    for (const [name, type] of before.types) {
      expect(name).toMatch(/^strata_/)
      if (type === "counter") expect(name).toMatch(/_total$/)
      expect(before.help.get(name)).toBeTruthy()
    }
    const scrapes = (m: typeof before) => m.value("strata_http_requests_total", { method: "POST", endpoint: "/v2/scrape", status: "200" }) ?? 0
    expect(before.value("strata_http_requests_in_flight")).toBe(0) // the scrape of /metrics is not in flight
    expect(before.value("strata_queue_jobs", { queue: "corpus", state: "queued" })).toBe(0)
    expect(before.value("strata_queue_oldest_waiting_seconds", { queue: "corpus" })).toBe(0)
    expect(before.value("strata_reader_pool_size")).toBe(2)

    expect((await scrape(server)).status).toBe(200)
    expect((await scrape(server)).status).toBe(200)
    await fetch(`${server.url}/nowhere`)
    await Effect.runPromise(queue.enqueue("corpus", [{ key: "a", data: {} }, { key: "b", data: {} }]))
    load.current = { size: 2, busy: 2, idle: 0, queued: 3 }
    const slow = fetch(`${server.url}/v2/scrape`, {
      method: "POST",
      headers: { authorization: "Bearer k", "content-type": "application/json" },
      body: JSON.stringify({ url: "https://example.com/slow" })
    })
    await expect.poll(() => release !== undefined).toBe(true)

    const after = await metricsOf(server)
    expect(scrapes(after) - scrapes(before)).toBe(2)
    expect(after.value("strata_http_requests_total", { endpoint: "other", status: "404" })).toBe(1)
    expect(after.value("strata_http_requests_total", { endpoint: "/metrics", status: "200" })).toBe(1)
    expect(after.value("strata_http_requests_in_flight")).toBe(1) // the slow scrape
    expect(after.value("strata_queue_jobs", { queue: "corpus", state: "queued" })).toBe(2)
    expect(after.value("strata_queue_oldest_waiting_seconds", { queue: "corpus" })).toBeGreaterThanOrEqual(0)
    expect(after.value("strata_reader_pool_processes", { state: "busy" })).toBe(2)
    expect(after.value("strata_reader_pool_queued")).toBe(3)
    release!()
    expect((await slow).status).toBe(200)
    await expect.poll(async () => (await metricsOf(server)).value("strata_http_requests_in_flight")).toBe(0)
  })

  it("STRATA_METRICS=key asks for an API key and off hides the endpoint; /ready needs none", async () => {
    const pipeline = pipelineDouble({ scrape: () => Effect.succeed({ markdown: "" }), parse: () => Effect.succeed({}) })
    const keyed = await startTestServer(pipeline, { apiKeys: ["k"], metrics: serverConfigFromEnv({ STRATA_METRICS: "key" }).metrics })
    const off = await startTestServer(pipeline, { apiKeys: ["k"], metrics: "off" })
    servers.push(keyed, off)
    expect((await fetch(`${keyed.url}/metrics`)).status).toBe(401)
    await metricsOf(keyed, { authorization: "Bearer k" })
    expect((await fetch(`${keyed.url}/ready`)).status).toBe(200)
    expect((await fetch(`${off.url}/metrics`, { headers: { authorization: "Bearer k" } })).status).toBe(404)
    expect(() => serverConfigFromEnv({ STRATA_METRICS: "public" })).toThrow(/STRATA_METRICS/)
  })
})
