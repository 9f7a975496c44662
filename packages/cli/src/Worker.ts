/**
 * `strata worker`: takes corpus jobs from the shared queue (pg-boss on STRATA_DATABASE_URL) and
 * converts them, `slots` at once (default: one per core). Each document is read in a reader
 * process of the isolation pool, under its memory limit and the attempt's deadline: a document
 * that crashes or hangs its reader is killed there, and the attempt fails like any other, to be
 * retried (after backoff) and, after its last attempt, dead-lettered and reported in the run.
 *
 * Results are keyed by the document's content hash and the run's options (`resultKey`): a job
 * run twice (its worker was thought dead, the run was re-sent) finds its result and writes nothing
 * new, and a document that appears twice in a corpus is converted once and copied.
 * SIGTERM or SIGINT stops taking jobs and lets the running ones finish (a graceful drain).
 */
import { type CorpusRuns, FLEET_QUEUE, fleetQueueSettings, type RunSpec } from "@strata/fleet"
import { canonicalJson, type Job, type QueueSettings } from "@strata/core"
import { type Cause, Effect, Option, Schema } from "effect"
import { createHash } from "node:crypto"
import { readdir, readFile, rm, stat } from "node:fs/promises"
import { basename, dirname, join } from "node:path"
import { type Convert, failureRecord, writeAtomic } from "./Batch.ts"
import { render } from "./Render.ts"

/** The queue corpus runs go through (the fleet's one queue: replicas' parses go first on it). */
export const CORPUS_QUEUE = FLEET_QUEUE

/** Corpus attempts: 2 minutes each, 3 in all, 1-2 s then 2-4 s between them (pg-boss backoff with jitter). */
export const corpusQueueSettings: QueueSettings = fleetQueueSettings

/**
 * What a corpus job carries: its run, its path in the run, where to read it, and its round (how
 * many times the run sent the item again after it failed; absent in jobs queued before it was added).
 */
export const CorpusJob = Schema.Struct({ runId: Schema.String, path: Schema.String, source: Schema.String, round: Schema.optional(Schema.Number) })
export type CorpusJob = typeof CorpusJob.Type

const sha256 = (data: Uint8Array | string) => createHash("sha256").update(data).digest("hex")

/** A result's key: the document's content hash and every option that changes what is written. */
export const resultKey = (bytes: Uint8Array, spec: RunSpec): string =>
  sha256(canonicalJson([sha256(bytes), spec.options, spec.json, spec.formats ?? null]))

/** The files an item's result is written to, the `.md` last. */
export const outputsOf = (spec: RunSpec, path: string): Array<string> => {
  const base = join(spec.outDir, path)
  return spec.json ? [`${base}.json`, `${base}.md`] : [`${base}.md`]
}

/**
 * Removes the temp files (`<output>.<uuid>.tmp`, Batch.ts's writeAtomic) an earlier attempt left
 * when its process was killed between its write and its rename: bench/fleet/resume.ts found one
 * beside its output after a SIGKILL, 1 in 10,000 documents over 4 kills. Only for an item that had
 * an attempt before (a retry, or a later round), so a first attempt never lists its folder.
 */
const removeLeftovers = async (outputs: ReadonlyArray<string>) => {
  for (const output of outputs) {
    const base = basename(output)
    const names = await readdir(dirname(output)).catch(() => [] as Array<string>)
    const leftovers = names.filter((name) => name.startsWith(`${base}.`) && /^\.[0-9a-f-]{36}\.tmp$/.test(name.slice(base.length)))
    await Promise.all(leftovers.map((name) => rm(join(dirname(output), name), { force: true })))
  }
}

const allExist = (paths: ReadonlyArray<string>) => Promise.all(paths.map((p) => stat(p).then(() => true, () => false))).then((found) => found.every(Boolean))

/** How long before the queue's deadline the handler ends an attempt itself. */
const OWN_DEADLINE_LEAD_MS = 250

/** The attempt ran out of time (the conversion was aborted: its reader process killed). */
class AttemptTimeout extends Error {
  constructor(ms: number) {
    super(`the attempt ran past its deadline (${ms} ms)`)
  }
}

/** Room left for the reader's own deadline inside the attempt's, so the reader's Timeout arrives first. */
const DEADLINE_MARGIN_MS = 2_000

/**
 * The job handler: converts one item and records it. `convert` is `strata.parse` on a handle whose
 * readers run in child processes (a stub in tests). `say` gets one line per finished item.
 */
