/**
 * How our OCR engines read handwriting-like pages (issue 17, item 6), side by side: notes written in Debian's
 * handwriting fonts (apt-get install fonts-dkg-handwriting fonts-breip fonts-femkeklaver
 * fonts-dancingscript fonts-humor-sans fonts-kristi fonts-rufscript fonts-bwht fonts-comic-neue),
 * rendered by sharp's SVG renderer (librsvg with fontconfig) at 300 dpi, each word jittered (baseline,
 * rotation, size), each page slanted, then scanner-damaged; read as the PDF reader would by tesseract
 * (orientation, deskew, PSM auto) and by the line engine with the committed model(s). The fonts a line
 * model was trained on are marked (its card's `hands_train`): only the held-out fonts say anything
 * about hands it never saw. Rendered fonts are not real handwriting: every
 * letter is the same each time it occurs, joins are regular, and there is no pen pressure, so
 * these figures are a lower bound of the error on real notes.
 *
 *   node_modules/.bin/node --conditions=@strata/source bench/ocr/handwriting.ts [--engines tesseract,lines,lines-hand]
 *     [--line-model path-without-extension] [--pages 2] [--write]
 *
 * `--peek DIR` writes each font's first page there (halved). `--write` stores bench/results/ocr-handwriting.json and .md.
 */
import { Effect } from "effect"
import { cpus, loadavg } from "node:os"
import { mkdirSync, readFileSync, writeFileSync } from "node:fs"
import sharp from "sharp"
import { rawImage } from "../../packages/core/src/index.ts"
import { characterErrorRate, wordErrorRate } from "../../packages/ocr/src/ErrorRate.ts"
import { toGrayPixels } from "../../packages/ocr/src/ImageOps.ts"
import { makeEngine } from "../../packages/ocr/src/EngineChoice.ts"
import * as LineEngine from "../../packages/ocr/src/LineEngine.ts"
import * as TesseractEngine from "../../packages/ocr/src/TesseractEngine.ts"
import { degrade } from "../../packages/ocr/test/support/SyntheticPages.ts"
import { FONTS, note } from "./HandwritingPages.ts"

const args = process.argv.slice(2)
const option = (name: string) => {
  const i = args.indexOf(name)
  return i >= 0 ? args[i + 1] : undefined
}
const PAGES = Number(option("--pages") ?? 2)
const modelDir = new URL("../../models/ocr/line-model/", import.meta.url).pathname
const modelOf = (name: string) => ({ onnx: `${modelDir}${name}.onnx`, card: `${modelDir}${name}.json` })
const candidate = option("--line-model")

/** The engines compared; `lines-hand` is the line engine with the model fine-tuned on handwriting faces. */
const ENGINES: Record<string, { readonly lines?: LineEngine.LineEngineOptions; readonly cascade?: boolean; readonly card?: string; readonly note: string }> = {
  tesseract: { note: "TesseractEngine, best_int LSTM, PSM auto" },
  lines: { lines: { model: modelOf("conv-tiny") }, card: modelOf("conv-tiny").card, note: "LineEngine with conv-tiny (printed faces only)" },
  "lines-hand": {
    lines: { model: candidate === undefined ? undefined : { onnx: `${candidate}.onnx`, card: `${candidate}.json` } },
    card: candidate === undefined ? undefined : `${candidate}.json`,
    note: "LineEngine with the `--line-model` given (here conv-tiny-hand: conv-tiny fine-tuned with handwriting faces by train.py `--hand 0.35 --tiny 0.12`, 4 families held out)"
  },
  cascade: { cascade: true, note: "the cascade (CascadeEngine.ts): the line engine with the default model, and tesseract for pages whose mean character confidence is under 0.97" }
}
// `lines-hand` needs a fine-tuned model: none is committed (models/ocr/README.md, "Handwriting"), so it runs only with `--line-model`.
const engineNames = (option("--engines") ?? (candidate === undefined ? "tesseract,lines,cascade" : "tesseract,lines,lines-hand,cascade")).split(",")

