/**
 * A team's concurrency slot handed to the job that reads its request's document (`Store.bindSlot`
 * with the replica's queued parse), against the Postgres store, pg-boss and `fleet_parse_jobs` on
 * a real, throwaway Postgres, with an in-process handler in the worker's place:
 * - the slot is the job's from the transaction that queues it: the replica's release and a lapsed
 *   lease free nothing while a worker converts, and the job's end frees it;
 * - a replica that stops waiting before any worker took the job cancels it, which frees the slot;
 *   one that stops while a worker converts leaves the slot with the worker until it finishes;
 * - a slot whose lease lapsed before the job was queued queues nothing, and the request fails;
 * - the job's insert fails with the transaction: the slot stays an ordinary lease, no row is left;
 * - a job whose every attempt fails (dead-lettered) frees its slot.
 */
import { assert, describe, it } from "@effect/vitest"
import { PgClient } from "@effect/sql-pg"
import { HeldSlot, JobQueue, jobIdFor, QueuedParse, Store } from "@strata/core"
import { Deferred, Effect, Exit, Fiber, Layer, Option } from "effect"
import { layerPg } from "../../store/src/index.ts"
import { FLEET_QUEUE, ParseJobs, parseJobKey } from "../src/index.ts"
import { file, options, parseRow, parseRows, replicaServices, usePostgres, work } from "./support/ReplicaHarness.ts"

const postgres = usePostgres("slots")
const team = "acme"

/** A replica on one fresh database, with the Postgres store beside it. */
const replica = () => {
  const url = postgres.database()
  return replicaServices(url, 12).pipe(
    Layer.provideMerge(layerPg({ url, maxConnections: 3, cacheMaxBytes: 1 << 20, recordSecret: "a-test-secret-of-16+" }))
  )
}

/** Asks for one of the team's slots (limit 1) under `leaseId`. */
const ask = (leaseId: string, leaseMs = 30_000) =>
  Effect.gen(function*() {
    return yield* (yield* Store).acquireSlot({ teamId: team, leaseId, limit: 1, leaseMs })
  })

const acquired = { _tag: "Acquired" } as const
const queuedFirst = { _tag: "Queued", position: 1 } as const

const slotState = (leaseId: string) =>
  Effect.flatMap(PgClient.PgClient, (sql) => sql<{ state: string }>`SELECT state FROM concurrency_slots WHERE lease_id = ${leaseId}`).pipe(
    Effect.map((rows) => rows[0]?.state)
  )

/** Waits until the team's next ask gets the slot (the job ended), or fails after `ms`. */
const untilFree = (leaseId: string, ms: number) =>
  Effect.gen(function*() {
    const until = Date.now() + ms
    while (Date.now() < until) {
      if ((yield* ask(leaseId))._tag === "Acquired") return
      yield* Effect.sleep("50 millis")
    }
    assert.fail(`the slot was not freed within ${ms} ms`)
  })

const answerData = (id: string) =>
  Effect.flatMap(ParseJobs, (jobs) => Effect.asVoid(jobs.answer(id, { _tag: "Data", data: { markdown: "read by a worker" } })))

