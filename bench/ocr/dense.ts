/**
 * OCR seconds per page on the issue's case: dense 300-dpi A4 scans (bench/ocr/DensePages.ts: one
 * and two columns of 10-11 pt text, a table page, headings), read by the real PDF reader in mode
 * `ocr` (render or embedded-scan extraction, orientation, tesseract, layout, reading order) with
 * one tesseract engine, single-threaded. Reports wall and CPU seconds per page (CPU of the whole
 * process, all threads: the per-core cost) and CER of the reader's blocks against the drawn text
 * in reading order (markdown syntax stripped from both). Engine variants run side by side in the
 * same process, interleaved round by round (ABC, CBA, ...), so load changes hit them alike.
 *
 *   node_modules/.bin/node --conditions=@strata/source bench/ocr/dense.ts [--variants a,b] [--rounds N] [--write]
 *
 * `--write` stores bench/results/ocr-dense.json and ocr-dense.md.
 */
import { Effect, Stream } from "effect"
import { cpus, loadavg } from "node:os"
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs"
import type { OcrEngine } from "@strata/core"
import { characterErrorRate } from "../../packages/ocr/src/ErrorRate.ts"
import { makeEngine } from "../../packages/ocr/src/EngineChoice.ts"
import * as LineEngine from "../../packages/ocr/src/LineEngine.ts"
import * as TesseractEngine from "../../packages/ocr/src/TesseractEngine.ts"
import { resolveModel } from "../../packages/ocr/src/TesseractModel.ts"
import { degrade, renderAll } from "../../packages/ocr/test/support/SyntheticPages.ts"
import { heuristicLayout, heuristicReadingOrder, heuristicTables, pdfReaderWith } from "../../packages/pdf/src/index.ts"
import { imageA4Pdf, makeDensePdf } from "./DensePages.ts"
import type { DensePage } from "./DensePages.ts"

const args = process.argv.slice(2)
const option = (name: string): string | undefined => {
  const i = args.indexOf(name)
  return i >= 0 ? args[i + 1] : undefined
}
const ROUNDS = Number(option("--rounds") ?? 1)
/** The results' file name (bench/results/<name>.json and .md). */
const NAME = option("--name") ?? "ocr-dense"
/** The pages' text (DensePages' seed): the default set is the one the options were tuned on; another seed is held out. */
const SEED = Number(option("--seed") ?? 1717)

interface Variant {
  /** A tesseract engine with these options, or, with `lines`, our own line engine (LineEngine.ts). */
  readonly engine: TesseractEngine.TesseractOptions
  readonly lines?: LineEngine.LineEngineOptions
  /** The cascade (CascadeEngine.ts): `lines` first, tesseract with `engine` for pages under `below`. */
  readonly cascade?: { readonly below?: number }
  readonly note: string
}

/** `--line-model path` (without `.onnx`/`.json`): another line model than the committed one, e.g. a training checkpoint. */
const LINE_MODEL = option("--line-model")
const lineModel = LINE_MODEL === undefined ? undefined : { onnx: `${LINE_MODEL}.onnx`, card: `${LINE_MODEL}.json` }

const NO_DICTIONARY = { load_system_dawg: "0", load_freq_dawg: "0" }