/** The font files a model's card says it trained on (its `hands_train`), as fontconfig family names. */
const trainedFamilies = (card: string | undefined): ReadonlySet<string> => {
  if (card === undefined) return new Set()
  try {
    const files: Array<string> = JSON.parse(readFileSync(card, "utf8")).hands_train ?? []
    const letters = (s: string) => s.toLowerCase().replace(/[^a-z]/g, "")
    // A file names its family in full (BecauseWeBuild-Regular.otf) or by a stem of it (dkg.ttf for DkgHandwriting).
    const isOf = (file: string, family: string) => letters(file).startsWith(letters(family)) || letters(family).startsWith(letters(file.replace(/\.[a-z]+$/i, "")))
    return new Set(FONTS.filter((f) => files.some((file) => isOf(file, f.family))).map((f) => f.family))
  } catch {
    return new Set()
  }
}

type Row = { engine: string; font: string; style: string; trained: boolean; pages: number; cer: number; wer: number; cpuSecondsPerPage: number; emptyLines: number }

const main = async () => {
  const startLoad = loadavg()[0]
  const rows: Array<Row> = []
  // The pages are made once and read by every engine in turn, font by font.
  const pages = await Promise.all(FONTS.map((font, f) => Promise.all(Array.from({ length: PAGES }, async (_, p) => {
    const { svg, truth } = note(font.family, 100 + f * 10 + p)
    const rendered = await toGrayPixels(sharp(Buffer.from(svg), { density: 72 }))
    const scan = await degrade(rendered, { noise: 10, blur: 0.6, rotate: p === 0 ? 0.7 : -0.5, jpeg: 80 }, f + p)
    const peek = option("--peek")
    if (peek !== undefined && p === 0) await sharp(scan.data, { raw: { width: scan.width, height: scan.height, channels: 1 } }).resize(1240).png().toFile(`${peek}/${font.family.replace(/ /g, "-")}.png`)
    return { scan, truth }
  }))))
  for (const name of engineNames) {
    const spec = ENGINES[name]
    if (spec === undefined) throw new Error(`unknown engine ${name}`)
    const trained = trainedFamilies(spec.card)
    await Effect.runPromise(Effect.scoped(Effect.gen(function*() {
      const engine = spec.cascade === true
        ? yield* makeEngine({ _tag: "cascade" })
        : spec.lines !== undefined
        ? yield* LineEngine.make(spec.lines)
        : yield* TesseractEngine.make({})
      for (const [f, font] of FONTS.entries()) {
        let cer = 0
        let wer = 0
        let cpu = 0
        let empty = 0
        for (const { scan, truth } of pages[f]) {
          const c0 = process.cpuUsage()
          const r = yield* engine.recognize(rawImage(scan.data, scan.width, scan.height, 1), { dpi: 300 })
          const c1 = process.cpuUsage(c0)
          cpu += (c1.user + c1.system) / 1e6
          const text = r.lines.map((l) => l.text).join("\n")
          // Case-blind: some hands are all capitals, and case is often a guess in handwriting.
          cer += characterErrorRate(truth.toLowerCase(), text.toLowerCase())
          wer += wordErrorRate(truth.toLowerCase(), text.toLowerCase())
          empty += Math.max(0, truth.split("\n").length - r.lines.length)
        }
        rows.push({ engine: name, font: font.family, style: font.style, trained: trained.has(font.family), pages: PAGES, cer: cer / PAGES, wer: wer / PAGES, cpuSecondsPerPage: cpu / PAGES, emptyLines: empty })
        process.stderr.write(`${name} ${font.family}: CER ${(cer / PAGES * 100).toFixed(1)}% WER ${(wer / PAGES * 100).toFixed(1)}%\n`)
      }
    })))
  }
  const mean = (xs: Array<number>) => xs.reduce((s, x) => s + x, 0) / Math.max(1, xs.length)
  const control = "control (hand-lettered print face)"
  // The held-out hands are the fonts no compared line model trained on.
  const trainedAnywhere = new Set(rows.filter((r) => r.trained).map((r) => r.font))
  const summary = Object.fromEntries(engineNames.map((name) => {
    const mine = rows.filter((r) => r.engine === name && r.style !== control)
    const held = mine.filter((r) => !trainedAnywhere.has(r.font))
    return [name, {
      handwritingCer: mean(mine.map((r) => r.cer)),
      heldOutCer: mean(held.map((r) => r.cer)),
      heldOutWer: mean(held.map((r) => r.wer)),
      trainedCer: mean(mine.filter((r) => trainedAnywhere.has(r.font)).map((r) => r.cer)),
      controlCer: mean(rows.filter((r) => r.engine === name && r.style === control).map((r) => r.cer)),
      cpuSecondsPerPage: mean(rows.filter((r) => r.engine === name).map((r) => r.cpuSecondsPerPage))
    }]
  }))
  const conditions = { date: new Date().toISOString(), cpu: cpus()[0]?.model ?? "unknown", cores: cpus().length, loadAverageAtStart: Math.round(startLoad * 100) / 100, loadAverageAtEnd: Math.round(loadavg()[0] * 100) / 100 }
  const pct = (x: number) => `${(x * 100).toFixed(1)}%`
  const md = [
    "# OCR engines on handwriting-style notes",
    "",
    `Notes of 9 lines (5-8 words, 15-18 pt at 300 dpi) in Debian's handwriting fonts, rendered by sharp's SVG renderer with each word jittered (baseline ±6%, rotation ±2°, size ±7%), the page slanted −12° to +12°, then lightly scanned (noise σ10, blur σ0.6, ±0.7° skew, JPEG q80); ${PAGES} pages per font, read as the PDF reader would; CER and WER are case-blind (some hands are all capitals). Rendered fonts are not real handwriting (every letter identical each time, regular joins): a lower bound of the error on real notes. ${conditions.date}, ${conditions.cpu}, ${conditions.cores} cores, load average ${conditions.loadAverageAtStart} → ${conditions.loadAverageAtEnd}.`,
    "",
    ...engineNames.map((n) => `- \`${n}\`: ${ENGINES[n].note}`),
    "",
    `A font marked "trained" was in a compared line model's training set (its card's \`hands_train\`); the held-out figures use only the other hands. The training renderer (models/ocr/line-model/train.py, \`render_hand\`) jitters words the same way this bench does, so the held-out gap is about new letter shapes, not new distortions.`,
    "",
    `| font | kind | trained | ${engineNames.map((n) => `${n} CER | ${n} WER`).join(" | ")} |`,
    `|---|---|---|${engineNames.map(() => "---:|---:").join("|")}|`,
    ...FONTS.map((font) => {
      const mine = rows.filter((r) => r.font === font.family)
      return `| ${font.family} | ${font.style} | ${trainedAnywhere.has(font.family) ? "yes" : "no"} | ${engineNames.map((n) => {
        const r = mine.find((x) => x.engine === n)
        return r === undefined ? "- | -" : `${pct(r.cer)} | ${pct(r.wer)}`
      }).join(" | ")} |`
    }),
    "",
    "| engine | held-out hands CER | held-out WER | trained hands CER | all hands CER | control CER | CPU s/page |",
    "|---|---:|---:|---:|---:|---:|---:|",
    ...engineNames.map((n) => {
      const s = summary[n]
      return `| ${n} | ${pct(s.heldOutCer)} | ${pct(s.heldOutWer)} | ${trainedAnywhere.size > 0 ? pct(s.trainedCer) : "-"} | ${pct(s.handwritingCer)} | ${pct(s.controlCer)} | ${s.cpuSecondsPerPage.toFixed(2)} |`
    }),
    ""
  ].join("\n")
  process.stdout.write(md)
  if (args.includes("--write")) {
    const dir = new URL("../results/", import.meta.url)
    mkdirSync(dir, { recursive: true })
    writeFileSync(new URL("ocr-handwriting.json", dir), JSON.stringify({ conditions, summary, rows }, null, 2) + "\n")
    writeFileSync(new URL("ocr-handwriting.md", dir), md)
  }
}

await main()
