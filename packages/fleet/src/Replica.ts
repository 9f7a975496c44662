/**
 * A replica's side of queued parses: the `QueuedParse` layer a server gets when
 * STRATA_DATABASE_URL is set. An upload over `pagesAbove` pages (a PDF's page count, read from
 * its trailer and page tree before anything else) is put in `fleet_parse_jobs` (ParseJobs.ts)
 * and enqueued on the fleet's queue at `Priority.api`; the replica then polls the row every
 * `POLL_MS` until a `strata worker` has written the answer, and answers it as `Pipeline.parse`
 * would. The wait is bounded by the request's own `timeout` (408 past it, as inline); the row is
 * deleted however the wait ends, which cancels a job no worker has taken yet and discards the
 * answer of one that is running.
 *
 * Polling, not LISTEN/NOTIFY: a LISTEN needs a connection held per replica outside the pool, and
 * a poll of one row by primary key costs about 0.2 ms on loopback Postgres; at 150 ms it adds at
 * most that much to an answer that took seconds of reading (only long documents come here).
 */
import {
  DocumentUnreadable,
  JobQueue,
  type JobQueueError,
  jobIdFor,
  type ParseOptions,
  Priority,
  QueuedParse,
  type QueueSettings,
  type ScrapeData,
  ScrapeError,
  scrapeError,
  StageFailed,
  TimedOut,
  type UploadedFile
} from "@strata/core"
import { Effect, Layer, Option, type Redacted, Schema } from "effect"
import { randomUUID } from "node:crypto"
import type { RunsError } from "./CorpusRuns.ts"
import { ParseJobs, parseJobsLayer } from "./ParseJobs.ts"
import { layer as pgBossLayer } from "./PgBossQueue.ts"

/** The fleet's one queue: corpus runs and, before them (`Priority.api`), replicas' parses. */
export const FLEET_QUEUE = "corpus"

/** Its attempts: 2 minutes each, 3 in all, 1-2 s then 2-4 s between them (pg-boss backoff with jitter). */
export const fleetQueueSettings: QueueSettings = { deadlineMs: 120_000, retries: 2, backoffMs: 1_000 }

/** Documents over this many pages go to the queue unless STRATA_QUEUE_ABOVE_PAGES says otherwise. */
export const defaultQueueAbovePages = 50

const POLL_MS = 150
/** The job's state is read every this many polls: a failed job has no answer row to find. */
const JOB_EVERY = 7

/** The job key of a replica's parse: one job per request (the row's id is random). */
export const parseJobKey = (id: string): string => `parse/${id}`

export interface ReplicaOptions {
  /** Uploads with more pages than this are queued. */
  readonly pagesAbove: number
  /** The upload's page count, or `undefined` when it cannot be told cheaply (then it stays inline). */
  readonly countPages: (bytes: Uint8Array) => Effect.Effect<number | undefined>
  /** Told once per queued parse (the server's log). */
  readonly onQueued?: ((pages: number) => void) | undefined
}

const queueFailed = (message: string) => scrapeError(new StageFailed({ stage: "queue", message }))

const timedOut = (timeoutMs: number) =>
  scrapeError(new TimedOut({ message: `The request did not finish within its timeout of ${timeoutMs} ms` }))

export const makeQueuedParse = Effect.fn("QueuedParse.make")(function*(options: ReplicaOptions) {
  const queue = yield* JobQueue
  const jobs = yield* ParseJobs
  yield* queue.define(FLEET_QUEUE, fleetQueueSettings)

  const takes = (file: UploadedFile) =>
    options.countPages(file.bytes).pipe(
      Effect.map((pages) => {
        const queued = pages !== undefined && pages > options.pagesAbove
        if (queued) options.onQueued?.(pages)
        return queued
      })
    )

  const decode = (answer: Option.Option<{ readonly _tag: "Data"; readonly data: unknown } | { readonly _tag: "Error"; readonly error: unknown }>) =>
    Option.match(answer, {
      onNone: () => Effect.succeed(Option.none<ScrapeData>()),
      onSome: (answer) =>
        answer._tag === "Data"
          ? Effect.succeed(Option.some(answer.data as ScrapeData))
          : Schema.decodeUnknownEffect(ScrapeError)(answer.error).pipe(
            Effect.mapError(() => queueFailed("a worker's error could not be read")),
            Effect.flatMap((error) => Effect.fail(error))
          )
    })

  const parse = (file: UploadedFile, parseOptions: ParseOptions): Effect.Effect<ScrapeData, ScrapeError> => {
    const id = randomUUID()
    const timeoutMs = parseOptions.timeout
    const expiresAt = Date.now() + timeoutMs
    const jobId = jobIdFor(FLEET_QUEUE, parseJobKey(id))
    const wait = Effect.gen(function*() {
      for (let poll = 1; Date.now() < expiresAt; poll++) {
        const found = yield* decode(yield* jobs.answerOf(id))
        if (Option.isSome(found)) return found.value
        if (poll % JOB_EVERY === 0) {
          const job = yield* queue.job(FLEET_QUEUE, jobId)
          // Its attempts used up (each one's worker died or hung): dead-lettered, and nobody will answer.
          if (Option.isSome(job) && (job.value.status === "failed" || job.value.status === "cancelled")) {
            return yield* Effect.fail(scrapeError(new DocumentUnreadable({
              kind: "corrupt",
              message: `The document could not be read: each of its ${job.value.attempts} attempts ended without an answer (${job.value.error ?? "its worker stopped"})`
            })))
          }
        }
        yield* Effect.sleep(Math.max(1, Math.min(POLL_MS, expiresAt - Date.now())))
      }
      return yield* Effect.fail(timedOut(timeoutMs))
    })
    return Effect.gen(function*() {
      yield* jobs.put(id, {
        bytes: file.bytes,
        fileName: file.fileName,
        contentType: file.contentType,
        options: parseOptions as unknown as Record<string, unknown>,
        expiresAt
      })
      yield* queue.enqueue(FLEET_QUEUE, [{ key: parseJobKey(id), data: { parseJob: id }, priority: Priority.api }])
      return yield* wait
    }).pipe(
      Effect.catchTags({
        RunsError: (error) => Effect.fail(queueFailed(error.message)),
        JobQueueError: (error) => Effect.fail(queueFailed(error.message))
      }),
      // However the wait ends (answered, timed out, the client gone): the row goes, and the job with it.
      Effect.ensuring(Effect.ignore(jobs.remove(id)))
    )
  }

  return QueuedParse.of({ takes, parse })
})

/** `QueuedParse` on the fleet's queue and parse-job table. */
export const queuedParseLayer = (options: ReplicaOptions): Layer.Layer<QueuedParse, JobQueueError, JobQueue | ParseJobs> =>
  Layer.effect(QueuedParse, makeQueuedParse(options))

/**
 * What a replica on the fleet's Postgres adds to its server: queued parses, and the pg-boss
 * `JobQueue` beside them (which /ready and /metrics read).
 */
export const replicaLayer = (options: ReplicaOptions & { readonly url: Redacted.Redacted }): Layer.Layer<QueuedParse | JobQueue, JobQueueError | RunsError> =>
  queuedParseLayer(options).pipe(
    Layer.provide(parseJobsLayer({ url: options.url })),
    Layer.provideMerge(pgBossLayer({ url: options.url, onError: (error) => console.error(`strata: job queue: ${error.message}`) }))
  )
