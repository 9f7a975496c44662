/**
 * The long-document check: a 2,000-page born-digital PDF (generated with pdf-lib: headings,
 * paragraphs, a list, a ruled table and a running header and footer on every page) read through
 * the streaming reader and the MarkdownWriter, for pages/second and peak RSS.
 *
 *   node bench/pdf/BigDocument.ts [pages]   (prints one JSON line)
 */
import { Effect, Stream } from "effect"
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs"
import { PDFDocument, StandardFonts, rgb } from "pdf-lib"
import { MarkdownWriter } from "@strata/core"
import { pdfReader } from "@strata/pdf"

const SENTENCES = [
  "The committee reviewed the proposal and asked for a revised budget before the next meeting.",
  "Measurements were repeated three times to reduce the error introduced by the instruments.",
  "Each section of the report summarises the findings of one working group in plain language.",
  "Readers who need the full data set can find it in the appendix at the end of this volume."
]

export const makeBigPdf = async (pages: number): Promise<Uint8Array> => {
  const doc = await PDFDocument.create()
  const regular = await doc.embedFont(StandardFonts.TimesRoman)
  const bold = await doc.embedFont(StandardFonts.TimesRomanBold)
  for (let n = 1; n <= pages; n++) {
    const page = doc.addPage([612, 792])
    const text = (x: number, top: number, s: string, size = 10, font = regular) =>
      page.drawText(s, { x, y: 792 - top - size * 0.8, size, font, color: rgb(0, 0, 0) })
    text(72, 36, "Strata Benchmark Annual Report", 8)
    text(300, 760, `${n}`, 8)
    text(72, 70, `${n}. Section number ${n}`, 14, bold)
    let y = 96
    for (let p = 0; p < 5; p++) {
      for (let l = 0; l < 4; l++) {
        text(72, y, `${SENTENCES[(n + p + l) % 4]}`.slice(0, 95), 10)
        y += 12.5
      }
      y += 8
    }
    for (let i = 0; i < 3; i++) {
      text(80, y, "•", 10)
      text(94, y, `Item ${i + 1} of the list on page ${n}`, 10)
      y += 12.5
    }
    y += 10
    const xs = [72, 200, 320, 440]
    for (let r = 0; r <= 4; r++) page.drawLine({ start: { x: 72, y: 792 - (y + r * 16) }, end: { x: 440, y: 792 - (y + r * 16) }, thickness: 0.5 })
    for (const x of xs) page.drawLine({ start: { x, y: 792 - y }, end: { x, y: 792 - (y + 64) }, thickness: 0.5 })
    for (let r = 0; r < 4; r++) for (let c = 0; c < 3; c++) text(xs[c] + 4, y + r * 16 + 4, r === 0 ? `Column ${c + 1}` : `${n * 10 + r * 3 + c}`, 9)
  }
  return await doc.save({ useObjectStreams: true })
}

if (import.meta.main) {
  const pages = Number(process.argv[2] ?? 2000)
  const cacheDir = new URL("../../node_modules/.cache/strata-bench/", import.meta.url)
  mkdirSync(cacheDir, { recursive: true })
  const file = new URL(`big-${pages}.pdf`, cacheDir)
  if (!existsSync(file)) writeFileSync(file, await makeBigPdf(pages))
  const bytes = new Uint8Array(readFileSync(file))
  const t0 = performance.now()
  const out = await Effect.runPromise(Effect.scoped(Effect.gen(function*() {
    const result = yield* pdfReader.read({ bytes, format: "pdf", options: { mode: "fast", deadline: Date.now() + 600_000 } })
    const writer = new MarkdownWriter({ pageMarkers: true })
    let count = 0
    let tables = 0
    yield* Stream.runForEach(result.pages, (page) => Effect.sync(() => {
      const pushed = writer.push(page)
      count++
      tables += pushed.blockPage.items.filter((b) => b.type === "table").length
    }))
    return { pages: count, tables, chars: writer.markdown.length }
  })))
  const seconds = (performance.now() - t0) / 1000
  process.stdout.write(JSON.stringify({
    pages: out.pages, tables: out.tables, markdownChars: out.chars, seconds,
    pagesPerSecond: out.pages / seconds, maxRssMb: process.resourceUsage().maxRSS / 1024, bytes: bytes.length
  }) + "\n")
}
