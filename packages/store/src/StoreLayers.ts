/**
 * The store's layers: embedded SQLite (the default: a file under the data folder, nothing to run)
 * and Postgres (so that server replicas share one state). Building either opens the database,
 * applies the migrations and closes the database with the layer's scope. `layerConfig` chooses
 * from the environment: Postgres when STRATA_DATABASE_URL is set, otherwise SQLite in
 * `{STRATA_DATA_DIR}/strata.db`; STRATA_CACHE_MAX_BYTES bounds the cache. Beside the `Store`, each
 * layer provides effect's `RateLimiterStore`: in memory for SQLite (one server process), in the
 * database for Postgres, so replicas count a team's requests together; and core's
 * `InteractRecords` in the database (scrape records for interact, and its leases), their replays
 * sealed with the artifact secret (RecordSeal.ts).
 */
import { PgClient } from "@effect/sql-pg"
import {
  ArtifactSetupError,
  InteractRecords,
  loadOrCreateSecret,
  MigrationFailed,
  secretFromText,
  Store,
  StoreError,
  StoreUnavailable
} from "@strata/core"
import { Config, Context, Effect, Layer, Option, type Redacted, Schedule, type Scope } from "effect"
import { RateLimiter } from "effect/persistence"
import { Reactivity } from "effect/reactivity"
import type { SqlClient, SqlError } from "effect/sql"
import { randomBytes } from "node:crypto"
import { dirname, join, resolve } from "node:path"
import { migrate } from "./Migrations.ts"
import { makeSealer, type Sealer } from "./RecordSeal.ts"
import { makeInteractRecords } from "./SqlInteractRecords.ts"
import * as NodeSqliteClient from "./NodeSqliteClient.ts"
import { makeRateLimiterStore, purgeRateLimits } from "./SqlRateLimiterStore.ts"
import { purgeSlots } from "./SqlSlots.ts"
import { unavailable } from "./SqlRows.ts"
import { make, purgeRequests, type SqlStoreOptions } from "./SqlStore.ts"

/** The cache bound when STRATA_CACHE_MAX_BYTES is not set: 1 GiB. */
export const defaultCacheMaxBytes = 1024 * 1024 * 1024

/** Where rate-limit counters live: this process's memory, or the database (shared by replicas). */
export type RateLimits = "memory" | "database"

/** What a store layer provides: the store, effect's rate limiter store and interact's records beside it. */
export type StoreServices = Store | RateLimiter.RateLimiterStore | InteractRecords

/** The key interact records are sealed with (RecordSeal.ts). */
export interface RecordKeyOptions {
  /** The server's artifact secret (`STRATA_ARTIFACT_SECRET`, at least 16 characters); servers sharing a database need the same one. */
  readonly recordSecret?: string | undefined
  /**
   * Without `recordSecret`: the folder whose `artifact-secret` file (the one the artifact store
   * generates and uses) is the secret, made on first use. Default: the SQLite file's folder.
   */
  readonly dataDir?: string | undefined
}

/**
 * The sealer, made on first use (a process that never records a scrape never makes a secret
 * file) and kept once made; `random` for a database that lives as long as this process.
 */
const sealerOf = (options: RecordKeyOptions, random: boolean): Effect.Effect<Sealer, StoreError> => {
  const secret = options.recordSecret !== undefined
    ? secretFromText(options.recordSecret)
    : options.dataDir !== undefined
    ? loadOrCreateSecret(options.dataDir)
    : random
    ? Effect.succeed(new Uint8Array(randomBytes(32)))
    : Effect.fail(new ArtifactSetupError({ message: "No key to seal interact records with: give the store recordSecret (STRATA_ARTIFACT_SECRET) or a dataDir" }))
  let made: Sealer | undefined
  return Effect.suspend(() =>
    made !== undefined
      ? Effect.succeed(made)
      : secret.pipe(
        Effect.map((key) => (made = makeSealer(key))),
        Effect.mapError((error) => new StoreError({ reason: new StoreUnavailable({ operation: "interactSeal", message: error.message }) }))
      )
  )
}

/**
 * Opening and migrating again while SQLite says the file is locked past its busy timeout: processes
 * starting together on one file (each migrating, switching it to WAL) on a loaded machine can wait
 * on each other longer than one 5 s timeout (seen as `database is locked` at load 13-15). About
 * 25 s in all; any other error fails at once.
 */
const whileLocked = {
  schedule: Schedule.exponential("50 millis"),
  times: 9,
  while: (error: SqlError.SqlError) => error.reason._tag === "LockTimeoutError" || /database is locked|SQLITE_BUSY/i.test(error.message)
}

/**
 * The store over the client `acquire` opens: migrations first, then the methods; the client closes
 * with the layer. Old idempotency records, expired concurrency slots (and, kept in the database,
 * idle rate-limit counters) are deleted at start and every hour by a fiber in the layer's scope.
 */
