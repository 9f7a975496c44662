/**
 * The fleet commands, all on the Postgres at STRATA_DATABASE_URL:
 * - `strata parse <dir|glob|@list-file>... --out <dir> --queue [--wait]` records a corpus run and
 *   its items, and enqueues one job per document not yet done, with ids derived from the run and
 *   the document, so running the same command again resumes the run: finished documents are
 *   skipped, failed ones are sent again (a new round), queued ones are left where they are.
 * - `strata worker [--slots N] [--health-port P]` drains the queue (Worker.ts) until SIGTERM or
 *   SIGINT, with /health, /ready and /metrics on port P (WorkerProbes.ts).
 * - `strata runs show <id> [--json] [--watch]` prints a run's progress, throughput, ETA and failures.
 * Outputs go where a plain batch puts them (`<out>/<relative path>.md`, `.json` with --json); the
 * workers must see the inputs and the output folder at the same paths (one machine, or a shared
 * file system).
 */
import { canonicalJson, type Job, JobQueue, jobIdFor, Priority } from "@strata/core"
import { CorpusRuns, layer as pgBossLayer, ParseJob, ParseJobs, parseJobsLayer, type RunProgress, runsLayer, type RunSpec } from "@strata/fleet"
import { Effect, Layer, Option, Redacted, Schema } from "effect"
import { createHash } from "node:crypto"
import { readFile } from "node:fs/promises"
import { availableParallelism } from "node:os"
import { dirname, resolve } from "node:path"
import type { Convert } from "./Batch.ts"
import { findInputs } from "./Inputs.ts"
import { type ConvertUpload, parseJobHandler } from "./ParseWorker.ts"
import { CORPUS_QUEUE, corpusHandler, type CorpusJob, corpusQueueSettings } from "./Worker.ts"
import { counted, makeWorkerState, probeListener } from "./WorkerProbes.ts"

export interface FleetIo {
  readonly out: (text: string) => void
  readonly err: (text: string) => void
  /** Raw writes to stderr when it is a terminal: a run being followed draws a bar there. */
  readonly tty?: ((text: string) => void) | undefined
}

const databaseUrl = (io: FleetIo, what: string): Redacted.Redacted | undefined => {
  const url = process.env.STRATA_DATABASE_URL?.trim()
  if (url) return Redacted.make(url)
  io.err(`strata: ${what} needs the shared Postgres: set STRATA_DATABASE_URL (postgres://user@host:port/database)`)
  return undefined
}

const fleetLayers = (url: Redacted.Redacted) =>
  Layer.mergeAll(pgBossLayer({ url, onError: (error) => console.error(`strata: job queue: ${error.message}`) }), runsLayer({ url }))

/** A worker's: the queue, the runs, and the table replicas' parses wait in. */
const workerLayers = (url: Redacted.Redacted) => Layer.merge(fleetLayers(url), parseJobsLayer({ url, maxConnections: 2 }))

const isParseJob = Schema.is(ParseJob)

const errorText = (error: unknown): string => {
  const e = error as { reason?: { _tag?: string; message?: string }; message?: string }
  return e?.reason?.message !== undefined ? `${e.reason._tag}: ${e.reason.message}` : (e?.message ?? String(error))
}

/** `@file` targets are lists: one path, directory or glob a line (`#` comments), relative to the list's folder. */
export const expandLists = async (targets: ReadonlyArray<string>): Promise<Array<string>> => {
  const out: Array<string> = []
  for (const target of targets) {
    if (!target.startsWith("@")) {
      out.push(target)
      continue
    }
    const list = target.slice(1)
    const lines = (await readFile(list, "utf8")).split(/\r?\n/).map((line) => line.trim())
    for (const line of lines) if (line !== "" && !line.startsWith("#")) out.push(resolve(dirname(list), line))
  }
  return out
}

/** A run's id: the same inputs, output folder and options are the same run. */
export const runIdFor = (targets: ReadonlyArray<string>, spec: Omit<RunSpec, "id">): string =>
  createHash("sha256")
    .update(canonicalJson({ targets: targets.map((t) => resolve(t)).sort(), ...spec, formats: spec.formats ?? null }))
    .digest("hex")
    .slice(0, 16)