const VARIANTS: Record<string, Variant> = {
  lines: { engine: {}, lines: { model: lineModel }, note: "our own engine (LineEngine.ts): Regions.ts lines read by the conv-tiny line model, no fallback" },
  "lines-fb50": { engine: {}, lines: { model: lineModel, fallback: 0.5 }, note: "our own engine; lines whose least certain character is under 0.5 read again by tessdata_fast (PSM 7)" },
  "lines-fb80": { engine: {}, lines: { model: lineModel, fallback: 0.8 }, note: "our own engine; lines whose least certain character is under 0.8 read again by tessdata_fast (PSM 7)" },
  cascade: { engine: {}, lines: { model: lineModel }, cascade: {}, note: "the cascade: the line engine, and tesseract (PSM auto) for pages whose mean character confidence is under 0.97" },
  baseline: { engine: { model: "best_int" }, note: "as shipped before issue 17: best_int LSTM, PSM auto, 300 dpi, inverted retry on" },
  fast: { engine: { model: "fast" }, note: "tessdata_fast (Debian's tesseract-ocr-eng), 300 dpi" },
  "fast-reread": { engine: { model: "fast", reread: 0.9 }, note: "tessdata_fast, 300 dpi; lines under 0.9 confidence read again by best_int" },
  "fast-dpi-200": { engine: { model: "fast", dpi: 200 }, note: "tessdata_fast, the scan resized to 200 dpi" },
  "no-invert": { engine: { model: "best_int", invert: false }, note: "best_int, 300 dpi, tessedit_do_invert=0" },
  "dpi-250": { engine: { model: "best_int", dpi: 250 }, note: "best_int, the scan resized to 250 dpi (lanczos3) by the reader" },
  "dpi-200": { engine: { model: "best_int", dpi: 200 }, note: "best_int, the scan resized to 200 dpi" },
  "dpi-200-no-invert": { engine: { model: "best_int", dpi: 200, invert: false }, note: "best_int, 200 dpi and tessedit_do_invert=0" },
  legacy: { engine: { recogniser: "legacy" }, note: "tesseract's legacy classifier (OEM 0, the 4.0.0 file), 300 dpi" },
  // The speed screen (bench/results/ocr-dense-speed.md): dictionaries, our own layout, narrowing, and their combinations.
  "fast-nodict": { engine: { model: "fast", parameters: NO_DICTIONARY }, note: "tessdata_fast, 300 dpi, load_system_dawg=0 and load_freq_dawg=0 (set at init)" },
  "fast-blocks": { engine: { model: "fast", layout: "blocks" }, note: "tessdata_fast, 300 dpi, our XY cut (Regions.ts) and each block read with PSM 6" },
  "fast-lines": { engine: { model: "fast", layout: "lines" }, note: "tessdata_fast, 300 dpi, our XY cut into lines and each line read with PSM 7" },
  "best_int-sq85": { engine: { model: "best_int", squeeze: 0.85 }, note: "best_int, 300 dpi, the page narrowed to 0.85 of its width" },
  "best_int-sq75": { engine: { model: "best_int", squeeze: 0.75 }, note: "best_int, 300 dpi, the page narrowed to 0.75 of its width" },
  "fast-sq75": { engine: { model: "fast", squeeze: 0.75 }, note: "tessdata_fast, 300 dpi, the page narrowed to 0.75 of its width" },
  "best_int-dpi-200-sq75": { engine: { model: "best_int", dpi: 200, squeeze: 0.75 }, note: "best_int, 200 dpi, narrowed to 0.75" },
  "fast-dpi-200-sq75": { engine: { model: "fast", dpi: 200, squeeze: 0.75 }, note: "tessdata_fast, 200 dpi, narrowed to 0.75" },
  "fast-dpi-200-sq65": { engine: { model: "fast", dpi: 200, squeeze: 0.65 }, note: "tessdata_fast, 200 dpi, narrowed to 0.65" },
  "fast-dpi-200-sq75-lines": { engine: { model: "fast", dpi: 200, squeeze: 0.75, layout: "lines" }, note: "tessdata_fast, 200 dpi, narrowed to 0.75, our lines read with PSM 7" }
}
const CONDITIONS = (option("--conditions") ?? "clean,scanned,harsh").split(",")

