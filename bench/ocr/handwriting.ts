/**
 * How tesseract reads handwriting-like pages (issue 17, item 6): notes written in Debian's
 * handwriting fonts (apt-get install fonts-dkg-handwriting fonts-breip fonts-femkeklaver
 * fonts-dancingscript fonts-humor-sans fonts-kristi fonts-rufscript fonts-bwht fonts-comic-neue),
 * rendered by sharp's SVG renderer (librsvg with fontconfig) at 300 dpi, each word jittered (baseline,
 * rotation, size), each page slanted, then scanner-damaged; read by the TesseractEngine as the PDF
 * reader would (orientation, deskew, PSM auto). Rendered fonts are not real handwriting: every
 * letter is the same each time it occurs, joins are regular, and there is no pen pressure, so
 * these figures are a lower bound of the error on real notes.
 *
 *   node_modules/.bin/node --conditions=@strata/source bench/ocr/handwriting.ts [--write]
 *
 * `--peek DIR` writes each font's first page there (halved). `--write` stores bench/results/ocr-handwriting.json and .md.
 */
import { Effect } from "effect"
import { cpus, loadavg } from "node:os"
import { mkdirSync, writeFileSync } from "node:fs"
import sharp from "sharp"
import { rawImage } from "../../packages/core/src/index.ts"
import { characterErrorRate, wordErrorRate } from "../../packages/ocr/src/ErrorRate.ts"
import { toGrayPixels } from "../../packages/ocr/src/ImageOps.ts"
import * as TesseractEngine from "../../packages/ocr/src/TesseractEngine.ts"
import { degrade, prng } from "../../packages/ocr/test/support/SyntheticPages.ts"

const args = process.argv.slice(2)

/** Family names as fontconfig knows them; Comic Neue is a hand-lettered print face, the control. */
const FONTS = [
  { family: "DkgHandwriting", style: "print" },
  { family: "Breip", style: "print" },
  { family: "femkeklaver", style: "print" },
  { family: "Humor Sans", style: "print" },
  { family: "Because We Build", style: "print" },
  { family: "Because We Learn", style: "print" },
  { family: "Rufscript", style: "script" },
  { family: "Dancing Script", style: "cursive" },
  { family: "Kristi", style: "cursive" },
  { family: "Comic Neue", style: "control (hand-lettered print face)" }
]

const WORDS = (
  "please call the office before friday about the invoice and the meeting notes " +
  "remember to send the report to Anna with the new figures and the map of the river " +
  "we agreed to meet again next week at ten in the library after the lecture " +
  "thank you for the lovely dinner and the books I will return them soon " +
  "buy milk bread eggs apples and coffee pick up the parcel at 4 pm"
).split(" ")

const escapeXml = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;")

/** A note of `lines` lines in one font: SVG text, each word jittered, the page slanted; the truth lines. */
const note = (family: string, seed: number, lines = 9) => {
  const rand = prng(seed)
  const width = 2480
  const size = 62 + Math.round(rand() * 12) // about 15-18 pt at 300 dpi
  const slant = -12 + rand() * 24 // degrees of skewX
  const out: Array<string> = []
  const texts: Array<string> = []
  let y = 220
  for (let l = 0; l < lines; l++) {
    const n = 5 + Math.floor(rand() * 4)
    const words = Array.from({ length: n }, () => WORDS[Math.floor(rand() * WORDS.length)])
    if (l === 0) words[0] = words[0][0].toUpperCase() + words[0].slice(1)
    out.push(words.join(" "))
    // One <text> a line so the font's own advances space the words; tspans jitter each word.
    const spans: Array<string> = []
    let offset = 0
    for (const [i, w] of words.entries()) {
      const dy = (rand() - 0.5) * size * 0.12
      const rot = ((rand() - 0.5) * 4).toFixed(2)
      const s = (size * (0.93 + rand() * 0.14)).toFixed(1)
      const dx = i === 0 ? 0 : size * (0.15 + rand() * 0.25)
      spans.push(`<tspan dx="${dx.toFixed(1)}" dy="${(dy - offset).toFixed(1)}" rotate="${rot}" font-size="${s}">${escapeXml(w)}${i < words.length - 1 ? " " : ""}</tspan>`)
      offset = dy
    }
    texts.push(`<text x="${(220 + rand() * 60).toFixed(1)}" y="${y.toFixed(1)}" font-family="${family}" font-size="${size}">${spans.join("")}</text>`)
    y += size * (1.7 + rand() * 0.3)
  }
  const height = Math.max(1200, Math.ceil(y + 160))
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}"><rect width="100%" height="100%" fill="#fff"/><g transform="skewX(${slant.toFixed(1)}) translate(${(-Math.tan(slant * Math.PI / 180) * height / 2).toFixed(1)} 0)" fill="#1a1a40">${texts.join("")}</g></svg>`
  return { svg, truth: out.join("\n"), slant }
}

