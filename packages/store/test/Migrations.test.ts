/**
 * Migrations on SQLite and Postgres: a database made by an older Strata (only the first
 * migration) is brought up to date by the next start, each migration once, and the store then
 * works on it; the same list applied again does nothing.
 */
import { PgClient } from "@effect/sql-pg"
import { assert, describe, it } from "@effect/vitest"
import { Store } from "@strata/core"
import { Effect, Layer, Option, Redacted } from "effect"
import { SqlClient } from "effect/sql"
import { afterAll, beforeAll } from "vitest"
import { migrate, migrations } from "../src/Migrations.ts"
import * as NodeSqliteClient from "../src/NodeSqliteClient.ts"
import { backends, setup, teardown } from "./support/Backends.ts"

beforeAll(setup, 120_000)
afterAll(teardown)

describe.each(backends)("migrations on $name", (backend) => {
  it.effect("an older database is brought up to date once, and the store works on it", () =>
    Effect.gen(function*() {
      const database = backend.database()
      const client: Layer.Layer<SqlClient.SqlClient, unknown> = backend.name === "sqlite"
        ? NodeSqliteClient.layer({ filename: database.location })
        : PgClient.layer({ url: Redacted.make(database.location) })
      const applied = yield* Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        const older = yield* migrate(sql, migrations.slice(0, 1))
        const current = yield* migrate(sql)
        const again = yield* migrate(sql)
        return { older, current, again }
      }).pipe(Effect.provide(Layer.fresh(client)))
      assert.deepStrictEqual(applied, {
        older: [1],
        current: migrations.slice(1).map((migration) => migration.id),
        again: []
      })
      const meta = yield* Effect.gen(function*() {
        const store = yield* Store
        yield* store.cachePut({ key: "k", url: "u", finalUrl: "u", status: 200, headers: {}, body: new Uint8Array([1]), fetchedAt: 1, meta: { waitMs: 5 } })
        return Option.getOrThrow(yield* store.cacheGet("k")).meta
      }).pipe(Effect.provide(database.open()))
      assert.deepStrictEqual(meta, { waitMs: 5 })
    }))
})
