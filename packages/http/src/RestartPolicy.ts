/**
 * When the supervisor restarts a server that died, and when it stops trying. Pure, so the rule is
 * tested without processes:
 *
 * - Backoff: the n-th crash in a row waits 0.5 s * 2^(n-1), at most 30 s (0.5, 1, 2, 4, 8, 16, 30,
 *   30, ...). A server that stayed up 60 s had recovered: its crash counts as the first again.
 * - Giving up: 10 crashes in a row, each within 10 s of its start, is a crash loop (a broken
 *   install, the port taken by another program), not something a request did. A server that
 *   lived longer is always restarted, so a document that kills it (issue 13: a PDF that exhausts
 *   the heap after 45 s) cannot take the service down for good.
 * - A first start that fails before the server listens is a configuration problem (a bad PORT,
 *   an unreadable key file): nothing to restart, the supervisor exits at once.
 */

export interface RestartPolicy {
  /** Wait before the first restart of a streak. */
  readonly initialDelayMs: number
  /** Longest wait between restarts. */
  readonly maxDelayMs: number
  /** Uptime after which a server counts as healthy: its crash starts a new streak. */
  readonly healthyAfterMs: number
  /** A server that dies within this long of its start crashed fast. */
  readonly fastCrashMs: number
  /** Fast crashes in a row after which the supervisor gives up. */
  readonly maxFastCrashes: number
}

export const defaultRestartPolicy: RestartPolicy = {
  initialDelayMs: 500,
  maxDelayMs: 30_000,
  healthyAfterMs: 60_000,
  fastCrashMs: 10_000,
  maxFastCrashes: 10
}

/** What the supervisor remembers between crashes. */
export interface CrashHistory {
  /** Crashes in a row, none of them after a healthy run. */
  readonly crashes: number
  /** Fast crashes in a row. */
  readonly fastCrashes: number
}

export const noCrashes: CrashHistory = { crashes: 0, fastCrashes: 0 }

/** How the server ended. */
export interface ServerEnd {
  /** Milliseconds between its start and its exit. */
  readonly uptimeMs: number
  /** Whether it ever listened. */
  readonly listened: boolean
  /** Whether it was the supervisor's first start. */
  readonly firstStart: boolean
}

export type RestartDecision =
  | { readonly _tag: "Restart"; readonly delayMs: number; readonly history: CrashHistory }
  | { readonly _tag: "GiveUp"; readonly reason: string; readonly history: CrashHistory }

/** The next step after a server died on its own (not asked to stop). */
export const decideRestart = (policy: RestartPolicy, history: CrashHistory, end: ServerEnd): RestartDecision => {
  const crashes = end.uptimeMs >= policy.healthyAfterMs ? 1 : history.crashes + 1
  const fastCrashes = end.uptimeMs < policy.fastCrashMs ? history.fastCrashes + 1 : 0
  const next: CrashHistory = { crashes, fastCrashes }
  if (end.firstStart && !end.listened) {
    return { _tag: "GiveUp", reason: "the server failed before it listened on its first start", history: next }
  }
  if (fastCrashes >= policy.maxFastCrashes) {
    return {
      _tag: "GiveUp",
      reason: `the server crashed ${fastCrashes} times in a row, each within ${policy.fastCrashMs / 1000} s of its start`,
      history: next
    }
  }
  const delayMs = Math.min(policy.maxDelayMs, policy.initialDelayMs * 2 ** (crashes - 1))
  return { _tag: "Restart", delayMs, history: next }
}
