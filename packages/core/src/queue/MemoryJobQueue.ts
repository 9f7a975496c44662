/**
 * The in-process `JobQueue`: the default, so that one server process on SQLite runs its jobs in
 * its own slots with nothing else to start. It keeps the contract (deterministic ids, priorities,
 * per-attempt deadlines, retries with backoff, a dead-letter queue) but holds its jobs in memory:
 * they live as long as the process. A fleet that must survive a process uses the pg-boss layer
 * (`@strata/fleet`).
 *
 * An attempt past its deadline is interrupted and counts as failed. Closing a `work` scope
 * interrupts the attempts it runs; an interrupted attempt is not counted, and its job waits for the
 * next slot.
 */
import { Cause, Deferred, Effect, Exit, FiberSet, Layer, Option, Scope } from "effect"
import {
  deadLetterOf,
  defaultQueueSettings,
  type Enqueued,
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
  type QueueSettings
} from "./JobQueue.ts"

interface Entry {
  readonly id: string
  readonly queue: string
  readonly data: unknown
  readonly priority: number
  /** The job's own attempt deadline, when it has one. */
  readonly deadlineMs: number | undefined
  readonly createdAt: number
  readonly seq: number
  status: JobStatus
  attempts: number
  completedAt: number | undefined
  error: string | undefined
  /** When the job (new or waiting to be retried) became ready, for the queue's age. */
  readyAt: number
}

interface MemoryQueue {
  settings: QueueSettings
  readonly jobs: Map<string, Entry>
  /** Ready jobs, highest priority first, then oldest first. */
  ready: Array<Entry>
  /** Completed when a job becomes ready; replaced each time. */
  signal: Deferred.Deferred<void>
}

const invalid = (queue: string, message: string) => new JobQueueError({ queue, reason: new InvalidJob({ message }) })

const errorText = (cause: Cause.Cause<unknown>): string => {
  const error = Cause.squash(cause)
  return error instanceof Error ? error.message : String(error)
}

