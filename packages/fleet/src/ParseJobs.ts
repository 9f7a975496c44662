/**
 * Parse requests a replica hands to the fleet (issue 19, replicas): the upload, the decoded
 * options and, once a worker has read it, the answer, in one row of `fleet_parse_jobs` on the
 * shared Postgres; the job itself goes through the `JobQueue` (the fleet's queue, at `Priority.api`,
 * so a worker takes it before corpus jobs) carrying only the row's id.
 *
 * - The replica (`queuedParseLayer`) inserts the row, enqueues the job and polls the row until it
 *   holds an answer, the job has failed for good (its attempts used up: dead-lettered), or the
 *   request's timeout has passed; whatever ends the wait (the answer read, the timeout, the client
 *   gone: an interruption) cancels the job if no worker has taken it and deletes the row: a worker
 *   that takes a job without a row, or past the row's `expires_at`, discards it without reading a
 *   byte, and an answer written after the row is gone goes nowhere.
 * - The worker (`parseJobHandler` in the CLI) reads the row, converts the upload in its reader
 *   process and writes the answer: the `ScrapeData`, or the `ScrapeError` the pipeline gave
 *   (encoded with its Schema), so the replica answers what it would have answered inline.
 *
 * The replica charges the request in its own metering, once, whatever the attempts: workers never
 * touch credits. Rows whose replica died mid-wait are swept after an hour by the next insert.
 */
import type { SqlExecutor } from "@strata/core"
import { Context, Effect, Layer, Option, type Redacted, Schema } from "effect"
import type { SqlClient } from "effect/sql"
import { Reactivity } from "effect/reactivity"
import { connect, createTables, RunsError, runsUnavailable } from "./CorpusRuns.ts"

/** What a parse job carries through the queue: its row's id. */
export const ParseJob = Schema.Struct({ parseJob: Schema.String })
export type ParseJob = typeof ParseJob.Type

/** A row's upload and options, as a worker reads them. */
export interface ParseInput {
  readonly bytes: Uint8Array
  readonly fileName: string
  readonly contentType: string | undefined
  /** The decoded parse options, as JSON. */
  readonly options: Record<string, unknown>
  /** When the replica stops waiting (epoch ms): work past it is discarded. */
  readonly expiresAt: number
  /** When the replica put it (epoch ms), as read back; `put` stamps its own. */
  readonly createdAt?: number | undefined
}

/** A worker's answer: the data, or the pipeline's error encoded with the `ScrapeError` Schema. */
export type ParseAnswer =
  | { readonly _tag: "Data"; readonly data: unknown }
  | { readonly _tag: "Error"; readonly error: unknown }

export class ParseJobs extends Context.Service<ParseJobs, {
  /** Puts the row; through `db` when given (inside a caller's transaction, as `Store.bindSlot` runs it). */
  readonly put: (id: string, input: ParseInput, db?: SqlExecutor) => Effect.Effect<void, RunsError>
  /** The row's input, unless it is gone (cancelled) or expired. */
  readonly input: (id: string) => Effect.Effect<Option.Option<ParseInput>, RunsError>
  /** Writes the answer; false when the row is gone (the replica stopped waiting). */
  readonly answer: (id: string, answer: ParseAnswer) => Effect.Effect<boolean, RunsError>
  /** The answer, once a worker wrote one. */
  readonly answerOf: (id: string) => Effect.Effect<Option.Option<ParseAnswer>, RunsError>
  readonly remove: (id: string) => Effect.Effect<void, RunsError>
}>()("@strata/fleet/ParseJobs") {}

const schema = [
  `CREATE TABLE IF NOT EXISTS fleet_parse_jobs (
    id TEXT PRIMARY KEY,
    created_at BIGINT NOT NULL,
    expires_at BIGINT NOT NULL,
    file_name TEXT NOT NULL,
    content_type TEXT,
    options TEXT NOT NULL,
    bytes BYTEA,
    answer TEXT
  )`,
  `CREATE INDEX IF NOT EXISTS fleet_parse_jobs_created ON fleet_parse_jobs (created_at)`
]

