/**
 * The store's layers: embedded SQLite (the default: a file under the data folder, nothing to run)
 * and Postgres (so that server replicas share one state). Building either opens the database,
 * applies the migrations and closes the database with the layer's scope. `layerConfig` chooses
 * from the environment: Postgres when STRATA_DATABASE_URL is set, otherwise SQLite in
 * `{STRATA_DATA_DIR}/strata.db`; STRATA_CACHE_MAX_BYTES bounds the cache. A fiber in the layer's
 * scope deletes expired idempotency records at start and every hour.
 */
import { PgClient } from "@effect/sql-pg"
import { MigrationFailed, Store, StoreError, StoreUnavailable } from "@strata/core"
import { Config, Effect, Layer, Option, type Redacted, Schedule, type Scope } from "effect"
import { Reactivity } from "effect/reactivity"
import type { SqlClient, SqlError } from "effect/sql"
import { join, resolve } from "node:path"
import { migrate } from "./Migrations.ts"
import * as NodeSqliteClient from "./NodeSqliteClient.ts"
import { make, purgeRequests, type SqlStoreOptions } from "./SqlStore.ts"

/** The cache bound when STRATA_CACHE_MAX_BYTES is not set: 1 GiB. */
export const defaultCacheMaxBytes = 1024 * 1024 * 1024

const setupFailed = (operation: string) => (error: SqlError.SqlError) =>
  new StoreError({ reason: new StoreUnavailable({ operation, message: error.message }) })

/** The store over the client `acquire` opens: migrations first, then the methods; the client closes with the layer. */
const fromClient = (
  operation: string,
  acquire: Effect.Effect<SqlClient.SqlClient, SqlError.SqlError, Scope.Scope | Reactivity.Reactivity>,
  options: SqlStoreOptions
): Layer.Layer<Store, StoreError> =>
  Layer.effect(
    Store,
    Effect.gen(function*() {
      const sql = yield* acquire.pipe(Effect.mapError(setupFailed(operation)))
      yield* migrate(sql).pipe(
        Effect.mapError((error) => new StoreError({ reason: new MigrationFailed({ migration: "schema", message: error.message }) }))
      )
      // Old idempotency records go at start and every hour, in the layer's scope.
      yield* Effect.forkScoped(
        purgeRequests(sql, options.requestRetentionMs).pipe(
          Effect.ignore,
          Effect.repeat(Schedule.spaced("1 hour"))
        )
      )
      return make(sql, options)
    })
  ).pipe(Layer.provide(Reactivity.layer))

export interface SqliteStoreOptions extends SqlStoreOptions {
  /** The database file; `:memory:` for a private one. */
  readonly filename: string
}

/** Embedded SQLite through `node:sqlite`, in WAL mode. */
export const layerSqlite = (options: SqliteStoreOptions): Layer.Layer<Store, StoreError> =>
  fromClient("open", NodeSqliteClient.make({ filename: options.filename }), options)

export interface PgStoreOptions extends SqlStoreOptions {
  readonly url: Redacted.Redacted
  /** Connections in the pool (default 10). */
  readonly maxConnections?: number
}

/** Postgres through `@effect/sql-pg` (effect's own wire-protocol client). */
export const layerPg = (options: PgStoreOptions): Layer.Layer<Store, StoreError> =>
  fromClient(
    "connect",
    PgClient.make({ url: options.url, maxConnections: options.maxConnections ?? 10, applicationName: "strata" }),
    options
  )

/** Which store the environment asks for (see the module comment). */
export const storeConfig = Config.all({
  databaseUrl: Config.option(Config.Redacted("STRATA_DATABASE_URL")),
  dataDir: Config.String("STRATA_DATA_DIR").pipe(Config.withDefault("./data")),
  cacheMaxBytes: Config.Int("STRATA_CACHE_MAX_BYTES").pipe(Config.withDefault(defaultCacheMaxBytes))
})

/** The SQLite file under a data folder. */
export const sqliteFileIn = (dataDir: string): string => join(resolve(dataDir.trim() || "./data"), "strata.db")

/**
 * The store the environment asks for, with the data folder given (the server's, which its own
 * configuration may have set): Postgres when STRATA_DATABASE_URL is set, else `{dataDir}/strata.db`.
 */
export const layerConfigIn = (dataDir: string): Layer.Layer<Store, StoreError | Config.ConfigError> =>
  Layer.unwrap(
    Effect.gen(function*() {
      const config = yield* storeConfig
      return Option.match(config.databaseUrl, {
        onSome: (url) => layerPg({ url, cacheMaxBytes: config.cacheMaxBytes }),
        onNone: () => layerSqlite({ filename: sqliteFileIn(dataDir), cacheMaxBytes: config.cacheMaxBytes })
      })
    })
  )

/** The store chosen and configured from the environment alone (STRATA_DATA_DIR for the SQLite file). */
export const layerConfig: Layer.Layer<Store, StoreError | Config.ConfigError> = Layer.unwrap(
  Effect.gen(function*() {
    return layerConfigIn((yield* storeConfig).dataDir)
  })
)