export const corpusHandler = (runs: CorpusRuns["Service"], convert: Convert, say: (line: string) => void) => {
  const specs = new Map<string, RunSpec>()
  const specOf = (runId: string) =>
    Effect.suspend(() => {
      const known = specs.get(runId)
      if (known !== undefined) return Effect.succeed(known)
      return Effect.flatMap(runs.spec(runId), Option.match({
        onNone: () => Effect.fail(new Error(`no corpus run ${runId} in the database`)),
        onSome: (spec) => Effect.sync(() => (specs.set(runId, spec), spec))
      }))
    })

  return (job: Job<unknown>) =>
    Effect.gen(function*() {
      const item = yield* Schema.decodeUnknownEffect(CorpusJob)(job.data)
      const spec = yield* specOf(item.runId)
      yield* runs.started(item.runId, item.path, job.attempt)
      const t0 = performance.now()
      const outputs = outputsOf(spec, item.path)
      // Ends the attempt here, a little before the queue would, so that the failure is recorded in the run.
      const budgetMs = Math.max(0, job.deadline - Date.now() - OWN_DEADLINE_LEAD_MS)
      const outcome = yield* Effect.exit(Effect.gen(function*() {
        if (job.attempt > 1 || (item.round ?? 0) > 0) yield* Effect.tryPromise(() => removeLeftovers(outputs))
        const bytes = yield* Effect.tryPromise(() => readFile(item.source))
        const key = resultKey(bytes, spec)
        const earlier = yield* runs.result(key)
        if (Option.isSome(earlier)) {
          // Converted before (an earlier attempt that was not acknowledged, or the same document elsewhere).
          const from = outputsOf(spec, earlier.value.path)
          if (yield* Effect.promise(() => allExist(from))) {
            if (earlier.value.path !== item.path || earlier.value.runId !== item.runId) {
              yield* Effect.tryPromise(async () => {
                for (let i = 0; i < from.length; i++) await writeAtomic(outputs[i]!, await readFile(from[i]!, "utf8"))
              })
            }
            return { key, copied: true }
          }
        }
        const timeout = Math.max(1_000, job.deadline - Date.now() - DEADLINE_MARGIN_MS)
        const userTimeout = typeof spec.options.timeout === "number" ? spec.options.timeout : Infinity
        const data = yield* Effect.tryPromise({
          try: (signal) => convert(bytes, basename(item.source), { ...spec.options, timeout: Math.min(timeout, userTimeout), signal }),
          catch: (error) => error
        })
        // The .md is renamed into place last: an attempt killed in between leaves no finished-looking pair.
        yield* Effect.tryPromise(async () => {
          if (spec.json) await writeAtomic(outputs[0]!, JSON.stringify(data, null, 2))
          await writeAtomic(outputs[outputs.length - 1]!, render(data, false, spec.formats))
        })
        yield* runs.saveResult(key, item.runId, item.path)
        return { key, copied: false }
      }).pipe(Effect.timeoutOrElse({ duration: budgetMs, orElse: () => Effect.fail(new AttemptTimeout(budgetMs)) })))
      const ms = Math.round(performance.now() - t0)
      if (outcome._tag === "Success") {
        yield* runs.finished(item.runId, item.path, outcome.value.key)
        say(`${outcome.value.copied ? "copied" : "converted"} ${item.path} (${ms} ms, attempt ${job.attempt})`)
        return
      }
      const error = unwrap(outcome.cause)
      const failure = failureRecord(item.path, error)
      const message = error instanceof AttemptTimeout
        ? `Timeout: ${error.message}`
        : `${failure.reason}${failure.kind ? ` (${failure.kind})` : ""}: ${failure.message}`
      const final = job.attempt >= job.maxAttempts
      yield* runs.failed(item.runId, item.path, message, final)
      say(`failed ${item.path} (attempt ${job.attempt} of ${job.maxAttempts}): ${message}`)
      return yield* Effect.fail(new Error(message))
    })
}

/** The error inside an Exit's cause (a failure, else the defect). */
const unwrap = (cause: Cause.Cause<unknown>): unknown => {
  for (const reason of cause.reasons) {
    if (reason._tag === "Fail") return (reason as { error: unknown }).error
    if (reason._tag === "Die") return (reason as { defect: unknown }).defect
  }
  return new Error("the attempt was interrupted")
}
