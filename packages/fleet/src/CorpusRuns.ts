/**
 * Corpus runs: what `strata parse ... --queue` asked for, kept in the store's Postgres so that any
 * number of workers on any machines can drain it and anyone can ask how far it got
 * (`strata runs show <id>`).
 *
 * - `fleet_runs`: one row per run. Its id is a hash of what was asked (the inputs, the output
 *   folder, the options), so running the same command again finds the same run and resumes it.
 * - `fleet_items`: one row per document: `queued`, `running`, `done` or `failed`, with its attempts
 *   and last error. `round` goes up each time a re-run sends a failed document again; it is part of
 *   the job key, so the new job does not collide with the failed one the queue still keeps.
 * - `fleet_results`: one row per conversion result, keyed by the document's content hash and the
 *   options. `writes` counts how many times a result was stored: more than 1 means two attempts
 *   both finished the same work, which a test and `runs show` check for.
 *
 * The tables are created (if missing) when the layer starts, under an advisory lock, as pg-boss
 * keeps its own schema: runs exist only on Postgres, so they are not in the store's migrations.
 */
import { PgClient } from "@effect/sql-pg"
import { Array as Arr, Context, Effect, Layer, Option, type Redacted, Schema } from "effect"
import type { SqlClient } from "effect/sql"
import { Reactivity } from "effect/reactivity"

export class RunsUnavailable extends Schema.TaggedError<RunsUnavailable>()("RunsUnavailable", {
  operation: Schema.String,
  message: Schema.String
}) {}

export class RunsError extends Schema.TaggedError<RunsError>()("RunsError", {
  reason: Schema.Union([RunsUnavailable])
}) {
  override get message(): string {
    return this.reason.message
  }
}

/** Maps a database failure of `operation` to `RunsError` (ParseJobs.ts's table uses it too). */
export const runsUnavailable = (operation: string) => <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.mapError(effect, (error) =>
    new RunsError({ reason: new RunsUnavailable({ operation, message: (error as { message?: string }).message ?? String(error) }) }))

/** Runs `schema`'s statements in one transaction under the advisory lock `lockKey`, so that replicas starting together create the tables once. */
export const createTables = (sql: SqlClient.SqlClient, lockKey: number, schema: ReadonlyArray<string>) =>
  sql.withTransaction(Effect.gen(function*() {
    yield* sql.unsafe(`SELECT pg_advisory_xact_lock(${lockKey})`)
    for (const statement of schema) yield* sql.unsafe(statement)
  })).pipe(runsUnavailable("create tables"))

/** What a run converts, and how: everything a worker needs is in the run, not on the worker. */
export interface RunSpec {
  readonly id: string
  readonly outDir: string
  /** The contract's parse options, plus how outputs are written. */
  readonly options: Record<string, unknown>
  readonly json: boolean
  readonly formats: ReadonlyArray<string> | undefined
}

export interface RunItem {
  /** The path below the run's root (the output is `<out>/<path>.md`). */
  readonly path: string
  readonly round: number
}

/** What recording a run found: the items still to convert, and how many are done already. */
export interface Recorded {
  readonly total: number
  readonly done: number
  readonly pending: ReadonlyArray<RunItem & { readonly state: string }>
}

export interface RunFailure {
  readonly path: string
  readonly attempts: number
  readonly error: string
}

export interface RunProgress {
  readonly id: string
  readonly createdAt: number
  readonly outDir: string
  readonly total: number
  readonly done: number
  readonly failed: number
  readonly running: number
  readonly queued: number
  /** Documents per second since the first one started; `undefined` before one finished. */
  readonly throughput: number | undefined
  /** Time left at that rate (ms); `undefined` when it cannot be told. */
  readonly etaMs: number | undefined
  /** Results stored more than once (0 unless two attempts finished the same work). */
  readonly doubleWrites: number
  readonly failures: ReadonlyArray<RunFailure>
}

export class CorpusRuns extends Context.Service<CorpusRuns, {
  /** Records the run and its items (new ones only); failed items go back to `queued` in a new round. */
  readonly record: (run: RunSpec, paths: ReadonlyArray<string>) => Effect.Effect<Recorded, RunsError>
  /** An item is back in the queue in a new round (its job failed while no worker could say so). */
  readonly requeue: (runId: string, path: string) => Effect.Effect<RunItem, RunsError>
  readonly started: (runId: string, path: string, attempt: number) => Effect.Effect<void, RunsError>
  /** The items an attempt is running now (or was, when its worker died). */
  readonly running: (runId: string) => Effect.Effect<ReadonlyArray<RunItem>, RunsError>
  readonly finished: (runId: string, path: string, resultKey: string) => Effect.Effect<void, RunsError>
  /** An attempt failed; `final` when it was the item's last. */
  readonly failed: (runId: string, path: string, error: string, final: boolean) => Effect.Effect<void, RunsError>
  /** Where a result was first written, if it was. */
  readonly result: (key: string) => Effect.Effect<Option.Option<{ readonly runId: string; readonly path: string }>, RunsError>
  /** Stores a result; returns how many times it has now been stored. */
  readonly saveResult: (key: string, runId: string, path: string) => Effect.Effect<number, RunsError>
  readonly spec: (runId: string) => Effect.Effect<Option.Option<RunSpec>, RunsError>
  readonly progress: (runId: string, failures?: number) => Effect.Effect<Option.Option<RunProgress>, RunsError>
}>()("@strata/fleet/CorpusRuns") {}

