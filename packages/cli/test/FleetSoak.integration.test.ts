/**
 * The fleet test of issue 19 ("How it is checked"): one throwaway Postgres from Debian's binaries
 * on loopback, 2 replicas (the server's bin.ts as `npm start` runs it, STRATA_DATABASE_URL set)
 * and 3 `strata worker` processes, all real processes, sharing one fleet across the blocks below:
 * - a corpus of 300 generated documents (PDFs, HTML pages, CSV files) converts completely, and a
 *   worker slowed on purpose (STRATA_TEST_WORKER_DELAY_MS, a test-only knob) does not stretch the
 *   run beyond 1.2x the ideal computed from the fast workers' measured rates;
 * - stopping every worker mid-run (one with kill -9, two with SIGTERM) and starting them again: no
 *   job lost, none done twice (results are keyed by content hash and options), every document ends;
 * - a team flooding the API with long PDFs (sent to the workers) does not raise another team's
 *   p95 `concurrencyQueueDurationMs` above 1 s;
 * - the two replicas agree on credits (a balance spent to zero through both) and on queue state.
 * bench/results/fleet-soak.md records the figures it prints. The poison document is
 * Fleet.integration.test.ts's; the dead worker's 15 s restart, PgBossQueue.test.ts's.
 */
import { Store } from "@strata/core"
import { layerPg } from "@strata/store"
import { Effect, ManagedRuntime, Redacted } from "effect"
import { type ChildProcess, execFileSync, spawn } from "node:child_process"
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises"
import { loadavg, tmpdir } from "node:os"
import { join } from "node:path"
import { createInterface } from "node:readline"
import { fileURLToPath } from "node:url"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { parseExposition } from "../../http/test/PrometheusParse.ts"
import { freePort, tempDir, textPdf } from "../../http/test/support.ts"
import { findPostgresBin, startPostgres, type TempPostgres } from "../../store/test/support/TempPostgres.ts"

const serverBin = fileURLToPath(new URL("../../http/src/bin.ts", import.meta.url))
const cliBin = fileURLToPath(new URL("../src/bin.ts", import.meta.url))

/** The slow worker holds each job this long before working it (a machine several times slower). */
const SLOW_DELAY_MS = 600
/** How often an idle worker asks the queue for a job (PgBossQueue.ts's least poll). */
const POLL_MS = 500
/** Replicas send PDFs of more pages than this to the workers; the flood's are 6 pages. */
const QUEUE_ABOVE_PAGES = 4
const FLOOD = { team: "flood", concurrency: 4, requests: 40 }
const STEADY = { team: "steady", concurrency: 2, requests: 16 }
const TIGHT = { team: "tight", credits: 20 }
const PLENTY = 1_000_000
/** The corpus run that every worker is stopped in the middle of. */
const RESTART_DOCS = 120

// ---------------------------------------------------------------------------------------------
// Processes

interface Proc {
  readonly name: string
  readonly child: ChildProcess
  /** Output lines (stdout and stderr), each with when it arrived. */
  readonly lines: Array<{ readonly at: number; readonly text: string }>
  readonly exited: Promise<number | null>
  readonly output: () => string
}

const procs: Array<Proc> = []
/** The replicas' data folders, the corpora and their outputs: removed after the file. */
const tempDirs: Array<string> = []

