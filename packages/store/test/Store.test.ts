/**
 * The store's contract, on SQLite and on a real Postgres: teams and settings, keys (hashed, shown
 * once, revoked), credits (atomic, once per charge id, never below zero, 16 at once), the cache
 * (round trip, replace, LRU to the byte bound) and idempotency claims; migrations applied once.
 */
import { assert, describe, it } from "@effect/vitest"
import { Store } from "@strata/core"
import { Effect, Option, Redacted } from "effect"
import { TestClock } from "effect/testing"
import { createHash } from "node:crypto"
import { readdirSync, readFileSync } from "node:fs"
import { dirname, join } from "node:path"
import { DatabaseSync } from "node:sqlite"
import { afterAll, beforeAll } from "vitest"
import { layerPg } from "../src/index.ts"
import { backends, setup, teardown } from "./support/Backends.ts"

beforeAll(setup, 120_000)
afterAll(teardown)

const useStore = <A, E>(body: (store: Store["Service"]) => Effect.Effect<A, E>) =>
  Effect.gen(function*() {
    return yield* body(yield* Store)
  })

const page = (key: string, size: number, fetchedAt = 1) => ({
  key,
  url: `https://example.com/${key}`,
  finalUrl: `https://example.com/${key}?final`,
  status: 200,
  headers: { "content-type": "text/html; charset=utf-8" },
  body: new Uint8Array(size).map((_, i) => i % 251),
  fetchedAt
})

