/**
 * A corpus run across worker processes on a real, throwaway Postgres: `strata parse <dir> --out
 * <dir> --queue` records a generated corpus (10 PDFs, 10 HTML pages, 10 CSV files and a corrupt
 * PDF) and enqueues it; two `strata worker` processes drain it and one is killed with SIGKILL
 * mid-run. Every document converts, none is stored twice, the corrupt one is failed after its 3
 * attempts and reported by `strata runs show`; running the command again converts nothing that
 * finished (it sends only the failed document again), and SIGTERM drains the last worker.
 */
import { JobQueue } from "@strata/core"
import { CorpusRuns, layer as queueLayer, runsLayer } from "@strata/fleet"
import { Effect, Layer, Option, Redacted } from "effect"
import { type ChildProcess, spawn } from "node:child_process"
import { mkdir, mkdtemp, readFile, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { PDFDocument, StandardFonts } from "pdf-lib"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startPostgres, type TempPostgres } from "../../store/test/support/TempPostgres.ts"
import { jobKey } from "../src/Fleet.ts"
import { CORPUS_QUEUE } from "../src/Worker.ts"

const bin = fileURLToPath(new URL("../src/bin.ts", import.meta.url))

let postgres: TempPostgres
const children: Array<Proc> = []
beforeAll(async () => {
  postgres = await startPostgres()
}, 120_000)
afterAll(() => {
  for (const child of children) child.process.kill("SIGKILL")
  postgres?.stop()
})

interface Proc {
  readonly process: ChildProcess
  readonly out: Array<string>
  readonly err: Array<string>
  readonly exited: Promise<number | null>
}

const strata = (args: ReadonlyArray<string>, env: Record<string, string>): Proc => {
  const child = spawn(process.execPath, ["--conditions=@strata/source", bin, ...args], {
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"]
  })
  const collect = (stream: NodeJS.ReadableStream, lines: Array<string>) => {
    let pending = ""
    stream.setEncoding("utf8")
    stream.on("data", (chunk: string) => {
      pending += chunk
      const parts = pending.split("\n")
      pending = parts.pop() ?? ""
      lines.push(...parts)
    })
  }
  const proc: Proc = {
    process: child,
    out: [],
    err: [],
    exited: new Promise((resolve) => child.on("exit", (code) => resolve(code)))
  }
  collect(child.stdout!, proc.out)
  collect(child.stderr!, proc.err)
  children.push(proc)
  return proc
}

const waitFor = async (check: () => boolean | Promise<boolean>, what: string, timeoutMs: number) => {
  const end = Date.now() + timeoutMs
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 200))
  }
}

const pdf = async (text: string): Promise<Uint8Array> => {
  const doc = await PDFDocument.create()
  const font = await doc.embedFont(StandardFonts.Helvetica)
  doc.addPage([400, 300]).drawText(text, { x: 40, y: 240, size: 14, font })
  return doc.save()
}

const makeCorpus = async (): Promise<{ input: string; out: string }> => {
  const root = await mkdtemp(join(tmpdir(), "strata-fleet-"))
  const input = join(root, "in")
  await mkdir(join(input, "pdf"), { recursive: true })
  await mkdir(join(input, "html"), { recursive: true })
  await mkdir(join(input, "csv"), { recursive: true })
  for (let i = 0; i < 10; i++) {
    await writeFile(join(input, "pdf", `report-${i}.pdf`), await pdf(`Quarterly report number ${i}`))
    await writeFile(
      join(input, "html", `page-${i}.html`),
      `<!doctype html><html><head><title>Page ${i}</title></head><body><main><h1>Article ${i}</h1><p>The body of article ${i} has a sentence or two of text.</p></main></body></html>`
    )
    await writeFile(join(input, "csv", `table-${i}.csv`), `name,qty\nitem-${i},${i}\nother,${i + 1}\n`)
  }
  await writeFile(join(input, "pdf", "broken.pdf"), "%PDF-1.7\nthis is not really a pdf")
  return { input, out: join(root, "out") }
}

