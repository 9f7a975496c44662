/**
 * Dense A4 pages for the OCR speed target (issue 17: "a scanned page takes at most 1.5 s per
 * core, measured on 300-dpi A4"): full pages of 10-11 pt body text in one and two columns, a
 * table page and headings, made with pdf-lib the way packages/ocr/test/support/SyntheticPages.ts
 * makes its sparse Letter pages, so the text and its reading order are known exactly. Rendered
 * at 300 dpi, scanner-damaged and wrapped back into an image-only A4 PDF (one 2480x3508 scan a
 * page) for the PDF reader to OCR.
 */
import { PDFDocument, rgb, StandardFonts } from "pdf-lib"
import type { PDFFont, PDFPage } from "pdf-lib"
import type { Gray } from "../../packages/ocr/src/ImageOps.ts"
import { graySharp } from "../../packages/ocr/src/ImageOps.ts"
import { prng, wrap } from "../../packages/ocr/test/support/SyntheticPages.ts"

export const A4: [number, number] = [595.28, 841.89]

const WORDS = (
  "the report describes a method for measuring water quality in rivers and lakes across several regions " +
  "samples were collected every month between March and October and analysed in the laboratory within two days " +
  "results show that nitrate levels increased while phosphate remained stable at most stations during the survey " +
  "further work should examine the effect of rainfall on these values and compare them with data from earlier years " +
  "committee members agreed to publish the findings together with maps tables and a short summary for the public " +
  "invoice number total amount due payment terms customer address delivery date quantity unit price contract " +
  "Council Agency Department Europe London Paris research budget policy health transport energy education"
).split(" ")

const sentence = (rand: () => number): string => {
  const n = 8 + Math.floor(rand() * 12)
  const words: Array<string> = []
  for (let i = 0; i < n; i++) words.push(WORDS[Math.floor(rand() * WORDS.length)])
  if (rand() < 0.35) words.splice(1 + Math.floor(rand() * (n - 1)), 0, String(Math.floor(rand() * 9000) + 100))
  if (rand() < 0.15) words.splice(1 + Math.floor(rand() * (n - 1)), 0, `(${Math.floor(rand() * 90) + 10}%)`)
  const s = words.join(" ")
  return s[0].toUpperCase() + s.slice(1) + (rand() < 0.2 ? ";" : ".")
}

export interface DensePage {
  /** What the page is: one-column, two-column, table, headings. */
  readonly kind: string
  /** The text in reading order (a table row by row, cells left to right). */
  readonly text: string
  /** Characters of text on the page (spaces included). */
  readonly chars: number
}

/** Fills a column from `top` down to `bottom` with paragraphs (and a subheading now and then); returns the lines. */
const column = (
  page: PDFPage,
  rand: () => number,
  at: { x: number; width: number; top: number; bottom: number },
  font: PDFFont,
  bold: PDFFont,
  size: number,
  subheadings: boolean
): Array<string> => {
  const out: Array<string> = []
  let y = at.top
  let k = 0
  while (y > at.bottom + size * 3) {
    if (subheadings && k > 0 && k % 3 === 0) {
      y -= size * 0.6
      const h = `${k / 3 + 1}. ${sentence(rand).split(" ").slice(0, 5).join(" ").replace(/[.;,]$/, "")}`
      page.drawText(h, { x: at.x, y, size: size + 2, font: bold })
      out.push(h)
      y -= (size + 2) * 1.6
    }
    const para = Array.from({ length: 2 + Math.floor(rand() * 3) }, () => sentence(rand)).join(" ")
    for (const line of wrap(para, font, size, at.width)) {
      if (y < at.bottom) break
      page.drawText(line, { x: at.x, y, size, font })
      out.push(line)
      y -= size * 1.25
    }
    y -= size * 0.7
    k++
  }
  return out
}