describe.each(backends)("Store on $name", (backend) => {
  const withStore = <A, E>(body: (store: Store["Service"]) => Effect.Effect<A, E>, options?: Parameters<typeof backend.fresh>[0]) =>
    useStore(body).pipe(Effect.provide(backend.fresh(options)))

  describe("teams", () => {
    it.effect("creates a team without limits, changes only the settings given, and null removes a limit", () =>
      withStore((store) =>
        Effect.gen(function*() {
          assert.isTrue(Option.isNone(yield* store.getTeam("acme")))
          const created = yield* store.setTeam("acme", {})
          assert.deepStrictEqual(
            { ...created, createdAt: 0 },
            { id: "acme", credits: undefined, rateLimit: undefined, concurrency: undefined, zdr: false, catalog: true, auditSink: undefined, createdAt: 0 }
          )
          yield* store.setTeam("acme", { credits: 100, rateLimit: 60, concurrency: 2, zdr: true, catalog: false, auditSink: "stdout" })
          const changed = yield* store.setTeam("acme", { rateLimit: null, auditSink: "/var/log/audit.jsonl" })
          assert.strictEqual(changed.credits, 100)
          assert.strictEqual(changed.rateLimit, undefined)
          assert.strictEqual(changed.concurrency, 2)
          assert.isTrue(changed.zdr)
          assert.isFalse(changed.catalog)
          assert.strictEqual(changed.auditSink, "/var/log/audit.jsonl")
          yield* store.setTeam("beta", { credits: 0 })
          assert.deepStrictEqual((yield* store.listTeams).map((team) => [team.id, team.credits]), [["acme", 100], ["beta", 0]])
        })
      ))
  })

  describe("keys", () => {
    it.effect("a created key authenticates to its team until it is revoked", () =>
      withStore((store) =>
        Effect.gen(function*() {
          yield* store.setTeam("acme", { credits: 5 })
          const created = yield* store.createKey("acme")
          assert.match(created.key, /^sk-strata-[0-9a-f]{12}_[A-Za-z0-9_-]{43}$/)
          assert.strictEqual(created.id, `key_${created.key.slice(10, 22)}`)
          const found = Option.getOrThrow(yield* store.authenticate(created.key))
          assert.strictEqual(found.keyId, created.id)
          assert.strictEqual(found.team.id, "acme")
          assert.strictEqual(found.team.credits, 5)
          // The right id with another secret, and garbage, are both unknown.
          const forged = created.key.slice(0, 23) + (created.key[23] === "A" ? "B" : "A") + created.key.slice(24)
          assert.isTrue(Option.isNone(yield* store.authenticate(forged)))
          assert.isTrue(Option.isNone(yield* store.authenticate("nope")))
          assert.deepStrictEqual((yield* store.listKeys("acme")).map((key) => key.id), [created.id])
          assert.isTrue(yield* store.revokeKey(created.id))
          assert.isTrue(yield* store.revokeKey(created.id))
          assert.isFalse(yield* store.revokeKey("key_000000000000"))
          assert.isTrue(Option.isNone(yield* store.authenticate(created.key)))
          assert.isDefined((yield* store.listKeys("acme"))[0].revokedAt)
        })
      ))

    it.effect("a key for an unknown team is refused", () =>
      withStore((store) =>
        Effect.gen(function*() {
          const error = yield* Effect.flip(store.createKey("ghost"))
          assert.strictEqual(error._tag, "UnknownTeam")
        })
      ))

    it.effect("a key made elsewhere is imported by its hash, once, and found by its hash", () =>
      withStore((store) =>
        Effect.gen(function*() {
          yield* store.setTeam("default", {})
          const hash = createHash("sha256").update("test-key").digest("hex")
          const first = yield* store.importKey("default", hash)
          const second = yield* store.importKey("default", hash.toUpperCase())
          assert.strictEqual(first.id, `key_${hash.slice(0, 12)}`)
          assert.deepStrictEqual(second, first)
          assert.strictEqual(Option.getOrThrow(yield* store.authenticate("test-key")).team.id, "default")
          assert.isTrue(Option.isNone(yield* store.authenticate("test-key2")))
        })
      ))
  })

  describe("credits", () => {
    it.effect("a charge takes credits once per charge id and never below zero; a refund gives them back once", () =>
      withStore((store) =>
        Effect.gen(function*() {
          yield* store.setTeam("acme", { credits: 10 })
          const first = yield* store.charge({ teamId: "acme", chargeId: "c1", amount: 3 })
          assert.deepStrictEqual(first, { chargeId: "c1", teamId: "acme", amount: 3, balance: 7, replayed: false })
          const again = yield* store.charge({ teamId: "acme", chargeId: "c1", amount: 3 })
          assert.deepStrictEqual(again, { ...first, replayed: true })
          const refused = yield* Effect.flip(store.charge({ teamId: "acme", chargeId: "c2", amount: 8 }))
          assert.strictEqual(refused._tag, "InsufficientCredits")
          assert.strictEqual(yield* store.balance("acme"), 7)
          // The refused charge left no trace: after a top-up the same id charges.
          yield* store.setTeam("acme", { credits: 20 })
          assert.strictEqual((yield* store.charge({ teamId: "acme", chargeId: "c2", amount: 8 })).balance, 12)
          assert.isTrue(yield* store.refund("c2"))
          assert.isFalse(yield* store.refund("c2"))
          assert.isFalse(yield* store.refund("never"))
          assert.strictEqual(yield* store.balance("acme"), 20)
          // Exactly the balance is fine; zero is fine.
          assert.strictEqual((yield* store.charge({ teamId: "acme", chargeId: "c3", amount: 20 })).balance, 0)
          assert.strictEqual((yield* store.charge({ teamId: "acme", chargeId: "c4", amount: 0 })).balance, 0)
        })
      ))

    it.effect("a team without a credit limit is charged (recorded) without a balance", () =>
      withStore((store) =>
        Effect.gen(function*() {
          yield* store.setTeam("free", {})
          const charged = yield* store.charge({ teamId: "free", chargeId: "f1", amount: 1_000_000 })
          assert.strictEqual(charged.balance, undefined)
          assert.isTrue((yield* store.charge({ teamId: "free", chargeId: "f1", amount: 1 })).replayed)
          assert.strictEqual((yield* Effect.flip(store.charge({ teamId: "ghost", chargeId: "g1", amount: 1 })))._tag, "UnknownTeam")
          assert.strictEqual((yield* Effect.flip(store.balance("ghost")))._tag, "UnknownTeam")
        })
      ))

    it.effect("16 concurrent charges: no double charge and no lost charge", () =>
      withStore((store) =>
        Effect.gen(function*() {
          yield* store.setTeam("acme", { credits: 10 })
          const results = yield* Effect.forEach(
            Array.from({ length: 16 }, (_, i) => i),
            (i) => Effect.result(store.charge({ teamId: "acme", chargeId: `job-${i}`, amount: 1 })),
            { concurrency: 16 }
          )
          const charged = results.filter((result) => result._tag === "Success")
          const refused = results.filter((result) => result._tag === "Failure")
          assert.strictEqual(charged.length, 10)
          assert.strictEqual(refused.length, 6)
          assert.isTrue(refused.every((result) => result._tag === "Failure" && result.failure._tag === "InsufficientCredits"))
          assert.strictEqual(yield* store.balance("acme"), 0)
          // The same charge id 16 times at once: charged once, replayed 15 times.
          yield* store.setTeam("acme", { credits: 100 })
          const same = yield* Effect.forEach(
            Array.from({ length: 16 }, () => store.charge({ teamId: "acme", chargeId: "once", amount: 7 })),
            (effect) => effect,
            { concurrency: 16 }
          )
          assert.strictEqual(same.filter((charge) => !charge.replayed).length, 1)
          assert.strictEqual(yield* store.balance("acme"), 93)
        })
      ))
  })

  describe("cache", () => {
    it.effect("an entry reads back byte for byte, a put replaces it, and the byte count follows", () =>
      withStore((store) =>
        Effect.gen(function*() {
          assert.isTrue(Option.isNone(yield* store.cacheGet("k1")))
          const entry = { ...page("k1", 1000), body: new Uint8Array([0, 255, 0, 1, 2, 3]), meta: { waitMs: 1500, engine: "browser" } }
          yield* store.cachePut(entry)
          const got = Option.getOrThrow(yield* store.cacheGet("k1"))
          assert.deepStrictEqual(Array.from(got.body), [0, 255, 0, 1, 2, 3])
          assert.deepStrictEqual(got.headers, entry.headers)
          assert.deepStrictEqual(got.meta, { waitMs: 1500, engine: "browser" })
          assert.strictEqual(got.finalUrl, entry.finalUrl)
          assert.strictEqual(got.status, 200)
          assert.strictEqual(got.fetchedAt, 1)
          assert.strictEqual(yield* store.cacheBytes, got.size)
          yield* store.cachePut({ ...page("k1", 5000, 2), status: 404 })
          const replaced = Option.getOrThrow(yield* store.cacheGet("k1"))
          assert.strictEqual(replaced.status, 404)
          assert.deepStrictEqual(replaced.meta, {})
          assert.strictEqual(replaced.body.byteLength, 5000)
          assert.strictEqual(yield* store.cacheBytes, replaced.size)
          assert.strictEqual(yield* store.cacheEvict(0), 1)
          assert.strictEqual(yield* store.cacheBytes, 0)
        })
      ))

    it.effect("the least recently used entries go first when the cache passes its bound", () =>
      withStore((store) =>
        Effect.gen(function*() {
          const sizes: Record<string, number> = {}
          for (const key of ["a", "b", "c"]) {
            yield* TestClock.adjust("1 second")
            yield* store.cachePut(page(key, 1000))
            sizes[key] = Option.getOrThrow(yield* store.cacheGet(key)).size
          }
          yield* TestClock.adjust("1 second")
          yield* store.cacheTouch("a")
          yield* TestClock.adjust("1 second")
          yield* store.cachePut(page("d", 1000))
          // The bound holds three entries: b, the least recently used, went.
          assert.isTrue(Option.isNone(yield* store.cacheGet("b")))
          for (const key of ["a", "c", "d"]) assert.isTrue(Option.isSome(yield* store.cacheGet(key)), key)
          assert.isAtMost(yield* store.cacheBytes, 3 * sizes.a + 50)
          // An entry bigger than the bound evicts everything, itself included.
          yield* store.cachePut(page("huge", 10_000))
          assert.strictEqual(yield* store.cacheBytes, 0)
        }), { cacheMaxBytes: 3 * (1000 + 120) }))
  })

  describe("idempotency", () => {
    const claim = { teamId: "acme", requestId: "req-1", paramsHash: "h1", deadline: 60_000 }

    it.effect("new, then running; other parameters conflict; done replays; abandoned can run again", () =>
      withStore((store) =>
        Effect.gen(function*() {
          assert.deepStrictEqual(yield* store.beginRequest(claim), { _tag: "New" })
          assert.deepStrictEqual(yield* store.beginRequest(claim), { _tag: "Running" })
          assert.deepStrictEqual(yield* store.beginRequest({ ...claim, paramsHash: "h2" }), { _tag: "Conflict" })
          // Another team's request id is its own.
          assert.deepStrictEqual(yield* store.beginRequest({ ...claim, teamId: "other" }), { _tag: "New" })
          yield* store.completeRequest({ teamId: "acme", requestId: "req-1", response: "{\"scrape_id\":\"s1\"}" })
          assert.deepStrictEqual(yield* store.beginRequest(claim), { _tag: "Done", response: "{\"scrape_id\":\"s1\"}" })
          assert.deepStrictEqual(yield* store.beginRequest({ ...claim, paramsHash: "h2" }), { _tag: "Conflict" })
          yield* store.abandonRequest({ teamId: "other", requestId: "req-1" })
          assert.deepStrictEqual(yield* store.beginRequest({ ...claim, teamId: "other" }), { _tag: "New" })
        })
      ))

    it.effect("a claim left running past its deadline is unresolved; after the retention it is forgotten", () =>
      withStore((store) =>
        Effect.gen(function*() {
          assert.deepStrictEqual(yield* store.beginRequest(claim), { _tag: "New" })
          yield* TestClock.adjust("80 seconds")
          assert.deepStrictEqual(yield* store.beginRequest(claim), { _tag: "Running" })
          yield* TestClock.adjust("20 seconds")
          assert.deepStrictEqual(yield* store.beginRequest(claim), { _tag: "Unresolved" })
          yield* TestClock.adjust("8 days")
          assert.deepStrictEqual(yield* store.beginRequest({ ...claim, deadline: 8 * 86_400_000 }), { _tag: "New" })
        })
      ))

    it.effect("16 concurrent claims of one id: exactly one is new", () =>
      withStore((store) =>
        Effect.gen(function*() {
          const states = yield* Effect.forEach(Array.from({ length: 16 }), () => store.beginRequest(claim), { concurrency: 16 })
          assert.strictEqual(states.filter((state) => state._tag === "New").length, 1)
          assert.strictEqual(states.filter((state) => state._tag === "Running").length, 15)
        })
      ))
  })

  it.effect("migrations are applied once: a second store on the same database keeps the data", () =>
    Effect.gen(function*() {
      const database = backend.database()
      yield* useStore((store) => store.setTeam("acme", { credits: 3 })).pipe(
        Effect.provide(database.open())
      )
      const credits = yield* useStore((store) => store.balance("acme")).pipe(
        Effect.provide(database.open())
      )
      assert.strictEqual(credits, 3)
    }))
})

