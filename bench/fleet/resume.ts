/**
 * A corpus of small documents, resumable at any point (issue 19's target): N tiny generated
 * documents (HTML pages and CSV files, default 10,000) are queued with
 * `strata parse <dir> --out <dir> --queue --wait` and drained by 2 `strata worker --slots 1`
 * processes on a throwaway Postgres. At a few points drawn at random (seeded), everything is
 * killed with SIGKILL, the enqueuing command included: the first point falls within 800 ms of
 * the run's record committing (while the command inserts the jobs, or just after), the others at
 * random shares of the documents done. Each time the same command and 2 fresh workers are started
 * again. At the end: every document has exactly one output (`<out>/<path>.md`, holding that
 * document's own marker, no other file), the run reports every document done, none failed and no
 * result stored twice, and `strata runs show <id> --json` says the same.
 *
 * Figures: documents/s over the whole run (restarts included) and between interruptions, the
 * number of interruptions, and per restart the time to resume: until the command had re-recorded
 * the run and re-enqueued what was left, and until the first document finished after the restart.
 *
 *   node_modules/.bin/node -C @strata/source bench/fleet/resume.ts [--docs 10000] [--kills 4] [--seed 19] [--write]
 *
 * `--write` stores bench/results/fleet-resume.json and .md.
 */
import { JobQueue } from "@strata/core"
import { CorpusRuns, layer as queueLayer, type RunProgress, runsLayer } from "@strata/fleet"
import { Context, Effect, Layer, Option, Redacted } from "effect"
import { type ChildProcess, spawn, spawnSync } from "node:child_process"
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { cpus, loadavg, tmpdir } from "node:os"
import { join, relative, resolve } from "node:path"
import { performance } from "node:perf_hooks"
import { optionsFromFlags } from "../../packages/cli/src/Cli.ts"
import { runIdFor } from "../../packages/cli/src/Fleet.ts"
import { startPostgres } from "../../packages/store/test/support/TempPostgres.ts"

const args = process.argv.slice(2)
const option = (name: string): string | undefined => {
  const i = args.indexOf(name)
  return i >= 0 ? args[i + 1] : undefined
}
const docs = Number(option("--docs") ?? 10_000)
const kills = Number(option("--kills") ?? 4)
const seed = Number(option("--seed") ?? 19)
const WORKERS = 2
/** The whole bench gives up after this long (a stuck run must not hang CI or a session). */
const GIVE_UP_MS = Number(option("--give-up-min") ?? 60) * 60_000
const bin = new URL("../../packages/cli/src/bin.ts", import.meta.url).pathname

/** mulberry32: a small seeded generator, so a run's kill points can be drawn again. */
const random = (() => {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
})()

const marker = (i: number) => `resume-doc-${String(i).padStart(5, "0")}`

/** Tiny documents, 500 a folder: odd ones HTML, even ones CSV; each holds its own marker. */
const corpus = (input: string): Array<string> => {
  const paths: Array<string> = []
  for (let i = 0; i < docs; i++) {
    const folder = `part-${String(Math.floor(i / 500)).padStart(2, "0")}`
    mkdirSync(join(input, folder), { recursive: true })
    const path = i % 2 === 1 ? `${folder}/${marker(i)}.html` : `${folder}/${marker(i)}.csv`
    const text = i % 2 === 1
      ? `<!doctype html><html><head><title>${marker(i)}</title></head><body><main><h1>${marker(i)}</h1><p>A short page, number ${i}.</p></main></body></html>`
      : `name,qty\n${marker(i)},${i}\nother,${i + 1}\n`
    writeFileSync(join(input, path), text)
    paths.push(path)
  }
  return paths
}

interface Proc {
  readonly child: ChildProcess
  readonly exited: Promise<number | null>
  readonly stderr: () => string
  readonly stdout: () => string
}