const schema = [
  `CREATE TABLE IF NOT EXISTS fleet_runs (
    id TEXT PRIMARY KEY,
    created_at BIGINT NOT NULL,
    out_dir TEXT NOT NULL,
    spec TEXT NOT NULL
  )`,
  `CREATE TABLE IF NOT EXISTS fleet_items (
    run_id TEXT NOT NULL REFERENCES fleet_runs (id),
    path TEXT NOT NULL,
    round INTEGER NOT NULL DEFAULT 0,
    state TEXT NOT NULL DEFAULT 'queued',
    attempts INTEGER NOT NULL DEFAULT 0,
    started_at BIGINT,
    finished_at BIGINT,
    result_key TEXT,
    error TEXT,
    PRIMARY KEY (run_id, path)
  )`,
  `CREATE INDEX IF NOT EXISTS fleet_items_state ON fleet_items (run_id, state)`,
  `CREATE TABLE IF NOT EXISTS fleet_results (
    key TEXT PRIMARY KEY,
    run_id TEXT NOT NULL,
    path TEXT NOT NULL,
    writes INTEGER NOT NULL DEFAULT 1,
    created_at BIGINT NOT NULL
  )`
]

/** Names the schema lock in Postgres's advisory lock space ("Flet"). */
const schemaLockKey = 0x466c_6574
const ITEM_CHUNK = 1000

