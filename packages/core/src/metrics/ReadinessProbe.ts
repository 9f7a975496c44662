/**
 * What the server's `/ready` (http `Probes.ts`) and a worker's (cli `WorkerProbes.ts`) share: a
 * dependency (the store, the queue) is asked one cheap question, and counts as down when it fails
 * or does not answer within `PROBE_TIMEOUT`, with the reason a load balancer's log can show.
 */
import { Effect } from "effect"

/** How long a dependency may take to answer a probe before it counts as down. */
export const PROBE_TIMEOUT = "2 seconds"

/** `check` under the probe's time limit: a late answer fails as one that never came. */
export const withinProbeTimeout = <A, E>(check: Effect.Effect<A, E>): Effect.Effect<A, E | Error> =>
  Effect.timeoutOrElse(check, { duration: PROBE_TIMEOUT, orElse: () => Effect.fail(new Error(`no answer within ${PROBE_TIMEOUT}`)) })

/** The message of a probe's failure: a typed error's reason, an Error's message, or the value itself. */
export const probeFailureReason = (error: unknown): string => {
  const e = error as { reason?: { message?: string }; message?: string } | undefined
  return e?.reason?.message ?? e?.message ?? String(error)
}