const strata = (argv: ReadonlyArray<string>, env: NodeJS.ProcessEnv, onLine?: (line: string) => void): Proc => {
  const child = spawn(process.execPath, ["--conditions=@strata/source", bin, ...argv], { env, stdio: ["ignore", "pipe", "pipe"] })
  let err = ""
  let out = ""
  let pending = ""
  child.stderr!.setEncoding("utf8").on("data", (chunk: string) => {
    // Workers print a line per document: keep the tail only, and let the caller count the lines.
    err = (err + chunk).slice(-20_000)
    if (onLine === undefined) return
    const lines = (pending + chunk).split("\n")
    pending = lines.pop() ?? ""
    for (const line of lines) onLine(line)
  })
  child.stdout!.setEncoding("utf8").on("data", (chunk: string) => void (out += chunk))
  return { child, exited: new Promise((done) => child.on("exit", (code) => done(code))), stderr: () => err, stdout: () => out }
}

const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms))

/** Every file under `dir`, relative, with `/`. */
const filesUnder = (dir: string): Array<string> =>
  readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => relative(dir, join(entry.parentPath, entry.name)).split("\\").join("/"))

interface Interruption {
  readonly at: "enqueueing" | "converting"
  /** Documents done when everything was killed. */
  readonly doneAtKill: number
  /** Jobs the queue held (any state) just after the kill: short of the documents, the kill cut the enqueueing. */
  readonly jobsAtKill: number
  readonly secondsIntoRun: number
  /** Restart to the command's "N to convert" line (the run re-recorded and what was left re-enqueued). */
  resubmitSeconds?: number | undefined
  /** Restart to the first document finished after it. */
  firstDocumentSeconds?: number | undefined
  /** What the restarted command said it found. */
  resumedLine?: string | undefined
}

