/**
 * The `JobQueue` on Postgres through pg-boss: the queue a fleet of replicas and workers on many
 * machines shares, in the store's database (pg-boss keeps its tables in a schema of its own,
 * `pgboss`, and migrates it itself). Chosen over effect's cluster, its `PersistedQueue`, BullMQ and
 * Temporal in issue 19's measurements.
 *
 * Supervision is tuned so that a worker that dies mid-job has the job run again within 15 s:
 * - each active job has a heartbeat (`heartbeatSeconds`, 10 s, pg-boss's least) that the worker
 *   refreshes every second; a job whose heartbeat is older than 10 s is failed as an attempt;
 * - the supervisor looks every second (`superviseIntervalSeconds`, `monitorIntervalSeconds`; pg-boss's
 *   defaults of 60 s are what made a dead worker's jobs wait 52 s in the issue's measurement);
 * - idle workers poll every 0.5 s, and the first retry after a dead attempt waits 1 s.
 * Worst case: 1 s (last refresh) + 10 s + 1 s (supervisor) + 1 s (retry delay) + 0.5 s (poll).
 *
 * An attempt runs under its deadline in the worker (it is interrupted there and fails), and the
 * job's pg-boss expiry (deadline + 30 s) is the backstop for a worker whose event loop is stuck.
 */
import { Config, Effect, FiberSet, Layer, Option, Redacted } from "effect"
import {
  deadLetterOf,
  defaultQueueSettings,
  type Enqueued,
  type EnqueueOptions,
  InvalidJob,
  isQueueName,
  type Job,
  type JobInfo,
  JobQueue,
  JobQueueError,
  jobIdFor,
  type JobSpec,
  type JobStatus,
  type QueueDepth,
  type QueueSettings,
  QueueUnavailable
} from "@strata/core"
import { PgBoss } from "pg-boss"

export interface PgBossQueueOptions {
  /** The Postgres URL (the store's STRATA_DATABASE_URL). */
  readonly url: Redacted.Redacted
  /** The schema pg-boss keeps its tables in. Default `pgboss`. */
  readonly schema?: string | undefined
  /** Connections in pg-boss's pool. Default 10. */
  readonly maxConnections?: number | undefined
  /** Seconds between idle polls for work. Default 0.5 (pg-boss's least). */
  readonly pollSeconds?: number | undefined
  /** Runs whenever pg-boss reports an error of its own (a lost connection it will retry). */
  readonly onError?: ((error: Error) => void) | undefined
  /** Runs before each statement pg-boss sends (one round trip each): how bench/fleet counts them. */
  readonly onStatement?: ((sql: string) => void) | undefined
}

/** pg-boss's least job heartbeat; a job silent this long is failed as an attempt. */
const HEARTBEAT_SECONDS = 10
/** How often a worker refreshes its jobs' heartbeats. */
const HEARTBEAT_REFRESH_SECONDS = 1
/** How often the supervisor fails jobs whose heartbeat or expiry lapsed. */
const SUPERVISE_SECONDS = 1
/** Past the attempt's own deadline, how long pg-boss waits before it expires a job (a stuck worker). */
const EXPIRY_GRACE_SECONDS = 30
/** pg-boss's expiry of a job whose attempts have `deadlineMs`; `deadlineOf` reads it back. */
const expiryOf = (deadlineMs: number): number => Math.ceil(deadlineMs / 1000) + EXPIRY_GRACE_SECONDS
const deadlineOf = (expireInSeconds: number): number => Math.max(1000, (expireInSeconds - EXPIRY_GRACE_SECONDS) * 1000)
/** Rows per insert statement when enqueueing many jobs. */
const INSERT_CHUNK = 1000

const statusOf = (state: string): JobStatus => (state === "created" ? "queued" : (state as JobStatus))

const errorOf = (output: unknown): string | undefined => {
  if (output === null || typeof output !== "object") return undefined
  const value = (output as { value?: unknown; message?: unknown }).value ?? output
  const message = (value as { message?: unknown }).message
  return typeof message === "string" ? message : undefined
}

