/**
 * A replica's queued parse (Replica.ts) against the pg-boss queue and `fleet_parse_jobs` on a
 * real, throwaway Postgres, with an in-process handler in the worker's place: the data a worker
 * writes is the answer; the pipeline's error a worker writes comes back as the same `ScrapeError`
 * (so the route answers it as inline); an attempt without an answer is retried and the answer
 * read once (the route charges once, whatever the attempts); a job whose every attempt ends without an answer
 * (dead-lettered) is a DocumentUnreadable; a wait interrupted (the client gone) deletes the row,
 * and a worker that had taken the job then finds nothing to read (one not taken yet is cancelled:
 * SlotJobs.test.ts); only PDFs over the threshold are taken.
 */
import { assert, describe, it } from "@effect/vitest"
import { PgClient } from "@effect/sql-pg"
import { DocumentUnreadable, jobIdFor, QueuedParse, ScrapeError, scrapeError } from "@strata/core"
import { Deferred, Effect, Exit, Fiber, Option, Schema } from "effect"
import { FLEET_QUEUE, ParseJobs, parseJobKey } from "../src/index.ts"
import { file, options, parseRow, replicaServices, usePostgres, work } from "./support/ReplicaHarness.ts"

const postgres = usePostgres("replica")

/** The replica's services on a fresh database; every upload counts `pages` pages. */
const replicaOn = (pages: number | undefined) => replicaServices(postgres.database(), pages)

const rows = Effect.flatMap(PgClient.PgClient, (sql) => sql<{ n: unknown }>`SELECT count(*) AS n FROM fleet_parse_jobs`).pipe(
  Effect.map((found) => Number(found[0]!.n))
)

