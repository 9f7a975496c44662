/**
 * What the pg-boss job queue costs per job, with nothing else in the job: 10,000 trivial jobs are
 * enqueued in bulk, then drained by one process with 1, 4 and 16 slots. For each: wall time per
 * job (the queue's overhead: fetch, hand over, complete), and the statements (Postgres round
 * trips) the process sent per job, counted at pg-boss's database adapter. Also the statements an
 * idle worker sends per second (supervision, polling), and from all of it a model of the worker
 * count at which Postgres, not the workers, limits a fleet.
 *
 * Postgres is a throwaway server from Debian's binaries on loopback (fsync off, as in the tests),
 * sharing this machine's cores with the bench process: the figures are the protocol's and
 * queries' cost on a loaded 2-core machine, an upper bound for a Postgres of its own.
 *
 *   node_modules/.bin/node -C @strata/source bench/fleet/overhead.ts [--jobs 10000] [--write]
 *
 * `--write` stores bench/results/fleet.json and fleet.md.
 */
import { JobQueue } from "@strata/core"
import { layer } from "@strata/fleet"
import { Effect, Redacted } from "effect"
import { mkdirSync, writeFileSync } from "node:fs"
import { cpus, loadavg } from "node:os"
import { performance } from "node:perf_hooks"
import { startPostgres } from "../../packages/store/test/support/TempPostgres.ts"

const args = process.argv.slice(2)
const option = (name: string): string | undefined => {
  const i = args.indexOf(name)
  return i >= 0 ? args[i + 1] : undefined
}
const jobs = Number(option("--jobs") ?? 10_000)
const slotCounts = (option("--slots") ?? "1,4,16").split(",").map(Number)