/** The job key of an item in a round: a new round is a new job. */
export const jobKey = (runId: string, path: string, round: number): string => `${runId}/${round}/${path}`

export interface QueuedRunConfig {
  readonly targets: ReadonlyArray<string>
  readonly out: string
  readonly options: Record<string, unknown>
  readonly json: boolean
  readonly formats: ReadonlyArray<string> | undefined
  readonly wait: boolean
}

/** `parse ... --queue`: records the run and enqueues what is left; resolves to the exit code. */
export const queuedParse = async (config: QueuedRunConfig, io: FleetIo): Promise<number> => {
  const url = databaseUrl(io, "--queue")
  if (url === undefined) return 2
  let targets: Array<string>
  let inputs: Awaited<ReturnType<typeof findInputs>>
  try {
    targets = await expandLists(config.targets)
    inputs = await findInputs(targets, config.out)
  } catch (error) {
    io.err(`strata: ${errorText(error)}`)
    return 2
  }
  if (inputs.length === 0) {
    io.err(`strata: no supported documents in ${config.targets.join(" ")}`)
    return 2
  }
  const base = { outDir: resolve(config.out), options: config.options, json: config.json, formats: config.formats }
  const spec: RunSpec = { id: runIdFor(targets, base), ...base }
  const sources = new Map(inputs.map((input) => [input.relative, input.absolute]))
  const program = Effect.gen(function*() {
    const runs = yield* CorpusRuns
    const queue = yield* JobQueue
    yield* queue.define(CORPUS_QUEUE, corpusQueueSettings)
    const recorded = yield* runs.record(spec, inputs.map((input) => input.relative))
    const jobs: Array<{ key: string; data: CorpusJob; priority: number }> = []
    let resent = 0
    for (const pending of recorded.pending) {
      const source = sources.get(pending.path)
      if (source === undefined) continue
      let round = pending.round
      if (pending.state === "running") {
        // Its worker may have died on the last attempt: the queue failed the job and nobody said so.
        const job = yield* queue.job(CORPUS_QUEUE, jobIdFor(CORPUS_QUEUE, jobKey(spec.id, pending.path, round)))
        if (Option.isNone(job) || job.value.status === "failed" || job.value.status === "cancelled") {
          round = (yield* runs.requeue(spec.id, pending.path)).round
          resent++
        }
      }
      jobs.push({ key: jobKey(spec.id, pending.path, round), data: { runId: spec.id, path: pending.path, source, round }, priority: Priority.corpus })
    }
    const { created } = yield* queue.enqueue(CORPUS_QUEUE, jobs)
    io.err(
      `strata: run ${spec.id}: ${recorded.total} documents, ${recorded.done} done before, ${jobs.length} to convert` +
        ` (${created} newly queued${resent > 0 ? `, ${resent} sent again` : ""}).` +
        ` Workers: strata worker. Progress: strata runs show ${spec.id}`
    )
    io.out(spec.id)
    if (!config.wait) return 0
    const last = yield* waitForRun(runs, queue, spec.id, io)
    return last.failed > 0 ? 1 : 0
  })
  return Effect.runPromise(program.pipe(Effect.provide(fleetLayers(url)))).catch((error) => {
    io.err(`strata: ${errorText(error)}`)
    return 1
  })
}

/**
 * Items a dead worker left `running` on their last attempt: the queue failed their job, and no
 * worker lived to say so. They are failed in the run, so that it can end.
 */
const settleDead = (runs: CorpusRuns["Service"], queue: JobQueue["Service"], runId: string) =>
  Effect.gen(function*() {
    for (const item of yield* runs.running(runId)) {
      const job = yield* queue.job(CORPUS_QUEUE, jobIdFor(CORPUS_QUEUE, jobKey(runId, item.path, item.round)))
      if (Option.isNone(job) || job.value.status === "failed" || job.value.status === "cancelled") {
        const why = Option.match(job, { onNone: () => "its job is gone", onSome: (j) => j.error ?? "its worker stopped" })
        yield* runs.failed(runId, item.path, `Failed: the last attempt did not finish (${why})`, true)
      }
    }
  })