describe("QueuedParse on Postgres", () => {
  it.live("takes PDFs over the threshold only", () =>
    Effect.gen(function*() {
      assert.isTrue(yield* (yield* QueuedParse).takes(file))
    }).pipe(Effect.provide(replicaOn(6))))

  it.live("a document at the threshold stays inline", () =>
    Effect.gen(function*() {
      assert.isFalse(yield* (yield* QueuedParse).takes(file))
    }).pipe(Effect.provide(replicaOn(5))))

  it.live("a document whose page count is unknown stays inline", () =>
    Effect.gen(function*() {
      assert.isFalse(yield* (yield* QueuedParse).takes(file))
    }).pipe(Effect.provide(replicaOn(undefined))))

  it.live("answers the worker's data, and the worker's ScrapeError as the same error", () =>
    Effect.gen(function*() {
      const queued = yield* QueuedParse
      let calls = 0
      yield* work((id) =>
        Effect.flatMap(ParseJobs, (jobs) =>
          Effect.gen(function*() {
            const input = Option.getOrThrow(yield* jobs.input(id))
            assert.deepStrictEqual(Array.from(input.bytes), Array.from(file.bytes))
            assert.strictEqual(input.fileName, "long.pdf")
            calls++
            const failure = scrapeError(new DocumentUnreadable({ kind: "corrupt", message: "the file is not a readable PDF" }))
            yield* jobs.answer(id, calls === 1
              ? { _tag: "Data", data: { markdown: "# Quay", metadata: { numPages: 12 } } }
              : { _tag: "Error", error: Schema.encodeUnknownSync(ScrapeError)(failure) })
          })))
      const data = yield* queued.parse(file, options)
      assert.strictEqual(data.markdown, "# Quay")
      const failed = yield* Effect.flip(queued.parse(file, options))
      assert.instanceOf(failed, ScrapeError)
      assert.strictEqual(failed.reason._tag, "DocumentUnreadable")
      assert.strictEqual((failed.reason as DocumentUnreadable).kind, "corrupt")
      assert.strictEqual(failed.reason.message, "the file is not a readable PDF")
      // Each row goes once its answer is read.
      assert.strictEqual(yield* rows, 0)
    }).pipe(Effect.scoped, Effect.provide(replicaOn(12))), { timeout: 60_000 })

  it.live("an attempt that ends without an answer (its worker died) is retried, and the answer comes once", () =>
    Effect.gen(function*() {
      const queued = yield* QueuedParse
      const attempts: Array<number> = []
      yield* work((id, attempt) =>
        Effect.suspend(() => {
          attempts.push(attempt)
          return attempt === 1
            ? Effect.fail(new Error("the worker died"))
            : Effect.asVoid(Effect.flatMap(ParseJobs, (jobs) => jobs.answer(id, { _tag: "Data", data: { markdown: `attempt ${attempt}` } })))
        }))
      const data = yield* queued.parse(file, options)
      assert.strictEqual(data.markdown, "attempt 2")
      assert.deepStrictEqual(attempts, [1, 2])
    }).pipe(Effect.scoped, Effect.provide(replicaOn(12))), { timeout: 60_000 })

  it.live("a job dead-lettered after its attempts is a DocumentUnreadable, not a wait until the timeout", () =>
    Effect.gen(function*() {
      const queued = yield* QueuedParse
      const attempts: Array<number> = []
      yield* work((_, attempt) => Effect.suspend(() => (attempts.push(attempt), Effect.fail(new Error(`worker died on attempt ${attempt}`)))))
      const t0 = Date.now()
      const failed = yield* Effect.flip(queued.parse(file, { ...options, timeout: 40_000 }))
      assert.deepStrictEqual(attempts, [1, 2, 3])
      assert.strictEqual(failed.reason._tag, "DocumentUnreadable")
      assert.match(failed.reason.message, /each of its 3 attempts ended without an answer/)
      assert.isBelow(Date.now() - t0, 30_000)
    }).pipe(Effect.scoped, Effect.provide(replicaOn(12))), { timeout: 60_000 })

  it.live("a request whose timeout passes the queue's 2-minute attempt gives its job a deadline of its own", () =>
    Effect.gen(function*() {
      const queued = yield* QueuedParse
      const expiries = (id: string) =>
        Effect.flatMap(PgClient.PgClient, (sql) => sql<{ expire_seconds: number }>`
          SELECT expire_seconds FROM pgboss.job WHERE name = ${FLEET_QUEUE} AND id = ${jobIdFor(FLEET_QUEUE, parseJobKey(id))}::uuid`)
      const expiryFor = (timeout: number) =>
        Effect.gen(function*() {
          const waiting = yield* Effect.forkChild(queued.parse(file, { ...options, timeout }))
          const id = yield* parseRow
          const [row] = yield* expiries(id)
          yield* Fiber.interrupt(waiting)
          return row!.expire_seconds
        })
      // The queue's 2 minutes plus pg-boss's 30 s grace; a 200 s request's own 210 s plus the grace.
      assert.strictEqual(yield* expiryFor(20_000), 150)
      assert.strictEqual(yield* expiryFor(200_000), 240)
    }).pipe(Effect.provide(replicaOn(12))), { timeout: 60_000 })

  it.live("a wait interrupted (the client gone) deletes the row, and the worker that took the job then finds nothing to read", () =>
    Effect.gen(function*() {
      const queued = yield* QueuedParse
      const taken = yield* Deferred.make<void>()
      const go = yield* Deferred.make<void>()
      const found: Array<boolean> = []
      yield* work((id) =>
        Effect.gen(function*() {
          yield* Deferred.succeed(taken, undefined)
          yield* Deferred.await(go)
          const jobs = yield* ParseJobs
          found.push(Option.isSome(yield* jobs.input(id)))
        }))
      yield* Effect.addFinalizer(() => Deferred.succeed(go, undefined))
      const waiting = yield* Effect.forkChild(queued.parse(file, options))
      yield* Deferred.await(taken)
      const exit = yield* Fiber.interrupt(waiting).pipe(Effect.andThen(Fiber.await(waiting)))
      assert.isTrue(Exit.hasInterrupts(exit))
      assert.strictEqual(yield* rows, 0)
      yield* Deferred.succeed(go, undefined)
      while (found.length === 0) yield* Effect.sleep("50 millis")
      assert.deepStrictEqual(found, [false])
    }).pipe(Effect.scoped, Effect.provide(replicaOn(12))), { timeout: 60_000 })
})
