/**
 * Batch conversion: `strata parse <dir|glob|file>... --out <dir>`. Each input becomes
 * `<out>/<relative path>.md` (and `.json` with the whole `data` under `--json`), written to a
 * temp file and renamed so that a killed run never leaves a finished-looking half file.
 * A bounded number of documents are in flight; a failure is one line in
 * `<out>/strata-failures.jsonl` and the run goes on.
 *
 * Resume rule: an input is skipped when all its outputs exist and none is older than the
 * input (mtime). `force` converts everything again. The failure report is started afresh by
 * each run: the documents it lists have no output, so the next run retries them anyway.
 */
import { randomUUID } from "node:crypto"
import { availableParallelism } from "node:os"
import { appendFile, mkdir, readFile, rename, rm, stat, writeFile } from "node:fs/promises"
import { basename, dirname, join } from "node:path"
import { findInputs, type Input } from "./Inputs.ts"
import { makeProgress, type ProgressSink } from "./Progress.ts"
import { render } from "./Render.ts"

export const FAILURES_FILE = "strata-failures.jsonl"

/** Two documents at once, or one on a single core: a PDF already keeps a core busy. */
export const defaultConcurrency = (): number => Math.min(2, availableParallelism())

/** Converts one document's bytes: `strata.parse` in the command line, a stub in tests. */
export type Convert = (bytes: Uint8Array, fileName: string, options: Record<string, unknown>) => Promise<Record<string, unknown>>

export interface BatchConfig {
  readonly targets: ReadonlyArray<string>
  readonly out: string
  /** The contract's parse options, applied to every document. */
  readonly options: Record<string, unknown>
  readonly json: boolean
  readonly formats: ReadonlyArray<string> | undefined
  readonly concurrency: number
  readonly force: boolean
}

export interface BatchSummary {
  readonly total: number
  readonly converted: number
  readonly failed: number
  readonly skipped: number
  readonly ms: number
}

/** One line of the failure report. */
export interface FailureRecord {
  readonly path: string
  readonly reason: string
  readonly kind?: string
  readonly message: string
}

const outputsOf = (config: BatchConfig, input: Input): Array<string> => {
  const base = join(config.out, input.relative)
  return config.json ? [`${base}.json`, `${base}.md`] : [`${base}.md`]
}

const mtime = (path: string): Promise<number | undefined> =>
  stat(path).then((s) => s.mtimeMs, () => undefined)

/** True when every output exists and is at least as new as the input. */
export const isFinished = async (config: BatchConfig, input: Input): Promise<boolean> => {
  const source = await mtime(input.absolute)
  const outputs = await Promise.all(outputsOf(config, input).map(mtime))
  return source !== undefined && outputs.every((t) => t !== undefined && t >= source)
}

/** Writes `text` next to `path` under a temp name, then renames it into place. */
export const writeAtomic = async (path: string, text: string): Promise<void> => {
  await mkdir(dirname(path), { recursive: true })
  const temp = `${path}.${randomUUID()}.tmp`
  try {
    await writeFile(temp, text)
    await rename(temp, path)
  } catch (error) {
    await rm(temp, { force: true })
    throw error
  }
}

/** The report line for a thrown value: a `ScrapeError`'s reason tag, a file system code, or a defect. */
export const failureRecord = (path: string, error: unknown): FailureRecord => {
  const e = error as { reason?: { _tag?: string; kind?: string; message?: string }; code?: string; message?: string }
  if (e?.reason?._tag) {
    const message = e.reason.message ?? String(error)
    return e.reason.kind ? { path, reason: e.reason._tag, kind: e.reason.kind, message } : { path, reason: e.reason._tag, message }
  }
  if (typeof e?.code === "string") return { path, reason: "FileError", kind: e.code, message: e.message ?? String(error) }
  return { path, reason: "Defect", message: e?.message ?? String(error) }
}

/** Runs `task` over `items` with at most `concurrency` running at once; `task` must not reject. */
export const forEachLimited = async <A>(
  items: ReadonlyArray<A>,
  concurrency: number,
  task: (item: A) => Promise<void>
): Promise<void> => {
  let next = 0
  const worker = async () => {
    while (next < items.length) await task(items[next++]!)
  }
  await Promise.all(Array.from({ length: Math.max(1, Math.min(concurrency, items.length)) }, worker))
}

/** Converts one input and writes its outputs; resolves to the failure, if any. */
const convertOne = async (config: BatchConfig, convert: Convert, input: Input): Promise<FailureRecord | undefined> => {
  try {
    const data = await convert(new Uint8Array(await readFile(input.absolute)), basename(input.absolute), config.options)
    const [first, second] = outputsOf(config, input)
    // The .md is renamed into place last: a run killed in between leaves no finished-looking pair.
    if (config.json) await writeAtomic(first!, JSON.stringify(data, null, 2))
    await writeAtomic(config.json ? second! : first!, render(data, false, config.formats))
    return undefined
  } catch (error) {
    return failureRecord(input.relative, error)
  }
}

const pending = async (config: BatchConfig, inputs: ReadonlyArray<Input>): Promise<Array<Input>> => {
  if (config.force) return [...inputs]
  const finished = await Promise.all(inputs.map((input) => isFinished(config, input)))
  return inputs.filter((_, i) => !finished[i])
}

const summaryLine = (config: BatchConfig, s: BatchSummary): string =>
  `strata: converted ${s.converted}, failed ${s.failed}, skipped ${s.skipped} in ${(s.ms / 1000).toFixed(1)} s` +
  (s.failed > 0 ? `; failures listed in ${join(config.out, FAILURES_FILE)}` : "")

/** Runs a whole batch; progress and the summary go to `sink`. Rejects only when `targets` cannot be read. */
export const runBatch = async (config: BatchConfig, convert: Convert, sink: ProgressSink): Promise<BatchSummary> => {
  const started = performance.now()
  const inputs = await findInputs(config.targets, config.out)
  if (inputs.length === 0) return { total: 0, converted: 0, failed: 0, skipped: 0, ms: performance.now() - started }
  const todo = await pending(config, inputs)
  const skipped = inputs.length - todo.length
  const report = join(config.out, FAILURES_FILE)
  await mkdir(config.out, { recursive: true })
  await rm(report, { force: true })
  sink.line(
    `strata: ${inputs.length} documents, ${todo.length} to convert` +
      (skipped > 0 ? `, ${skipped} skipped (outputs already up to date; --force converts them again)` : "") +
      `, ${config.concurrency} at a time`
  )
  const progress = makeProgress(sink, todo.length)
  let failed = 0
  await forEachLimited(todo, config.concurrency, async (input) => {
    const t0 = performance.now()
    const failure = await convertOne(config, convert, input)
    if (failure) {
      failed++
      await appendFile(report, JSON.stringify(failure) + "\n")
    }
    const detail = failure ? `${failure.reason}${failure.kind ? ` (${failure.kind})` : ""}: ${failure.message}` : undefined
    progress.finished({ path: input.relative, ok: !failure, ms: performance.now() - t0, detail })
  })
  progress.close()
  const summary = { total: inputs.length, converted: todo.length - failed, failed, skipped, ms: performance.now() - started }
  sink.line(summaryLine(config, summary))
  return summary
}