/** The test set: one-column Times 10.5 pt, two-column Helvetica 10 pt, a table page, Times 11 pt with headings. */
export const makeDensePdf = async (seed: number) => {
  const doc = await PDFDocument.create()
  const times = await doc.embedFont(StandardFonts.TimesRoman)
  const helvetica = await doc.embedFont(StandardFonts.Helvetica)
  const bold = await doc.embedFont(StandardFonts.HelveticaBold)
  const rand = prng(seed)
  const pages: Array<DensePage> = []
  const title = (page: PDFPage, text: string) => page.drawText(text, { x: 57, y: 780, size: 16, font: bold })
  const heading = () => `Annual ${sentence(rand).split(" ").slice(0, 4).join(" ").replace(/[.;,]$/, "")}`
  const done = (kind: string, lines: Array<string>) => {
    const text = lines.join("\n")
    pages.push({ kind, text, chars: text.length })
  }

  {
    const page = doc.addPage(A4)
    const h = heading()
    title(page, h)
    done("one column, Times 10.5 pt", [h, ...column(page, rand, { x: 57, width: 481, top: 750, bottom: 57 }, times, bold, 10.5, false)])
  }
  {
    const page = doc.addPage(A4)
    const h = heading()
    title(page, h)
    const left = column(page, rand, { x: 57, width: 231, top: 750, bottom: 57 }, helvetica, bold, 10, false)
    const right = column(page, rand, { x: 307, width: 231, top: 750, bottom: 57 }, helvetica, bold, 10, false)
    done("two columns, Helvetica 10 pt", [h, ...left, ...right])
  }
  {
    const page = doc.addPage(A4)
    const h = heading()
    title(page, h)
    const before = column(page, rand, { x: 57, width: 481, top: 750, bottom: 560 }, times, bold, 10.5, false)
    const header = ["Region", "Samples", "Nitrate (mg/l)", "Change"]
    const rows = [header]
    const regions = ["North", "South", "East", "West", "Central", "Coast", "Highlands", "Valley", "Delta", "Islands", "Plains", "Lakes", "Border", "Capital"]
    for (const r of regions) rows.push([r, String(20 + Math.floor(rand() * 300)), (rand() * 40).toFixed(2), `${rand() < 0.5 ? "-" : "+"}${(rand() * 15).toFixed(1)}%`])
    const xs = [57, 200, 330, 450, 538]
    let y = 530
    page.drawLine({ start: { x: xs[0], y: y + 14 }, end: { x: xs[4], y: y + 14 }, thickness: 0.8, color: rgb(0, 0, 0) })
    const tableLines: Array<string> = []
    for (const [i, row] of rows.entries()) {
      row.forEach((cell, c) => page.drawText(cell, { x: xs[c] + 4, y, size: 10, font: i === 0 ? bold : helvetica }))
      tableLines.push(row.join(" "))
      if (i === 0) page.drawLine({ start: { x: xs[0], y: y - 5 }, end: { x: xs[4], y: y - 5 }, thickness: 0.5, color: rgb(0, 0, 0) })
      y -= 17
    }
    page.drawLine({ start: { x: xs[0], y: y + 12 }, end: { x: xs[4], y: y + 12 }, thickness: 0.8, color: rgb(0, 0, 0) })
    const after = column(page, rand, { x: 57, width: 481, top: y - 14, bottom: 57 }, times, bold, 10.5, false)
    done("table and text, 10-10.5 pt", [h, ...before, ...tableLines, ...after])
  }
  {
    const page = doc.addPage(A4)
    const h = heading()
    title(page, h)
    done("headings, Times 11 pt", [h, ...column(page, rand, { x: 57, width: 481, top: 750, bottom: 57 }, times, bold, 11, true)])
  }
  return { bytes: await doc.save(), pages }
}

/** Page scans into an image-only A4 PDF, each image filling its page (so its resolution is the scan's). */
export const imageA4Pdf = async (images: ReadonlyArray<Gray>): Promise<Uint8Array> => {
  const doc = await PDFDocument.create()
  for (const image of images) {
    const page = doc.addPage(A4)
    const png = await doc.embedPng(await graySharp(image).png({ compressionLevel: 3 }).toBuffer())
    page.drawImage(png, { x: 0, y: 0, width: A4[0], height: A4[1] })
  }
  return doc.save()
}
