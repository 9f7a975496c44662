/**
 * What a replica's page count (the queue decision, issue 19) costs its own thread: the longest
 * stall of the event loop while a PDF is counted, and the count's wall time, counted on this
 * thread (`pdfPageCount`, pdf.js here: how replicas counted before) and through a reader process
 * (`countPdfPages` with the pool, as `npm start` now does). Documents: a text PDF of 300 pages
 * made here, and a 50 MB one (46 MB of stream data added) whose cross-reference offsets are all
 * wrong, which pdf.js rebuilds by scanning the whole file. Medians over `--rounds` rounds.
 *
 *   node_modules/.bin/node -C @strata/source bench/fleet/count.ts [--rounds 5] [--write]
 */
import { DocumentReaders } from "@strata/core"
import { Effect, type Layer, Option } from "effect"
import { mkdirSync, writeFileSync } from "node:fs"
import { cpus, loadavg } from "node:os"
import { performance } from "node:perf_hooks"
import { Strata } from "strata"
import { textPdf } from "../../packages/http/test/support.ts"
import { median } from "../Stats.ts"

const args = process.argv.slice(2)
const rounds = Number(args[args.indexOf("--rounds") + 1] ?? 5) || 5

const small = new Uint8Array(textPdf(300))
const header = small.indexOf(0x0a) + 1
const filler = Buffer.from(`1000 0 obj\n<< /Length ${46 * 2 ** 20} >>\nstream\n${"x".repeat(46 * 2 ** 20)}\nendstream\nendobj\n`, "latin1")
const damaged = new Uint8Array(Buffer.concat([small.subarray(0, header), filler, small.subarray(header)]))

/** Counts `bytes` with `count`, timing the longest gap between 5 ms ticks of this thread. */
const stallOf = (count: Effect.Effect<number | undefined>) =>
  Effect.promise(async () => {
    let worst = 0
    let last = performance.now()
    const timer = setInterval(() => {
      const now = performance.now()
      worst = Math.max(worst, now - last - 5)
      last = now
    }, 5)
    const t0 = performance.now()
    const pages = await Effect.runPromise(count)
    const wall = performance.now() - t0
    await new Promise((resolve) => setTimeout(resolve, 15))
    clearInterval(timer)
    return { pages, wall, stall: Math.max(0, worst) }
  })

const program = Effect.gen(function*() {
  const pool = Option.getOrThrow(yield* Effect.serviceOption(DocumentReaders))
  const ways = {
    "on this thread (pdfPageCount, before)": (bytes: Uint8Array) => Strata.pdfPageCount(bytes),
    "in a reader process (countPdfPages, now)": (bytes: Uint8Array) => Strata.countPdfPages(bytes).pipe(Effect.provideService(DocumentReaders, pool))
  }
  const docs = { "300-page text PDF (0.3 MB)": small, "50 MB PDF, cross-reference rebuilt by scanning": damaged }
  // A warm-up of each, so module loading and the reader's start are not counted.
  for (const count of Object.values(ways)) yield* count(small)
  const rows: Array<{ way: string; doc: string; pages: number | undefined; stall: Array<number>; wall: Array<number> }> = []
  for (const [doc, bytes] of Object.entries(docs)) {
    for (const way of Object.keys(ways)) rows.push({ way, doc, pages: undefined, stall: [], wall: [] })
    for (let round = 0; round < rounds; round++) {
      for (const [way, count] of Object.entries(ways)) {
        const row = rows.find((r) => r.way === way && r.doc === doc)!
        const measured = yield* stallOf(count(bytes))
        row.pages = measured.pages
        row.stall.push(measured.stall)
        row.wall.push(measured.wall)
      }
    }
  }
  return rows
})

const load0 = loadavg()
const rows = await Effect.runPromise(Effect.scoped(Effect.provide(program, Strata.layer({ isolation: { workers: 1 }, ocr: false, browser: false }) as Layer.Layer<never, unknown>)))
const load1 = loadavg()
const fmt = (load: Array<number>) => load.map((v) => v.toFixed(2)).join(" / ")
const md = [
  "# Fleet: a replica's page count and its own thread",
  "",
  `${new Date().toISOString()}, ${cpus().length} cores (${cpus()[0]?.model.trim()}), load average ${fmt(load0)} before and ${fmt(load1)} after (shared machine).`,
  "`node_modules/.bin/node -C @strata/source bench/fleet/count.ts --write`",
  "",
  `The longest stall of the counting process's event loop (gaps between 5 ms ticks) and the count's wall time, medians over ${rounds} interleaved rounds after a warm-up. The reader pool has one process.`,
  "",
  "| document | counted | pages | worst stall, ms | wall, ms |",
  "| --- | --- | ---: | ---: | ---: |",
  ...rows.map((row) => `| ${row.doc} | ${row.way} | ${row.pages ?? "-"} | ${median(row.stall).toFixed(1)} | ${median(row.wall).toFixed(1)} |`)
].join("\n")
console.log(md)
if (args.includes("--write")) {
  mkdirSync("bench/results", { recursive: true })
  writeFileSync("bench/results/fleet-count.md", md + "\n")
  writeFileSync("bench/results/fleet-count.json", JSON.stringify({ date: new Date().toISOString(), load: [load0, load1], rounds, rows }, null, 2) + "\n")
}
