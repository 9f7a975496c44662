/**
 * /ready and /metrics of a replica on Postgres (a throwaway server from Debian's binaries), with
 * the pg-boss queue in its context: ready while the database answers, the queue's depth in the
 * metrics, and 503 naming the store and the queue once the database is stopped (while /health,
 * liveness, still answers 200: the process is fine, it cannot serve).
 */
import { JobQueue } from "@strata/core"
import { layer as pgBossLayer } from "@strata/fleet"
import { Context, Effect, Layer, Redacted } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startPostgres, type TempPostgres } from "../../store/test/support/TempPostgres.ts"
import { parseExposition } from "./PrometheusParse.ts"
import { pipelineDouble, startTestServer, type TestServer } from "./support.ts"

let postgres: TempPostgres | undefined
let server: TestServer | undefined
let url = ""
const databaseUrlBefore = process.env.STRATA_DATABASE_URL

beforeAll(async () => {
  postgres = await startPostgres()
  url = postgres.createDatabase(`probes_${process.pid}`)
  // Before the server starts: effect reads the environment once.
  process.env.STRATA_DATABASE_URL = url
}, 120_000)

afterAll(async () => {
  await server?.close()
  if (databaseUrlBefore === undefined) delete process.env.STRATA_DATABASE_URL
  else process.env.STRATA_DATABASE_URL = databaseUrlBefore
  postgres?.stop()
})

describe("/ready on Postgres", () => {
  it("is 200 while Postgres answers and 503 once it is stopped; /metrics reads the pg-boss queue", async () => {
    const queue = pgBossLayer({ url: Redacted.make(url), onError: () => {} })
    const pipeline = pipelineDouble({ scrape: () => Effect.succeed({ markdown: "" }), parse: () => Effect.succeed({}) })
    server = await startTestServer(Layer.merge(pipeline, queue), { apiKeys: ["k"], queues: ["corpus"] })
    // Jobs to count, through a second connection as `strata parse --queue` would add them.
    await Effect.runPromise(Effect.scoped(Effect.gen(function*() {
      const jobs = Context.get(yield* Layer.build(queue), JobQueue)
      yield* jobs.define("corpus")
      yield* jobs.enqueue("corpus", [{ key: "one", data: {} }, { key: "two", data: {} }, { key: "three", data: {} }])
    })))

    const ready = await fetch(`${server.url}/ready`)
    expect(ready.status).toBe(200)
    const metrics = parseExposition(await (await fetch(`${server.url}/metrics`)).text())
    expect(metrics.value("strata_queue_jobs", { queue: "corpus", state: "queued" })).toBe(3)
    expect(metrics.value("strata_queue_oldest_waiting_seconds", { queue: "corpus" })).toBeGreaterThan(0)

    postgres!.stop()
    postgres = undefined
    const down = await fetch(`${server.url}/ready`)
    expect(down.status).toBe(503)
    const body = (await down.json()) as { success: boolean; error: string }
    expect(body.success).toBe(false)
    expect(body.error).toMatch(/^store: /)
    expect(body.error).toMatch(/queue corpus: /)
    expect((await fetch(`${server.url}/health`)).status).toBe(200)
    // The queue's series leave the scrape; the text still parses and the counters are there.
    const after = parseExposition(await (await fetch(`${server.url}/metrics`)).text())
    expect(after.value("strata_queue_jobs", { queue: "corpus", state: "queued" })).toBeUndefined()
    expect(after.value("strata_http_requests_total", { endpoint: "/ready", status: "503" })).toBe(1)
  }, 60_000)
})