const main = async () => {
  const root = mkdtempSync(join(tmpdir(), "strata-fleet-resume-"))
  const input = join(root, "in")
  const out = join(root, "out")
  const t0 = performance.now()
  const paths = corpus(input)
  console.log(`${docs} documents generated in ${((performance.now() - t0) / 1000).toFixed(1)} s under ${input}`)
  const postgres = await startPostgres()
  const url = postgres.createDatabase("fleet_resume")
  const env = { ...process.env, STRATA_DATABASE_URL: url, STRATA_BROWSER: "off" }
  const runId = runIdFor([input], { outDir: resolve(out), options: optionsFromFlags({}, true), json: false, formats: undefined })
  const progressOf = Effect.flatMap(CorpusRuns, (runs) => runs.progress(runId)).pipe(Effect.provide(runsLayer({ url: Redacted.make(url) })))
  const progress = async (): Promise<RunProgress | undefined> =>
    Option.getOrUndefined(await Effect.runPromise(progressOf).catch(() => Option.none<RunProgress>()))

  // Kill points: the first at a random moment within 800 ms of the run's record committing (while
  // the command inserts its jobs, 1,000 a statement, or just after), the others at shares of the documents done.
  const firstKillMs = Math.round(random() * 800)
  let recordedAt: number | undefined
  /** Jobs in the corpus queue (in any state): how far the enqueueing had gone at a kill. */
  const jobsInQueue = () =>
    Effect.runPromise(Effect.scoped(Effect.gen(function*() {
      const queue = Context.get(yield* Layer.build(queueLayer({ url: Redacted.make(url), onError: () => {} })), JobQueue)
      const depth = yield* queue.depth("corpus")
      return depth.queued + depth.active + depth.failed
    })).pipe(Effect.orElseSucceed(() => 0)))
  const shares = Array.from({ length: Math.max(0, kills - 1) }, () => 0.1 + random() * 0.8).sort((a, b) => a - b)
  const interruptions: Array<Interruption> = []
  let conversions = 0
  let copies = 0
  const live: Array<Proc> = []
  const segments: Array<{ seconds: number; documents: number }> = []
  let final: { code: number | null; proc: Proc } | undefined
  const started = performance.now()
  try {
    for (let round = 0; round <= kills; round++) {
      const restartAt = performance.now()
      const doneBefore = (await progress())?.done ?? 0
      const command = strata(["parse", input, "--out", out, "--queue", "--wait"], env)
      const workers = Array.from({ length: WORKERS }, () =>
        strata(["worker", "--slots", "1"], env, (line) => {
          if (line.startsWith("strata worker: converted ")) conversions++
          else if (line.startsWith("strata worker: copied ")) copies++
        }))
      live.push(command, ...workers)
      const last = interruptions.at(-1)
      const lastRound = round === kills
      let firstSeen = false
      let resubmitted = false
      // Follows this round until its kill point (or, in the last round, until the command ends).
      for (;;) {
        if (performance.now() - started > GIVE_UP_MS) throw new Error(`gave up after ${GIVE_UP_MS / 60_000} min`)
        const elapsed = performance.now() - restartAt
        const seen = command.stderr().match(/strata: run \w+: .*to convert[^\n]*/)
        if (seen !== null && !resubmitted) {
          resubmitted = true
          if (last !== undefined) {
            last.resubmitSeconds = elapsed / 1000
            last.resumedLine = seen[0]
          }
        }
        const p = await progress()
        if (p !== undefined) recordedAt ??= performance.now()
        if (!firstSeen && p !== undefined && p.done > doneBefore) {
          firstSeen = true
          if (last !== undefined) last.firstDocumentSeconds = (performance.now() - restartAt) / 1000
        }
        const exited = command.child.exitCode !== null || command.child.signalCode !== null
        if (lastRound) {
          if (exited) {
            final = { code: command.child.exitCode, proc: command }
            segments.push({ seconds: elapsed / 1000, documents: (p?.done ?? 0) - doneBefore })
            break
          }
        } else if (exited) {
          throw new Error(`the command ended before its kill point (exit ${command.child.exitCode}): ${command.stderr()}`)
        } else if (
          round === 0
            ? recordedAt !== undefined && performance.now() - recordedAt >= firstKillMs
            : (p?.done ?? 0) >= Math.floor(shares[round - 1]! * docs)
        ) {
          const at = resubmitted ? "converting" : "enqueueing"
          for (const proc of live.splice(0)) proc.child.kill("SIGKILL")
          await Promise.all([command, ...workers].map((proc) => proc.exited))
          const after = await progress()
          const jobsAtKill = await jobsInQueue()
          interruptions.push({ at, doneAtKill: after?.done ?? 0, jobsAtKill, secondsIntoRun: (performance.now() - started) / 1000 })
          segments.push({ seconds: elapsed / 1000, documents: (after?.done ?? 0) - doneBefore })
          console.log(
            `interruption ${round + 1} (${at}) at ${(elapsed / 1000).toFixed(1)} s into round ${round + 1}: ${after?.done ?? 0}/${docs} done, ` +
              `${jobsAtKill} jobs in the queue; ` +
              `command, ${WORKERS} workers SIGKILLed`
          )
          break
        }
        await sleep(round === 0 ? 50 : 250)
      }
      if (last !== undefined) {
        console.log(
          `  resumed: ${last.resumedLine ?? "?"} in ${last.resubmitSeconds?.toFixed(1) ?? "-"} s; first document after ${last.firstDocumentSeconds?.toFixed(1) ?? "-"} s`
        )
      }
    }
    for (const proc of live.splice(0)) proc.child.kill("SIGTERM")
  } finally {
    for (const proc of live) proc.child.kill("SIGKILL")
  }
  const wallSeconds = (performance.now() - started) / 1000

  // Checks: exactly one output per document, with its own marker; the run complete; runs show agrees.
  const outputs = filesUnder(out)
  const expected = new Set(paths.map((p) => `${p}.md`))
  const missing = [...expected].filter((p) => !outputs.includes(p))
  const extra = outputs.filter((p) => !expected.has(p))
  const wrong = paths.filter((p, i) => !readFileSync(join(out, `${p}.md`), "utf8").includes(marker(i)))
  const end = await progress()
  const shown = spawnSync(process.execPath, ["--conditions=@strata/source", bin, "runs", "show", runId, "--json"], { env, encoding: "utf8" })
  const reported = JSON.parse(shown.stdout || "{}") as Partial<RunProgress>
  postgres.stop()
  rmSync(root, { recursive: true, force: true })

  const checks = {
    commandExit: final?.code ?? null,
    outputs: outputs.length,
    missing: missing.length,
    extraFiles: extra.length,
    extraExamples: extra.slice(0, 5),
    wrongContent: wrong.length,
    runDone: end?.done ?? 0,
    runFailed: end?.failed ?? 0,
    doubleWrites: end?.doubleWrites ?? -1,
    runsShowExit: shown.status,
    runsShowDone: reported.done ?? 0,
    runsShowTotal: reported.total ?? 0
  }
  const ok = checks.commandExit === 0 && checks.missing === 0 && checks.extraFiles === 0 && checks.wrongContent === 0 &&
    checks.runDone === docs && checks.runFailed === 0 && checks.doubleWrites === 0 && checks.runsShowExit === 0 &&
    checks.runsShowDone === docs && checks.runsShowTotal === docs
  const running = segments.reduce((sum, s) => sum + s.seconds, 0)
  const report = {
    date: new Date().toISOString(),
    machine: `${cpus().length} cores (${cpus()[0]?.model ?? "?"})`,
    command: `node_modules/.bin/node -C @strata/source bench/fleet/resume.ts --docs ${docs} --kills ${kills} --seed ${seed}`,
    docs,
    workers: WORKERS,
    seed,
    ok,
    wallSeconds,
    docsPerSecond: docs / wallSeconds,
    segments,
    conversions,
    copies,
    interruptions,
    checks,
    load: loadavg().map((x) => +x.toFixed(2))
  }
  console.log(JSON.stringify({ ok, wallSeconds: +wallSeconds.toFixed(1), docsPerSecond: +(docs / wallSeconds).toFixed(2), conversions, copies, checks }, null, 2))
  if (args.includes("--write")) {
    mkdirSync("bench/results", { recursive: true })
    writeFileSync("bench/results/fleet-resume.json", JSON.stringify(report, null, 2) + "\n")
    const rows = interruptions.map((x, i) =>
      `| ${i + 1} | ${x.at} | ${x.secondsIntoRun.toFixed(1)} | ${x.doneAtKill} | ${x.jobsAtKill} | ${x.resubmitSeconds?.toFixed(1) ?? "-"} | ${x.firstDocumentSeconds?.toFixed(1) ?? "-"} | ${x.resumedLine?.replace(/^strata: run \w+: /, "").replace(/\. Workers:.*$/, "") ?? "-"} |`
    )
    writeFileSync(
      "bench/results/fleet-resume.md",
      `# Fleet: a corpus of small documents, resumable at any point

${report.date}, ${report.machine}. \`${report.command} --write\`

${docs} tiny generated documents (half HTML pages, half 3-line CSV files, each with its own marker),
one queued run (\`strata parse <dir> --out <dir> --queue --wait\`) drained by ${WORKERS} \`strata worker
--slots 1\` processes, Postgres from Debian on loopback, all on this machine's cores. ${interruptions.length}
times at points drawn at random (seed ${seed}) the command and both workers were killed with
SIGKILL and started again: the first within 800 ms of the run's record committing (while the
command inserts the jobs, 1,000 a statement, or just after; "jobs in the queue" below ${docs} means
the kill cut the enqueueing), the others at random shares of the documents done.

**Result: ${ok ? "complete" : "NOT complete"}.** ${checks.outputs} output files for ${docs} documents (missing ${checks.missing},
other files ${checks.extraFiles}, outputs without their document's marker ${checks.wrongContent}); the run: ${checks.runDone} done,
${checks.runFailed} failed, results stored twice ${checks.doubleWrites}; the last command exited ${checks.commandExit};
\`strata runs show --json\`: ${checks.runsShowDone}/${checks.runsShowTotal} done.

| | |
| --- | ---: |
| wall time, restarts included | ${wallSeconds.toFixed(1)} s |
| documents/s over the whole run | ${(docs / wallSeconds).toFixed(2)} |
| documents/s between interruptions (time from each start to its kill or the end) | ${(segments.reduce((s, x) => s + x.documents, 0) / running).toFixed(2)} |
| interruptions (all processes SIGKILLed) | ${interruptions.length} |
| conversions reported by the workers / copies | ${conversions} / ${copies} |

| # | killed while | s into the run | documents done | jobs in the queue | restart to re-enqueued (s) | restart to first document (s) | what the restarted command found |
| ---: | --- | ---: | ---: | ---: | ---: | ---: | --- |
${rows.join("\n")}

Conversions above ${docs} are documents a killed worker had started: the queue runs their job again once its
heartbeat is missed (about 10 s), and the result key makes the second write harmless. The time to the first
document after a restart is mostly the workers' own start-up (loading the pipeline and a reader process) on
2 shared cores. Load average after: ${report.load.join(" / ")}.
`
    )
  }
  if (!ok) process.exitCode = 1
}

await main()
