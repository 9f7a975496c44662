/**
 * Speed only: Strata's reader over the Docling PDFs, several rounds in one process after a
 * warm-up round, printing pages/s per round, the median, and pages per CPU-second (steadier
 * on a shared machine); quality is run.ts's job.
 *
 * With `--layout learned` the reader's Layout is packages/pdf LearnedLayout (the heuristic, then
 * models/layout's classifier on onnxruntime-node), its ONNX session opened once for the run.
 *
 *   node bench/pdf/Speed.ts [rounds] [--layout learned]   (prints one JSON line)
 */
import { readdirSync, readFileSync } from "node:fs"
import { fileURLToPath } from "node:url"
import { Effect, Scope } from "effect"
import { heuristicLayout, heuristicReadingOrder, heuristicTables, learnedLayout, onnxClassifier, pdfReaderWith } from "@strata/pdf"
import { strata, strataWith } from "./Engines.ts"

const dir = fileURLToPath(new URL("../../../shared/corpus/docling/pdf/", import.meta.url))
const args = process.argv.slice(2)
const layoutAt = args.indexOf("--layout")
const layout = layoutAt >= 0 ? args.splice(layoutAt, 2)[1] : "heuristic"
const rounds = Number(args[0] ?? 5)
const engine = layout === "learned"
  ? strataWith(pdfReaderWith({
    layout: learnedLayout(heuristicLayout(heuristicTables), await Effect.runPromise(Effect.flatMap(Scope.make(), (scope) => Scope.provide(onnxClassifier(), scope)))),
    readingOrder: heuristicReadingOrder
  }))
  : strata
const files = readdirSync(dir).filter((f) => f.endsWith(".pdf")).sort().map((f) => ({ name: f, bytes: new Uint8Array(readFileSync(dir + f)) }))
const perFile: Record<string, Array<number>> = {}
const rates: Array<number> = []
const cpuRates: Array<number> = []
for (let round = 0; round <= rounds; round++) {
  let pages = 0
  let ms = 0
  const cpu0 = process.cpuUsage()
  for (const f of files) {
    const t0 = performance.now()
    const out = await engine(f.bytes, f.name)
    const dt = performance.now() - t0
    pages += out.pages
    ms += dt
    if (round > 0) (perFile[f.name] ??= []).push(dt)
  }
  const cpu = process.cpuUsage(cpu0)
  if (round > 0) {
    rates.push(pages / (ms / 1000))
    // CPU time (user + system) is what a loaded machine distorts least: pages per CPU-second.
    cpuRates.push(pages / ((cpu.user + cpu.system) / 1e6))
  }
}
const median = (xs: Array<number>) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]
process.stdout.write(JSON.stringify({
  layout,
  rounds: rates.map((r) => Math.round(r * 10) / 10),
  medianPagesPerSecond: Math.round(median(rates) * 10) / 10,
  medianPagesPerCpuSecond: Math.round(median(cpuRates) * 10) / 10,
  perFileMs: Object.fromEntries(Object.entries(perFile).map(([k, v]) => [k, Math.round(median(v))])),
  maxRssMb: Math.round(process.resourceUsage().maxRSS / 1024)
}) + "\n")
