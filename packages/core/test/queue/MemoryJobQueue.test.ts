/**
 * The in-process job queue against the contract: jobs run and complete, a job that always fails
 * is retried with backoff and then dead-lettered, an attempt past its deadline fails like any
 * other, re-enqueueing the same keys adds nothing, higher priorities go first, a job no slot holds
 * can be cancelled, and bad queue names are refused with a clear error.
 */
import { assert, describe, it } from "@effect/vitest"
import { deadLetterOf, JobQueue, jobIdFor, MemoryJobQueue, Priority } from "@strata/core"
import { Effect, Exit, Option } from "effect"

const provide = Effect.provide(MemoryJobQueue.layer)

/** Polls `check` every 10 ms until it holds (or the test's own timeout ends it). */
const until = (check: Effect.Effect<boolean, unknown>) =>
  Effect.gen(function*() {
    while (!(yield* check)) yield* Effect.sleep("10 millis")
  })

describe("MemoryJobQueue", () => {
  it.live("runs enqueued jobs in its slots and records them completed", () =>
    Effect.gen(function*() {
      const queue = yield* JobQueue
      yield* queue.define("convert")
      const seen: Array<number> = []
      yield* queue.work("convert", { slots: 2 }, (job) => Effect.sync(() => void seen.push((job.data as { n: number }).n)))
      const enqueued = yield* queue.enqueue("convert", [1, 2, 3].map((n) => ({ key: `doc-${n}`, data: { n } })))
      assert.strictEqual(enqueued.created, 3)
      assert.deepStrictEqual(enqueued.ids, [1, 2, 3].map((n) => jobIdFor("convert", `doc-${n}`)))
      yield* until(Effect.map(queue.depth("convert"), (d) => d.queued === 0 && d.active === 0))
      assert.deepStrictEqual([...seen].sort(), [1, 2, 3])
      const info = Option.getOrThrow(yield* queue.job("convert", enqueued.ids[0]!))
      assert.strictEqual(info.status, "completed")
      assert.strictEqual(info.attempts, 1)
    }).pipe(Effect.scoped, provide))

  it.live("retries a job that always fails, then dead-letters it", () =>
    Effect.gen(function*() {
      const queue = yield* JobQueue
      yield* queue.define("poison", { retries: 2, backoffMs: 20 })
      const attempts: Array<number> = []
      const started: Array<number> = []
      yield* queue.work("poison", { slots: 1 }, (job) =>
        Effect.suspend(() => {
          attempts.push(job.attempt)
          started.push(Date.now())
          return Effect.fail(new Error(`bad document (attempt ${job.attempt})`))
        }))
      const { ids } = yield* queue.enqueue("poison", [{ key: "bad.pdf", data: { path: "bad.pdf" } }])
      yield* until(Effect.map(queue.job("poison", ids[0]!), (info) => Option.isSome(info) && info.value.status === "failed"))
      assert.deepStrictEqual(attempts, [1, 2, 3])
      // Backoff: the second retry waited about twice as long as the first.
      assert.isAtLeast(started[1]! - started[0]!, 15)
      assert.isAtLeast(started[2]! - started[1]!, 35)
      const info = Option.getOrThrow(yield* queue.job("poison", ids[0]!))
      assert.strictEqual(info.error, "bad document (attempt 3)")
      const dead = yield* queue.job(deadLetterOf("poison"), ids[0]!)
      assert.isTrue(Option.isSome(dead))
      assert.strictEqual((yield* queue.depth("poison")).failed, 1)
    }).pipe(Effect.scoped, provide))

  it.live("an attempt past its deadline is a failed attempt", () =>
    Effect.gen(function*() {
      const queue = yield* JobQueue
      yield* queue.define("slow", { deadlineMs: 50, retries: 1, backoffMs: 10 })
      let runs = 0
      yield* queue.work("slow", { slots: 1 }, () => Effect.suspend(() => {
        runs++
        return runs === 1 ? Effect.never : Effect.void
      }))
      const { ids } = yield* queue.enqueue("slow", [{ key: "a", data: {} }])
      yield* until(Effect.map(queue.job("slow", ids[0]!), (info) => Option.isSome(info) && info.value.status === "completed"))
      assert.strictEqual(runs, 2)
      assert.strictEqual(Option.getOrThrow(yield* queue.job("slow", ids[0]!)).attempts, 2)
    }).pipe(Effect.scoped, provide))

  it.live("a job's own deadline replaces the queue's", () =>
    Effect.gen(function*() {
      const queue = yield* JobQueue
      yield* queue.define("slow", { deadlineMs: 100, retries: 0 })
      yield* queue.work("slow", { slots: 2 }, () => Effect.sleep("250 millis"))
      const { ids } = yield* queue.enqueue("slow", [{ key: "own", data: {}, deadlineMs: 2000 }, { key: "queue's", data: {} }])
      const statuses = Effect.all(ids.map((id) => Effect.map(queue.job("slow", id), (info) => Option.getOrThrow(info).status)))
      yield* until(Effect.map(statuses, (all) => all.every((status) => status === "completed" || status === "failed")))
      assert.deepStrictEqual(yield* statuses, ["completed", "failed"])
    }).pipe(Effect.scoped, provide))

  it.live("re-enqueueing the same keys adds nothing", () =>
    Effect.gen(function*() {
      const queue = yield* JobQueue
      yield* queue.define("convert")
      const first = yield* queue.enqueue("convert", [{ key: "a", data: {} }, { key: "b", data: {} }])
      const again = yield* queue.enqueue("convert", [{ key: "a", data: {} }, { key: "b", data: {} }, { key: "c", data: {} }])
      assert.strictEqual(first.created, 2)
      assert.strictEqual(again.created, 1)
      assert.deepStrictEqual(again.ids.slice(0, 2), first.ids)
      assert.strictEqual((yield* queue.depth("convert")).queued, 3)
    }).pipe(Effect.scoped, provide))

  it.live("higher priorities are taken first", () =>
    Effect.gen(function*() {
      const queue = yield* JobQueue
      yield* queue.define("mixed")
      yield* queue.enqueue("mixed", [1, 2, 3].map((n) => ({ key: `corpus-${n}`, data: { name: `corpus-${n}` }, priority: Priority.corpus })))
      yield* queue.enqueue("mixed", [{ key: "api-1", data: { name: "api-1" }, priority: Priority.api }])
      const order: Array<string> = []
      yield* queue.work("mixed", { slots: 1 }, (job) => Effect.sync(() => void order.push((job.data as { name: string }).name)))
      yield* until(Effect.sync(() => order.length === 4))
      assert.deepStrictEqual(order, ["api-1", "corpus-1", "corpus-2", "corpus-3"])
    }).pipe(Effect.scoped, provide))

  it.live("cancels a job no slot holds, waiting or waiting for a retry, and leaves a running one alone", () =>
    Effect.gen(function*() {
      const queue = yield* JobQueue
      yield* queue.define("cancel", { retries: 1, backoffMs: 200 })
      const ran: Array<string> = []
      const [waiting, retrying, running] = (yield* queue.enqueue("cancel", ["waiting", "retrying", "running"].map((key) => ({ key, data: { key } })))).ids
      // Nothing works the queue yet: the first job is cancelled before it could run.
      assert.isTrue(yield* queue.cancelQueued("cancel", waiting!))
      let release = false
      yield* queue.work("cancel", { slots: 2 }, (job) => {
        const key = (job.data as { key: string }).key
        ran.push(`${key}#${job.attempt}`)
        if (key === "retrying") return Effect.fail(new Error("once"))
        return until(Effect.sync(() => release))
      })
      yield* until(Effect.map(queue.job("cancel", retrying!), (info) => Option.getOrThrow(info).status === "retry"))
      yield* until(Effect.map(queue.job("cancel", running!), (info) => Option.getOrThrow(info).status === "active"))
      assert.isTrue(yield* queue.cancelQueued("cancel", retrying!))
      assert.isFalse(yield* queue.cancelQueued("cancel", running!))
      release = true
      yield* until(Effect.map(queue.job("cancel", running!), (info) => Option.getOrThrow(info).status === "completed"))
      yield* Effect.sleep("400 millis")
      assert.deepStrictEqual(ran.sort(), ["retrying#1", "running#1"])
      assert.strictEqual(Option.getOrThrow(yield* queue.job("cancel", waiting!)).status, "cancelled")
      assert.strictEqual(Option.getOrThrow(yield* queue.job("cancel", retrying!)).status, "cancelled")
      assert.isFalse(yield* queue.cancelQueued("cancel", running!))
    }).pipe(Effect.scoped, provide))

  it.live("refuses a bad queue name and an undefined queue with a clear error", () =>
    Effect.gen(function*() {
      const queue = yield* JobQueue
      const bad = yield* Effect.exit(queue.define("no spaces; please"))
      assert.isTrue(Exit.isFailure(bad))
      const missing = yield* Effect.flip(queue.enqueue("nowhere", [{ key: "a", data: {} }]))
      assert.strictEqual(missing.reason._tag, "InvalidJob")
      assert.match(missing.message, /define it first/)
    }).pipe(Effect.scoped, provide))
})
