/**
 * A team's limits: its request rate (effect's `RateLimiter`, counted in memory for SQLite and in the
 * database for Postgres, so replicas count together) and its concurrency (the store's slots, one
 * first-in-first-out queue per team shared by every process on the database).
 *
 * The concurrency wait follows Firecrawl's synchronous scrape (notes 8.4): polls from 25 ms growing
 * x1.5 to 250 ms (with jitter), given up at two thirds of the request's timeout (408), a slot held
 * under a 30 s lease renewed every 10 s so a dead process frees it. A request that finds more than
 * `queueLimit` of its team's requests queued ahead of it is refused (429). A request a fleet's
 * replica hands to a worker hands its slot to the job with it (`Store.bindSlot`); the release when
 * its scope closes then leaves the slot to the job.
 */
import { type Store, type Team } from "@strata/core"
import { Duration, Effect, type Scope } from "effect"
import { RateLimiter } from "effect/persistence"
import { randomUUID } from "node:crypto"

export type RateVerdict =
  | { readonly allowed: true }
  | { readonly allowed: false; readonly retryAfterSeconds: number }

/**
 * Takes one of the team's requests per minute. A limiter store that cannot be reached lets the
 * request through (as Firecrawl's checks fail open): a rate limit protects, it does not bill.
 */
export const takeTeamRate = (limiter: RateLimiter.RateLimiter, team: Team): Effect.Effect<RateVerdict> => {
  const limit = team.rateLimit
  if (limit === undefined) return Effect.succeed({ allowed: true })
  if (limit <= 0) return Effect.succeed({ allowed: false, retryAfterSeconds: 60 })
  return limiter.consume({ algorithm: "token-bucket", window: "1 minute", limit, key: `team:${team.id}` }).pipe(
    Effect.as<RateVerdict>({ allowed: true }),
    Effect.catch((error) =>
      Effect.succeed<RateVerdict>(
        error.reason._tag === "RateLimitExceeded"
          ? { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil(Duration.toMillis(error.reason.retryAfter) / 1000)) }
          : { allowed: true }
      )
    )
  )
}

/** How a request got (or did not get) to run under its team's concurrency limit. */
export type SlotOutcome =
  /**
   * It runs; `queuedMs` is set when it had to wait (`metadata.concurrencyLimited`); `leaseId` names
   * the slot it holds (none without a concurrency limit).
   */
  | { readonly _tag: "Acquired"; readonly queuedMs: number | undefined; readonly leaseId: string | undefined }
  /** It waited past two thirds of its timeout. */
  | { readonly _tag: "TimedOut"; readonly waitedMs: number }
  /** Too many of the team's requests are queued already. */
  | { readonly _tag: "QueueFull"; readonly queued: number }
  /** The store could not be asked. */
  | { readonly _tag: "Unavailable"; readonly message: string }

export interface SlotOptions {
  /** The request's timeout: the wait is given up at two thirds of it. */
  readonly timeoutMs: number
  /** Requests queued ahead beyond which a new one is refused. */
  readonly queueLimit: number
  /** The lease on a held slot (default 30 s), renewed every third of it. */
  readonly leaseMs?: number
}

/** Two thirds of the timeout, as Firecrawl (timeout x 0.667). */
export const queueWaitLimit = (timeoutMs: number): number => Math.floor(timeoutMs * 0.667)

/**
 * Takes one of the team's concurrency slots for the rest of the scope (released when it closes,
 * with the place in the queue left if it never got one), waiting in the team's queue if needed.
 * A team without a concurrency limit runs at once.
 */
export const takeSlot = (
  store: Store["Service"],
  team: Team,
  options: SlotOptions
): Effect.Effect<SlotOutcome, never, Scope.Scope> =>
  Effect.gen(function*() {
    const limit = team.concurrency
    if (limit === undefined) return { _tag: "Acquired", queuedMs: undefined, leaseId: undefined } satisfies SlotOutcome
    const leaseId = randomUUID()
    const leaseMs = options.leaseMs ?? 30_000
    const started = Date.now()
    const maxWait = queueWaitLimit(options.timeoutMs)
    // First, so an interrupted wait (the client went away) leaves the queue too.
    yield* Effect.addFinalizer(() => Effect.ignore(store.releaseSlot(leaseId)))
    let delay = 25
    let limited = false
    while (true) {
      const state = yield* Effect.result(store.acquireSlot({ teamId: team.id, leaseId, limit, leaseMs }))
      if (state._tag === "Failure") return { _tag: "Unavailable", message: state.failure.message } satisfies SlotOutcome
      if (state.success._tag === "Acquired") break
      limited = true
      if (state.success.position > options.queueLimit) {
        return { _tag: "QueueFull", queued: state.success.position - 1 } satisfies SlotOutcome
      }
      const waited = Date.now() - started
      if (waited >= maxWait) return { _tag: "TimedOut", waitedMs: waited } satisfies SlotOutcome
      const pause = Math.min(delay * (0.8 + Math.random() * 0.4), maxWait - waited)
      yield* Effect.sleep(Math.max(1, Math.round(pause)))
      delay = Math.min(250, delay * 1.5)
    }
    // The heartbeat: a slot not renewed within its lease is freed for the team's other requests.
    // It stops past the request's own timeout, so a scope that is never closed (a streamed answer
    // whose stream never ran) cannot hold the slot longer than a lease beyond that.
    yield* Effect.forkScoped(
      store.renewSlot(leaseId, leaseMs).pipe(
        Effect.ignore,
        Effect.delay(Math.floor(leaseMs / 3)),
        Effect.forever,
        Effect.timeoutOption(options.timeoutMs + 5_000)
      )
    )
    return { _tag: "Acquired", queuedMs: limited ? Date.now() - started : undefined, leaseId } satisfies SlotOutcome
  })
