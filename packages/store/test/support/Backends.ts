/**
 * The two backends every store test runs on. `fresh` gives a store on a database of its own (a
 * new SQLite file, a new Postgres database), so tests do not see each other's teams or cache.
 * Postgres is started once per test file (`setup`/`teardown` in `beforeAll`/`afterAll`).
 */
import type { StoreError } from "@strata/core"
import { Layer, Redacted } from "effect"
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { layerPg, layerSqlite, type RateLimits, type RecordKeyOptions, type SqlStoreOptions, type StoreServices } from "../../src/index.ts"
import { startPostgres, type TempPostgres } from "./TempPostgres.ts"

/** A store's options, all optional, and where its rate-limit counters live. */
export type Options = Partial<SqlStoreOptions> & RecordKeyOptions & { readonly rateLimits?: RateLimits }

export interface Backend {
  readonly name: "sqlite" | "pg"
  /** A new, empty database, and a way to open more stores on it (replicas). */
  readonly database: () => {
    /** The SQLite file or the Postgres URL. */
    readonly location: string
    readonly open: (options?: Options) => Layer.Layer<StoreServices, StoreError>
  }
  /** A store on a new, empty database. */
  readonly fresh: (options?: Options) => Layer.Layer<StoreServices, StoreError>
}

const defaults: SqlStoreOptions = { cacheMaxBytes: 64 * 1024 * 1024 }

export const tempDir = () => mkdtempSync(join(tmpdir(), "strata-store-"))

let postgres: TempPostgres | undefined
let databases = 0

export const setup = async () => {
  postgres = await startPostgres()
}

export const teardown = () => postgres?.stop()

const sqlite: Backend = {
  name: "sqlite",
  database: () => {
    const filename = join(tempDir(), "strata.db")
    return { location: filename, open: (options) => Layer.fresh(layerSqlite({ ...defaults, ...options, filename })) }
  },
  fresh: (options) => sqlite.database().open(options)
}

const pg: Backend = {
  name: "pg",
  database: () => {
    if (postgres === undefined) throw new Error("Postgres is not started: call setup() in beforeAll")
    const url = postgres.createDatabase(`t${process.pid}_${++databases}`)
    return { location: url, open: (options) => Layer.fresh(layerPg({ ...defaults, ...options, url: Redacted.make(url), maxConnections: 20 })) }
  },
  fresh: (options) => pg.database().open(options)
}

export const backends: ReadonlyArray<Backend> = [sqlite, pg]
export const postgresUrl = () => postgres?.url()
