/**
 * A replica's side of queued parses: the `QueuedParse` layer a server gets when
 * STRATA_DATABASE_URL is set. An upload over `pagesAbove` pages (a PDF's page count, read from
 * its trailer and page tree before anything else) is put in `fleet_parse_jobs` (ParseJobs.ts)
 * and enqueued on the fleet's queue at `Priority.api`; the replica then polls the row every
 * `POLL_MS` until a `strata worker` has written the answer, and answers it as `Pipeline.parse`
 * would. The wait is bounded by the request's own `timeout` (408 past it, as inline); however the
 * wait ends, a job no worker has taken yet is cancelled and the row is deleted, which discards the
 * answer of one that is running.
 *
 * A request that holds one of its team's concurrency slots (`HeldSlot`, set by the HTTP adapter's
 * metering) hands it to its job: the row and the job are inserted inside `Store.bindSlot`'s
 * transaction, which turns the slot's lease into the job's, so the team's count follows the job's
 * state in pg-boss's table rather than this replica's lease.
 *
 * Polling, not LISTEN/NOTIFY: a LISTEN needs a connection held per replica outside the pool, and
 * a poll of one row by primary key costs about 0.2 ms on loopback Postgres; at 150 ms it adds at
 * most that much to an answer that took seconds of reading (only long documents come here).
 */
import {
  DocumentUnreadable,
  HeldSlot,
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
  type SqlExecutor,
  StageFailed,
  Store,
  TimedOut,
  type UploadedFile
} from "@strata/core"
import { Effect, Exit, Layer, Option, type Redacted, Schema } from "effect"
import { randomUUID } from "node:crypto"
import type { RunsError } from "./CorpusRuns.ts"
import { ParseJobs, parseJobsLayer } from "./ParseJobs.ts"
import { layer as pgBossLayer } from "./PgBossQueue.ts"

/** The fleet's one queue: corpus runs and, before them (`Priority.api`), replicas' parses. */
export const FLEET_QUEUE = "corpus"

/**
 * Its attempts: 2 minutes each (a replica's parse whose timeout is longer gets its own), 3 in all,
 * 1-2 s then 2-4 s between them (pg-boss backoff with jitter).
 */
export const fleetQueueSettings: QueueSettings = { deadlineMs: 120_000, retries: 2, backoffMs: 1_000 }

/** Documents over this many pages go to the queue unless STRATA_QUEUE_ABOVE_PAGES says otherwise. */
export const defaultQueueAbovePages = 50

const POLL_MS = 150
/** An attempt's deadline past the request's timeout, so that the reader's own timeout ends first. */
const ATTEMPT_MARGIN_MS = 10_000
/**
 * A slot handed to a job is freed when the job ends; this backstop past the request's expiry frees
 * it even if the job's state cannot be read (a worker converts only until the expiry).
 */
const HOLD_PAST_EXPIRY_MS = 5 * 60_000
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
    const input = {
      bytes: file.bytes,
      fileName: file.fileName,
      contentType: file.contentType,
      options: parseOptions as unknown as Record<string, unknown>,
      expiresAt
    }
    // An attempt may take all the request's time: a `timeout` past the queue's 2 minutes is the job's own deadline.
    const deadlineMs = Math.max(fleetQueueSettings.deadlineMs, timeoutMs + ATTEMPT_MARGIN_MS)
    const spec = { key: parseJobKey(id), data: { parseJob: id }, priority: Priority.api, deadlineMs }
    // The row and the job, through `db` when given (the slot's transaction).
    const enqueue = (db?: SqlExecutor) => Effect.asVoid(Effect.andThen(jobs.put(id, input, db), queue.enqueue(FLEET_QUEUE, [spec], { db })))
    return Effect.gen(function*() {
      const leaseId = yield* HeldSlot
      const store = yield* Effect.serviceOption(Store)
      if (leaseId !== undefined && Option.isSome(store) && queue.jobTable !== undefined) {
        // The team's slot becomes the job's in the transaction that queues it: it is counted until
        // the job ends, whatever becomes of this replica or its wait.
        const slotJob = { table: queue.jobTable, queue: FLEET_QUEUE, id: jobId, holdUntil: expiresAt + HOLD_PAST_EXPIRY_MS }
        const bound = yield* store.value.bindSlot(leaseId, slotJob, (db) => Effect.runPromise(enqueue(db))).pipe(
          Effect.mapError((error) => queueFailed(error.message))
        )
        if (!bound) return yield* Effect.fail(queueFailed("the request's concurrency slot lapsed before its document could be queued"))
      } else {
        yield* enqueue()
      }
      return yield* wait
    }).pipe(
      Effect.catchTags({
        RunsError: (error) => Effect.fail(queueFailed(error.message)),
        JobQueueError: (error) => Effect.fail(queueFailed(error.message))
      }),
      // However the wait ends the row goes, so a worker that took the job stops at its answer. A wait
      // that ended without one (timed out, the client gone) also cancels the job if no worker has
      // taken it, freeing its slot; an answered job is already a worker's, so that is not asked.
      Effect.onExit((exit) =>
        Effect.ignore(Exit.isSuccess(exit) ? jobs.remove(id) : Effect.andThen(queue.cancelQueued(FLEET_QUEUE, jobId), jobs.remove(id)))
      )
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
