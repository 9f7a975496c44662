/**
 * The pg-boss job queue on a real, throwaway Postgres: jobs run and complete; a job that always
 * fails is retried with backoff, then failed and copied to the dead-letter queue; re-enqueueing the
 * same keys (before and after they ran) adds nothing and runs nothing again; a worker process
 * killed with SIGKILL mid-job has its job run by another worker process (10-12 s measured; pg-boss's
 * defaults took 52 s), and the job's result is written once.
 */
import { assert, describe, it } from "@effect/vitest"
import { deadLetterOf, JobQueue, jobIdFor, MemoryJobQueue, Priority } from "@strata/core"
import { ConfigProvider, Effect, Layer, Option, Redacted } from "effect"
import { type ChildProcess, spawn } from "node:child_process"
import { mkdtempSync, readdirSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { afterAll, beforeAll } from "vitest"
import { startPostgres, type TempPostgres } from "../../store/test/support/TempPostgres.ts"
import { layer, layerConfig } from "../src/index.ts"

let postgres: TempPostgres
let databases = 0
beforeAll(async () => {
  postgres = await startPostgres()
}, 120_000)
afterAll(() => postgres?.stop())

const freshUrl = () => postgres.createDatabase(`q${process.pid}_${++databases}`)
const queueOn = (url: string) => layer({ url: Redacted.make(url) })

const until = <R>(check: Effect.Effect<boolean, unknown, R>, what: string, timeoutMs = 30_000) =>
  Effect.gen(function*() {
    const end = Date.now() + timeoutMs
    while (!(yield* check)) {
      if (Date.now() > end) return yield* Effect.die(new Error(`timed out waiting for ${what}`))
      yield* Effect.sleep("50 millis")
    }
  })

const statusOf = (queue: string, id: string) =>
  Effect.flatMap(JobQueue, (q) => Effect.map(q.job(queue, id), Option.map((info) => info.status)))

describe("PgBossQueue", () => {
  it.live("the environment chooses: the in-process queue without STRATA_DATABASE_URL, pg-boss with it", () =>
    Effect.gen(function*() {
      const backendWith = (env: Record<string, string>) =>
        Effect.map(JobQueue, (queue) => queue.backend).pipe(
          Effect.scoped,
          Effect.provide(layerConfig(MemoryJobQueue.layer).pipe(Layer.provide(ConfigProvider.layer(ConfigProvider.fromEnv({ env })))))
        )
      assert.strictEqual(yield* backendWith({}), "memory")
      assert.strictEqual(yield* backendWith({ STRATA_DATABASE_URL: freshUrl() }), "pg-boss")
      // A database that cannot be reached is a clear error, not a hang.
      const unreachable = yield* Effect.flip(backendWith({ STRATA_DATABASE_URL: "postgres://strata@127.0.0.1:1/none" }))
      assert.match(String((unreachable as { message?: string }).message), /ECONNREFUSED|connect/i)
    }))

  it.live("runs enqueued jobs and records them completed; depth counts what waits", () =>
    Effect.gen(function*() {
      const queue = yield* JobQueue
      assert.strictEqual(queue.backend, "pg-boss")
      yield* queue.define("convert")
      const { ids, created } = yield* queue.enqueue("convert", [1, 2, 3].map((n) => ({ key: `doc-${n}`, data: { n } })))
      assert.strictEqual(created, 3)
      assert.deepStrictEqual(ids, [1, 2, 3].map((n) => jobIdFor("convert", `doc-${n}`)))
      const waiting = yield* queue.depth("convert")
      assert.strictEqual(waiting.queued, 3)
      assert.isAtLeast(waiting.oldestQueuedMs ?? -1, 0)
      const seen: Array<number> = []
      yield* queue.work("convert", { slots: 2 }, (job) => Effect.sync(() => void seen.push((job.data as { n: number }).n)))
      yield* until(Effect.map(queue.depth("convert"), (d) => d.queued === 0 && d.active === 0), "the jobs to run")
      assert.deepStrictEqual([...seen].sort(), [1, 2, 3])
      const info = Option.getOrThrow(yield* queue.job("convert", ids[0]!))
      assert.strictEqual(info.status, "completed")
      assert.strictEqual(info.attempts, 1)
      assert.isTrue(Option.isNone(yield* queue.job("convert", jobIdFor("convert", "never-sent"))))
    }).pipe(Effect.scoped, Effect.provide(queueOn(freshUrl()))))

  it.live("retries a job that always fails, then fails it and dead-letters it", () =>
    Effect.gen(function*() {
      const queue = yield* JobQueue
      yield* queue.define("poison", { retries: 2, backoffMs: 1000 })
      const attempts: Array<number> = []
      yield* queue.work("poison", { slots: 1 }, (job) =>
        Effect.suspend(() => {
          attempts.push(job.attempt)
          assert.strictEqual(job.maxAttempts, 3)
          return Effect.fail(new Error(`cannot read this document (attempt ${job.attempt})`))
        }))
      const { ids } = yield* queue.enqueue("poison", [{ key: "bad.pdf", data: { path: "bad.pdf" } }])
      yield* until(Effect.map(statusOf("poison", ids[0]!), (s) => Option.getOrUndefined(s) === "failed"), "the job to fail", 45_000)
      assert.deepStrictEqual(attempts, [1, 2, 3])
      const info = Option.getOrThrow(yield* queue.job("poison", ids[0]!))
      assert.strictEqual(info.attempts, 3)
      assert.match(info.error ?? "", /cannot read this document \(attempt 3\)/)
      assert.strictEqual((yield* queue.depth("poison")).failed, 1)
      // The dead-letter queue holds a copy, under an id of its own, for someone to look at or redrive.
      assert.strictEqual((yield* queue.depth(deadLetterOf("poison"))).queued, 1)
    }).pipe(Effect.scoped, Effect.provide(queueOn(freshUrl()))))

  it.live("a job's own deadline replaces the queue's: past the queue's 1 s it runs on; without one it fails at 1 s", () =>
    Effect.gen(function*() {
      const queue = yield* JobQueue
      yield* queue.define("slow", { deadlineMs: 1000, retries: 0 })
      const seen: Array<{ key: string; window: number }> = []
      yield* queue.work("slow", { slots: 2 }, (job) =>
        Effect.suspend(() => {
          const key = (job.data as { key: string }).key
          seen.push({ key, window: job.deadline - Date.now() })
          return Effect.sleep("2500 millis")
        }))
      const { ids } = yield* queue.enqueue("slow", [
        { key: "own", data: { key: "own" }, deadlineMs: 6000 },
        { key: "queue's", data: { key: "queue's" } }
      ])
      yield* until(
        Effect.map(Effect.all(ids.map((id) => statusOf("slow", id))), (all) => all.every((s) => ["completed", "failed"].includes(Option.getOrUndefined(s) ?? ""))),
        "both jobs to end"
      )
      const [own, queues] = yield* Effect.all(ids.map((id) => Effect.map(queue.job("slow", id), Option.getOrThrow)))
      assert.strictEqual(own!.status, "completed")
      assert.strictEqual(queues!.status, "failed")
      assert.match(queues!.error ?? "", /deadline of 1000 ms/)
      // Each attempt is told its own deadline.
      const windowOf = (key: string) => seen.find((entry) => entry.key === key)!.window
      assert.isAbove(windowOf("own"), 5000)
      assert.isAtMost(windowOf("queue's"), 1000)
    }).pipe(Effect.scoped, Effect.provide(queueOn(freshUrl()))))

  it.live("re-enqueueing the same keys adds nothing and runs nothing again", () =>
    Effect.gen(function*() {
      const queue = yield* JobQueue
      yield* queue.define("convert")
      const keys = ["a", "b", "c"].map((key) => ({ key, data: { key } }))
      assert.strictEqual((yield* queue.enqueue("convert", keys)).created, 3)
      // The same keys again, twice in one batch too: nothing new.
      assert.strictEqual((yield* queue.enqueue("convert", [...keys, keys[0]!])).created, 0)
      const runs: Array<string> = []
      yield* queue.work("convert", { slots: 1 }, (job) => Effect.sync(() => void runs.push((job.data as { key: string }).key)))
      yield* until(Effect.map(queue.depth("convert"), (d) => d.queued === 0 && d.active === 0), "the jobs to run")
      // After they ran, too (a resumed run re-enqueues everything it has not seen finish).
      const again = yield* queue.enqueue("convert", [...keys, { key: "d", data: { key: "d" } }])
      assert.strictEqual(again.created, 1)
      yield* until(Effect.sync(() => runs.length === 4), "the new job to run")
      yield* Effect.sleep("1500 millis")
      assert.deepStrictEqual([...runs].sort(), ["a", "b", "c", "d"])
    }).pipe(Effect.scoped, Effect.provide(queueOn(freshUrl()))))

  it.live("takes higher priorities first (API jobs before corpus jobs)", () =>
    Effect.gen(function*() {
      const queue = yield* JobQueue
      yield* queue.define("mixed")
      yield* queue.enqueue("mixed", [1, 2, 3].map((n) => ({ key: `corpus-${n}`, data: { name: `corpus-${n}` }, priority: Priority.corpus })))
      yield* queue.enqueue("mixed", [{ key: "api-1", data: { name: "api-1" }, priority: Priority.api }])
      const order: Array<string> = []
      yield* queue.work("mixed", { slots: 1 }, (job) => Effect.sync(() => void order.push((job.data as { name: string }).name)))
      yield* until(Effect.sync(() => order.length === 4), "the jobs to run")
      assert.deepStrictEqual(order, ["api-1", "corpus-1", "corpus-2", "corpus-3"])
    }).pipe(Effect.scoped, Effect.provide(queueOn(freshUrl()))))

  it.live("SIGTERM drains a worker: no new jobs, the running one finishes, then it exits", () => {
    const url = freshUrl()
    const results = mkdtempSync(join(tmpdir(), "strata-fleet-results-"))
    const children: Array<Worker> = []
    return Effect.gen(function*() {
      const a = startWorker(url, "drain", results)
      children.push(a)
      yield* until(Effect.sync(() => a.lines.includes("ready")), "the worker to start")
      const queue = yield* JobQueue
      const { ids } = yield* queue.enqueue("drain", [{ key: "slow", data: { sleepMs: 3000 } }, { key: "next", data: {} }])
      yield* until(Effect.sync(() => a.lines.some((line) => line.startsWith("started "))), "the worker to take a job")
      const first = a.lines.find((line) => line.startsWith("started "))!.split(" ")[1]!
      assert.strictEqual(first, ids[0])
      a.process.kill("SIGTERM")
      const code = yield* Effect.promise(() => new Promise<number | null>((resolve) => a.process.once("exit", resolve)))
      assert.strictEqual(code, 0)
      assert.includeMembers(a.lines, [`done ${ids[0]}`, "stopping", "stopped"])
      assert.isTrue(a.lines.indexOf(`done ${ids[0]}`) < a.lines.indexOf("stopped"))
      // The job it had not taken is still there for another worker.
      assert.notInclude(a.lines, `started ${ids[1]} 1`)
      assert.strictEqual(Option.getOrThrow(yield* queue.job("drain", ids[0]!)).status, "completed")
      assert.strictEqual(Option.getOrThrow(yield* queue.job("drain", ids[1]!)).status, "queued")
    }).pipe(
      Effect.scoped,
      Effect.provide(queueOn(url)),
      Effect.ensuring(Effect.sync(() => children.forEach((child) => child.process.kill("SIGKILL"))))
    )
  }, 60_000)

  it.live("a worker killed with SIGKILL mid-job: another runs the job well before pg-boss's default expiry, and its result is written once", () => {
    const url = freshUrl()
    const results = mkdtempSync(join(tmpdir(), "strata-fleet-results-"))
    const children: Array<Worker> = []
    return Effect.gen(function*() {
      const a = startWorker(url, "kill", results)
      children.push(a)
      yield* until(Effect.sync(() => a.lines.includes("ready")), "worker A to start")
      const queue = yield* JobQueue
      const { ids } = yield* queue.enqueue("kill", [{ key: "hangs-once", data: { hang: true } }])
      const id = ids[0]!
      yield* until(Effect.sync(() => a.lines.includes(`started ${id} 1`)), "worker A to take the job")
      const b = startWorker(url, "kill", results)
      children.push(b)
      yield* until(Effect.sync(() => b.lines.includes("ready")), "worker B to start")
      a.process.kill("SIGKILL")
      const killedAt = Date.now()
      yield* until(Effect.sync(() => b.lines.includes(`done ${id}`) || b.lines.includes(`double ${id}`)), "worker B to run the job", 40_000)
      const restartedMs = Date.now() - killedAt
      // Measured 10.0-12.0 s at load 4-8 (the target is 15 s; the figure is printed below).
      // The bound only catches lost tuning: with pg-boss's defaults the job waited ~52 s. A
      // tighter one would fail on a busy 2-core CI machine while the tuning is intact.
      assert.isBelow(restartedMs, 25_000, `the job ran again ${restartedMs} ms after its worker died`)
      assert.include(b.lines, `started ${id} 2`)
      assert.notInclude(b.lines, `double ${id}`)
      assert.deepStrictEqual(readdirSync(results), [id])
      yield* until(Effect.map(statusOf("kill", id), (s) => Option.getOrUndefined(s) === "completed"), "the job to be completed")
      assert.strictEqual(Option.getOrThrow(yield* queue.job("kill", id)).attempts, 2)
      console.log(`fleet: a SIGKILLed worker's job ran again after ${restartedMs} ms`)
    }).pipe(
      Effect.scoped,
      Effect.provide(queueOn(url)),
      Effect.ensuring(Effect.sync(() => children.forEach((child) => child.process.kill("SIGKILL"))))
    )
  }, 90_000)
})

interface Worker {
  readonly process: ChildProcess
  readonly lines: Array<string>
}

const workerScript = fileURLToPath(new URL("./support/QueueWorker.ts", import.meta.url))

const startWorker = (url: string, queue: string, results: string): Worker => {
  const child = spawn(process.execPath, ["--conditions=@strata/source", workerScript, url, queue, results], {
    stdio: ["ignore", "pipe", "inherit"]
  })
  const lines: Array<string> = []
  let pending = ""
  child.stdout!.setEncoding("utf8").on("data", (chunk: string) => {
    pending += chunk
    const parts = pending.split("\n")
    pending = parts.pop() ?? ""
    lines.push(...parts)
  })
  return { process: child, lines }
}
