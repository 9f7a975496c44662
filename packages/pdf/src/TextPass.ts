/**
 * The page read the way it was before the operator list carried the text (`readPage`'s
 * `textPass` option, kept for comparison): pdf.js's text pass for the text, and the operator list only where the
 * page needs it, for fonts not seen yet (their names reach `commonObjs` only through it) or for
 * rules and pictures when the text leaves room for them.
 */
import type { PDFPageProxy, TextItem } from "pdfjs-dist/types/src/display/api.d.ts"
import type { Matrix } from "@strata/core"
import { graphicsFrom } from "./Graphics.ts"
import type { DrawingBox, ImageBox, Rule } from "./PageContent.ts"
import type { TextStyle } from "./OpListText.ts"
import { pdfjs } from "./PdfJs.ts"

const isTextItem = (item: unknown): item is TextItem => typeof (item as TextItem).str === "string"

/**
 * Whether the page's text hints at something only the drawings can settle: several rows whose
 * items are set apart like table cells (or columns). Pages of plain running text skip the
 * operator list, which costs as much as the text itself.
 */
const mayHoldTable = (items: ReadonlyArray<unknown>): boolean => {
  const rows = new Map<number, Array<{ x0: number; x1: number; size: number }>>()
  for (const item of items) {
    if (!isTextItem(item) || item.str.trim().length === 0) continue
    const t = item.transform as Matrix
    const size = Math.hypot(t[2], t[3]) || 1
    const key = Math.round(t[5] / 2)
    let row = rows.get(key)
    if (row === undefined) rows.set(key, (row = []))
    row.push({ x0: t[4], x1: t[4] + Math.abs(item.width), size })
  }
  let split = 0
  for (const row of rows.values()) {
    if (row.length < 2) continue
    row.sort((a, b) => a.x0 - b.x0)
    for (let i = 1; i < row.length; i++) {
      if (row[i].x0 - row[i - 1].x1 > 1.1 * row[i].size) {
        if (++split >= 2) return true
        break
      }
    }
  }
  return false
}

/** Whether rows of text (bottom, top in any vertical unit) leave a stretch longer than `gap` empty between them. */
const hasGap = (spans: Array<[number, number]>, gap: number): boolean => {
  if (spans.length < 3) return false
  spans.sort((a, b) => a[0] - b[0])
  let reach = spans[0][1]
  for (let i = 1; i < spans.length; i++) {
    if (spans[i][0] - reach > gap) return true
    reach = Math.max(reach, spans[i][1])
  }
  return false
}

/**
 * Whether the text leaves room for a picture: a vertical stretch of at least a tenth of the page
 * height with no text between rows, in the page as a whole or in its left or right half (a
 * picture in one column beside a full column of text), or hardly any text at all. Pages of
 * unbroken running text skip the operator list: reading it on every page costs about a sixth
 * more time on plain text (bench/pdf/GraphicsCost.ts).
 */
const mayHoldPicture = (items: ReadonlyArray<unknown>, height: number): boolean => {
  const all: Array<[number, number]> = []
  const boxes: Array<{ x0: number; x1: number; span: [number, number] }> = []
  let minX = Infinity, maxX = -Infinity
  for (const item of items) {
    if (!isTextItem(item) || item.str.trim().length === 0) continue
    const t = item.transform as Matrix
    const size = Math.hypot(t[2], t[3]) || 1
    // pdf.js text coordinates are in PDF user space (y up): only relative positions matter here.
    const span: [number, number] = [t[5] - size * 0.25, t[5] + size]
    all.push(span)
    const x0 = t[4], x1 = t[4] + Math.abs(item.width)
    boxes.push({ x0, x1, span })
    minX = Math.min(minX, x0)
    maxX = Math.max(maxX, x1)
  }
  if (all.length < 3) return true
  const gap = height * 0.1
  if (hasGap(all, gap)) return true
  // Text crossing the middle belongs to both halves, so single-column pages look the same from either.
  const mid = (minX + maxX) / 2
  const left = boxes.filter((b) => b.x0 < mid - 2).map((b) => b.span)
  const right = boxes.filter((b) => b.x1 > mid + 2).map((b) => b.span)
  return hasGap(left, gap) || hasGap(right, gap)
}

/** The page's text items from pdf.js's text pass. */
export const textPassContent = async (page: PDFPageProxy): Promise<{ items: ReadonlyArray<unknown>; styles: Record<string, TextStyle> }> =>
  // pdf.js's own normalisation decomposes ligatures before its bidi reordering, which swaps
  // Arabic lam-alef pairs; ligatures are expanded in `runsFrom` instead, after the reordering.
  await page.getTextContent({ includeMarkedContent: false, disableNormalization: true })

/** The page through pdf.js's text pass; `knowsFont` says whether a font's facts were read before. */
export const readWithTextPass = async (
  page: PDFPageProxy,
  base: Matrix,
  height: number,
  knowsFont: (loadedName: string) => boolean
): Promise<{ items: ReadonlyArray<unknown>; styles: Record<string, TextStyle>; rules: Array<Rule>; images: Array<ImageBox>; drawings: Array<DrawingBox>; graphicsFailed: boolean }> => {
  const content = await textPassContent(page)
  let rules: Array<Rule> = []
  let images: Array<ImageBox> = []
  let drawings: Array<DrawingBox> = []
  let graphicsFailed = false
  const fontsKnown = content.items.every((item) => !isTextItem(item) || item.str.length === 0 || knowsFont(item.fontName))
  if (mayHoldTable(content.items) || mayHoldPicture(content.items, height) || !fontsKnown) {
    try {
      // Annotation appearances (form widgets, stamps) are not page content: their drawings are skipped.
      const ops = await page.getOperatorList({ intent: "display", annotationMode: pdfjs.AnnotationMode.DISABLE })
      ;({ rules, images, drawings } = graphicsFrom(ops.fnArray, ops.argsArray, base))
    } catch {
      graphicsFailed = true
    }
  }
  return { items: content.items, styles: content.styles, rules, images, drawings, graphicsFailed }
}
