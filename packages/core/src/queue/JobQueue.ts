/**
 * The job queue: work handed from whoever asks for it (an API replica, `strata parse --queue`) to
 * whoever has a free slot (a `strata worker`, or this process). The contract lives in core; the
 * in-process layer (MemoryJobQueue.ts) is the default, so one server process on SQLite needs
 * nothing else, and `@strata/fleet` provides the pg-boss layer on the store's Postgres that a fleet
 * of processes on many machines shares.
 *
 * What every layer promises:
 * - **Deterministic ids.** A job's id is derived from its queue and the caller's `key`
 *   (`jobIdFor`), so enqueueing the same work twice (a resumed run, a retried request) adds nothing.
 * - **Attempts.** An attempt that fails, runs past the queue's `deadlineMs`, or whose worker dies
 *   is retried after a growing delay, `retries` times; then the job is `failed` and a copy goes to
 *   the queue's dead-letter queue (`deadLetterOf(queue)`). Handlers must therefore be idempotent:
 *   a result is written under a key of its inputs, never appended.
 * - **Priorities.** A higher `priority` is taken first (`Priority.api` before `Priority.corpus`).
 */
import { Context, type Effect, Schema, type Option, type Scope } from "effect"
import { createHash } from "node:crypto"
import type { SqlExecutor } from "../store/Store.ts"

/** How a queue's attempts run. */
export interface QueueSettings {
  /** How long one attempt may run (ms); past it the attempt is failed and the job retried. */
  readonly deadlineMs: number
  /** Attempts after the first (default 2: three attempts in all). */
  readonly retries: number
  /** Delay before the first retry (ms); each later retry waits about twice as long. */
  readonly backoffMs: number
}

export const defaultQueueSettings: QueueSettings = { deadlineMs: 120_000, retries: 2, backoffMs: 1_000 }

/** Priorities: API requests go before corpus jobs on the same workers. */
export const Priority = { api: 10, corpus: 0 } as const

/** A job to enqueue: `key` names the work (the same key is the same job), `data` is JSON. */
export interface JobSpec<A> {
  readonly key: string
  readonly data: A
  readonly priority?: number | undefined
  /** This job's attempt deadline (ms), when it is not the queue's `deadlineMs` (a request that may take longer). */
  readonly deadlineMs?: number | undefined
}

/** One attempt of a job, as a handler receives it. */
export interface Job<A> {
  readonly id: string
  readonly queue: string
  readonly data: A
  /** This attempt's number: 1 for the first. */
  readonly attempt: number
  /** Attempts the job may have in all (`retries + 1`). */
  readonly maxAttempts: number
  /** When this attempt must end (epoch ms). */
  readonly deadline: number
}

export type JobStatus = "queued" | "active" | "retry" | "completed" | "failed" | "cancelled"

/** A job as the queue knows it now. */
export interface JobInfo {
  readonly id: string
  readonly queue: string
  readonly status: JobStatus
  /** Attempts started so far. */
  readonly attempts: number
  readonly priority: number
  readonly createdAt: number
  readonly completedAt: number | undefined
  /** Why the last attempt failed, when one did. */
  readonly error: string | undefined
}

/** How far behind a queue is. */
export interface QueueDepth {
  /** Jobs waiting for a slot (new, or waiting to be retried). */
  readonly queued: number
  readonly active: number
  /** Jobs that used up their attempts (still kept). */
  readonly failed: number
  /** Age of the oldest job waiting (ms); `undefined` when none waits. */
  readonly oldestQueuedMs: number | undefined
}

export interface EnqueueOptions {
  /**
   * Inserts the jobs through this executor, inside the caller's transaction (a slot handed to the
   * job in the same transaction: `Store.bindSlot`). Only a backend with a `jobTable` honours it.
   */
  readonly db?: SqlExecutor | undefined
}

export interface WorkOptions {
  /** Jobs this process runs at once. */
  readonly slots: number
}

