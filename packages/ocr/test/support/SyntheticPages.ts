/**
 * Synthetic OCR ground truth: born-digital pages made with pdf-lib (so the text is known
 * exactly), rendered with our own renderer, degraded with sharp (noise, blur, skew, rotation,
 * JPEG), and wrapped back into image-only PDFs. Shared by the tests and bench/ocr.
 */
import { PDFDocument, StandardFonts } from "pdf-lib"
import type { PDFFont } from "pdf-lib"
import sharp from "sharp"
import type { Gray } from "../../src/ImageOps.ts"
import { graySharp, toGrayPixels } from "../../src/ImageOps.ts"
import { openRenderer } from "../../../pdf/src/PageRenderer.ts"

const WORDS = (
  "the report describes a method for measuring water quality in rivers and lakes across several regions " +
  "samples were collected every month between March and October and analysed in the laboratory within two days " +
  "results show that nitrate levels increased by 12 percent while phosphate remained stable at most stations " +
  "further work should examine the effect of rainfall on these values and compare them with data from 2019 " +
  "committee members agreed to publish the findings together with maps tables and a short summary for the public " +
  "invoice number total amount due payment terms customer address delivery date quantity unit price"
).split(" ")

/** A small deterministic PRNG so every run builds the same pages. */
export const prng = (seed: number) => () => {
  seed = (seed * 1664525 + 1013904223) >>> 0
  return seed / 2 ** 32
}

const sentence = (rand: () => number): string => {
  const n = 8 + Math.floor(rand() * 10)
  const words: Array<string> = []
  for (let i = 0; i < n; i++) words.push(WORDS[Math.floor(rand() * WORDS.length)])
  if (rand() < 0.3) words.splice(1 + Math.floor(rand() * (n - 1)), 0, String(Math.floor(rand() * 9000) + 100))
  const s = words.join(" ")
  return s[0].toUpperCase() + s.slice(1) + (rand() < 0.2 ? "," : ".")
}

/** Breaks `text` into lines no wider than `width` at `size` in `font` (bench/ocr/DensePages.ts uses it too). */
export const wrap = (text: string, font: PDFFont, size: number, width: number): Array<string> => {
  const lines: Array<string> = []
  let line = ""
  for (const word of text.split(" ")) {
    const next = line === "" ? word : `${line} ${word}`
    if (font.widthOfTextAtSize(next, size) > width && line !== "") {
      lines.push(line)
      line = word
    } else line = next
  }
  if (line !== "") lines.push(line)
  return lines
}

export interface SyntheticPage {
  /** The text drawn, one entry per printed line, in reading order. */
  readonly lines: ReadonlyArray<string>
  readonly heading: string
}

/** A born-digital PDF of `pages` pages: a heading and a few paragraphs each. */
export const makeTextPdf = async (options: { pages: number; seed: number; paragraphs?: number; bodySize?: number }) => {
  const doc = await PDFDocument.create()
  const fonts = [await doc.embedFont(StandardFonts.TimesRoman), await doc.embedFont(StandardFonts.Helvetica)]
  const bold = await doc.embedFont(StandardFonts.HelveticaBold)
  const rand = prng(options.seed)
  const truth: Array<SyntheticPage> = []
  for (let p = 0; p < options.pages; p++) {
    const page = doc.addPage([612, 792])
    const font = fonts[p % fonts.length]
    const size = options.bodySize ?? 11
    const heading = `Section ${p + 1} ${sentence(rand).split(" ").slice(0, 4).join(" ").replace(/[.,]$/, "")}`
    page.drawText(heading, { x: 72, y: 710, size: 18, font: bold })
    const lines: Array<string> = [heading]
    let y = 670
    for (let k = 0; k < (options.paragraphs ?? 4); k++) {
      const para = [sentence(rand), sentence(rand), sentence(rand)].join(" ")
      for (const line of wrap(para, font, size, 468)) {
        page.drawText(line, { x: 72, y, size, font })
        lines.push(line)
        y -= size * 1.35
      }
      y -= size * 1.2
    }
    truth.push({ lines, heading })
  }
  return { bytes: await doc.save(), truth }
}

export interface Degradation {
  /** Gaussian noise sigma in grey levels. */
  readonly noise?: number
  /** Gaussian blur sigma in pixels. */
  readonly blur?: number
  /** Rotation in degrees, clockwise (small = skew; 90/180/270 = orientation). */
  readonly rotate?: number
  /** JPEG quality; re-encodes the page when set. */
  readonly jpeg?: number
}

/** Applies scanner-like damage to a grey page. */
export const degrade = async (gray: Gray, d: Degradation, seed = 1): Promise<Gray> => {
  let img: Gray = gray
  if (d.blur !== undefined && d.blur > 0) img = await toGrayPixels(graySharp(img).blur(d.blur))
  if (d.noise !== undefined && d.noise > 0) {
    const rand = prng(seed)
    const out = new Uint8Array(img.data.length)
    for (let i = 0; i < out.length; i++) {
      // Box-Muller; clamped so the paper stays paper-coloured on average.
      const n = Math.sqrt(-2 * Math.log(rand() + 1e-12)) * Math.cos(2 * Math.PI * rand())
      out[i] = Math.max(0, Math.min(255, img.data[i] + n * d.noise))
    }
    img = { data: out, width: img.width, height: img.height }
  }
  if (d.rotate !== undefined && d.rotate !== 0) img = await toGrayPixels(graySharp(img).rotate(d.rotate, { background: "#ffffff" }))
  if (d.jpeg !== undefined) {
    const jpg = await graySharp(img).jpeg({ quality: d.jpeg }).toBuffer()
    img = await toGrayPixels(sharp(jpg))
  }
  return img
}

/** Renders every page of a PDF at `dpi` with our renderer. */
export const renderAll = async (pdf: Uint8Array, dpi: number): Promise<Array<Gray>> => {
  const renderer = await openRenderer(pdf)
  try {
    const out: Array<Gray> = []
    for (let p = 1; p <= renderer.numPages; p++) out.push((await renderer.render(p, dpi)).image)
    return out
  } finally {
    await renderer.close()
  }
}

/** Wraps page images into an image-only PDF, each image filling a Letter page (`textPages` keep real text). */
export const imagePdf = async (
  pages: ReadonlyArray<{ image: Gray } | { text: ReadonlyArray<string> }>
): Promise<Uint8Array> => {
  const doc = await PDFDocument.create()
  const font = await doc.embedFont(StandardFonts.Helvetica)
  for (const p of pages) {
    const page = doc.addPage([612, 792])
    if ("image" in p) {
      const png = await doc.embedPng(await graySharp(p.image).png({ compressionLevel: 3 }).toBuffer())
      page.drawImage(png, { x: 0, y: 0, width: 612, height: 792 })
    } else {
      let y = 720
      for (const line of p.text) {
        page.drawText(line, { x: 72, y, size: 11, font })
        y -= 15
      }
    }
  }
  return doc.save()
}