const main = async () => {
  const startLoad = loadavg()[0]
  const rows: Array<{ font: string; style: string; pages: number; cer: number; wer: number; cpuSecondsPerPage: number; emptyLines: number }> = []
  await Effect.runPromise(Effect.scoped(Effect.gen(function*() {
    const engine = yield* TesseractEngine.make({})
    for (const [f, font] of FONTS.entries()) {
      let cer = 0
      let wer = 0
      let cpu = 0
      let empty = 0
      const pages = 2
      for (let p = 0; p < pages; p++) {
        const { svg, truth } = note(font.family, 100 + f * 10 + p)
        const rendered = yield* Effect.promise(() => toGrayPixels(sharp(Buffer.from(svg), { density: 72 })))
        const scan = yield* Effect.promise(() => degrade(rendered, { noise: 10, blur: 0.6, rotate: p === 0 ? 0.7 : -0.5, jpeg: 80 }, f + p))
        const peek = args.indexOf("--peek")
        if (peek >= 0 && p === 0) yield* Effect.promise(() => sharp(scan.data, { raw: { width: scan.width, height: scan.height, channels: 1 } }).resize(1240).png().toFile(`${args[peek + 1]}/${font.family.replace(/ /g, "-")}.png`))
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
      rows.push({ font: font.family, style: font.style, pages, cer: cer / pages, wer: wer / pages, cpuSecondsPerPage: cpu / pages, emptyLines: empty })
      process.stderr.write(`${font.family}: CER ${(cer / pages * 100).toFixed(1)}% WER ${(wer / pages * 100).toFixed(1)}%\n`)
    }
  })))
  const hand = rows.filter((r) => r.style !== "control (hand-lettered print face)")
  const mean = (xs: Array<number>) => xs.reduce((s, x) => s + x, 0) / Math.max(1, xs.length)
  const summary = {
    handwritingCer: mean(hand.map((r) => r.cer)),
    handwritingWer: mean(hand.map((r) => r.wer)),
    printCer: mean(hand.filter((r) => r.style === "print").map((r) => r.cer)),
    cursiveCer: mean(hand.filter((r) => r.style !== "print").map((r) => r.cer))
  }
  const conditions = { date: new Date().toISOString(), cpu: cpus()[0]?.model ?? "unknown", cores: cpus().length, loadAverageAtStart: Math.round(startLoad * 100) / 100, loadAverageAtEnd: Math.round(loadavg()[0] * 100) / 100 }
  const pct = (x: number) => `${(x * 100).toFixed(1)}%`
  const md = [
    "# Tesseract on handwriting-style notes",
    "",
    `Notes of 9 lines (5-8 words, 15-18 pt at 300 dpi) in Debian's handwriting fonts, rendered by sharp's SVG renderer with each word jittered (baseline ±6%, rotation ±2°, size ±7%), the page slanted −12° to +12°, then lightly scanned (noise σ10, blur σ0.6, ±0.7° skew, JPEG q80); 2 pages per font, read by TesseractEngine (best_int LSTM, PSM auto) as the PDF reader would; CER and WER are case-blind (some hands are all capitals). Rendered fonts are not real handwriting (every letter identical each time, regular joins): a lower bound of the error on real notes. ${conditions.date}, ${conditions.cpu}, ${conditions.cores} cores, load average ${conditions.loadAverageAtStart} → ${conditions.loadAverageAtEnd}.`,
    "",
    "| font | kind | CER | WER | lines missing | CPU s/page |",
    "|---|---|---:|---:|---:|---:|",
    ...rows.map((r) => `| ${r.font} | ${r.style} | ${pct(r.cer)} | ${pct(r.wer)} | ${r.emptyLines} / ${r.pages * 9} | ${r.cpuSecondsPerPage.toFixed(2)} |`),
    "",
    `Handwriting fonts (control excluded): CER ${pct(summary.handwritingCer)}, WER ${pct(summary.handwritingWer)}; print hands ${pct(summary.printCer)}, script and cursive ${pct(summary.cursiveCer)}.`,
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
