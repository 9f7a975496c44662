/**
 * Documents per second for 1, 2 and 3 `strata worker` processes (one slot each) draining one
 * queued corpus run of small generated documents (PDFs made with pdf-lib, HTML pages, CSV files).
 * On this 2-core machine the figure is bound by its cores, not by the queue: a third worker has
 * no core of its own. Each count gets a fresh database and the same corpus; the time is from the
 * first worker started to the run's last document (worker start-up included, as a fleet pays it).
 *
 *   node_modules/.bin/node -C @strata/source bench/fleet/workers.ts [--docs 90] [--workers 1,2,3] [--write]
 *
 * `--write` stores bench/results/fleet-workers.json and .md.
 */
import { CorpusRuns, runsLayer } from "@strata/fleet"
import { Effect, Option, Redacted } from "effect"
import { type ChildProcess, spawn, spawnSync } from "node:child_process"
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs"
import { cpus, loadavg, tmpdir } from "node:os"
import { join } from "node:path"
import { PDFDocument, StandardFonts } from "pdf-lib"
import { startPostgres } from "../../packages/store/test/support/TempPostgres.ts"

const args = process.argv.slice(2)
const option = (name: string): string | undefined => {
  const i = args.indexOf(name)
  return i >= 0 ? args[i + 1] : undefined
}
const docs = Number(option("--docs") ?? 90)
const workerCounts = (option("--workers") ?? "1,2,3").split(",").map(Number)
const bin = new URL("../../packages/cli/src/bin.ts", import.meta.url).pathname

const corpus = async (): Promise<string> => {
  const dir = mkdtempSync(join(tmpdir(), "strata-fleet-bench-"))
  for (let i = 0; i < docs; i++) {
    const kind = i % 3
    if (kind === 0) {
      const doc = await PDFDocument.create()
      const font = await doc.embedFont(StandardFonts.Helvetica)
      for (let p = 0; p < 3; p++) {
        const page = doc.addPage([595, 842])
        for (let l = 0; l < 30; l++) page.drawText(`Document ${i}, page ${p + 1}, line ${l + 1}: quarterly figures and notes.`, { x: 50, y: 800 - l * 24, size: 11, font })
      }
      writeFileSync(join(dir, `doc-${i}.pdf`), await doc.save())
    } else if (kind === 1) {
      const paragraphs = Array.from({ length: 20 }, (_, p) => `<p>Paragraph ${p} of article ${i} with a few sentences of ordinary text.</p>`).join("")
      writeFileSync(join(dir, `doc-${i}.html`), `<!doctype html><html><head><title>Article ${i}</title></head><body><main><h1>Article ${i}</h1>${paragraphs}</main></body></html>`)
    } else {
      writeFileSync(join(dir, `doc-${i}.csv`), ["name,qty,price", ...Array.from({ length: 50 }, (_, r) => `item-${r},${r},${(r * 1.5).toFixed(2)}`)].join("\n"))
    }
  }
  return dir
}

const main = async () => {
  const postgres = await startPostgres()
  const input = await corpus()
  const rows: Array<{ workers: number; seconds: number; docsPerSecond: number; steady: number | undefined; load: Array<number> }> = []
  const children: Array<ChildProcess> = []
  try {
    for (const [index, workers] of workerCounts.entries()) {
      const url = postgres.createDatabase(`fleet_workers_${index}_${workers}`)
      const env = { ...process.env, STRATA_DATABASE_URL: url, STRATA_BROWSER: "off" }
      const out = mkdtempSync(join(tmpdir(), "strata-fleet-bench-out-"))
      const submit = spawnSync(process.execPath, ["--conditions=@strata/source", bin, "parse", input, "--out", out, "--queue"], { env, encoding: "utf8" })
      const runId = submit.stdout.trim()
      if (submit.status !== 0 || runId === "") throw new Error(`parse --queue failed: ${submit.stderr}`)
      const started = performance.now()
      let ready = 0
      for (let w = 0; w < workers; w++) {
        const child = spawn(process.execPath, ["--conditions=@strata/source", bin, "worker", "--slots", "1"], { env, stdio: ["ignore", "ignore", "pipe"] })
        child.stderr!.setEncoding("utf8").on("data", (chunk: string) => {
          if (chunk.includes("slots on queue")) ready++
        })
        children.push(child)
      }
      const progress = Effect.flatMap(CorpusRuns, (runs) => Effect.map(runs.progress(runId), Option.getOrThrow))
      /** When every worker said it was ready, and how many documents were done by then. */
      let allReady: { at: number; done: number } | undefined
      while (true) {
        const p = await Effect.runPromise(progress.pipe(Effect.provide(runsLayer({ url: Redacted.make(url) }))))
        if (allReady === undefined && ready === workers) allReady = { at: performance.now(), done: p.done }
        if (p.done + p.failed >= p.total) {
          if (p.failed > 0) throw new Error(`${p.failed} documents failed: ${JSON.stringify(p.failures)}`)
          break
        }
        await new Promise((resolve) => setTimeout(resolve, 250))
      }
      const end = performance.now()
      const seconds = (end - started) / 1000
      const steady = allReady === undefined || end - allReady.at < 1000 ? undefined : (docs - allReady.done) / ((end - allReady.at) / 1000)
      for (const child of children.splice(0)) child.kill("SIGTERM")
      rows.push({ workers, seconds, docsPerSecond: docs / seconds, steady, load: loadavg().map((x) => +x.toFixed(2)) })
      console.log(`${workers} worker(s): ${docs} documents in ${seconds.toFixed(1)} s, ${(docs / seconds).toFixed(2)} documents/s, ${steady?.toFixed(2) ?? "-"} once all were up, load ${loadavg()[0]!.toFixed(2)}`)
      await new Promise((resolve) => setTimeout(resolve, 2000))
    }
  } finally {
    for (const child of children) child.kill("SIGKILL")
    postgres.stop()
  }
  const report = { date: new Date().toISOString(), machine: `${cpus().length} cores (${cpus()[0]?.model ?? "?"})`, docs, rows }
  if (args.includes("--write")) {
    mkdirSync("bench/results", { recursive: true })
    writeFileSync("bench/results/fleet-workers.json", JSON.stringify(report, null, 2) + "\n")
    writeFileSync(
      "bench/results/fleet-workers.md",
      `# Fleet: documents/s by worker processes

${report.date}, ${report.machine}. \`node_modules/.bin/node -C @strata/source bench/fleet/workers.ts --write\`

${docs} small generated documents (a third each: 3-page PDFs, HTML articles, 50-row CSV files), one
queued run, drained by N \`strata worker --slots 1\` processes on this machine, with Postgres on the
same cores. Time from the first worker's start to the last document, start-up included.

| workers | seconds | documents/s | documents/s once every worker was up | load average after (1 / 5 / 15 min) |
| ---: | ---: | ---: | ---: | --- |
${rows.map((r) => `| ${r.workers} | ${r.seconds.toFixed(1)} | ${r.docsPerSecond.toFixed(2)} | ${r.steady?.toFixed(2) ?? "-"} | ${r.load.join(" / ")} |`).join("\n")}

Bound by the 2 cores (shared with other work while this ran): a third worker has no core of its
own, and each worker's reader process and the worker itself share one. A worker's start-up
(loading the pipeline, connecting, its first reader process: a few seconds of CPU) is paid on
the same cores, so on a corpus this small more workers can finish later. Past the cores, the queue's
own cost (bench/results/fleet.md: about 2 ms and 2 Postgres round trips a job) is small against a
document's conversion.
`
    )
  }
}

await main()