/** Names the schema lock in Postgres's advisory lock space ("FltP"). */
const schemaLockKey = 0x466c_7450
/** Rows older than this belong to a replica that died waiting. */
const SWEEP_AFTER_MS = 3_600_000

const sweepText = `DELETE FROM fleet_parse_jobs WHERE created_at < $1`
const insertText = `INSERT INTO fleet_parse_jobs (id, created_at, expires_at, file_name, content_type, options, bytes)
  VALUES ($1, $2, $3, $4, $5, $6, $7)`

export const make = (sql: SqlClient.SqlClient) =>
  Effect.gen(function*() {
    yield* createTables(sql, schemaLockKey, schema)

    const put = (id: string, input: ParseInput, db?: SqlExecutor) => {
      const now = Date.now()
      const values = [
        id,
        now,
        input.expiresAt,
        input.fileName,
        input.contentType ?? null,
        JSON.stringify(input.options),
        Buffer.from(input.bytes.buffer, input.bytes.byteOffset, input.bytes.byteLength)
      ]
      const statements: Effect.Effect<unknown, unknown> = db === undefined
        ? Effect.andThen(sql.unsafe(sweepText, [now - SWEEP_AFTER_MS]), sql.unsafe(insertText, values))
        : Effect.tryPromise(async () => {
          await db.executeSql(sweepText, [now - SWEEP_AFTER_MS])
          await db.executeSql(insertText, values)
        })
      return statements.pipe(Effect.asVoid, runsUnavailable("put"))
    }

    const input = (id: string) =>
      sql<{ created_at: unknown; expires_at: unknown; file_name: string; content_type: string | null; options: string; bytes: Uint8Array | null }>`
        SELECT created_at, expires_at, file_name, content_type, options, bytes FROM fleet_parse_jobs
        WHERE id = ${id} AND answer IS NULL AND expires_at > ${Date.now()}`.pipe(
        Effect.map((rows) =>
          Option.flatMap(Option.fromNullishOr(rows[0]), (row) =>
            row.bytes === null ? Option.none() : Option.some({
              bytes: row.bytes,
              fileName: row.file_name,
              contentType: row.content_type ?? undefined,
              options: JSON.parse(row.options) as Record<string, unknown>,
              expiresAt: Number(row.expires_at),
              createdAt: Number(row.created_at)
            }))
        ),
        runsUnavailable("input")
      )

    // The upload is dropped with the answer: the row then only waits to be read.
    const answer = (id: string, answer: ParseAnswer) =>
      sql<{ id: string }>`UPDATE fleet_parse_jobs SET answer = ${JSON.stringify(answer)}, bytes = NULL
        WHERE id = ${id} AND answer IS NULL RETURNING id`.pipe(Effect.map((rows) => rows.length > 0), runsUnavailable("answer"))

    const answerOf = (id: string) =>
      sql<{ answer: string | null }>`SELECT answer FROM fleet_parse_jobs WHERE id = ${id}`.pipe(
        Effect.map((rows) => Option.map(Option.fromNullishOr(rows[0]?.answer), (text) => JSON.parse(text) as ParseAnswer)),
        runsUnavailable("answerOf")
      )

    const remove = (id: string) => sql`DELETE FROM fleet_parse_jobs WHERE id = ${id}`.pipe(Effect.asVoid, runsUnavailable("remove"))

    return ParseJobs.of({ put, input, answer, answerOf, remove })
  })

/** Parse jobs on the Postgres at `url`; the connection pool closes with the layer. */
export const parseJobsLayer = (options: { readonly url: Redacted.Redacted; readonly maxConnections?: number }): Layer.Layer<ParseJobs, RunsError> =>
  Layer.effect(
    ParseJobs,
    Effect.gen(function*() {
      const sql = yield* connect(options)
      return yield* make(sql)
    })
  ).pipe(Layer.provide(Reactivity.layer))
