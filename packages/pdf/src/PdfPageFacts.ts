/**
 * Gathers what the OCR decision needs from one pdf.js page, from its operator list alone:
 * every shown string with its render mode and an approximate box (CTM x text matrix), the
 * share of the page covered by images, and the number of painted paths.
 *
 * The operator list must come from a document opened with image decoding on (pdf.js drops the
 * image operators of images above `maxImageSize`), e.g. the one `openRenderer` opens.
 */
import * as pdfjs from "pdfjs-dist/legacy/build/pdf.mjs"
import type { PDFPageProxy } from "pdfjs-dist/types/src/display/api.d.ts"
import { applyMatrix as apply, IDENTITY, multiplyMatrix as mul, type Matrix } from "@strata/core"
import type { DecisionInput, DecisionTextItem } from "./OcrDecision.ts"


interface Glyph {
  readonly unicode?: string
  readonly width?: number
  readonly isSpace?: boolean
}

/** Facts for `decideOcr` from the page's operators; boxes are in PDF user space relative to the view box. */
export const pageFacts = async (page: PDFPageProxy): Promise<DecisionInput> => {
  const ops = await page.getOperatorList()
  const OPS = pdfjs.OPS
  const [vx0, vy0, vx1, vy1] = page.view
  const pageWidth = vx1 - vx0
  const pageHeight = vy1 - vy0
  const items: Array<DecisionTextItem> = []
  const imageBoxes: Array<[number, number, number, number]> = []
  let pathCount = 0
  let ctm: Matrix = IDENTITY
  const stack: Array<{ ctm: Matrix; mode: number }> = []
  let mode = 0
  let fontSize = 12
  let leading = 0
  let hscale = 1
  let tm: Matrix = IDENTITY
  let lm: Matrix = IDENTITY

  const show = (glyphs: ReadonlyArray<Glyph | number>) => {
    let str = ""
    let advance = 0
    for (const g of glyphs) {
      if (typeof g === "number") {
        advance -= (g / 1000) * fontSize * hscale
        continue
      }
      str += g.unicode ?? ""
      advance += ((g.width ?? 0) / 1000) * fontSize * hscale
    }
    const m = mul(ctm, tm)
    const [x0, y0] = apply(m, 0, 0)
    const [x1, y1] = apply(m, advance, fontSize)
    items.push({
      str,
      x: Math.min(x0, x1) - vx0,
      y: Math.min(y0, y1) - vy0,
      width: Math.abs(x1 - x0),
      height: Math.abs(y1 - y0),
      renderMode: mode
    })
    tm = mul(tm, [1, 0, 0, 1, advance, 0])
  }

  for (let i = 0; i < ops.fnArray.length; i++) {
    const fn = ops.fnArray[i]
    const args = ops.argsArray[i] as Array<any>
    switch (fn) {
      case OPS.save:
        stack.push({ ctm, mode })
        break
      case OPS.restore: {
        const s = stack.pop()
        if (s !== undefined) ({ ctm, mode } = s)
        break
      }
      case OPS.transform:
        ctm = mul(ctm, args as Matrix)
        break
      case OPS.beginText:
        tm = IDENTITY
        lm = IDENTITY
        break
      case OPS.setFont:
        fontSize = Math.abs(Number(args[1]) || 12)
        break
      case OPS.setHScale:
        hscale = Number(args[0]) / 100
        break
      case OPS.setLeading:
        leading = Number(args[0])
        break
      case OPS.setTextRenderingMode:
        mode = Number(args[0])
        break
      case OPS.setTextMatrix:
        tm = lm = args as Matrix
        break
      case OPS.moveText:
        tm = lm = mul(lm, [1, 0, 0, 1, Number(args[0]), Number(args[1])])
        break
      case OPS.setLeadingMoveText:
        leading = -Number(args[1])
        tm = lm = mul(lm, [1, 0, 0, 1, Number(args[0]), Number(args[1])])
        break
      case OPS.nextLine:
        tm = lm = mul(lm, [1, 0, 0, 1, 0, -leading])
        break
      case OPS.showText:
      case OPS.showSpacedText:
        show(args[0] as Array<Glyph | number>)
        break
      case OPS.nextLineShowText:
      case OPS.nextLineSetSpacingShowText:
        tm = lm = mul(lm, [1, 0, 0, 1, 0, -leading])
        show(args[args.length - 1] as Array<Glyph | number>)
        break
      case OPS.paintImageXObject:
      case OPS.paintInlineImageXObject:
      case OPS.paintImageMaskXObject: {
        const corners = [apply(ctm, 0, 0), apply(ctm, 1, 0), apply(ctm, 0, 1), apply(ctm, 1, 1)]
        const xs = corners.map((c) => c[0])
        const ys = corners.map((c) => c[1])
        imageBoxes.push([
          Math.max(vx0, Math.min(...xs)),
          Math.max(vy0, Math.min(...ys)),
          Math.min(vx1, Math.max(...xs)),
          Math.min(vy1, Math.max(...ys))
        ])
        break
      }
      case OPS.constructPath:
        pathCount++
        break
    }
  }
  return { pageWidth, pageHeight, items, imageCoverage: coverage(imageBoxes, pageWidth * pageHeight), pathCount }
}

/** Union area of boxes over the page area, by a coarse 64x64 occupancy grid (exact enough, bounded cost). */
const coverage = (boxes: ReadonlyArray<[number, number, number, number]>, area: number): number => {
  if (boxes.length === 0 || area <= 0) return 0
  if (boxes.length === 1) {
    const [x0, y0, x1, y1] = boxes[0]
    return Math.max(0, Math.min(1, (Math.max(0, x1 - x0) * Math.max(0, y1 - y0)) / area))
  }
  const minX = Math.min(...boxes.map((b) => b[0]))
  const minY = Math.min(...boxes.map((b) => b[1]))
  const maxX = Math.max(...boxes.map((b) => b[2]))
  const maxY = Math.max(...boxes.map((b) => b[3]))
  const n = 64
  const cw = (maxX - minX) / n
  const ch = (maxY - minY) / n
  if (cw <= 0 || ch <= 0) return 0
  const grid = new Uint8Array(n * n)
  for (const [x0, y0, x1, y1] of boxes) {
    for (let gy = Math.floor((y0 - minY) / ch); gy < Math.min(n, Math.ceil((y1 - minY) / ch)); gy++) {
      for (let gx = Math.floor((x0 - minX) / cw); gx < Math.min(n, Math.ceil((x1 - minX) / cw)); gx++) grid[gy * n + gx] = 1
    }
  }
  let filled = 0
  for (const v of grid) filled += v
  return Math.min(1, (filled * cw * ch) / area)
}
