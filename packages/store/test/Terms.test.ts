/**
 * Catalog terms in the store (migration 6), on SQLite and on a real Postgres: an acceptance is
 * recorded once per team, provider and version (accepting again keeps who accepted first and
 * when), versions are kept apart, teams are kept apart, and an unknown team is refused.
 */
import { assert, describe, it } from "@effect/vitest"
import { Store } from "@strata/core"
import { Effect } from "effect"
import { TestClock } from "effect/testing"
import { afterAll, beforeAll } from "vitest"
import { backends, setup, teardown } from "./support/Backends.ts"

beforeAll(setup, 120_000)
afterAll(teardown)

describe.each(backends)("catalog terms on $name", (backend) => {
  it.effect("records an acceptance once per team, provider and version", () =>
    Effect.gen(function*() {
      const store = yield* Store
      yield* store.setTeam("harbour", {})
      yield* store.setTeam("inland", {})
      assert.deepStrictEqual(yield* store.acceptedTerms("harbour"), [])
      yield* TestClock.setTime(1_000)
      const first = yield* store.acceptTerms({ teamId: "harbour", provider: "tides", version: "2026-01", acceptedBy: "ada" })
      assert.deepStrictEqual(first, { teamId: "harbour", provider: "tides", version: "2026-01", acceptedBy: "ada", acceptedAt: 1_000 })
      yield* TestClock.setTime(2_000)
      const again = yield* store.acceptTerms({ teamId: "harbour", provider: "tides", version: "2026-01", acceptedBy: "grace" })
      assert.deepStrictEqual(again, first)
      yield* store.acceptTerms({ teamId: "harbour", provider: "tides", version: "2026-07", acceptedBy: "grace" })
      yield* store.acceptTerms({ teamId: "harbour", provider: "atlas", version: "1", acceptedBy: "grace" })
      assert.deepStrictEqual(
        (yield* store.acceptedTerms("harbour")).map((t) => [t.provider, t.version, t.acceptedBy]),
        [["atlas", "1", "grace"], ["tides", "2026-01", "ada"], ["tides", "2026-07", "grace"]]
      )
      assert.deepStrictEqual(yield* store.acceptedTerms("inland"), [])
      const unknown = yield* Effect.flip(store.acceptTerms({ teamId: "nobody", provider: "tides", version: "1", acceptedBy: "ada" }))
      assert.strictEqual(unknown._tag, "UnknownTeam")
    }).pipe(Effect.provide(backend.fresh())))
})