/** The queue's backend could not be reached or refused a statement. */
export class QueueUnavailable extends Schema.TaggedError<QueueUnavailable>()("QueueUnavailable", {
  operation: Schema.String,
  message: Schema.String
}) {}

/** The job or its settings cannot be queued (a name with odd characters, data that is not JSON). */
export class InvalidJob extends Schema.TaggedError<InvalidJob>()("InvalidJob", {
  message: Schema.String
}) {}

export class JobQueueError extends Schema.TaggedError<JobQueueError>()("JobQueueError", {
  queue: Schema.String,
  reason: Schema.Union([QueueUnavailable, InvalidJob])
}) {
  override get message(): string {
    return `queue ${this.queue}: ${this.reason.message}`
  }

  get isRetryable(): boolean {
    return this.reason._tag === "QueueUnavailable"
  }
}

/** The queue a queue's jobs are copied to when they run out of attempts. */
export const deadLetterOf = (queue: string): string => `${queue}.dead`

const QUEUE_NAME = /^[A-Za-z0-9_-]{1,64}$/

/** Queue names are letters, digits, `_` and `-` (the dead-letter suffix uses `.`). */
export const isQueueName = (queue: string): boolean => QUEUE_NAME.test(queue)

/**
 * The job id of `key` in `queue`: a UUID (the form Postgres keeps ids in) made from the SHA-256 of
 * both, version nibble 5 and RFC 4122 variant, as name-based UUIDs are.
 */
export const jobIdFor = (queue: string, key: string): string => {
  const hex = createHash("sha256").update(queue, "utf8").update("\u0000").update(key, "utf8").digest("hex")
  const variant = ((parseInt(hex[16]!, 16) & 0x3) | 0x8).toString(16)
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-5${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`
}

/** What enqueueing did: every job's id (in order) and how many were new. */
export interface Enqueued {
  readonly ids: ReadonlyArray<string>
  readonly created: number
}

export class JobQueue extends Context.Service<JobQueue, {
  /** Which backend this is (`memory` or `pg-boss`), for logs and benchmarks. */
  readonly backend: "memory" | "pg-boss"
  /**
   * The relation holding the jobs' states (`schema.table`, with `name`, `id` and `state`), which a
   * slot handed to a job is counted by (`Store.bindSlot`); `undefined` for a queue in memory.
   */
  readonly jobTable: string | undefined
  /** Creates the queue (and its dead-letter queue) or updates its settings; enqueue and work need it first. */
  readonly define: (queue: string, settings?: Partial<QueueSettings>) => Effect.Effect<void, JobQueueError>
  /** Adds jobs; a job whose id is already in the queue (in any state) is left as it is. */
  readonly enqueue: <A extends object>(
    queue: string,
    jobs: ReadonlyArray<JobSpec<A>>,
    options?: EnqueueOptions
  ) => Effect.Effect<Enqueued, JobQueueError>
  /**
   * Cancels a job that no worker holds (waiting, or waiting to be retried), so it never runs; false
   * when it is running, has ended or is unknown. A running job is left to finish.
   */
  readonly cancelQueued: (queue: string, id: string) => Effect.Effect<boolean, JobQueueError>
  /**
   * Runs `handler` on the queue's jobs, `slots` at once, until the scope closes; closing it stops
   * taking jobs and waits for the running ones. A handler that fails (or dies) fails its attempt.
   * `data` is what was enqueued, as JSON: decode it before use.
   */
  readonly work: (
    queue: string,
    options: WorkOptions,
    handler: (job: Job<unknown>) => Effect.Effect<void, unknown>
  ) => Effect.Effect<void, JobQueueError, Scope.Scope>
  readonly job: (queue: string, id: string) => Effect.Effect<Option.Option<JobInfo>, JobQueueError>
  readonly depth: (queue: string) => Effect.Effect<QueueDepth, JobQueueError>
}>()("@strata/core/JobQueue") {}