/** Statements counted since the last `take`, by kind. */
const counter = () => {
  const kinds = new Map<string, number>()
  let total = 0
  const kindOf = (sql: string) => {
    const head = sql.replace(/\s+/g, " ").trimStart().slice(0, 200)
    if (/^WITH results AS \( UPDATE/i.test(head)) return "complete"
    if (/WITH next AS/i.test(head)) return "fetch"
    if (/INSERT INTO/i.test(sql) && /\.job\b/i.test(sql)) return "insert"
    return "other"
  }
  return {
    count: (sql: string) => {
      total++
      const kind = kindOf(sql)
      kinds.set(kind, (kinds.get(kind) ?? 0) + 1)
    },
    take: () => {
      const out = { total, kinds: Object.fromEntries(kinds) }
      total = 0
      kinds.clear()
      return out
    }
  }
}

interface Row {
  readonly slots: number
  readonly msPerJob: number
  readonly jobsPerSecond: number
  readonly statementsPerJob: number
  readonly kinds: Record<string, number>
}

const main = async () => {
  const postgres = await startPostgres()
  const load0 = loadavg()
  try {
    const statements = counter()
    const results: Array<Row> = []
    let enqueueMsPerJob = 0
    let enqueueStatementsPerJob = 0
    let idlePerSecond = 0
    for (const slots of slotCounts) {
      const url = postgres.createDatabase(`fleet_bench_${slots}`)
      const program = Effect.gen(function*() {
        const queue = yield* JobQueue
        yield* queue.define("bench", { deadlineMs: 60_000 })
        statements.take()
        const t0 = performance.now()
        const specs = Array.from({ length: jobs }, (_, i) => ({ key: `job-${i}`, data: { i } }))
        const { created } = yield* queue.enqueue("bench", specs)
        if (created !== jobs) throw new Error(`enqueued ${created} of ${jobs}`)
        const enqueueMs = performance.now() - t0
        const enqueued = statements.take()
        if (slots === slotCounts[0]) {
          enqueueMsPerJob = enqueueMs / jobs
          enqueueStatementsPerJob = enqueued.total / jobs
        }
        let handled = 0
        let done: () => void = () => {}
        const allHandled = new Promise<void>((resolve) => (done = resolve))
        const start = performance.now()
        yield* queue.work("bench", { slots }, () =>
          Effect.sync(() => {
            if (++handled === jobs) done()
          }))
        yield* Effect.promise(() => allHandled)
        // The last completions land after the last handler returns.
        let polls = 0
        while (true) {
          polls++
          const depth = yield* queue.depth("bench")
          if (depth.queued === 0 && depth.active === 0) break
          yield* Effect.sleep("5 millis")
        }
        const ms = performance.now() - start
        const drained = statements.take()
        const counted = drained.total - polls
        results.push({
          slots,
          msPerJob: ms / jobs,
          jobsPerSecond: jobs / (ms / 1000),
          statementsPerJob: counted / jobs,
          kinds: Object.fromEntries(Object.entries(drained.kinds).map(([k, v]) => [k, v / jobs]))
        })
        console.log(
          `${slots} slots: ${(ms / jobs).toFixed(2)} ms/job, ${(jobs / (ms / 1000)).toFixed(0)} jobs/s, ${(counted / jobs).toFixed(2)} statements/job ${JSON.stringify(drained.kinds)}`
        )
        if (slots === slotCounts[slotCounts.length - 1]) {
          // An idle worker: what it costs Postgres while there is nothing to do.
          statements.take()
          yield* Effect.sleep("10 seconds")
          idlePerSecond = statements.take().total / 10
          console.log(`idle worker (${slots} slots): ${idlePerSecond.toFixed(1)} statements/s`)
        }
      }).pipe(Effect.scoped, Effect.provide(layer({ url: Redacted.make(url), onStatement: statements.count, maxConnections: Math.max(10, slots + 4) })))
      await Effect.runPromise(program)
    }
    const load1 = loadavg()
    const best = results.reduce((a, b) => (b.jobsPerSecond > a.jobsPerSecond ? b : a))
    // Postgres capacity seen here: statements/s at the fastest drain (a lower bound: the bench process shares the cores).
    const capacity = best.jobsPerSecond * best.statementsPerJob
    const perWorker = (docsPerSecond: number) => docsPerSecond * best.statementsPerJob + idlePerSecond
    const model = [0.5, 2, 10].map((docsPerSecond) => ({ docsPerSecond, workers: Math.floor(capacity / perWorker(docsPerSecond)) }))
    const report = {
      date: new Date().toISOString(),
      machine: `${cpus().length} cores (${cpus()[0]?.model ?? "?"})`,
      load: { before: load0.map((x) => +x.toFixed(2)), after: load1.map((x) => +x.toFixed(2)) },
      jobs,
      enqueue: { msPerJob: enqueueMsPerJob, statementsPerJob: enqueueStatementsPerJob },
      drain: results,
      idleWorkerStatementsPerSecond: idlePerSecond,
      model: { capacityStatementsPerSecond: capacity, workersAtWhichPostgresLimits: model }
    }
    console.log(JSON.stringify(report, null, 2))
    if (args.includes("--write")) {
      mkdirSync("bench/results", { recursive: true })
      writeFileSync("bench/results/fleet.json", JSON.stringify(report, null, 2) + "\n")
      writeFileSync("bench/results/fleet.md", markdown(report))
    }
  } finally {
    postgres.stop()
  }
}

const markdown = (r: {
  date: string
  machine: string
  load: { before: Array<number>; after: Array<number> }
  jobs: number
  enqueue: { msPerJob: number; statementsPerJob: number }
  drain: Array<Row>
  idleWorkerStatementsPerSecond: number
  model: { capacityStatementsPerSecond: number; workersAtWhichPostgresLimits: Array<{ docsPerSecond: number; workers: number }> }
}) =>
  `# Fleet: job queue overhead (pg-boss on Postgres)

${r.date}, ${r.machine}, load average ${r.load.before.join(" / ")} before and ${r.load.after.join(" / ")} after
(1 / 5 / 15 min; the machine is shared with other work, so read the times as upper bounds).
Postgres is a throwaway Debian server on loopback (fsync off) on the same cores as the bench.
\`node_modules/.bin/node -C @strata/source bench/fleet/overhead.ts --write\`

${r.jobs.toLocaleString("en")} trivial jobs (the handler does nothing) enqueued in bulk, then drained by
one process. ms/job is the wall time of the drain over the jobs: the queue's overhead when the
work itself costs nothing. Statements are counted at pg-boss's database adapter: each is one
Postgres round trip.

Enqueue (1,000 rows per statement): ${r.enqueue.msPerJob.toFixed(3)} ms/job, ${r.enqueue.statementsPerJob.toFixed(4)} statements/job.

| slots | ms/job | jobs/s | statements/job | by kind (per job) |
| ---: | ---: | ---: | ---: | --- |
${r.drain.map((d) => `| ${d.slots} | ${d.msPerJob.toFixed(2)} | ${d.jobsPerSecond.toFixed(0)} | ${d.statementsPerJob.toFixed(2)} | ${Object.entries(d.kinds).map(([k, v]) => `${k} ${v.toFixed(2)}`).join(", ")} |`).join("\n")}

Target: at most 5 ms/job of queue overhead. An idle worker sends ${r.idleWorkerStatementsPerSecond.toFixed(1)} statements/s
(polling every 0.5 s per slot loop, supervision every 1 s).

## When Postgres becomes the bottleneck

The fastest drain above moved ${r.model.capacityStatementsPerSecond.toFixed(0)} statements/s through Postgres (a lower bound on its
capacity: this process and Postgres shared 2 cores). A worker converting d documents/s sends
d × statements/job, plus at most its idle rate (a 16-slot worker's here; a slot that is converting
does not poll, and a worker with fewer slots polls less). Postgres limits the fleet at about
capacity / that, so the table is on the low side:

| documents/s per worker | workers before Postgres limits |
| ---: | ---: |
${r.model.workersAtWhichPostgresLimits.map((m) => `| ${m.docsPerSecond} | ${m.workers} |`).join("\n")}

Small documents (3-page PDFs, short HTML and CSV) convert at 10-20 a second per worker here
(bench/results/fleet-workers.md), the bottom row: a Postgres like this one carries about 18 such
workers; large PDFs (seconds each) take the top row. The idle polls are most of it: past these sizes, poll
less often (\`pollSeconds\`, with LISTEN/NOTIFY to wake workers), give Postgres its own cores, or
fetch jobs in batches.
`

await main()
