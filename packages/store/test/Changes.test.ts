/**
 * `changeSwap`, changeTracking's snapshots, on SQLite and on a real Postgres: the first swap of a
 * key finds nothing, each later one finds what the one before it wrote (`changePeek` reads it
 * without writing); team, URL and tag are
 * separate keys; a removed page keeps its content; 16 concurrent swaps of one key form one chain
 * (each sees exactly one other's snapshot, none is seen twice, no row mixes two).
 */
import { assert, describe, it } from "@effect/vitest"
import { type PageSnapshot, Store } from "@strata/core"
import { Effect, Option } from "effect"
import { afterAll, beforeAll } from "vitest"
import { backends, setup, teardown } from "./support/Backends.ts"

beforeAll(setup, 120_000)
afterAll(teardown)

const snapshot = (markdown: string, scrapedAt: number, extra: Partial<PageSnapshot> = {}): PageSnapshot => ({
  markdown,
  status: 200,
  removed: false,
  scrapedAt,
  ...extra
})

const key = { teamId: "acme", url: "https://example.com/pricing", tag: "" }

describe.each(backends)("change snapshots on $name", (backend) => {
  const withStore = <A, E>(body: (store: Store["Service"]) => Effect.Effect<A, E>) =>
    Effect.flatMap(Effect.service(Store), body).pipe(Effect.provide(backend.fresh()))

  it.effect("the first swap finds nothing; the next finds what it wrote, json values included", () =>
    withStore((store) =>
      Effect.gen(function*() {
        assert.isTrue(Option.isNone(yield* store.changeSwap(key, snapshot("# Pricing\n\n$10", 1000))))
        const json = { schemaKey: "k1", values: { price: "$12", plans: ["a", "b"] } }
        const first = yield* store.changeSwap(key, snapshot("# Pricing\n\n$12", 2000, { json }))
        assert.deepStrictEqual(Option.getOrThrow(first), snapshot("# Pricing\n\n$10", 1000, { json: undefined }))
        const second = yield* store.changeSwap(key, snapshot("# Pricing\n\n$12", 3000))
        assert.deepStrictEqual(Option.getOrThrow(second), snapshot("# Pricing\n\n$12", 2000, { json }))
        // Not asked for json this time: the row keeps none, rather than values of older markdown.
        assert.isUndefined(Option.getOrThrow(yield* store.changeSwap(key, snapshot("x", 4000))).json)
      })
    ))

  it.effect("changePeek reads the snapshot and changes nothing; json values keep what extracted them", () =>
    withStore((store) =>
      Effect.gen(function*() {
        assert.isTrue(Option.isNone(yield* store.changePeek(key)))
        const json = { schemaKey: "k", values: { price: "$10" }, by: "model" }
        yield* store.changeSwap(key, snapshot("# Pricing", 1000, { json }))
        assert.deepStrictEqual(Option.getOrThrow(yield* store.changePeek(key)), snapshot("# Pricing", 1000, { json }))
        assert.deepStrictEqual(Option.getOrThrow(yield* store.changePeek(key)), snapshot("# Pricing", 1000, { json }))
        assert.deepStrictEqual(Option.getOrThrow(yield* store.changeSwap(key, snapshot("# Pricing 2", 2000))).json, json)
      })
    ))

  it.effect("team, URL and tag are separate histories", () =>
    withStore((store) =>
      Effect.gen(function*() {
        yield* store.changeSwap(key, snapshot("acme's", 1))
        assert.isTrue(Option.isNone(yield* store.changeSwap({ ...key, teamId: "other" }, snapshot("other's", 2))))
        assert.isTrue(Option.isNone(yield* store.changeSwap({ ...key, tag: "prod" }, snapshot("prod", 3))))
        assert.isTrue(Option.isNone(yield* store.changeSwap({ ...key, url: "https://example.com/about" }, snapshot("about", 4))))
        assert.strictEqual(Option.getOrThrow(yield* store.changeSwap(key, snapshot("acme's again", 5))).markdown, "acme's")
        assert.strictEqual(Option.getOrThrow(yield* store.changeSwap({ ...key, tag: "prod" }, snapshot("prod 2", 6))).markdown, "prod")
      })
    ))

  it.effect("a removed page keeps the content it had, with the removal's status and time", () =>
    withStore((store) =>
      Effect.gen(function*() {
        const json = { schemaKey: "k", values: { a: 1 } }
        yield* store.changeSwap(key, snapshot("content", 1, { json }))
        yield* store.changeSwap(key, snapshot("Not Found", 2, { status: 404, removed: true }))
        const back = Option.getOrThrow(yield* store.changeSwap(key, snapshot("content", 3)))
        assert.deepStrictEqual(back, { markdown: "content", json, status: 404, removed: true, scrapedAt: 2 })
        // Never seen before and gone: a row with no content.
        const gone = { ...key, url: "https://example.com/gone" }
        assert.isTrue(Option.isNone(yield* store.changeSwap(gone, snapshot("Not Found", 4, { status: 410, removed: true }))))
        assert.deepStrictEqual(Option.getOrThrow(yield* store.changeSwap(gone, snapshot("here", 5))), {
          markdown: "",
          json: undefined,
          status: 410,
          removed: true,
          scrapedAt: 4
        })
      })
    ))

  it.effect("16 concurrent swaps of one key form one chain", () =>
    withStore((store) =>
      Effect.gen(function*() {
        const writers = Array.from({ length: 16 }, (_, n) => n)
        const seen = yield* Effect.forEach(
          writers,
          (n) => store.changeSwap(key, snapshot(`version ${n}`, 100 + n, { json: { schemaKey: "k", values: { n } } })),
          { concurrency: "unbounded" }
        )
        const found = seen.filter(Option.isSome).map((o) => o.value)
        // Exactly one swap came first; every other saw one earlier writer's whole row, each writer seen once.
        assert.strictEqual(found.length, 15)
        for (const row of found) {
          const n = Number(row.markdown.replace("version ", ""))
          assert.deepStrictEqual(row, snapshot(`version ${n}`, 100 + n, { json: { schemaKey: "k", values: { n } } }))
        }
        const last = Option.getOrThrow(yield* store.changeSwap(key, snapshot("after", 999)))
        const names = new Set([...found, last].map((row) => row.markdown))
        assert.strictEqual(names.size, 16)
      })
    ))
})