const spawnNode = (name: string, args: ReadonlyArray<string>, env: Record<string, string>): Proc => {
  const { STRATA_API_KEYS: _keys, STRATA_DATABASE_URL: _db, STRATA_TEST_WORKER_DELAY_MS: _delay, ...base } = process.env
  const child = spawn(process.execPath, ["--conditions=@strata/source", ...args], {
    env: { ...base, STRATA_BROWSER: "off", STRATA_DATABASE_URL: database, ...env },
    stdio: ["ignore", "pipe", "pipe"]
  })
  const lines: Array<{ at: number; text: string }> = []
  for (const input of [child.stdout!, child.stderr!]) createInterface({ input }).on("line", (text) => lines.push({ at: Date.now(), text }))
  const proc: Proc = {
    name,
    child,
    lines,
    exited: new Promise((resolve) => child.on("exit", (code) => resolve(code))),
    output: () => lines.map((line) => line.text).join("\n")
  }
  procs.push(proc)
  return proc
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

const waitFor = async <A>(read: () => Promise<A | undefined> | A | undefined, what: string, timeoutMs: number): Promise<A> => {
  const end = Date.now() + timeoutMs
  for (;;) {
    const value = await read()
    if (value !== undefined) return value
    if (Date.now() > end) {
      const tails = procs.map((p) => `--- ${p.name}\n${p.lines.slice(-8).map((l) => l.text).join("\n")}`).join("\n")
      throw new Error(`timed out waiting for ${what}\n${tails}`)
    }
    await sleep(200)
  }
}

/** A replica as `npm start` runs it (its node flags), unsupervised, on the shared database. */
const startReplica = async (name: string): Promise<string> => {
  const port = await freePort()
  const dataDir = tempDir("strata-soak-replica-")
  tempDirs.push(dataDir)
  const proc = spawnNode(name, ["--max-semi-space-size=8", "--heap-growing-percent=150", "--expose-gc", serverBin], {
    HOST: "127.0.0.1",
    PORT: String(port),
    STRATA_SUPERVISE: "0",
    STRATA_DATA_DIR: dataDir,
    STRATA_QUEUE_ABOVE_PAGES: String(QUEUE_ABOVE_PAGES)
  })
  const url = `http://127.0.0.1:${port}`
  // Generous: on a loaded 2-core machine five processes load the pipeline at once.
  await waitFor(async () => {
    if (proc.child.exitCode !== null) throw new Error(`${name} exited:\n${proc.output()}`)
    return fetch(`${url}/ready`, { signal: AbortSignal.timeout(5000) }).then((r) => (r.ok ? true : undefined), () => undefined)
  }, `${name} to be ready`, 150_000)
  return url
}

interface Worker extends Proc {
  readonly slow: boolean
}

const workers: Array<Worker> = []

const startWorker = async (name: string, slow = false): Promise<Worker> => {
  const proc = spawnNode(name, [cliBin, "worker", "--slots", "1"], slow ? { STRATA_TEST_WORKER_DELAY_MS: String(SLOW_DELAY_MS) } : {})
  const worker = { ...proc, slow }
  workers.push(worker)
  await waitFor(() => {
    if (proc.child.exitCode !== null) throw new Error(`${name} exited:\n${proc.output()}`)
    return proc.lines.some((line) => line.text.includes("slots on queue")) ? true : undefined
  }, `${name} to take jobs`, 150_000)
  return worker
}

/** What a worker said it finished: `converted` or `copied`, the item's path, and when. */
const finishedBy = (worker: Proc) =>
  worker.lines.flatMap(({ at, text }) => {
    const match = /strata worker: (converted|copied) (\S+) \((\d+) ms, attempt (\d+)\)/.exec(text)
    return match === null ? [] : [{ at, how: match[1]!, path: match[2]!, ms: Number(match[3]), attempt: Number(match[4]) }]
  })

// ---------------------------------------------------------------------------------------------
// Database

let postgres: TempPostgres | undefined
let database = ""
let store: ManagedRuntime.ManagedRuntime<Store, unknown> | undefined
const useStore = <A, E>(body: (store: Store["Service"]) => Effect.Effect<A, E>) => store!.runPromise(Effect.flatMap(Store, body))

/** Rows of a query, through psql (tab-separated, unaligned). */
const query = (sql: string): Array<Array<string>> =>
  execFileSync(join(findPostgresBin()!, "psql"), ["-X", "-A", "-t", "-F", "\t", "-c", sql, database], { encoding: "utf8" })
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => line.split("\t"))

interface Progress {
  readonly total: number
  readonly done: number
  readonly failed: number
  readonly running: number
  readonly queued: number
  readonly doubleWrites: number
}

const progress = (runId: string): Progress => {
  const [row] = query(`SELECT count(*), count(*) FILTER (WHERE state = 'done'), count(*) FILTER (WHERE state = 'failed'),
      count(*) FILTER (WHERE state = 'running'), count(*) FILTER (WHERE state = 'queued'),
      (SELECT count(*) FROM fleet_results WHERE run_id = '${runId}' AND writes > 1)
    FROM fleet_items WHERE run_id = '${runId}'`)
  const [total, done, failed, running, queued, doubleWrites] = row!.map(Number)
  return { total: total!, done: done!, failed: failed!, running: running!, queued: queued!, doubleWrites: doubleWrites! }
}

const runEnded = (runId: string, timeoutMs: number) =>
  waitFor(() => {
    const p = progress(runId)
    return p.done + p.failed === p.total ? p : undefined
  }, `run ${runId} to end`, timeoutMs)

