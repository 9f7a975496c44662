/**
 * Speed only: Strata's reader over the Docling PDFs, several rounds in one process after a
 * warm-up round, printing pages/s per round, the median, and pages per CPU-second (steadier
 * on a shared machine); quality is run.ts's job.
 *
 *   node bench/pdf/Speed.ts [rounds]   (prints one JSON line)
 */
import { readdirSync, readFileSync } from "node:fs"
import { fileURLToPath } from "node:url"
import { strata } from "./Engines.ts"

const dir = fileURLToPath(new URL("../../../shared/corpus/docling/pdf/", import.meta.url))
const rounds = Number(process.argv[2] ?? 5)
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
    const out = await strata(f.bytes, f.name)
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
  rounds: rates.map((r) => Math.round(r * 10) / 10),
  medianPagesPerSecond: Math.round(median(rates) * 10) / 10,
  medianPagesPerCpuSecond: Math.round(median(cpuRates) * 10) / 10,
  perFileMs: Object.fromEntries(Object.entries(perFile).map(([k, v]) => [k, Math.round(median(v))])),
  maxRssMb: Math.round(process.resourceUsage().maxRSS / 1024)
}) + "\n")