/** Polls a run until every item is done or failed; prints its progress as it goes. */
const waitForRun = (runs: CorpusRuns["Service"], queue: JobQueue["Service"], runId: string, io: FleetIo) =>
  Effect.gen(function*() {
    let lastLine = ""
    let lastAt = 0
    let lastSettle = Date.now()
    while (true) {
      if (Date.now() - lastSettle > 5000) {
        yield* settleDead(runs, queue, runId)
        lastSettle = Date.now()
      }
      const progress = Option.getOrThrow(yield* runs.progress(runId))
      const line = progressLine(progress)
      if (io.tty !== undefined) {
        io.tty(`\r${progressBar(progress)} ${line}\u001b[K`)
        if (progress.done + progress.failed >= progress.total) io.tty("\n")
      } else if (line !== lastLine && Date.now() - lastAt > 2000) {
        io.err(`strata: ${line}`)
        lastLine = line
        lastAt = Date.now()
      }
      if (progress.done + progress.failed >= progress.total) {
        io.err(`strata: run ${runId} finished: ${progress.done} converted, ${progress.failed} failed`)
        return progress
      }
      yield* Effect.sleep("500 millis")
    }
  })

const duration = (ms: number): string => {
  const s = Math.round(ms / 1000)
  if (s < 60) return `${s} s`
  if (s < 3600) return `${Math.floor(s / 60)} min ${String(s % 60).padStart(2, "0")} s`
  return `${Math.floor(s / 3600)} h ${String(Math.floor((s % 3600) / 60)).padStart(2, "0")} min`
}

const BAR_WIDTH = 24

/** `[#####-----]`: the share of the run's documents that are done or failed. */
export const progressBar = (p: RunProgress): string => {
  const filled = p.total === 0 ? BAR_WIDTH : Math.floor(((p.done + p.failed) / p.total) * BAR_WIDTH)
  return `[${"#".repeat(filled)}${"-".repeat(BAR_WIDTH - filled)}]`
}

export const progressLine = (p: RunProgress): string => {
  const percent = p.total === 0 ? 100 : Math.floor(((p.done + p.failed) / p.total) * 100)
  const rate = p.throughput === undefined ? "" : `, ${p.throughput.toFixed(2)} documents/s`
  const eta = p.etaMs === undefined || p.etaMs === 0 ? "" : `, ETA ${duration(p.etaMs)}`
  return `${p.done}/${p.total} done (${percent}%), ${p.failed} failed, ${p.running} running, ${p.queued} queued${rate}${eta}`
}

/** `runs show <id>` as text. */
export const showRun = (p: RunProgress): string => {
  const lines = [
    `run ${p.id} (created ${new Date(p.createdAt).toISOString()}, output in ${p.outDir})`,
    progressLine(p)
  ]
  if (p.doubleWrites > 0) lines.push(`results stored more than once: ${p.doubleWrites}`)
  if (p.failures.length > 0) {
    lines.push(`failures${p.failed > p.failures.length ? ` (first ${p.failures.length} of ${p.failed})` : ""}:`)
    for (const f of p.failures) lines.push(`  ${f.path} (${f.attempts} attempts): ${f.error}`)
  }
  return lines.join("\n")
}

/** `runs show <id> [--json] [--watch]`; resolves to the exit code. */
export const runsCommand = async (args: ReadonlyArray<string>, io: FleetIo): Promise<number> => {
  const [sub, id] = args.filter((a) => !a.startsWith("--"))
  if (sub !== "show" || id === undefined) {
    io.err("Usage: strata runs show <run id> [--json] [--watch]")
    return 2
  }
  const url = databaseUrl(io, "runs")
  if (url === undefined) return 2
  const program = Effect.gen(function*() {
    const runs = yield* CorpusRuns
    const queue = yield* JobQueue
    yield* queue.define(CORPUS_QUEUE, corpusQueueSettings)
    yield* settleDead(runs, queue, id)
    const found = yield* runs.progress(id)
    if (Option.isNone(found)) {
      io.err(`strata: no run ${id}`)
      return 1
    }
    if (args.includes("--watch")) {
      const last = yield* waitForRun(runs, queue, id, io)
      io.out(showRun(last))
      return last.failed > 0 ? 1 : 0
    }
    io.out(args.includes("--json") ? JSON.stringify(found.value, null, 2) : showRun(found.value))
    return 0
  })
  return Effect.runPromise(program.pipe(Effect.provide(fleetLayers(url)))).catch((error) => {
    io.err(`strata: ${errorText(error)}`)
    return 1
  })
}

