/**
 * effect's `SqlClient` over Node's built-in SQLite (`node:sqlite`, `DatabaseSync`), so the store's
 * queries are written once for SQLite and Postgres. There is no effect 4 driver for `node:sqlite`
 * (`@effect/sql-sqlite-node` is effect 3 and better-sqlite3), and this one is small: one
 * connection, statements prepared once and kept, a semaphore so that a transaction has the
 * connection to itself.
 *
 * The database runs in WAL mode with `synchronous = NORMAL`: a commit survives the process being
 * killed (the WAL is in the OS's hands once the commit returns); only a power loss can roll back
 * the last commits. Transactions begin with `BEGIN IMMEDIATE`, taking the write lock at the start,
 * so two processes on one file queue on `busy_timeout` instead of failing a lock upgrade halfway.
 */
import { Context, Effect, Layer, Semaphore, Stream } from "effect"
import { Reactivity } from "effect/reactivity"
import { SqlClient, type SqlConnection, SqlError, Statement } from "effect/sql"
import { mkdirSync } from "node:fs"
import { dirname } from "node:path"
import { DatabaseSync, type StatementSync, type SQLInputValue } from "node:sqlite"

export interface NodeSqliteOptions {
  /** The database file (`:memory:` for a private in-memory database). */
  readonly filename: string
  /** How long a statement waits for another process's write lock, in ms (default 5000). */
  readonly busyTimeoutMs?: number
}

/** node:sqlite puts SQLite's extended result code in `errcode` (its `code` is Node's own); effect classifies by `code`. */
const sqlError = (cause: unknown, operation: string) => {
  const message = cause instanceof Error ? cause.message : String(cause)
  const errcode = (cause as { errcode?: unknown } | undefined)?.errcode
  const classifiable = typeof errcode === "number" ? { code: errcode, message, cause } : cause
  return new SqlError.SqlError({ reason: SqlError.classifySqliteError(classifiable, { message, operation }) })
}

/** node:sqlite binds numbers, bigints, strings, null and byte arrays; booleans become 0/1. */
const bindable = (params: ReadonlyArray<unknown>): Array<SQLInputValue> =>
  params.map((value) =>
    value === undefined ? null : typeof value === "boolean" ? (value ? 1 : 0) : (value as SQLInputValue)
  )

const openDatabase = (options: NodeSqliteOptions) =>
  Effect.acquireRelease(
    Effect.try({
      try: () => {
        if (options.filename !== ":memory:") mkdirSync(dirname(options.filename), { recursive: true, mode: 0o700 })
        const db = new DatabaseSync(options.filename, { timeout: options.busyTimeoutMs ?? 5000 })
        db.exec("PRAGMA journal_mode = WAL")
        db.exec("PRAGMA synchronous = NORMAL")
        db.exec("PRAGMA foreign_keys = ON")
        return db
      },
      catch: (cause) => sqlError(cause, "open")
    }),
    (db) => Effect.sync(() => db.isOpen && db.close())
  )

const makeConnection = (db: DatabaseSync): SqlConnection.Connection => {
  // Statements are prepared once per SQL text: the store runs the same few dozen over and over.
  const prepared = new Map<string, StatementSync>()
  const prepare = (sql: string): StatementSync => {
    let statement = prepared.get(sql)
    if (statement === undefined) {
      statement = db.prepare(sql)
      prepared.set(sql, statement)
    }
    return statement
  }
  const all = (sql: string, params: ReadonlyArray<unknown>, cached: boolean) =>
    Effect.try({
      try: () => (cached ? prepare(sql) : db.prepare(sql)).all(...bindable(params)) as Array<any>,
      catch: (cause) => sqlError(cause, "execute")
    })
  const values = (sql: string, params: ReadonlyArray<unknown>, cached: boolean) =>
    Effect.map(all(sql, params, cached), (rows) => rows.map((row) => Object.values(row)))
  const transformed = (
    rows: Effect.Effect<Array<any>, SqlError.SqlError>,
    transformRows: (<A extends object>(row: ReadonlyArray<A>) => ReadonlyArray<A>) | undefined
  ) => transformRows === undefined ? rows : Effect.map(rows, transformRows)
  return {
    execute: (sql, params, transformRows) => transformed(all(sql, params, true), transformRows),
    executeRaw: (sql, params) =>
      Effect.try({ try: () => prepare(sql).run(...bindable(params)), catch: (cause) => sqlError(cause, "execute") }),
    executeStream: (sql, params, transformRows) =>
      Stream.fromIterableEffect(transformed(all(sql, params, true), transformRows)),
    executeValues: (sql, params) => values(sql, params, true),
    executeValuesUnprepared: (sql, params) => values(sql, params, false),
    // Transaction control and one-off statements: `exec` takes several statements and no parameters.
    executeUnprepared: (sql, params, transformRows) =>
      params.length === 0 && !/^\s*(select|with|pragma)\b/i.test(sql)
        ? Effect.try({ try: () => (db.exec(sql), [] as Array<any>), catch: (cause) => sqlError(cause, "execute") })
        : transformed(all(sql, params, false), transformRows)
  }
}

/** A `SqlClient` on one `node:sqlite` connection, closed with the scope. */
export const make = Effect.fnUntraced(function*(options: NodeSqliteOptions) {
  const db = yield* openDatabase(options)
  const connection = makeConnection(db)
  const semaphore = yield* Semaphore.make(1)
  // A statement waits while a transaction holds the connection, then runs at once (node:sqlite is synchronous).
  const acquirer = semaphore.withPermits(1)(Effect.succeed(connection))
  const transactionAcquirer = Effect.as(semaphore.takeScoped(1), connection)
  return yield* SqlClient.make({
    acquirer,
    transactionAcquirer,
    compiler: Statement.makeCompilerSqlite(),
    driver: "node:sqlite",
    spanAttributes: [["db.system.name", "sqlite"]],
    beginTransaction: "BEGIN IMMEDIATE",
    isTransaction: () => db.isTransaction
  })
})

/** The client as a layer: the database opens when the layer is built and closes with it. */
export const layer = (options: NodeSqliteOptions): Layer.Layer<SqlClient.SqlClient, SqlError.SqlError> =>
  Layer.effectContext(Effect.map(make(options), (client) => Context.make(SqlClient.SqlClient, client))).pipe(
    Layer.provide(Reactivity.layer)
  )
