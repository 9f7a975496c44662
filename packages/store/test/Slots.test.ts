/**
 * Concurrency slots on SQLite and Postgres (on the TestClock): the limit holds, the queue is first
 * in first out, a held slot is kept by asking again or renewing and lost when it expires, a place
 * in the queue lapses when its request stops asking, 16 takes at once get exactly the limit, and
 * two stores on one Postgres (two replicas) share the slots and the queue.
 */
import { assert, describe, it } from "@effect/vitest"
import { type SlotState, Store } from "@strata/core"
import { type Context, Effect, Layer } from "effect"
import { TestClock } from "effect/testing"
import { afterAll, beforeAll } from "vitest"
import { backends, setup, teardown } from "./support/Backends.ts"

beforeAll(setup, 120_000)
afterAll(teardown)

const queued = (position: number): SlotState => ({ _tag: "Queued", position })
const acquired: SlotState = { _tag: "Acquired" }

describe.each(backends)("concurrency slots on $name", (backend) => {
  const withStore = <A, E>(body: (store: Store["Service"]) => Effect.Effect<A, E>) =>
    Effect.gen(function*() {
      return yield* body(yield* Store)
    }).pipe(Effect.provide(backend.fresh()))

  it.effect("the limit holds and the queue is first in, first out", () =>
    withStore((store) =>
      Effect.gen(function*() {
        const ask = (leaseId: string) => store.acquireSlot({ teamId: "acme", leaseId, limit: 2 })
        assert.deepStrictEqual(yield* ask("a"), acquired)
        yield* TestClock.adjust("1 millis")
        assert.deepStrictEqual(yield* ask("b"), acquired)
        yield* TestClock.adjust("1 millis")
        assert.deepStrictEqual(yield* ask("c"), queued(1))
        yield* TestClock.adjust("1 millis")
        assert.deepStrictEqual(yield* ask("d"), queued(2))
        // Another team has its own slots.
        assert.deepStrictEqual(yield* store.acquireSlot({ teamId: "other", leaseId: "x", limit: 1 }), acquired)
        // Asking again keeps the slot (a running request) or the place (a waiting one).
        assert.deepStrictEqual(yield* ask("a"), acquired)
        assert.deepStrictEqual(yield* ask("d"), queued(2))
        yield* store.releaseSlot("a")
        // The freed slot is c's: d, behind it, asks first and still waits.
        assert.deepStrictEqual(yield* ask("d"), queued(2))
        assert.deepStrictEqual(yield* ask("c"), acquired)
        assert.deepStrictEqual(yield* ask("d"), queued(1))
        yield* store.releaseSlot("b")
        assert.deepStrictEqual(yield* ask("d"), acquired)
      })
    ))

  it.effect("a held slot lasts while renewed and expires when not; a place lapses when its request stops asking", () =>
    withStore((store) =>
      Effect.gen(function*() {
        const ask = (leaseId: string) => store.acquireSlot({ teamId: "acme", leaseId, limit: 1, leaseMs: 10_000, waitMs: 1_000 })
        assert.deepStrictEqual(yield* ask("a"), acquired)
        yield* TestClock.adjust("8 seconds")
        assert.isTrue(yield* store.renewSlot("a", 10_000))
        yield* TestClock.adjust("8 seconds")
        assert.deepStrictEqual(yield* ask("b"), queued(1))
        // b stops asking: its place lapses, and c, queued later, is first.
        yield* TestClock.adjust("2 seconds")
        assert.deepStrictEqual(yield* ask("c"), queued(1))
        // a stops renewing: its slot expires and c takes it.
        yield* TestClock.adjust("11 seconds")
        assert.deepStrictEqual(yield* ask("c"), acquired)
        assert.isFalse(yield* store.renewSlot("a"))
      })
    ))

  it.effect("16 takes at once: exactly the limit run, the rest queue", () =>
    withStore((store) =>
      Effect.gen(function*() {
        const states = yield* Effect.forEach(
          Array.from({ length: 16 }, (_, i) => `r${i}`),
          (leaseId) => store.acquireSlot({ teamId: "acme", leaseId, limit: 4 }),
          { concurrency: 16 }
        )
        assert.strictEqual(states.filter((state) => state._tag === "Acquired").length, 4)
        const positions = states.flatMap((state) => state._tag === "Queued" ? [state.position] : [])
        assert.strictEqual(positions.length, 12)
      })
    ))
})

describe("concurrency slots on pg: two replicas", () => {
  it.effect("two stores on one database share the slots and the queue", () =>
    Effect.gen(function*() {
      const database = backends[1].database()
      const storeOf = <R extends Store>(context: Context.Context<R>) =>
        Effect.provideContext(
          Effect.gen(function*() {
            return yield* Store
          }),
          context
        )
      const storeA = yield* storeOf(yield* Layer.build(database.open()))
      const storeB = yield* storeOf(yield* Layer.build(database.open()))
      const states = yield* Effect.forEach(
        Array.from({ length: 16 }, (_, i) => i),
        (i) => (i % 2 === 0 ? storeA : storeB).acquireSlot({ teamId: "acme", leaseId: `r${i}`, limit: 4 }),
        { concurrency: 16 }
      )
      assert.strictEqual(states.filter((state) => state._tag === "Acquired").length, 4)
      // A slot released through one replica goes to one queued request, asking through the other.
      const running = states.flatMap((state, i) => state._tag === "Acquired" ? [i] : [])
      const waiting = states.flatMap((state, i) => state._tag === "Queued" ? [i] : [])
      yield* storeA.releaseSlot(`r${running[0]}`)
      const again = yield* Effect.forEach(waiting, (i) => storeB.acquireSlot({ teamId: "acme", leaseId: `r${i}`, limit: 4 }))
      assert.strictEqual(again.filter((state) => state._tag === "Acquired").length, 1)
    }))
})

describe("a slot handed to a job on sqlite", () => {
  it.effect("is refused with a StoreError, and the slot stays a lease", () =>
    Effect.gen(function*() {
      const store = yield* Store
      assert.deepStrictEqual(yield* store.acquireSlot({ teamId: "acme", leaseId: "a", limit: 1 }), acquired)
      let called = false
      const job = { table: "pgboss.job", queue: "corpus", id: "00000000-0000-5000-8000-000000000000", holdUntil: 1 }
      const error = yield* Effect.flip(store.bindSlot("a", job, async () => void (called = true)))
      assert.strictEqual(error._tag, "StoreError")
      assert.match(error.message, /only on Postgres/)
      assert.isFalse(called)
      yield* store.releaseSlot("a")
      assert.deepStrictEqual(yield* store.acquireSlot({ teamId: "acme", leaseId: "b", limit: 1 }), acquired)
    }).pipe(Effect.provide(backends[0].fresh())))
})