// ---------------------------------------------------------------------------------------------
// Documents

/**
 * `count` small documents, a third each PDF (2 pages), HTML and CSV, each with its own marker
 * (`<tag>-<n>`) so that no two share a content hash; resolves to the folder and each path's marker.
 */
const makeCorpus = async (tag: string, count: number) => {
  const input = await mkdtemp(join(tmpdir(), `strata-soak-${tag}-`))
  const out = `${input}-out`
  tempDirs.push(input, out)
  const markers = new Map<string, string>()
  for (const kind of ["pdf", "html", "csv"]) await mkdir(join(input, kind))
  for (let i = 0; i < count; i++) {
    const marker = `${tag}-${i}`
    const kind = ["pdf", "html", "csv"][i % 3]!
    const path = `${kind}/${marker}.${kind}`
    markers.set(path, marker)
    const body = kind === "pdf"
      ? textPdf(2, marker)
      : kind === "html"
      ? `<!doctype html><html><head><title>${marker}</title></head><body><main><h1>Article ${marker}</h1>${
        Array.from({ length: 6 }, (_, p) => `<p>Paragraph ${p} of ${marker}: a few ordinary sentences about the harbour.</p>`).join("")
      }</main></body></html>`
      : ["name,qty,price", `${marker},${i},1.00`, ...Array.from({ length: 20 }, (_, r) => `item-${r},${r},${(r * 1.5).toFixed(2)}`)].join("\n")
    await writeFile(join(input, path), body)
  }
  return { input, out, markers }
}

/** Submits a corpus with `strata parse <dir> --out <dir> --queue`; resolves to the run id. */
const submit = async (input: string, out: string): Promise<string> => {
  const proc = spawnNode(`submit ${input}`, [cliBin, "parse", input, "--out", out, "--queue"], {})
  expect(await proc.exited, proc.output()).toBe(0)
  const runId = proc.lines.map((l) => l.text).find((line) => /^[0-9a-f]{16}$/.test(line))
  expect(runId, proc.output()).toBeDefined()
  return runId!
}

/** Every output is there once, holding its document's marker, and no temp file was left beside them. */
const checkOutputs = async (out: string, markers: Map<string, string>) => {
  for (const [path, marker] of markers) expect(await readFile(join(out, `${path}.md`), "utf8")).toContain(marker)
  for (const kind of ["pdf", "html", "csv"]) {
    const names = await readdir(join(out, kind))
    expect(names.filter((name) => name.endsWith(".tmp"))).toEqual([])
    expect(names.length).toBe([...markers.keys()].filter((path) => path.startsWith(`${kind}/`)).length)
  }
}

// ---------------------------------------------------------------------------------------------
// HTTP

const keys = new Map<string, string>()
let replicas: Array<string> = []

interface Answer {
  readonly fileName: string
  readonly status: number
  readonly ms: number
  readonly body: Record<string, any>
}

const postParse = async (replica: string, team: string, bytes: Uint8Array, fileName: string, timeout = 60_000): Promise<Answer> => {
  const form = new FormData()
  form.append("file", new Blob([new Uint8Array(bytes)], { type: "application/pdf" }), fileName)
  form.append("options", JSON.stringify({ timeout }))
  const t0 = Date.now()
  const response = await fetch(`${replica}/v2/parse`, { method: "POST", headers: { authorization: `Bearer ${keys.get(team)}` }, body: form })
  const body = (await response.json()) as Record<string, any>
  return { fileName, status: response.status, ms: Date.now() - t0, body }
}

/** The replica's view of the fleet's queue: `strata_queue_jobs` by state. */
const queueState = async (replica: string) => {
  const metrics = parseExposition(await (await fetch(`${replica}/metrics`, { signal: AbortSignal.timeout(10_000) })).text())
  const of = (state: string) => metrics.value("strata_queue_jobs", { queue: "corpus", state })
  return { queued: of("queued"), active: of("active"), failed: of("failed") }
}

/** Both replicas' views, read until two reads of A bracket an equal read of B (the state may move between reads). */
const agreedQueueState = (what: string) =>
  waitFor(async () => {
    const [a1, b, a2] = [await queueState(replicas[0]!), await queueState(replicas[1]!), await queueState(replicas[0]!)]
    return JSON.stringify(a1) === JSON.stringify(b) && JSON.stringify(b) === JSON.stringify(a2) ? b : undefined
  }, `the replicas to agree on the queue (${what})`, 30_000)