const fromClient = (
  operation: string,
  acquire: Effect.Effect<SqlClient.SqlClient, SqlError.SqlError, Scope.Scope | Reactivity.Reactivity>,
  options: SqlStoreOptions,
  rateLimits: RateLimits,
  sealer: Effect.Effect<Sealer, StoreError>
): Layer.Layer<StoreServices, StoreError> => {
  const layer = Layer.effectContext(
    Effect.gen(function*() {
      const sql = yield* acquire.pipe(Effect.retry(whileLocked), Effect.mapError(unavailable(operation)))
      // The pool connects on first use, so a database that cannot be reached shows up here.
      yield* migrate(sql).pipe(
        Effect.retry(whileLocked),
        Effect.mapError((error) =>
          new StoreError({
            reason: error.reason._tag === "ConnectionError" || error.reason._tag === "AuthenticationError"
              ? new StoreUnavailable({ operation, message: `Cannot reach the database: ${error.message}` })
              : new MigrationFailed({ migration: "schema", message: error.message })
          })
        )
      )
      const sweep = Effect.andThen(
        Effect.andThen(purgeRequests(sql, options.requestRetentionMs), purgeSlots(sql)),
        rateLimits === "database" ? purgeRateLimits(sql) : Effect.void
      )
      yield* Effect.forkScoped(sweep.pipe(Effect.ignore, Effect.repeat(Schedule.spaced("1 hour"))))
      const context = Context.make(Store, make(sql, options)).pipe(Context.add(InteractRecords, makeInteractRecords(sql, sealer)))
      return rateLimits === "database"
        ? Context.add(context, RateLimiter.RateLimiterStore, makeRateLimiterStore(sql))
        : context
    })
  ).pipe(Layer.provide(Reactivity.layer))
  return (rateLimits === "database" ? layer : Layer.merge(layer, RateLimiter.layerStoreMemory)) as Layer.Layer<
    StoreServices,
    StoreError
  >
}

export interface SqliteStoreOptions extends SqlStoreOptions, RecordKeyOptions {
  /** The database file; `:memory:` for a private one. */
  readonly filename: string
  /** Rate-limit counters: in memory by default (one process serves); `database` to share them. */
  readonly rateLimits?: RateLimits
}

/** Embedded SQLite through `node:sqlite`, in WAL mode. */
export const layerSqlite = (options: SqliteStoreOptions): Layer.Layer<StoreServices, StoreError> =>
  fromClient(
    "open",
    NodeSqliteClient.make({ filename: options.filename }),
    options,
    options.rateLimits ?? "memory",
    options.filename === ":memory:"
      ? sealerOf(options, true)
      : sealerOf({ ...options, dataDir: options.dataDir ?? dirname(resolve(options.filename)) }, false)
  )

export interface PgStoreOptions extends SqlStoreOptions, RecordKeyOptions {
  readonly url: Redacted.Redacted
  /** Connections in the pool (default 10). */
  readonly maxConnections?: number
  /** Rate-limit counters: in the database by default, so replicas count together. */
  readonly rateLimits?: RateLimits
}

/** Postgres through `@effect/sql-pg` (effect's own wire-protocol client). */
export const layerPg = (options: PgStoreOptions): Layer.Layer<StoreServices, StoreError> =>
  fromClient(
    "connect",
    PgClient.make({ url: options.url, maxConnections: options.maxConnections ?? 10, applicationName: "strata" }),
    options,
    options.rateLimits ?? "database",
    sealerOf(options, false)
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
 * Interact records are sealed with `recordSecret`, else STRATA_ARTIFACT_SECRET, else the secret
 * generated in `dataDir`.
 */
export const layerConfigIn = (dataDir: string, recordSecret?: string): Layer.Layer<StoreServices, StoreError | Config.ConfigError> =>
  Layer.unwrap(
    Effect.gen(function*() {
      const config = yield* storeConfig
      const configured = yield* Config.String("STRATA_ARTIFACT_SECRET").pipe(Config.withDefault(""))
      const key = { recordSecret: recordSecret ?? (configured === "" ? undefined : configured), dataDir: resolve(dataDir.trim() || "./data") }
      return Option.match(config.databaseUrl, {
        onSome: (url) => layerPg({ url, cacheMaxBytes: config.cacheMaxBytes, ...key }),
        onNone: () => layerSqlite({ filename: sqliteFileIn(dataDir), cacheMaxBytes: config.cacheMaxBytes, ...key })
      })
    })
  )

/** The store chosen and configured from the environment alone (STRATA_DATA_DIR for the SQLite file). */
export const layerConfig: Layer.Layer<StoreServices, StoreError | Config.ConfigError> = Layer.unwrap(
  Effect.gen(function*() {
    return layerConfigIn((yield* storeConfig).dataDir)
  })
)
