/**
 * `strata worker`'s handler of a replica's parse (a long document sent to POST /v2/parse of a
 * replica on the fleet's Postgres; packages/fleet/src/Replica.ts): reads the upload and its
 * decoded options from `fleet_parse_jobs`, converts it in a reader process as a corpus document is
 * converted, and writes the answer back for the replica to find.
 *
 * - The pipeline's own error (a corrupt PDF, a timeout, a reader killed by its limits) is an
 *   answer: it is written like the data, the job completes, and the replica answers it with the
 *   status inline parsing would have given. Only what is no answer (the database, an abort) fails
 *   the attempt, to be retried.
 * - A job whose row is gone (the request was answered, timed out or its client left) or expired
 *   is discarded without reading a byte. The conversion's timeout is what is left of the
 *   request's, and ends a little before this attempt's deadline.
 * - Credits are the replica's: charged there once, whatever the attempts here.
 * - Its log line ends with how long the upload waited for a worker (from the replica's insert to
 *   this read): the fleet's queue wait, which the fleet soak test reads per team.
 */
import { type ParseJobs } from "@strata/fleet"
import { type Job, ScrapeError } from "@strata/core"
import { Effect, Option, Schema } from "effect"

/** Converts an upload: `strata.parse` on a handle whose readers run in child processes (a stub in tests). */
export type ConvertUpload = (
  input: { readonly bytes: Uint8Array; readonly fileName: string; readonly contentType?: string | undefined },
  options: Record<string, unknown>,
  signal: AbortSignal
) => Promise<unknown>

/** Room left inside the attempt's deadline, so the reader's own timeout ends the conversion first. */
const DEADLINE_MARGIN_MS = 2_000

const encodeError = Schema.encodeUnknownSync(ScrapeError)

export const parseJobHandler = (jobs: ParseJobs["Service"], convert: ConvertUpload, say: (line: string) => void) =>
  (job: Job<unknown>, id: string) =>
    Effect.gen(function*() {
      const found = yield* jobs.input(id)
      if (Option.isNone(found)) {
        say(`discarded parse ${id}: its request was answered, timed out or went away`)
        return
      }
      const input = found.value
      const waited = input.createdAt === undefined ? "" : `; ${Math.max(0, Date.now() - input.createdAt)} ms in the queue`
      const t0 = performance.now()
      const left = Math.min(input.expiresAt, job.deadline - DEADLINE_MARGIN_MS) - Date.now()
      const asked = typeof input.options.timeout === "number" ? input.options.timeout : Infinity
      const outcome = yield* Effect.exit(Effect.tryPromise({
        try: (signal) =>
          convert(
            { bytes: input.bytes, fileName: input.fileName, contentType: input.contentType },
            { ...input.options, timeout: Math.max(1, Math.min(left, asked)) },
            signal
          ),
        catch: (error) => error
      }))
      const ms = Math.round(performance.now() - t0)
      if (outcome._tag === "Failure") {
        const error = outcome.cause.reasons.find((reason) => reason._tag === "Fail") as { error?: unknown } | undefined
        if (!(error?.error instanceof ScrapeError)) {
          say(`failed parse ${input.fileName} (${ms} ms, attempt ${job.attempt} of ${job.maxAttempts})`)
          return yield* Effect.failCause(outcome.cause)
        }
        const kept = yield* jobs.answer(id, { _tag: "Error", error: encodeError(error.error) })
        say(`parsed ${input.fileName} for a replica: ${error.error.reason._tag} (${ms} ms, attempt ${job.attempt}${kept ? "" : ", discarded"})${waited}`)
        return
      }
      const kept = yield* jobs.answer(id, { _tag: "Data", data: outcome.value })
      say(`parsed ${input.fileName} for a replica (${ms} ms, attempt ${job.attempt}${kept ? "" : ", discarded: nobody waits for it"})${waited}`)
    })
