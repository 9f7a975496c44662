/**
 * Builds small born-digital PDFs for the tests with pdf-lib: text placed by top-left coordinates
 * (as the layout stages see them), paragraphs wrapped at a width, lines and boxes for tables,
 * filled boxes for charts.
 * Standard 14 fonts keep the files tiny; pdf.js reads them with its bundled font data.
 */
import { createCanvas } from "@napi-rs/canvas"
import { PDFDocument, type PDFFont, type PDFImage, type PDFPage, StandardFonts, rgb } from "pdf-lib"

/** A small rendered picture (a bar chart without text), as PNG bytes. */
export const chartPng = (): Uint8Array => {
  const canvas = createCanvas(120, 80)
  const ctx = canvas.getContext("2d")
  ctx.fillStyle = "#ffffff"
  ctx.fillRect(0, 0, 120, 80)
  ctx.fillStyle = "#3366cc"
  for (let i = 0; i < 5; i++) ctx.fillRect(10 + i * 22, 70 - (i + 1) * 12, 16, (i + 1) * 12)
  return new Uint8Array(canvas.toBuffer("image/png"))
}

export type FontName = "regular" | "bold" | "italic" | "mono" | "serif"

export interface Canvas {
  readonly page: PDFPage
  readonly width: number
  readonly height: number
  /** Draws one line of text with its top at `top`; returns the top of the next line. */
  text(x: number, top: number, text: string, size?: number, font?: FontName): number
  /** Wraps `text` into lines no wider than `width`; returns the top below the paragraph. */
  paragraph(x: number, top: number, width: number, text: string, size?: number, font?: FontName): number
  line(x0: number, top0: number, x1: number, top1: number, thickness?: number): void
  rect(x: number, top: number, w: number, h: number): void
  /** A filled rectangle without border (a bar, a panel), grey by default. */
  fill(x: number, top: number, w: number, h: number, grey?: number): void
  /** Paints the test picture (`chartPng`) into the box. */
  image(x: number, top: number, w: number, h: number): void
}

export interface Builder {
  page(draw: (canvas: Canvas) => void, size?: [number, number]): void
}

export const makePdf = async (build: (builder: Builder) => void, options: { title?: string; author?: string; picture?: boolean } = {}): Promise<Uint8Array> => {
  const doc = await PDFDocument.create()
  const fonts: Record<FontName, PDFFont> = {
    regular: await doc.embedFont(StandardFonts.Helvetica),
    bold: await doc.embedFont(StandardFonts.HelveticaBold),
    italic: await doc.embedFont(StandardFonts.HelveticaOblique),
    mono: await doc.embedFont(StandardFonts.Courier),
    serif: await doc.embedFont(StandardFonts.TimesRoman)
  }
  let picture: PDFImage | undefined
  if (options.picture === true) picture = await doc.embedPng(chartPng())
  if (options.title !== undefined) doc.setTitle(options.title)
  if (options.author !== undefined) doc.setAuthor(options.author)
  doc.setCreationDate(new Date("2024-01-02T03:04:05Z"))
  doc.setModificationDate(new Date("2024-01-02T03:04:05Z"))
  doc.setProducer("strata tests")
  doc.setCreator("strata tests")
  const builder: Builder = {
    page(draw, size = [612, 792]) {
      const page = doc.addPage(size)
      const [width, height] = size
      const canvas: Canvas = {
        page, width, height,
        text(x, top, text, fontSize = 11, font = "regular") {
          page.drawText(text, { x, y: height - top - fontSize * 0.8, size: fontSize, font: fonts[font], color: rgb(0, 0, 0) })
          return top + fontSize * 1.25
        },
        paragraph(x, top, width, text, fontSize = 11, font = "regular") {
          const words = text.split(/\s+/)
          let line = ""
          let y = top
          for (const word of words) {
            const candidate = line.length === 0 ? word : `${line} ${word}`
            if (fonts[font].widthOfTextAtSize(candidate, fontSize) > width && line.length > 0) {
              y = canvas.text(x, y, line, fontSize, font)
              line = word
            } else {
              line = candidate
            }
          }
          if (line.length > 0) y = canvas.text(x, y, line, fontSize, font)
          return y
        },
        line(x0, top0, x1, top1, thickness = 0.75) {
          page.drawLine({ start: { x: x0, y: height - top0 }, end: { x: x1, y: height - top1 }, thickness, color: rgb(0, 0, 0) })
        },
        rect(x, top, w, h) {
          page.drawRectangle({ x, y: height - top - h, width: w, height: h, borderColor: rgb(0, 0, 0), borderWidth: 0.75 })
        },
        fill(x, top, w, h, grey = 0.5) {
          page.drawRectangle({ x, y: height - top - h, width: w, height: h, color: rgb(grey, grey, grey) })
        },
        image(x, top, w, h) {
          if (picture === undefined) throw new Error("makePdf: pass { picture: true } to draw images")
          page.drawImage(picture, { x, y: height - top - h, width: w, height: h })
        }
      }
      draw(canvas)
    }
  }
  build(builder)
  return await doc.save({ useObjectStreams: false })
}

export const LOREM = "Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor incididunt ut labore et dolore magna aliqua. Ut enim ad minim veniam, quis nostrud exercitation ullamco laboris nisi ut aliquip ex ea commodo consequat."
export const DUIS = "Duis aute irure dolor in reprehenderit in voluptate velit esse cillum dolore eu fugiat nulla pariatur. Excepteur sint occaecat cupidatat non proident, sunt in culpa qui officia deserunt mollit anim id est laborum."