const percentile = (values: ReadonlyArray<number>, p: number): number => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? 0
}

// ---------------------------------------------------------------------------------------------

let corpus1: Awaited<ReturnType<typeof makeCorpus>>
let corpus2: Awaited<ReturnType<typeof makeCorpus>>

beforeAll(async () => {
  postgres = await startPostgres()
  database = postgres.createDatabase(`fleet_soak_${process.pid}`)
  // Migrated here, once, before the replicas open the database.
  store = ManagedRuntime.make(layerPg({ url: Redacted.make(database), cacheMaxBytes: 16 * 1024 * 1024, maxConnections: 2 }))
  for (const [team, settings] of [
    [FLOOD.team, { credits: PLENTY, concurrency: FLOOD.concurrency }],
    [STEADY.team, { credits: PLENTY, concurrency: STEADY.concurrency }],
    [TIGHT.team, { credits: TIGHT.credits }]
  ] as const) {
    keys.set(team, await useStore((store) => Effect.andThen(store.setTeam(team, settings), store.createKey(team))).then((created) => created.key))
  }
  ;[corpus1, corpus2] = await Promise.all([makeCorpus("soak", 300), makeCorpus("restart", RESTART_DOCS)])
  // All five at once (pg-boss creates its schema and the queue under locks, whoever comes first).
  const t0 = Date.now()
  const [a, b] = await Promise.all([
    startReplica("replica A"),
    startReplica("replica B"),
    startWorker("worker 1"),
    startWorker("worker 2"),
    startWorker("worker 3 (slow)", true)
  ])
  replicas = [a, b]
  console.log(`fleet soak: 2 replicas and 3 workers up in ${((Date.now() - t0) / 1000).toFixed(1)} s`)
}, 300_000)

afterAll(async () => {
  for (const { child } of procs) if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL")
  await store?.dispose()
  postgres?.stop()
  for (const dir of tempDirs) await rm(dir, { recursive: true, force: true })
})