describe("a team's slot handed to its queued job", () => {
  it.live("is the job's until the job ends: the replica's release and a lapsed lease free nothing", () =>
    Effect.gen(function*() {
      const queued = yield* QueuedParse
      const store = yield* Store
      assert.deepStrictEqual(yield* ask("first", 300), acquired)
      const taken = yield* Deferred.make<void>()
      const go = yield* Deferred.make<void>()
      yield* work((id) =>
        Effect.gen(function*() {
          yield* Deferred.succeed(taken, undefined)
          yield* Deferred.await(go)
          yield* answerData(id)
        }))
      // A failed assertion lets the worker go, so the scope's close does not wait on it.
      yield* Effect.addFinalizer(() => Deferred.succeed(go, undefined))
      const parse = yield* Effect.forkChild(queued.parse(file, options).pipe(Effect.provideService(HeldSlot, "first")))
      yield* Deferred.await(taken)
      assert.strictEqual(yield* slotState("first"), "job")
      // What the replica's metering does once its scope closes, and a lease far past its end.
      yield* store.releaseSlot("first")
      assert.isFalse(yield* store.renewSlot("first", 300))
      yield* Effect.sleep("600 millis")
      assert.deepStrictEqual(yield* ask("second"), queuedFirst)
      yield* Deferred.succeed(go, undefined)
      const data = yield* Fiber.join(parse)
      assert.strictEqual(data.markdown, "read by a worker")
      yield* untilFree("second", 10_000)
      // The ended job's row is gone with the sweep.
      assert.isUndefined(yield* slotState("first"))
    }).pipe(Effect.scoped, Effect.provide(replica())), { timeout: 60_000 })

  it.live("a replica that stops waiting before any worker took the job cancels it, and the slot is free at once", () =>
    Effect.gen(function*() {
      const queued = yield* QueuedParse
      const queue = yield* JobQueue
      assert.deepStrictEqual(yield* ask("first"), acquired)
      const parse = yield* Effect.forkChild(queued.parse(file, options).pipe(Effect.provideService(HeldSlot, "first")))
      const id = yield* parseRow
      assert.deepStrictEqual(yield* ask("second"), queuedFirst)
      yield* Fiber.interrupt(parse)
      const job = yield* queue.job(FLEET_QUEUE, jobIdFor(FLEET_QUEUE, parseJobKey(id)))
      assert.strictEqual(Option.getOrThrow(job).status, "cancelled")
      assert.deepStrictEqual(yield* ask("second"), acquired)
    }).pipe(Effect.scoped, Effect.provide(replica())), { timeout: 60_000 })

  it.live("a replica that stops waiting while a worker converts leaves the slot with the worker until it finishes", () =>
    Effect.gen(function*() {
      const queued = yield* QueuedParse
      assert.deepStrictEqual(yield* ask("first"), acquired)
      const taken = yield* Deferred.make<void>()
      const go = yield* Deferred.make<void>()
      const answered: Array<boolean> = []
      yield* work((id) =>
        Effect.gen(function*() {
          yield* Deferred.succeed(taken, undefined)
          yield* Deferred.await(go)
          const jobs = yield* ParseJobs
          answered.push(yield* jobs.answer(id, { _tag: "Data", data: {} }))
        }))
      yield* Effect.addFinalizer(() => Deferred.succeed(go, undefined))
      const parse = yield* Effect.forkChild(queued.parse(file, options).pipe(Effect.provideService(HeldSlot, "first")))
      yield* Deferred.await(taken)
      const exit = yield* Fiber.interrupt(parse).pipe(Effect.andThen(Fiber.await(parse)))
      assert.isTrue(Exit.hasInterrupts(exit))
      assert.deepStrictEqual(yield* ask("second"), queuedFirst)
      yield* Deferred.succeed(go, undefined)
      yield* untilFree("second", 10_000)
      // Its answer went nowhere: the row went with the wait.
      assert.deepStrictEqual(answered, [false])
    }).pipe(Effect.scoped, Effect.provide(replica())), { timeout: 60_000 })

  it.live("a slot whose lease lapsed before its job was queued queues nothing, and the request fails", () =>
    Effect.gen(function*() {
      const queued = yield* QueuedParse
      const queue = yield* JobQueue
      assert.deepStrictEqual(yield* ask("first", 100), acquired)
      yield* Effect.sleep("300 millis")
      const exit = yield* Effect.exit(queued.parse(file, options).pipe(Effect.provideService(HeldSlot, "first")))
      assert.isTrue(Exit.isFailure(exit))
      assert.match(String(Exit.isFailure(exit) ? exit.cause : ""), /slot lapsed/)
      assert.strictEqual((yield* parseRows).length, 0)
      const depth = yield* queue.depth(FLEET_QUEUE)
      assert.strictEqual(depth.queued + depth.active, 0)
    }).pipe(Effect.scoped, Effect.provide(replica())), { timeout: 60_000 })

  it.live("the job's insert fails with its transaction: the slot stays a lease and no row is left", () =>
    Effect.gen(function*() {
      const store = yield* Store
      const queue = yield* JobQueue
      assert.deepStrictEqual(yield* ask("first"), acquired)
      const job = { table: queue.jobTable!, queue: FLEET_QUEUE, id: jobIdFor(FLEET_QUEUE, "never"), holdUntil: Date.now() + 60_000 }
      const exit = yield* Effect.exit(store.bindSlot("first", job, async (db) => {
        await db.executeSql(
          `INSERT INTO fleet_parse_jobs (id, created_at, expires_at, file_name, options) VALUES ($1, $2, $3, $4, $5)`,
          ["doomed", Date.now(), Date.now() + 60_000, "x.pdf", "{}"]
        )
        throw new Error("the queue refused the job")
      }))
      assert.isTrue(Exit.isFailure(exit))
      assert.strictEqual(yield* slotState("first"), "running")
      assert.strictEqual((yield* parseRows).length, 0)
      // A lease as before: the replica's release frees it.
      yield* store.releaseSlot("first")
      assert.deepStrictEqual(yield* ask("second"), acquired)
    }).pipe(Effect.scoped, Effect.provide(replica())), { timeout: 60_000 })

  it.live("a job whose every attempt fails (dead-lettered) frees its slot", () =>
    Effect.gen(function*() {
      const queued = yield* QueuedParse
      assert.deepStrictEqual(yield* ask("first"), acquired)
      yield* work(() => Effect.fail(new Error("the reader died")))
      const exit = yield* Effect.exit(queued.parse(file, options).pipe(Effect.provideService(HeldSlot, "first")))
      assert.match(String(Exit.isFailure(exit) ? exit.cause : ""), /attempts ended without an answer/)
      yield* untilFree("second", 10_000)
    }).pipe(Effect.scoped, Effect.provide(replica())), { timeout: 90_000 })
})