describe("strata parse --queue with strata worker processes", () => {
  it("converts a corpus with a worker killed mid-run: everything once, the corrupt file reported, a re-run resumes", async () => {
    const url = postgres.createDatabase(`fleet${process.pid}`)
    const env = { STRATA_DATABASE_URL: url, STRATA_BROWSER: "off" }
    const { input, out } = await makeCorpus()

    const submit = strata(["parse", input, "--out", out, "--queue"], env)
    expect(await submit.exited).toBe(0)
    const runId = submit.out[0]!
    expect(runId).toMatch(/^[0-9a-f]{16}$/)
    expect(submit.err.join("\n")).toContain("31 documents, 0 done before, 31 to convert (31 newly queued)")

    // A starts alone, so it surely converts 3 (started together, B could take every job first and
    // A never reach 3: a fresh-clone CI run timed out so); B starts, and A is killed mid-run.
    const a = strata(["worker", "--slots", "1"], env)
    const converted = (p: Proc) => p.err.filter((line) => /strata worker: (converted|copied) /.test(line))
    await waitFor(() => converted(a).length >= 3, "worker A to convert 3 documents", 120_000)
    const b = strata(["worker", "--slots", "1"], env)
    a.process.kill("SIGKILL")
    expect(await a.exited).toBe(null)

    const progress = (runs: CorpusRuns["Service"]) => Effect.map(runs.progress(runId), Option.getOrThrow)
    const read = <A>(body: (runs: CorpusRuns["Service"]) => Effect.Effect<A, unknown>) =>
      Effect.runPromise(Effect.flatMap(CorpusRuns, body).pipe(Effect.provide(runsLayer({ url: Redacted.make(url) }))))
    await waitFor(
      async () => {
        const p = await read(progress)
        return p.done + p.failed === p.total
      },
      "the run to finish",
      150_000
    )
    const done = await read(progress)
    expect(done).toMatchObject({ total: 31, done: 30, failed: 1, running: 0, queued: 0, doubleWrites: 0 })
    expect(done.failures).toHaveLength(1)
    expect(done.failures[0]).toMatchObject({ path: "pdf/broken.pdf", attempts: 3 })
    expect(done.throughput).toBeGreaterThan(0)
    console.log(`fleet: 31 documents on 2 worker processes (one killed): ${done.throughput!.toFixed(2)} documents/s`)

    for (let i = 0; i < 10; i++) {
      expect(await readFile(join(out, "pdf", `report-${i}.pdf.md`), "utf8")).toContain(`Quarterly report number ${i}`)
      expect(await readFile(join(out, "html", `page-${i}.html.md`), "utf8")).toContain(`Article ${i}`)
      expect(await readFile(join(out, "csv", `table-${i}.csv.md`), "utf8")).toMatch(new RegExp(`item-${i}`))
    }
    // Every document was converted once: the two workers' reports name each of the 30 once.
    const names = [...converted(a), ...converted(b)].map((line) => line.split(" ")[3])
    const doubles = names.filter((name, i) => names.indexOf(name) !== i)
    // The document A was converting when it died may have been converted by B again, never stored twice.
    expect(doubles.length).toBeLessThanOrEqual(1)
    expect(new Set(names).size).toBe(30)

    const shown = strata(["runs", "show", runId], env)
    expect(await shown.exited).toBe(0)
    const text = shown.out.join("\n")
    expect(text).toContain("30/31 done")
    expect(text).toContain("pdf/broken.pdf (3 attempts)")

    // The same command again: only the failed document is sent again; nothing finished converts.
    const before = converted(b).length
    const again = strata(["parse", input, "--out", out, "--queue"], env)
    expect(await again.exited).toBe(0)
    expect(again.out[0]).toBe(runId)
    expect(again.err.join("\n")).toContain("31 documents, 30 done before, 1 to convert (1 newly queued)")
    const lastAttempts = () => [...a.err, ...b.err].filter((line) => line.includes("failed pdf/broken.pdf (attempt 3 of 3)")).length
    await waitFor(() => lastAttempts() === 2, "the failed document's second round", 60_000)
    expect(converted(b).length).toBe(before)

    // SIGTERM: the worker finishes what it runs and exits cleanly.
    b.process.kill("SIGTERM")
    expect(await b.exited).toBe(0)
  }, 400_000)

  it("runs show fails an item whose last attempt's worker died, so the run can end", async () => {
    const url = postgres.createDatabase(`fleetdead${process.pid}`)
    const layers = Layer.mergeAll(queueLayer({ url: Redacted.make(url) }), runsLayer({ url: Redacted.make(url) }))
    // An item a worker started, whose job the queue then failed with nobody left to record it.
    await Effect.runPromise(Effect.gen(function*() {
      const runs = yield* CorpusRuns
      const queue = yield* JobQueue
      yield* runs.record({ id: "deadrun", outDir: "/tmp/unused", options: {}, json: false, formats: undefined }, ["x.csv"])
      yield* runs.started("deadrun", "x.csv", 1)
      yield* queue.define(CORPUS_QUEUE, { retries: 0 })
      const { ids } = yield* queue.enqueue(CORPUS_QUEUE, [{ key: jobKey("deadrun", "x.csv", 0), data: {} }])
      yield* queue.work(CORPUS_QUEUE, { slots: 1 }, () => Effect.fail(new Error("job heartbeat timeout")))
      while (Option.getOrUndefined(yield* queue.job(CORPUS_QUEUE, ids[0]!))?.status !== "failed") yield* Effect.sleep("100 millis")
    }).pipe(Effect.scoped, Effect.provide(layers)))
    const shown = strata(["runs", "show", "deadrun"], { STRATA_DATABASE_URL: url })
    expect(await shown.exited).toBe(0)
    const text = shown.out.join("\n")
    expect(text).toContain("0/1 done (100%), 1 failed, 0 running")
    expect(text).toContain("x.csv (1 attempts): Failed: the last attempt did not finish (job heartbeat timeout)")
  }, 120_000)

  it("refuses --queue, worker and runs without STRATA_DATABASE_URL, with a clear message", async () => {
    const env = { STRATA_DATABASE_URL: "" }
    const worker = strata(["worker"], env)
    expect(await worker.exited).toBe(2)
    expect(worker.err.join("\n")).toContain("set STRATA_DATABASE_URL")
    const runs = strata(["runs", "show", "abc"], env)
    expect(await runs.exited).toBe(2)
    const badSlots = strata(["worker", "--slots", "0"], env)
    expect(await badSlots.exited).toBe(2)
    expect(badSlots.err.join("\n")).toContain("--slots takes a whole number")
  }, 60_000)
})
