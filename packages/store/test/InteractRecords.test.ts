/**
 * Interact records and leases on SQLite and Postgres (on the TestClock): a record comes back as
 * put and not once expired; its replay is sealed at rest (the headers it holds are not in the
 * database's bytes) and bound to its row; a server with another secret cannot open it and says
 * so; a sweep deletes expired records and lapsed leases and keeps the newest `maxRecords`, never
 * one with a live session; a lease has one holder at a time, also when two stores on one
 * database (replicas) race for it, and lapses unless taken again.
 */
import { PgClient } from "@effect/sql-pg"
import { assert, describe, it } from "@effect/vitest"
import { type InteractRecord, InteractRecords, sessionLease } from "@strata/core"
import { type Context, Effect, Exit, Layer, Option, Redacted } from "effect"
import { SqlClient } from "effect/sql"
import { TestClock } from "effect/testing"
import { afterAll, beforeAll } from "vitest"
import * as NodeSqliteClient from "../src/NodeSqliteClient.ts"
import { backends, setup, teardown } from "./support/Backends.ts"

beforeAll(setup, 120_000)
afterAll(teardown)

const SECRET = "harbour-master-secret-0001"
const replay = JSON.stringify({ request: { url: "https://quay.example/log", headers: { authorization: "Bearer tide-table-7731" }, actions: [] } })

const record = (scrapeId: string, createdAt: number, expiresAt: number, over: Partial<InteractRecord> = {}): InteractRecord => ({
  scrapeId,
  keyId: "key_a",
  teamId: "quay",
  replay,
  createdAt,
  expiresAt,
  ...over
})

const recordsOf = <R extends InteractRecords>(context: Context.Context<R>) => Effect.provideContext(Effect.service(InteractRecords), context)