describe("Store on sqlite: files", () => {
  it.effect("the database is in WAL mode, and the layer's sweeper deletes idempotency records past the retention", () =>
    Effect.gen(function*() {
      const database = backends[0].database()
      yield* useStore((store) =>
        Effect.gen(function*() {
          for (const requestId of ["a", "b", "c"]) {
            yield* store.beginRequest({ teamId: "t", requestId, paramsHash: "h", deadline: 1 })
          }
          yield* TestClock.adjust("8 days")
          yield* Effect.yieldNow
        })
      ).pipe(Effect.provide(database.open()))
      const db = new DatabaseSync(database.location)
      const mode = db.prepare("PRAGMA journal_mode").get()
      const left = db.prepare("SELECT count(*) AS n FROM idempotency").get()
      db.close()
      assert.deepStrictEqual({ ...mode }, { journal_mode: "wal" })
      assert.strictEqual(Number(left?.n), 0)
    }))

  it.effect("the plain key is nowhere in the database files, its hash is", () =>
    Effect.gen(function*() {
      const database = backends[0].database()
      const created = yield* useStore((store) =>
        Effect.andThen(store.setTeam("acme", {}), store.createKey("acme"))).pipe(Effect.provide(database.open()))
      const dir = dirname(database.location)
      const everything = readdirSync(dir).map((name) => readFileSync(join(dir, name)).toString("latin1")).join("")
      assert.isFalse(everything.includes(created.key.slice(23)))
      assert.isTrue(everything.includes(createHash("sha256").update(created.key).digest("hex")))
    }))
})

describe("Store on pg: no database", () => {
  it.live("a database that cannot be reached fails the layer with StoreUnavailable, not a migration failure", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(
        useStore((store) => Effect.succeed(store.backend)).pipe(
          Effect.provide(layerPg({ url: Redacted.make("postgres://strata@127.0.0.1:1/none"), cacheMaxBytes: 1 }))
        )
      )
      assert.strictEqual(error.reason._tag, "StoreUnavailable")
    }))
})