describe("a fleet of 2 replicas and 3 workers on one Postgres", () => {
  it("converts 300 documents completely, and the slow worker does not stretch the run beyond 1.2x the ideal", async () => {
    const runId = await submit(corpus1.input, corpus1.out)
    const ended = await runEnded(runId, 240_000)
    expect(ended).toMatchObject({ total: 300, done: 300, failed: 0, running: 0, queued: 0, doubleWrites: 0 })
    await checkOutputs(corpus1.out, corpus1.markers)

    // When each item started and finished, as its worker recorded it (one machine, one clock).
    const times = new Map(query(`SELECT path, started_at, finished_at FROM fleet_items WHERE run_id = '${runId}'`)
      .map(([path, started, finished]) => [path!, { started: Number(started), finished: Number(finished) }]))
    const t0 = Math.min(...[...times.values()].map((t) => t.started))
    const end = Math.max(...[...times.values()].map((t) => t.finished))
    // Who did what: each worker's log names the items it finished.
    const shares = workers.map((worker) => {
      const paths = finishedBy(worker).map((f) => f.path)
      const last = Math.max(...paths.map((path) => times.get(path)!.finished))
      // A worker's rate over its own window: one that sat idle at the end (its jobs held elsewhere) shows a high rate.
      return { worker, jobs: paths.length, last, rate: paths.length / ((last - t0) / 1000) }
    })
    expect(shares.reduce((n, s) => n + s.jobs, 0)).toBe(300)
    const fast = shares.filter((s) => !s.worker.slow)
    const slow = shares.find((s) => s.worker.slow)!
    const fastRate = fast.reduce((sum, s) => sum + s.rate, 0)
    // A fast worker's time per job (queue round trips included), and the slow worker's: that plus its delay.
    const fastJobMs = (1000 * fast.length) / fastRate
    const slowRate = 1000 / (fastJobMs + SLOW_DELAY_MS)
    const idealMs = (300 / (fastRate + slowRate)) * 1000
    const actualMs = end - t0
    const ratio = actualMs / idealMs
    // Between two of the slow worker's jobs: its delay, then the queue's fetch (for the figures only).
    const slowItems = finishedBy(slow.worker).map((f) => times.get(f.path)!).sort((x, y) => x.started - y.started)
    const slowGaps = slowItems.slice(1).map((item, i) => item.started - slowItems[i]!.finished)
    const slowGapMs = slowGaps.reduce((sum, gap) => sum + gap, 0) / Math.max(1, slowGaps.length)
    console.log(
      `fleet soak: 300 documents in ${(actualMs / 1000).toFixed(1)} s (${(300_000 / actualMs).toFixed(2)} documents/s); ` +
        `fast workers ${fast.map((s) => `${s.jobs} jobs, ${s.rate.toFixed(2)}/s`).join("; ")}; ` +
        `slow worker ${slow.jobs} jobs (${((slow.jobs / (slow.last - t0)) * 1000).toFixed(2)}/s measured, ${slowRate.toFixed(2)}/s ideal, ` +
        `first started ${((slowItems[0]!.started - t0) / 1000).toFixed(1)} s in, ${slowGapMs.toFixed(0)} ms from one job's end to the next's start, ` +
        `its conversions ${finishedBy(slow.worker).map((f) => `${f.path.split("/")[0]} ${f.ms}`).join(", ")} ms); ` +
        `fast job ${fastJobMs.toFixed(0)} ms; ideal ${(idealMs / 1000).toFixed(1)} s; ratio ${ratio.toFixed(3)}; ` +
        `fast workers' last finish ${fast.map((s) => `${((end - s.last) / 1000).toFixed(1)} s`).join(", ")} before the end, ` +
        `${fast.map((s) => `${s.last - (Math.max(...slowItems.map((item) => item.started)) - SLOW_DELAY_MS)} ms`).join(", ")} after the slow worker took its last job`
    )
    // The issue's bound. It catches only a large hoard: a worker that took 5 or 10 jobs at once was
    // measured at 1.13x and 1.15x here (bench/results/fleet-soak.md), its run being short.
    expect(ratio).toBeLessThanOrEqual(1.2)
    // The sharper check: the slow worker took its last job (its handler starts right after its delay)
    // before the fast workers ran out of work, give or take their 0.5 s poll. A job it had held
    // since earlier starts later than that. Its conversion times are left out: the first use of a
    // reader took 10-14 s here, and a cold one at the end would fail an "idle at the end" bound
    // with no hoarding at all.
    const slowLastTaken = Math.max(...slowItems.map((item) => item.started)) - SLOW_DELAY_MS
    for (const s of fast) expect(slowLastTaken - s.last).toBeLessThanOrEqual(POLL_MS + 2 * fastJobMs + 250)
  }, 300_000)

  it("stopping every worker mid-run and starting them again loses no job, does none twice, and finishes every document", async () => {
    const runId = await submit(corpus2.input, corpus2.out)
    await waitFor(() => (progress(runId).done >= 25 ? true : undefined), "the run under way", 120_000)
    // One dies (kill -9): the slow one, which holds a job nearly all the time (its delay is inside
    // the job). The two others are stopped as a deploy stops them (SIGTERM: finish the running job).
    const stopping = workers.splice(0, 3)
    const hard = stopping.find((w) => w.slow)
    const soft = stopping.filter((w) => !w.slow)
    const tStop = Date.now()
    hard!.child.kill("SIGKILL")
    for (const worker of soft) worker.child.kill("SIGTERM")
    expect(await hard!.exited).toBe(null)
    for (const worker of soft) expect(await worker.exited, worker.output()).toBe(0)

    const stopped = progress(runId)
    expect(stopped.done).toBeLessThan(RESTART_DOCS)
    expect(stopped.running).toBeLessThanOrEqual(1)
    // Nothing moves while no worker runs, and every document not done has its job waiting in the
    // queue (the killed worker's stays active until its heartbeat lapses): none was lost.
    const agreed = await agreedQueueState("every worker stopped")
    // (One more when the killed worker had recorded its item done but not yet told the queue.)
    expect(agreed.queued! + agreed.active!).toBeGreaterThanOrEqual(RESTART_DOCS - stopped.done)
    expect(agreed.queued! + agreed.active!).toBeLessThanOrEqual(RESTART_DOCS - stopped.done + 1)
    await sleep(1000)
    expect(progress(runId).done).toBe(stopped.done)

    const tRestart = Date.now()
    const restarted = await Promise.all([startWorker("worker 4"), startWorker("worker 5"), startWorker("worker 6")])
    const tUp = Date.now()
    const ended = await runEnded(runId, 180_000)
    const tEnd = Date.now()
    expect(ended).toMatchObject({ total: RESTART_DOCS, done: RESTART_DOCS, failed: 0, doubleWrites: 0 })
    await checkOutputs(corpus2.out, corpus2.markers)
    // Each document was converted once, by whichever worker: the killed worker's item converted
    // again (it had not finished) or found its result (it had) and copied nothing new.
    const finished = [...stopping, ...restarted].flatMap((w) => finishedBy(w)).filter((f) => corpus2.markers.has(f.path))
    const converted = finished.filter((f) => f.how === "converted").map((f) => f.path)
    expect(new Set(converted).size).toBe(converted.length)
    expect(new Set(finished.map((f) => f.path)).size).toBe(RESTART_DOCS)
    const before = stopping.reduce((n, w) => n + finishedBy(w).filter((f) => corpus2.markers.has(f.path)).length, 0)
    const retried = finished.filter((f) => f.attempt > 1).map((f) => `${f.path} (attempt ${f.attempt}, ${f.how})`)
    console.log(
      `fleet soak: restart run: ${stopped.done}/${RESTART_DOCS} done when every worker stopped (${before} logged by the first three), ` +
        `queue then ${JSON.stringify(agreed)}; stopped in ${((tRestart - tStop) / 1000).toFixed(1)} s (checks included), ` +
        `3 new workers up in ${((tUp - tRestart) / 1000).toFixed(1)} s, the rest done ${((tEnd - tUp) / 1000).toFixed(1)} s later; ` +
        `retried: ${retried.join(", ") || "none"}`
    )
  }, 300_000)

  it("a team flooding the API does not raise another team's p95 queue wait above 1 s", async () => {
    const steadyPdf = (n: number) => textPdf(6, `steady-${n}`)
    // Alone first, for the figures: the steady team's requests with nothing else in the fleet.
    const alone: Array<Answer> = []
    for (let n = 0; n < 4; n++) alone.push(await postParse(replicas[n % 2]!, STEADY.team, steadyPdf(100 + n), `steady-${100 + n}.pdf`))
    expect(alone.map((a) => a.status)).toEqual([200, 200, 200, 200])

    // The flood: every request at once, through both replicas; its team may run 4 at a time.
    let peak = 0
    let sampling = true
    const sampler = (async () => {
      while (sampling) {
        const state = await queueState(replicas[0]!).catch(() => undefined)
        if (state !== undefined) peak = Math.max(peak, (state.queued ?? 0) + (state.active ?? 0))
        await sleep(250)
      }
    })()
    const flood = Promise.all(Array.from({ length: FLOOD.requests }, (_, n) =>
      postParse(replicas[n % 2]!, FLOOD.team, textPdf(6, `flood-${n}`), `flood-${n}.pdf`, 120_000)))
    // Under way: the flood's jobs are in the queue before the steady team starts.
    await waitFor(async () => {
      const state = await queueState(replicas[1]!)
      return (state.queued ?? 0) + (state.active ?? 0) >= 2 ? true : undefined
    }, "the flood's jobs in the queue", 60_000)
    // The steady team, two at a time (its limit), through both replicas.
    const steady: Array<Answer> = []
    await Promise.all([0, 1].map(async (lane) => {
      for (let n = lane; n < STEADY.requests; n += 2) steady.push(await postParse(replicas[n % 2]!, STEADY.team, steadyPdf(n), `steady-${n}.pdf`))
    }))
    const flooded = await flood
    sampling = false
    await sampler

    expect(steady.map((a) => a.status)).toEqual(steady.map(() => 200))
    expect(flooded.map((a) => a.status)).toEqual(flooded.map(() => 200))
    for (const answer of [...steady, ...flooded]) expect(answer.body.data.metadata.creditsUsed).toBe(6)
    const waitOf = (answer: Answer) => (answer.body.data.metadata.concurrencyQueueDurationMs as number | undefined) ?? 0
    const steadyWaits = steady.map(waitOf)
    const floodWaits = flooded.map(waitOf)
    // The flood was one: most of its requests waited for the team's slots.
    expect(flooded.filter((a) => a.body.data.metadata.concurrencyLimited === true).length).toBeGreaterThanOrEqual(FLOOD.requests / 2)
    expect(percentile(floodWaits, 95)).toBeGreaterThan(percentile(steadyWaits, 95))
    // The issue's target, on the contract's own figure.
    expect(percentile(steadyWaits, 95)).toBeLessThan(1000)
    // Each queued job holds its team's slot: the queue never held much more than both teams' limits
    // (a finished job is marked complete just after its answer is read, so a few may overlap).
    expect(peak).toBeLessThanOrEqual(FLOOD.concurrency + STEADY.concurrency + 3)

    // From the workers' logs: each upload's reading, and its wait in the fleet's queue (replica's insert to worker's read).
    const logged = new Map(workers.flatMap((w) =>
      w.lines.flatMap(({ text }) => {
        const match = /parsed ((?:steady|flood)-\d+\.pdf) for a replica \((\d+) ms, attempt \d+\); (\d+) ms in the queue/.exec(text)
        return match === null ? [] : [[match[1]!, { readMs: Number(match[2]), queuedMs: Number(match[3]) }] as const]
      })
    ))
    // The time a request spent outside its reading: the team's queue, the upload, the fleet's queue, the 150 ms polls.
    const outside = (answers: ReadonlyArray<Answer>) => answers.map((a) => a.ms - logged.get(a.fileName)!.readMs)
    const fleetWait = (answers: ReadonlyArray<Answer>) => answers.map((a) => logged.get(a.fileName)!.queuedMs)
    console.log(
      `fleet soak: flood ${FLOOD.requests} requests (limit ${FLOOD.concurrency}): concurrencyQueueDurationMs p50 ${percentile(floodWaits, 50)} ms, ` +
        `p95 ${percentile(floodWaits, 95)} ms, latency p95 ${percentile(flooded.map((a) => a.ms), 95)} ms; ` +
        `steady ${STEADY.requests} requests (limit ${STEADY.concurrency}): concurrencyQueueDurationMs p95 ${percentile(steadyWaits, 95)} ms, ` +
        `latency p50 ${percentile(steady.map((a) => a.ms), 50)} ms p95 ${percentile(steady.map((a) => a.ms), 95)} ms ` +
        `(alone: p50 ${percentile(alone.map((a) => a.ms), 50)} ms, max ${Math.max(...alone.map((a) => a.ms))} ms); ` +
        `outside the reading: alone p50 ${percentile(outside(alone), 50)} ms, flooded p50 ${percentile(outside(steady), 50)} ms ` +
        `p95 ${percentile(outside(steady), 95)} ms; in the fleet's queue: steady alone max ${Math.max(...fleetWait(alone))} ms, ` +
        `flooded p50 ${percentile(fleetWait(steady), 50)} ms p95 ${percentile(fleetWait(steady), 95)} ms, ` +
        `flood p50 ${percentile(fleetWait(flooded), 50)} ms p95 ${percentile(fleetWait(flooded), 95)} ms; peak jobs in the queue ${peak}; ` +
        `load average ${loadavg().map((x) => x.toFixed(1)).join(" ")}`
    )

    // Charged once per request, through whichever replica: the balances are what the answers say.
    expect(await useStore((store) => store.balance(FLOOD.team))).toBe(PLENTY - 6 * FLOOD.requests)
    expect(await useStore((store) => store.balance(STEADY.team))).toBe(PLENTY - 6 * (STEADY.requests + alone.length))
  }, 240_000)

  it("the two replicas agree on credits and on the queue", async () => {
    // A balance of 20 spent through both replicas at once: 20 one-credit requests answered, the rest refused.
    const answers = await Promise.all(Array.from({ length: 24 }, (_, n) =>
      postParse(replicas[n % 2]!, TIGHT.team, textPdf(1, `tight-${n}`), `tight-${n}.pdf`)))
    const ok = answers.filter((a) => a.status === 200)
    expect(ok.reduce((sum, a) => sum + (a.body.data.metadata.creditsUsed as number), 0)).toBe(TIGHT.credits)
    expect(answers.filter((a) => a.status === 402).length).toBe(24 - ok.length)
    expect(await useStore((store) => store.balance(TIGHT.team))).toBe(0)
    // Spent is spent on both.
    for (const replica of replicas) expect((await postParse(replica, TIGHT.team, textPdf(1, "tight-after"), "after.pdf")).status).toBe(402)

    // At rest, both read the same queue: nothing waiting, nothing running.
    const state = await agreedQueueState("at rest")
    expect(state).toMatchObject({ queued: 0, active: 0 })
    console.log(`fleet soak: tight team: ${ok.length} answered, ${24 - ok.length} refused (402) across both replicas; queue at rest ${JSON.stringify(state)}`)
  }, 120_000)
})