export const make = (sql: SqlClient.SqlClient) =>
  Effect.gen(function*() {
    yield* createTables(sql, schemaLockKey, schema)

    const record = (run: RunSpec, paths: ReadonlyArray<string>) =>
      sql.withTransaction(Effect.gen(function*() {
        const now = Date.now()
        const spec = JSON.stringify({ options: run.options, json: run.json, formats: run.formats ?? null })
        yield* sql`INSERT INTO fleet_runs (id, created_at, out_dir, spec) VALUES (${run.id}, ${now}, ${run.outDir}, ${spec})
          ON CONFLICT (id) DO NOTHING`
        for (let i = 0; i < paths.length; i += ITEM_CHUNK) {
          const rows = paths.slice(i, i + ITEM_CHUNK).map((path): Record<string, string> => ({ run_id: run.id, path }))
          if (!Arr.isReadonlyArrayNonEmpty(rows)) continue
          yield* sql`INSERT INTO fleet_items ${sql.insert(rows)} ON CONFLICT (run_id, path) DO NOTHING`
        }
        yield* sql`UPDATE fleet_items SET state = 'queued', round = round + 1, attempts = 0, error = NULL
          WHERE run_id = ${run.id} AND state = 'failed'`
        const rows = yield* sql<{ path: string; round: number; state: string }>`
          SELECT path, round, state FROM fleet_items WHERE run_id = ${run.id} AND state <> 'done' ORDER BY path`
        const counts = yield* sql<{ total: unknown; done: unknown }>`
          SELECT count(*) AS total, count(*) FILTER (WHERE state = 'done') AS done FROM fleet_items WHERE run_id = ${run.id}`
        return {
          total: Number(counts[0]!.total),
          done: Number(counts[0]!.done),
          pending: rows.map((row) => ({ path: row.path, round: Number(row.round), state: row.state }))
        }
      })).pipe(runsUnavailable("record"))

    const requeue = (runId: string, path: string) =>
      sql<{ round: number }>`UPDATE fleet_items SET state = 'queued', round = round + 1, attempts = 0
        WHERE run_id = ${runId} AND path = ${path} RETURNING round`.pipe(
        Effect.map((rows) => ({ path, round: Number(rows[0]?.round ?? 0) })),
        runsUnavailable("requeue")
      )

    const started = (runId: string, path: string, attempt: number) =>
      sql`UPDATE fleet_items SET state = 'running', attempts = ${attempt}, started_at = COALESCE(started_at, ${Date.now()})
        WHERE run_id = ${runId} AND path = ${path} AND state <> 'done'`.pipe(Effect.asVoid, runsUnavailable("started"))

    const running = (runId: string) =>
      sql<{ path: string; round: number }>`SELECT path, round FROM fleet_items WHERE run_id = ${runId} AND state = 'running'`.pipe(
        Effect.map((rows) => rows.map((row) => ({ path: row.path, round: Number(row.round) }))),
        runsUnavailable("running")
      )

    const finished = (runId: string, path: string, resultKey: string) =>
      sql`UPDATE fleet_items SET state = 'done', finished_at = ${Date.now()}, result_key = ${resultKey}, error = NULL
        WHERE run_id = ${runId} AND path = ${path}`.pipe(Effect.asVoid, runsUnavailable("finished"))

    const failed = (runId: string, path: string, error: string, final: boolean) =>
      sql`UPDATE fleet_items SET state = ${final ? "failed" : "queued"}, error = ${error},
        finished_at = ${final ? Date.now() : null}
        WHERE run_id = ${runId} AND path = ${path} AND state <> 'done'`.pipe(Effect.asVoid, runsUnavailable("failed"))

    const result = (key: string) =>
      sql<{ run_id: string; path: string }>`SELECT run_id, path FROM fleet_results WHERE key = ${key}`.pipe(
        Effect.map((rows) => Option.map(Option.fromNullishOr(rows[0]), (row) => ({ runId: row.run_id, path: row.path }))),
        runsUnavailable("result")
      )

    const saveResult = (key: string, runId: string, path: string) =>
      sql<{ writes: number }>`INSERT INTO fleet_results (key, run_id, path, writes, created_at)
        VALUES (${key}, ${runId}, ${path}, 1, ${Date.now()})
        ON CONFLICT (key) DO UPDATE SET writes = fleet_results.writes + 1 RETURNING writes`.pipe(
        Effect.map((rows) => Number(rows[0]!.writes)),
        runsUnavailable("save result")
      )

    const spec = (runId: string) =>
      sql<{ id: string; out_dir: string; spec: string }>`SELECT id, out_dir, spec FROM fleet_runs WHERE id = ${runId}`.pipe(
        Effect.map((rows) =>
          Option.map(Option.fromNullishOr(rows[0]), (row): RunSpec => {
            const parsed = JSON.parse(row.spec) as { options: Record<string, unknown>; json: boolean; formats: Array<string> | null }
            return { id: row.id, outDir: row.out_dir, options: parsed.options, json: parsed.json, formats: parsed.formats ?? undefined }
          })
        ),
        runsUnavailable("spec")
      )

    const progress = (runId: string, failures = 20) =>
      Effect.gen(function*() {
        const runs = yield* sql<{ created_at: unknown; out_dir: string }>`SELECT created_at, out_dir FROM fleet_runs WHERE id = ${runId}`
        const run = runs[0]
        if (run === undefined) return Option.none<RunProgress>()
        const [c] = yield* sql<Record<string, unknown>>`SELECT
            count(*) AS total,
            count(*) FILTER (WHERE state = 'done') AS done,
            count(*) FILTER (WHERE state = 'failed') AS failed,
            count(*) FILTER (WHERE state = 'running') AS running,
            count(*) FILTER (WHERE state = 'queued') AS queued,
            min(started_at) AS first_start,
            max(finished_at) FILTER (WHERE state = 'done') AS last_finish
          FROM fleet_items WHERE run_id = ${runId}`
        const [doubles] = yield* sql<{ n: unknown }>`SELECT count(*) AS n FROM fleet_results WHERE run_id = ${runId} AND writes > 1`
        const failing = yield* sql<{ path: string; attempts: unknown; error: string }>`
          SELECT path, attempts, error FROM fleet_items WHERE run_id = ${runId} AND state = 'failed' ORDER BY path LIMIT ${failures}`
        const n = (key: string) => Number(c![key] ?? 0)
        const total = n("total")
        const done = n("done")
        const failed = n("failed")
        const spanMs = c!.last_finish === null || c!.first_start === null ? 0 : n("last_finish") - n("first_start")
        const throughput = done > 0 && spanMs > 0 ? done / (spanMs / 1000) : undefined
        const left = total - done - failed
        return Option.some<RunProgress>({
          id: runId,
          createdAt: Number(run.created_at),
          outDir: run.out_dir,
          total,
          done,
          failed,
          running: n("running"),
          queued: n("queued"),
          throughput,
          etaMs: left === 0 ? 0 : throughput === undefined ? undefined : Math.round((left / throughput) * 1000),
          doubleWrites: Number(doubles?.n ?? 0),
          failures: failing.map((row) => ({ path: row.path, attempts: Number(row.attempts), error: row.error }))
        })
      }).pipe(runsUnavailable("progress"))

    return CorpusRuns.of({ record, requeue, started, running, finished, failed, result, saveResult, spec, progress })
  })

/** A pool on the Postgres at `url` (ParseJobs.ts's layer connects with it too); it closes with the scope. */
export const connect = (options: { readonly url: Redacted.Redacted; readonly maxConnections?: number }) =>
  PgClient.make({ url: options.url, maxConnections: options.maxConnections ?? 4, applicationName: "strata-fleet" }).pipe(
    Effect.mapError((error) => new RunsError({ reason: new RunsUnavailable({ operation: "connect", message: error.message }) }))
  )

/** Corpus runs on the Postgres at `url`; the connection pool closes with the layer. */
export const layer = (options: { readonly url: Redacted.Redacted; readonly maxConnections?: number }): Layer.Layer<CorpusRuns, RunsError> =>
  Layer.effect(
    CorpusRuns,
    Effect.gen(function*() {
      const sql = yield* connect(options)
      return yield* make(sql)
    })
  ).pipe(Layer.provide(Reactivity.layer))