export const make = Effect.gen(function*() {
  const queues = new Map<string, MemoryQueue>()
  let seq = 0
  // Retries wait in fibers of the layer's scope.
  const runLater = yield* FiberSet.makeRuntime<never, void, never>()

  const get = (queue: string): Effect.Effect<MemoryQueue, JobQueueError> =>
    Effect.suspend(() => {
      const found = queues.get(queue)
      return found === undefined ? Effect.fail(invalid(queue, `no queue named "${queue}": define it first`)) : Effect.succeed(found)
    })

  const makeQueue = (settings: QueueSettings): MemoryQueue => ({ settings, jobs: new Map(), ready: [], signal: Deferred.makeUnsafe() })

  const makeReady = (q: MemoryQueue, entry: Entry) => {
    entry.readyAt = Date.now()
    // Binary search: after every job of higher priority, and of equal priority but older.
    let lo = 0
    let hi = q.ready.length
    while (lo < hi) {
      const mid = (lo + hi) >> 1
      const other = q.ready[mid]!
      if (other.priority > entry.priority || (other.priority === entry.priority && other.seq < entry.seq)) lo = mid + 1
      else hi = mid
    }
    q.ready.splice(lo, 0, entry)
    const signal = q.signal
    q.signal = Deferred.makeUnsafe()
    Deferred.doneUnsafe(signal, Effect.void)
  }

  const next = (q: MemoryQueue): Effect.Effect<Entry> =>
    Effect.suspend(() => {
      const entry = q.ready.shift()
      return entry === undefined ? Effect.flatMap(Deferred.await(q.signal), () => next(q)) : Effect.succeed(entry)
    })

  const define = Effect.fn("MemoryJobQueue.define")(function*(queue: string, settings?: Partial<QueueSettings>) {
    if (!isQueueName(queue)) return yield* Effect.fail(invalid(queue, "queue names are 1-64 letters, digits, _ or -"))
    const merged = { ...defaultQueueSettings, ...settings }
    const existing = queues.get(queue)
    if (existing !== undefined) existing.settings = merged
    else queues.set(queue, makeQueue(merged))
    if (!queues.has(deadLetterOf(queue))) queues.set(deadLetterOf(queue), makeQueue({ ...merged, retries: 0 }))
  })

  const enqueue = <A extends object>(queue: string, jobs: ReadonlyArray<JobSpec<A>>): Effect.Effect<Enqueued, JobQueueError> =>
    Effect.gen(function*() {
      const q = yield* get(queue)
      const ids: Array<string> = []
      let created = 0
      for (const job of jobs) {
        const id = jobIdFor(queue, job.key)
        ids.push(id)
        if (q.jobs.has(id)) continue
        // A copy through JSON: what a handler gets is what the pg-boss layer would give it.
        const data = JSON.parse(JSON.stringify(job.data)) as unknown
        const now = Date.now()
        const entry: Entry = {
          id, queue, data, priority: job.priority ?? 0, deadlineMs: job.deadlineMs, createdAt: now, seq: seq++,
          status: "queued", attempts: 0, completedAt: undefined, error: undefined, readyAt: now
        }
        q.jobs.set(id, entry)
        makeReady(q, entry)
        created++
      }
      return { ids, created }
    })

  /** After a failed attempt: a retry after the backoff, or the end of the job and a copy in the dead-letter queue. */
  const failed = (q: MemoryQueue, entry: Entry, error: string) => {
    entry.error = error
    if (entry.attempts <= q.settings.retries) {
      entry.status = "retry"
      const delay = q.settings.backoffMs * 2 ** (entry.attempts - 1)
      runLater(Effect.sleep(delay).pipe(Effect.andThen(Effect.sync(() => {
        // Cancelled while it waited.
        if (entry.status !== "retry") return
        entry.status = "queued"
        makeReady(q, entry)
      }))))
      return
    }
    entry.status = "failed"
    entry.completedAt = Date.now()
    const dead = queues.get(deadLetterOf(entry.queue))
    if (dead !== undefined && !dead.jobs.has(entry.id)) {
      dead.jobs.set(entry.id, { ...entry, queue: deadLetterOf(entry.queue), status: "queued", attempts: 0, seq: seq++ })
    }
  }

  const attempt = (q: MemoryQueue, entry: Entry, handler: (job: Job<unknown>) => Effect.Effect<void, unknown>) =>
    Effect.suspend(() => {
      entry.status = "active"
      entry.attempts++
      const deadlineMs = entry.deadlineMs ?? q.settings.deadlineMs
      const job: Job<unknown> = {
        id: entry.id,
        queue: entry.queue,
        data: entry.data,
        attempt: entry.attempts,
        maxAttempts: q.settings.retries + 1,
        deadline: Date.now() + deadlineMs
      }
      return Effect.suspend(() => handler(job)).pipe(
        Effect.timeout(deadlineMs),
        Effect.onExit((exit) =>
          Effect.sync(() => {
            if (Exit.isSuccess(exit)) {
              entry.status = "completed"
              entry.completedAt = Date.now()
              entry.error = undefined
            } else if (Cause.hasInterruptsOnly(exit.cause)) {
              // The worker stopped: the attempt does not count, and the job waits for another slot.
              entry.attempts--
              entry.status = "queued"
              makeReady(q, entry)
            } else {
              const timedOut = exit.cause.reasons.some((r) => Cause.isFailReason(r) && Cause.isTimeoutError(r.error))
              failed(q, entry, timedOut ? `the attempt ran past its deadline of ${deadlineMs} ms` : errorText(exit.cause))
            }
          })
        ),
        Effect.ignore
      )
    })

  const work = (queue: string, options: { readonly slots: number }, handler: (job: Job<unknown>) => Effect.Effect<void, unknown>) =>
    Effect.gen(function*() {
      const q = yield* get(queue)
      const slots = Math.max(1, Math.floor(options.slots))
      const scope = yield* Scope.Scope
      for (let i = 0; i < slots; i++) {
        yield* Effect.forkIn(Effect.forever(Effect.flatMap(next(q), (entry) => attempt(q, entry, handler))), scope)
      }
    })

  const info = (entry: Entry): JobInfo => ({
    id: entry.id,
    queue: entry.queue,
    status: entry.status,
    attempts: entry.attempts,
    priority: entry.priority,
    createdAt: entry.createdAt,
    completedAt: entry.completedAt,
    error: entry.error
  })

  const job = (queue: string, id: string) => Effect.map(get(queue), (q) => Option.map(Option.fromNullishOr(q.jobs.get(id)), info))

  const depth = (queue: string) =>
    Effect.map(get(queue), (q): QueueDepth => {
      let queued = 0
      let active = 0
      let failedCount = 0
      let oldest: number | undefined
      for (const entry of q.jobs.values()) {
        if (entry.status === "queued" || entry.status === "retry") {
          queued++
          oldest = oldest === undefined ? entry.readyAt : Math.min(oldest, entry.readyAt)
        } else if (entry.status === "active") active++
        else if (entry.status === "failed") failedCount++
      }
      return { queued, active, failed: failedCount, oldestQueuedMs: oldest === undefined ? undefined : Date.now() - oldest }
    })

  const cancelQueued = (queue: string, id: string) =>
    Effect.map(get(queue), (q) => {
      const entry = q.jobs.get(id)
      if (entry === undefined || (entry.status !== "queued" && entry.status !== "retry")) return false
      const at = q.ready.indexOf(entry)
      if (at >= 0) q.ready.splice(at, 1)
      entry.status = "cancelled"
      entry.completedAt = Date.now()
      return true
    })

  return JobQueue.of({ backend: "memory", jobTable: undefined, define, enqueue, work, job, depth, cancelQueued })
})

/** The in-process queue; its jobs and retry timers live as long as the layer. */
export const layer: Layer.Layer<JobQueue> = Layer.effect(JobQueue, make)