/** Slots when --slots is not given: one per core. */
export const defaultSlots = (): number => availableParallelism()

const waitForSignal = Effect.callback<void>((resume) => {
  const stop = () => resume(Effect.void)
  process.once("SIGTERM", stop)
  process.once("SIGINT", stop)
  return Effect.sync(() => {
    process.off("SIGTERM", stop)
    process.off("SIGINT", stop)
  })
})

/** Where the worker's probe listener binds (WorkerProbes.ts). */
export interface WorkerProbes {
  readonly host: string
  readonly port: number
}

/**
 * `worker`: runs until SIGTERM or SIGINT, then drains; resolves to the exit code. With `probes`,
 * it answers /health, /ready and /metrics there until the running jobs have finished.
 * `testDelayMs` (STRATA_TEST_WORKER_DELAY_MS, for tests only) holds each job that long before
 * working it: a slow machine, for the fleet soak test's slow worker.
 */
export const workerCommand = async (slots: number, io: FleetIo, probes?: WorkerProbes, testDelayMs = 0): Promise<number> => {
  const url = databaseUrl(io, "strata worker")
  if (url === undefined) return 2
  const strata = await import("strata")
  // Readers in child processes, one per slot: each conversion runs under the isolation limits.
  const handle = strata.createStrata({ isolation: { workers: slots } })
  const convert: Convert = (bytes, fileName, options) => handle.parse({ bytes, fileName }, options)
  const convertUpload: ConvertUpload = (input, options, signal) => handle.parse(input, { ...options, signal })
  const state = makeWorkerState(slots)
  const program = Effect.gen(function*() {
    const queue = yield* JobQueue
    const runs = yield* CorpusRuns
    const say = (line: string) => io.err(`strata worker: ${line}`)
    const corpus = corpusHandler(runs, convert, say)
    const parses = parseJobHandler(yield* ParseJobs, convertUpload, say)
    yield* queue.define(CORPUS_QUEUE, corpusQueueSettings)
    // Opened before the work starts, so it closes after the running jobs end: /ready says draining meanwhile.
    if (probes !== undefined) {
      yield* probeListener(queue, state, {
        ...probes,
        queueName: CORPUS_QUEUE,
        announce: (url) => io.err(`strata worker: /health, /ready and /metrics on ${url}`)
      })
    }
    // One queue: a replica's parse (Priority.api) is taken before corpus jobs.
    const handle = (job: Job<unknown>) => isParseJob(job.data) ? parses(job, job.data.parseJob) : corpus(job)
    const slowed = testDelayMs > 0 ? (job: Job<unknown>) => Effect.andThen(Effect.sleep(testDelayMs), handle(job)) : handle
    yield* queue.work(CORPUS_QUEUE, { slots }, counted(state, slowed))
    if (testDelayMs > 0) io.err(`strata worker: each job held ${testDelayMs} ms first (STRATA_TEST_WORKER_DELAY_MS, a test's slow worker)`)
    io.err(`strata worker: ${slots} slots on queue "${CORPUS_QUEUE}" (pid ${process.pid}); SIGTERM or Ctrl-C finishes the running jobs and stops`)
    yield* waitForSignal
    state.draining = true
    io.err("strata worker: stopping: finishing the running jobs")
  }).pipe(Effect.scoped, Effect.provide(workerLayers(url)))
  try {
    await Effect.runPromise(program)
    return 0
  } catch (error) {
    io.err(`strata: ${errorText(error)}`)
    return 1
  } finally {
    await handle.close()
  }
}