export const make = Effect.fn("PgBossQueue.make")(function*(options: PgBossQueueOptions) {
  const schema = options.schema ?? "pgboss"
  const pollSeconds = Math.max(0.5, options.pollSeconds ?? 0.5)
  const fail = (queue: string, operation: string) => (cause: unknown) =>
    new JobQueueError({
      queue,
      reason: new QueueUnavailable({ operation, message: cause instanceof Error ? cause.message : String(cause) })
    })
  const invalid = (queue: string, message: string) => new JobQueueError({ queue, reason: new InvalidJob({ message }) })
  const call = <A>(queue: string, operation: string, run: () => Promise<A>) => Effect.tryPromise({ try: run, catch: fail(queue, operation) })

  const boss = yield* Effect.acquireRelease(
    Effect.tryPromise({
      try: async () => {
        const boss = new PgBoss({
          connectionString: Redacted.value(options.url) as string,
          schema,
          max: options.maxConnections ?? 10,
          application_name: "strata-fleet",
          superviseIntervalSeconds: SUPERVISE_SECONDS,
          monitorIntervalSeconds: SUPERVISE_SECONDS,
          // The ready count a worker's burst mode reads (see `work`) is this cache's, refreshed each second.
          queueCacheIntervalSeconds: SUPERVISE_SECONDS,
          schedule: false,
          registerInstance: false,
          openTelemetry: { enabled: false }
        })
        // Without a listener an "error" event would throw; pg-boss retries what it reports here.
        boss.on("error", (error: Error) => options.onError?.(error))
        await boss.start()
        const onStatement = options.onStatement
        if (onStatement !== undefined) {
          // Every part of pg-boss holds this one adapter, so wrapping its method sees every statement.
          const db = boss.getDb()
          const execute = db.executeSql.bind(db) as (...args: ReadonlyArray<unknown>) => ReturnType<typeof db.executeSql>
          db.executeSql = (...args: ReadonlyArray<unknown>) => {
            onStatement(String(args[0]))
            return execute(...args)
          }
        }
        return boss
      },
      catch: fail("*", "start")
    }),
    // Waits for running handlers (a graceful drain), then closes the pool.
    (boss) => Effect.promise(() => boss.stop({ graceful: true, timeout: 30_000, close: true }).catch(() => undefined))
  )

  const define = Effect.fn("PgBossQueue.define")(function*(queue: string, settings?: Partial<QueueSettings>) {
    if (!isQueueName(queue)) return yield* Effect.fail(invalid(queue, "queue names are 1-64 letters, digits, _ or -"))
    const merged = { ...defaultQueueSettings, ...settings }
    const dead = deadLetterOf(queue)
    const retry = {
      retryLimit: merged.retries,
      retryDelay: Math.max(1, Math.round(merged.backoffMs / 1000)),
      retryBackoff: true,
      expireInSeconds: expiryOf(merged.deadlineMs)
    }
    yield* call(queue, "define", async () => {
      if ((await boss.getQueue(dead)) === null) await boss.createQueue(dead, { retryLimit: 0 }).catch(ignoreExists)
      if ((await boss.getQueue(queue)) === null) {
        await boss.createQueue(queue, { ...retry, deadLetter: dead, heartbeatSeconds: HEARTBEAT_SECONDS }).catch(ignoreExists)
      }
      // Settings may have changed since the queue was made (another process made it first).
      await boss.updateQueue(queue, { ...retry, deadLetter: dead })
    })
  })

  const enqueue = <A extends object>(
    queue: string,
    jobs: ReadonlyArray<JobSpec<A>>,
    enqueueOptions?: EnqueueOptions
  ): Effect.Effect<Enqueued, JobQueueError> =>
    Effect.gen(function*() {
      const ids = jobs.map((job) => jobIdFor(queue, job.key))
      // One row per id: pg-boss refuses a batch that names an id twice.
      const seen = new Set<string>()
      const rows = jobs.flatMap((job, i) => {
        const id = ids[i]!
        if (seen.has(id)) return []
        seen.add(id)
        const expiry = job.deadlineMs === undefined ? {} : { expireInSeconds: expiryOf(job.deadlineMs) }
        return [{ id, data: job.data, priority: job.priority ?? 0, ...expiry }]
      })
      let created = 0
      for (let i = 0; i < rows.length; i += INSERT_CHUNK) {
        const inserted = yield* call(queue, "enqueue", () => boss.insert(queue, rows.slice(i, i + INSERT_CHUNK), {
          returnId: true,
          ...(enqueueOptions?.db === undefined ? {} : { db: enqueueOptions.db })
        }))
        created += inserted?.length ?? 0
      }
      return { ids, created }
    })

  const work = (queue: string, workOptions: { readonly slots: number }, handler: (job: Job<unknown>) => Effect.Effect<void, unknown>) =>
    Effect.gen(function*() {
      const runPromise = yield* FiberSet.makeRuntimePromise<never, void, unknown>()
      const attempt = (job: { id: string; name: string; data: unknown; retryCount: number; retryLimit: number; expireInSeconds: number; signal: AbortSignal }) => {
        // The job's expiry carries its deadline (its own, or the queue's).
        const deadlineMs = deadlineOf(job.expireInSeconds)
        const deadline = Date.now() + deadlineMs
        const effect = Effect.suspend(() =>
          handler({
            id: job.id,
            queue: job.name,
            data: job.data,
            attempt: job.retryCount + 1,
            maxAttempts: job.retryLimit + 1,
            deadline
          })
        ).pipe(
          Effect.timeoutOrElse({
            duration: deadlineMs,
            orElse: () => Effect.fail(new Error(`the attempt ran past its deadline of ${deadlineMs} ms`))
          })
        )
        // The claim lapsing (pg-boss aborts the signal) interrupts the attempt.
        return runPromise(effect, { signal: job.signal })
      }
      const workerId = yield* call(queue, "work", () =>
        boss.work(queue, {
          localConcurrency: Math.max(1, Math.floor(workOptions.slots)),
          batchSize: 1,
          includeMetadata: true,
          pollingIntervalSeconds: pollSeconds,
          // Without it a slot waits a whole poll after each job, even with jobs waiting: 2 jobs/s per
          // slot measured (bench/fleet). With it a slot fetches again at once while more than one is ready.
          burstWhenReadyExceeds: 1,
          heartbeatRefreshSeconds: HEARTBEAT_REFRESH_SECONDS
        }, async (jobs) => {
          for (const job of jobs) await attempt(job)
        }))
      // Closing the scope stops taking jobs and waits for the running ones.
      yield* Effect.addFinalizer(() => Effect.promise(() => boss.offWork(queue, { id: workerId, wait: true }).catch(() => undefined)))
    })

  const job = (queue: string, id: string) =>
    call(queue, "job", () => boss.findJobs(queue, { id })).pipe(
      Effect.map((found) =>
        Option.map(Option.fromNullishOr(found[0]), (row): JobInfo => ({
          id: row.id,
          queue: row.name,
          status: statusOf(row.state),
          attempts: row.state === "created" ? row.retryCount : row.retryCount + (row.state === "retry" ? 0 : 1),
          priority: row.priority,
          createdAt: new Date(row.createdOn).getTime(),
          completedAt: row.completedOn === null ? undefined : new Date(row.completedOn).getTime(),
          error: row.state === "completed" ? undefined : errorOf(row.output)
        }))
      )
    )

  // One statement on pg-boss's job table: its cached counts lag by up to a monitor pass.
  const depthSql = `SELECT
      count(*) FILTER (WHERE state IN ('created', 'retry')) AS queued,
      count(*) FILTER (WHERE state = 'active') AS active,
      count(*) FILTER (WHERE state = 'failed') AS failed,
      extract(epoch FROM now() - min(created_on) FILTER (WHERE state IN ('created', 'retry'))) * 1000 AS oldest
    FROM ${schema}.job WHERE name = $1`
  const depth = (queue: string) =>
    call(queue, "depth", () => boss.getDb().executeSql(depthSql, [queue])).pipe(
      Effect.map(({ rows }): QueueDepth => {
        const row = rows[0] as { queued: unknown; active: unknown; failed: unknown; oldest: unknown }
        return {
          queued: Number(row.queued),
          active: Number(row.active),
          failed: Number(row.failed),
          oldestQueuedMs: row.oldest === null ? undefined : Math.round(Number(row.oldest))
        }
      })
    )

  // The job's row is locked first, so a worker's fetch (which skips locked rows) cannot take it
  // between the look at its state and the cancel.
  const lockSql = `SELECT state FROM ${schema}.job WHERE name = $1 AND id = $2 FOR UPDATE`
  const cancelQueued = (queue: string, id: string) =>
    call(queue, "cancel", async () => {
      const db = boss.getDb()
      if (db.beginTransaction === undefined) throw new Error("pg-boss's database adapter has no transactions")
      const tx = await db.beginTransaction()
      try {
        const { rows } = await tx.db.executeSql(lockSql, [queue, id])
        const state = (rows[0] as { state?: unknown } | undefined)?.state
        const waiting = state === "created" || state === "retry"
        if (waiting) await boss.cancel(queue, id, { db: tx.db })
        await tx.commit()
        return waiting
      } catch (error) {
        await tx.rollback()
        throw error
      }
    })

  return JobQueue.of({ backend: "pg-boss", jobTable: `${schema}.job`, define, enqueue, work, job, depth, cancelQueued })
})

/** Two processes creating one queue at once: the second finds it made. */
const ignoreExists = (error: unknown) => {
  if (error instanceof Error && /already exists|duplicate key/i.test(error.message)) return
  throw error
}

/** The pg-boss queue as a layer; pg-boss starts with it and stops (draining its workers) with it. */
export const layer = (options: PgBossQueueOptions): Layer.Layer<JobQueue, JobQueueError> => Layer.effect(JobQueue, make(options))

/**
 * The queue the environment asks for: pg-boss on STRATA_DATABASE_URL when it is set, else the
 * in-process queue (one process, nothing shared).
 */
export const layerConfig = (memory: Layer.Layer<JobQueue>): Layer.Layer<JobQueue, JobQueueError | Config.ConfigError> =>
  Layer.unwrap(Effect.map(Config.option(Config.Redacted("STRATA_DATABASE_URL")), (url) =>
    Option.match(url, {
      onNone: () => memory,
      onSome: (url) => layer({ url, onError: (error) => console.error(`strata: job queue: ${error.message}`) })
    })))