describe.each(backends)("interact records on $name", (backend) => {
  /** Two stores on one new database (replicas), with the secrets given, and a raw client on it. */
  const open = (secretA = SECRET, secretB = SECRET) =>
    Effect.gen(function*() {
      const database = backend.database()
      const a = yield* recordsOf(yield* Layer.build(database.open({ recordSecret: secretA })))
      const b = yield* recordsOf(yield* Layer.build(database.open({ recordSecret: secretB })))
      const client: Layer.Layer<SqlClient.SqlClient, unknown> = backend.name === "sqlite"
        ? NodeSqliteClient.layer({ filename: database.location })
        : PgClient.layer({ url: Redacted.make(database.location) })
      const sql = yield* Effect.provideContext(Effect.service(SqlClient.SqlClient), yield* Layer.build(Layer.fresh(client)))
      return { a, b, sql }
    })

  it.effect("a record comes back as put, from another store on the database, and not once expired or removed", () =>
    Effect.gen(function*() {
      const { a, b } = yield* open()
      yield* a.put(record("s1", 0, 60_000))
      yield* a.put(record("zdr", 0, 60_000, { replay: undefined }))
      assert.deepStrictEqual(yield* b.get("s1"), Option.some(record("s1", 0, 60_000)))
      assert.deepStrictEqual(yield* b.get("zdr"), Option.some(record("zdr", 0, 60_000, { replay: undefined })))
      assert.isTrue(Option.isNone(yield* b.get("never")))
      yield* TestClock.adjust("60 seconds")
      assert.isTrue(Option.isNone(yield* b.get("s1")))
      yield* a.put(record("s2", 60_000, 120_000))
      yield* b.remove("s2")
      assert.isTrue(Option.isNone(yield* a.get("s2")))
    }))

  it.effect("the replay is sealed at rest and bound to its row; another secret cannot open it and says so", () =>
    Effect.gen(function*() {
      const { a, b, sql } = yield* open(SECRET, "another-secret-entirely")
      yield* a.put(record("s1", 0, 60_000))
      const rows = yield* sql<{ replay: string }>`SELECT replay FROM interact_records WHERE scrape_id = 's1'`
      assert.match(rows[0].replay, /^v1\./)
      for (const plain of ["tide-table-7731", "quay.example", "authorization"]) assert.notInclude(rows[0].replay, plain)
      // Another secret: unreadable, not unknown.
      const other = yield* Effect.exit(b.get("s1"))
      assert.isTrue(Exit.isFailure(other))
      assert.deepInclude(JSON.stringify(other), "RecordUnreadable")
      assert.include(JSON.stringify(other), "STRATA_ARTIFACT_SECRET")
      // The sealed value copied onto another row (another key's) does not open there.
      yield* a.put(record("s2", 0, 60_000, { keyId: "key_b" }))
      yield* sql`UPDATE interact_records SET replay = ${rows[0].replay} WHERE scrape_id = 's2'`
      assert.include(JSON.stringify(yield* Effect.exit(a.get("s2"))), "RecordUnreadable")
      assert.deepStrictEqual(yield* a.get("s1"), Option.some(record("s1", 0, 60_000)))
    }))

  it.effect("a lease has one holder until released or lapsed; taking it again renews it", () =>
    Effect.gen(function*() {
      const { a, b } = yield* open()
      assert.deepStrictEqual(yield* a.takeLease("session:s1", "A", 30_000), { _tag: "Taken" })
      assert.deepStrictEqual(yield* b.takeLease("session:s1", "B", 30_000), { _tag: "Held", holder: "A", expiresAt: 30_000 })
      yield* TestClock.adjust("20 seconds")
      assert.deepStrictEqual(yield* a.takeLease("session:s1", "A", 30_000), { _tag: "Taken" })
      yield* TestClock.adjust("20 seconds")
      assert.deepStrictEqual(yield* b.leaseHolder("session:s1"), Option.some({ holder: "A", expiresAt: 50_000 }))
      // Only the holder releases it.
      yield* b.releaseLease("session:s1", "B")
      assert.deepStrictEqual(yield* b.takeLease("session:s1", "B", 30_000), { _tag: "Held", holder: "A", expiresAt: 50_000 })
      // Not renewed: it lapses, and another holder takes it.
      yield* TestClock.adjust("10 seconds")
      assert.isTrue(Option.isNone(yield* a.leaseHolder("session:s1")))
      assert.deepStrictEqual(yield* b.takeLease("session:s1", "B", 30_000), { _tag: "Taken" })
      yield* b.releaseLease("session:s1", "B")
      assert.deepStrictEqual(yield* a.takeLease("session:s1", "A", 30_000), { _tag: "Taken" })
    }))

  it.effect("16 takes at once through two stores: exactly one holder", () =>
    Effect.gen(function*() {
      const { a, b } = yield* open()
      const claims = yield* Effect.forEach(
        Array.from({ length: 16 }, (_, i) => i),
        (i) => (i % 2 === 0 ? a : b).takeLease("profile:team/name", `holder-${i}`, 30_000),
        { concurrency: 16 }
      )
      assert.strictEqual(claims.filter((claim) => claim._tag === "Taken").length, 1)
      const holders = new Set(claims.flatMap((claim) => (claim._tag === "Held" ? [claim.holder] : [])))
      assert.strictEqual(holders.size, 1)
    }))

  it.effect("a sweep deletes expired records and lapsed leases, and keeps the newest, never one with a live session", () =>
    Effect.gen(function*() {
      const { a, b, sql } = yield* open()
      for (let i = 0; i < 6; i++) {
        yield* a.put(record(`s${i}`, i, i === 0 ? 10 : 60_000))
        yield* TestClock.adjust("1 millis")
      }
      // s1 is old but its session is open somewhere.
      yield* b.takeLease(sessionLease("s1"), "B", 30_000)
      yield* a.takeLease("profile:gone", "A", 5)
      yield* TestClock.adjust("1 second")
      // s0 expired; of the rest the newest two stay, and s1.
      assert.strictEqual(yield* b.sweep(2), 3)
      const left = yield* sql<{ scrape_id: string }>`SELECT scrape_id FROM interact_records ORDER BY scrape_id`
      assert.deepStrictEqual(left.map((row) => row.scrape_id), ["s1", "s4", "s5"])
      const leases = yield* sql<{ name: string }>`SELECT name FROM interact_leases ORDER BY name`
      assert.deepStrictEqual(leases.map((row) => row.name), ["session:s1"])
    }))
})
