/**
 * effect's `RateLimiter` over the rate-limit counters kept in the database, on SQLite and on
 * Postgres: a fixed window and a token bucket count and refill as effect's memory store does
 * (on the TestClock), 16 takes at once let exactly the limit through, and two stores on one
 * Postgres (two replicas) share one count.
 */
import { assert, describe, it } from "@effect/vitest"
import { Duration, Effect, Layer } from "effect"
import { RateLimiter } from "effect/persistence"
import { TestClock } from "effect/testing"
import { afterAll, beforeAll } from "vitest"
import { backends, setup, teardown } from "./support/Backends.ts"

beforeAll(setup, 120_000)
afterAll(teardown)

const limiterOn = <ROut, E>(store: Layer.Layer<ROut, E>) => RateLimiter.layer.pipe(Layer.provideMerge(store))

const take = (options: { readonly key: string; readonly limit: number; readonly algorithm?: "fixed-window" | "token-bucket" }) =>
  Effect.gen(function*() {
    const limiter = yield* RateLimiter.RateLimiter
    return yield* limiter.consume({ window: "1 minute", onExceeded: "fail", ...options }).pipe(Effect.result)
  })

const allowed = (results: ReadonlyArray<{ readonly _tag: string }>) => results.filter((result) => result._tag === "Success").length

describe.each(backends)("rate limits in the database, $name", (backend) => {
  it.effect("a fixed window lets the limit through, refuses the next with a retry time, and refills", () =>
    Effect.gen(function*() {
      const first = yield* Effect.forEach([1, 2, 3, 4], () => take({ key: "team:acme", limit: 3 }))
      assert.strictEqual(allowed(first), 3)
      const refused = first[3]
      assert.isTrue(refused._tag === "Failure" && refused.failure.reason._tag === "RateLimitExceeded")
      if (refused._tag === "Failure" && refused.failure.reason._tag === "RateLimitExceeded") {
        assert.isAbove(Duration.toMillis(refused.failure.reason.retryAfter), 0)
      }
      // Another key has its own count.
      assert.strictEqual((yield* take({ key: "team:other", limit: 3 }))._tag, "Success")
      yield* TestClock.adjust("1 minute")
      assert.strictEqual(allowed(yield* Effect.forEach([1, 2, 3, 4], () => take({ key: "team:acme", limit: 3 }))), 3)
    }).pipe(Effect.provide(limiterOn(backend.fresh({ rateLimits: "database" })))))

  it.effect("a token bucket refills a token per interval", () =>
    Effect.gen(function*() {
      const bucket = { key: "team:acme", limit: 6, algorithm: "token-bucket" as const }
      assert.strictEqual(allowed(yield* Effect.forEach(Array.from({ length: 8 }), () => take(bucket))), 6)
      // 60 s / 6 = one token every 10 s.
      yield* TestClock.adjust("20 seconds")
      assert.strictEqual(allowed(yield* Effect.forEach(Array.from({ length: 4 }), () => take(bucket))), 2)
    }).pipe(Effect.provide(limiterOn(backend.fresh({ rateLimits: "database" })))))

  it.effect("16 takes at once: exactly the limit goes through", () =>
    Effect.gen(function*() {
      const results = yield* Effect.forEach(Array.from({ length: 16 }), () => take({ key: "team:acme", limit: 10 }), { concurrency: 16 })
      assert.strictEqual(allowed(results), 10)
    }).pipe(Effect.provide(limiterOn(backend.fresh({ rateLimits: "database" })))))
})

describe("rate limits on pg: two replicas", () => {
  it.effect("two stores on one database share one count", () =>
    Effect.gen(function*() {
      const database = backends[1].database()
      const one = yield* Layer.build(limiterOn(database.open()))
      const two = yield* Layer.build(limiterOn(database.open()))
      const results = yield* Effect.forEach(
        Array.from({ length: 16 }, (_, i) => i),
        (i) => take({ key: "team:acme", limit: 10 }).pipe(Effect.provideContext(i % 2 === 0 ? one : two)),
        { concurrency: 16 }
      )
      assert.strictEqual(allowed(results), 10)
    }))
})