/** Markdown syntax and layout whitespace out, so only the words and their order count. */
const plain = (text: string): string =>
  text
    .replace(/<[^>]+>/g, " ")
    .split("\n")
    .filter((line) => !/^\s*\|?(\s*:?-{3,}:?\s*\|)+\s*:?-*:?\s*$/.test(line))
    .map((line) => line.replace(/^\s*#+\s+/, "").replace(/\|/g, " ").replace(/\*\*/g, "").replace(/\\([\\`*_{}[\]()#+\-.!|%<>])/g, "$1"))
    .join(" ")
    .replace(/\s+/g, " ")
    .trim()

interface Row {
  readonly variant: string
  /** The weights the engine read with (TesseractModel.ts). */
  readonly model: string
  readonly condition: string
  readonly pages: number
  readonly cer: number
  readonly cerByPage: ReadonlyArray<number>
  readonly wallSecondsPerPage: number
  readonly cpuSecondsPerPage: number
  /** Of which the main thread's: pdf.js, scan extraction, orientation, layout (the rest is the tesseract thread). */
  readonly mainCpuSecondsPerPage: number
  /** CPU s/page of each round, of which the row shows the median. */
  readonly cpuRuns: ReadonlyArray<number>
  readonly loadAverage: number
}

/** The median (of rounds: the shared machine's load spikes hit single rounds). */
const median = (xs: ReadonlyArray<number>): number => {
  const s = [...xs].sort((a, b) => a - b)
  return s.length === 0 ? NaN : s.length % 2 === 1 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2
}

/** `fast` or `best_int` (with the network when read from a tessdata folder), or why the variant cannot run here. */
const modelOf = (variant: Variant): string => {
  if (variant.lines !== undefined) return LINE_MODEL === undefined ? "conv-tiny" : LINE_MODEL.split("/").pop() ?? LINE_MODEL
  const options = variant.engine
  const model = resolveModel({ model: options.model, tessdataDir: options.tessdataDir, legacy: options.recogniser === "legacy" })
  return model.name
}

const buildSets = async () => {
  const { bytes, pages } = await makeDensePdf(SEED)
  const clean = await renderAll(bytes, 300)
  // A decent office scanner: light noise and blur, a small skew, JPEG q75.
  const scanned = await Promise.all(clean.map((g, i) => degrade(g, { noise: 12, blur: 0.5, rotate: i % 2 === 0 ? 0.8 : -0.6, jpeg: 75 }, i + 3)))
  // A bad photocopy, as in bench/ocr/run.ts: heavy noise, stronger blur and skew, JPEG q35.
  const harsh = CONDITIONS.includes("harsh")
    ? await Promise.all(clean.map((g, i) => degrade(g, { noise: 45, blur: 1.3, rotate: i % 2 === 0 ? -3 : 2, jpeg: 35 }, i + 7)))
    : []
  const all = { clean, scanned, harsh }
  return { pages, warm: await imageA4Pdf(clean.slice(0, 1)), sets: await Promise.all(CONDITIONS.map(async (condition) => ({ condition, pdf: await imageA4Pdf(all[condition as keyof typeof all]) }))) }
}

const readOnce = (engine: OcrEngine["Service"], pdf: Uint8Array, truth: ReadonlyArray<DensePage>) =>
  Effect.gen(function*() {
    const reader = pdfReaderWith({ layout: heuristicLayout(heuristicTables), readingOrder: heuristicReadingOrder, ocr: engine })
    const t0 = performance.now()
    const c0 = process.cpuUsage()
    const m0 = process.threadCpuUsage()
    const result = yield* reader.read({ bytes: pdf, format: "pdf", options: { mode: "ocr", deadline: Date.now() + 600_000 } })
    const pages = Array.from(yield* Stream.runCollect(result.pages))
    const c1 = process.cpuUsage(c0)
    const m1 = process.threadCpuUsage(m0)
    const wall = (performance.now() - t0) / 1000
    const cerByPage = pages.map((p, i) => characterErrorRate(plain(truth[i].text), plain(p.blocks.map((b) => b.content).join("\n"))))
    return { wall, cpu: (c1.user + c1.system) / 1e6, mainCpu: (m1.user + m1.system) / 1e6, cerByPage, pages: pages.length }
  })

const main = async () => {
  const names = (option("--variants") ?? Object.keys(VARIANTS).join(",")).split(",")
  const { pages, warm, sets } = await buildSets()
  const startLoad = loadavg()[0]
  const acc = new Map<string, { wall: Array<number>; cpu: Array<number>; mainCpu: Array<number>; cer: Array<Array<number>>; load: Array<number> }>()
  await Effect.runPromise(Effect.scoped(Effect.gen(function*() {
    const engines: Record<string, OcrEngine["Service"]> = {}
    for (const name of names) {
      const v = VARIANTS[name]
      if (v === undefined) throw new Error(`unknown variant ${name}`)
      const engine = v.cascade !== undefined
        ? yield* makeEngine({ _tag: "cascade", first: v.lines, second: v.engine, ...v.cascade })
        : v.lines !== undefined
        ? yield* LineEngine.make(v.lines)
        : yield* TesseractEngine.make(v.engine)
      engines[name] = engine
      // Warm-up: the first page pays for loading the traineddata.
      yield* readOnce(engines[name], warm, pages).pipe(Effect.asVoid)
    }
    for (let round = 0; round < ROUNDS; round++) {
      const order = round % 2 === 0 ? names : [...names].reverse()
      for (const { condition, pdf } of sets) {
        for (const name of order) {
          const r = yield* readOnce(engines[name], pdf, pages)
          const key = `${name}\u0000${condition}`
          const a = acc.get(key) ?? { wall: [], cpu: [], mainCpu: [], cer: pages.map(() => []), load: [] }
          a.wall.push(r.wall / r.pages)
          a.cpu.push(r.cpu / r.pages)
          a.mainCpu.push(r.mainCpu / r.pages)
          r.cerByPage.forEach((c, i) => a.cer[i].push(c))
          a.load.push(loadavg()[0])
          acc.set(key, a)
          const mean = r.cerByPage.reduce((s, c) => s + c, 0) / r.pages
          process.stderr.write(`${name} ${condition} round ${round + 1}: ${(r.wall / r.pages).toFixed(2)} s/page wall, ${(r.cpu / r.pages).toFixed(2)} CPU s/page (main thread ${(r.mainCpu / r.pages).toFixed(2)}), CER ${(mean * 100).toFixed(2)}% [${r.cerByPage.map((c) => (c * 100).toFixed(2)).join(", ")}], load ${loadavg()[0].toFixed(2)}\n`)
        }
      }
    }
  })))
  const rows: Array<Row> = []
  for (const [key, a] of acc) {
    const [variant, condition] = key.split("\u0000")
    const cerByPage = a.cer.map(median)
    rows.push({
      variant,
      model: modelOf(VARIANTS[variant]),
      condition,
      pages: pages.length,
      cer: cerByPage.reduce((s, c) => s + c, 0) / cerByPage.length,
      cerByPage,
      wallSecondsPerPage: median(a.wall),
      cpuSecondsPerPage: median(a.cpu),
      mainCpuSecondsPerPage: median(a.mainCpu),
      cpuRuns: a.cpu,
      loadAverage: median(a.load)
    })
  }
  const conditions = {
    date: new Date().toISOString(),
    cpu: cpus()[0]?.model ?? "unknown",
    cores: cpus().length,
    loadAverageAtStart: Math.round(startLoad * 100) / 100,
    loadAverageAtEnd: Math.round(loadavg()[0] * 100) / 100,
    rounds: ROUNDS,
    pages: pages.map((p) => ({ kind: p.kind, chars: p.chars }))
  }
  const pct = (x: number) => `${(x * 100).toFixed(2)}%`
  const md = [
    "# OCR on dense 300-dpi A4 scans",
    "",
    `The issue's case: ${pages.length} A4 pages (${pages.map((p) => `${p.kind}, ${p.chars} characters`).join("; ")}), drawn with pdf-lib (bench/ocr/DensePages.ts), rendered at 300 dpi (2480x3508), clean, scanned (noise σ12, blur σ0.5, ±0.7° skew, JPEG q75) and harsh (a bad photocopy: noise σ45, blur σ1.3, −3°/+2° skew, JPEG q35), wrapped into image-only A4 PDFs and read by the PDF reader in mode \`ocr\` with one single-threaded tesseract engine: the embedded scan, orientation and deskew, tesseract, layout, tables and reading order. CER compares the blocks' text with the drawn text in reading order, markdown syntax stripped from both, so misordered blocks count too. CPU s/page is the whole process (all threads) and is the per-core cost; the main thread's share is pdf.js, extracting the scan, orientation and deskew, layout and reading order, and the rest is tesseract's thread; wall s/page is inflated by the shared machine's load. ${conditions.date}, ${conditions.cpu}, ${conditions.cores} cores, ${ROUNDS} round(s) interleaved (figures are medians over rounds; CER per page is each page's median), page text seed ${SEED}${SEED === 1717 ? " (the set the options were tuned on)" : " (held out: not the tuning set, 1717)"}, load average ${conditions.loadAverageAtStart} → ${conditions.loadAverageAtEnd}.`,
    "",
    "| variant | model | condition | CER | CER by page | CPU s/page | CPU s/page by round | of which main thread | wall s/page | load avg |",
    "|---|---|---|---:|---|---:|---|---:|---:|---:|",
    ...rows.map((r) => `| ${r.variant} | ${r.model} | ${r.condition} | ${pct(r.cer)} | ${r.cerByPage.map(pct).join(", ")} | ${r.cpuSecondsPerPage.toFixed(2)} | ${r.cpuRuns.map((c) => c.toFixed(2)).join(", ")} | ${r.mainCpuSecondsPerPage.toFixed(2)} | ${r.wallSecondsPerPage.toFixed(2)} | ${r.loadAverage.toFixed(1)} |`),
    "",
    "Variants:",
    ...names.map((n) => `- ${n}: ${VARIANTS[n].note}`),
    ""
  ].join("\n")
  process.stdout.write(md)
  if (args.includes("--write")) {
    const dir = new URL("../results/", import.meta.url)
    mkdirSync(dir, { recursive: true })
    writeFileSync(new URL(`${NAME}.json`, dir), JSON.stringify({ conditions, variants: Object.fromEntries(names.map((n) => [n, VARIANTS[n]])), rows }, null, 2) + "\n")
    // Earlier runs stay below the new table, under "## History".
    const file = new URL(`${NAME}.md`, dir)
    const before = existsSync(file) ? readFileSync(file, "utf8") : ""
    const at = before.indexOf("\n## History")
    writeFileSync(file, at < 0 ? md : `${md}${before.slice(at)}`)
  }
}

await main()
