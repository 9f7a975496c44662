/**
 * The first page-level stage: what pdf.js says is on a page, in page coordinates (points, origin
 * top-left, y down, CropBox and /Rotate applied), and nothing else. Text arrives as runs with
 * their font facts; line art arrives as axis-aligned rules (strokes and thin fills, rectangle
 * sides) that the table stage reads, and as the boxes of its painted paths (drawings); images
 * arrive as the boxes they are painted into (never decoded). The figure stage reads images and
 * drawings. All of it comes from one pdf.js pass over the page, its
 * operator list (OpListText.ts, Graphics.ts); pdf.js's separate text pass is kept behind
 * `readPage`'s `textPass` option for comparison (TextPass.ts, test/OpListText.test.ts).
 *
 * Everything here is plain data so that later stages are pure functions and can be tested, and a
 * learned layout model could later replace them without touching pdf.js.
 */
import type { PDFDocumentProxy, PDFPageProxy, TextItem } from "pdfjs-dist/types/src/display/api.d.ts"
import { type FontInfo, fontInfoFromName } from "./Fonts.ts"
import { applyMatrix, multiplyMatrix as multiply, type Matrix, type PageElements, type TextRun, type ImageBox, type Rule, type DrawingBox } from "@strata/core"
import { graphicsFrom } from "./Graphics.ts"
import { outlinedRegions, type PathContour } from "./OutlinedText.ts"
import { cmexText, readsByCmexCodes } from "./MathGlyphs.ts"
import { type FontFacts, type TextStyle, textFromOperatorList } from "./OpListText.ts"
import { pdfjs } from "./PdfJs.ts"
import { readWithTextPass, textPassContent } from "./TextPass.ts"

export type { DrawingBox, ImageBox, Rule, TextRun } from "@strata/core"

/** What pdf.js says is on a page: the core's `PageElements`, filled from the operator list. */
export type PageContent = PageElements

const clamp = (value: number, low: number, high: number) => (value < low ? low : value > high ? high : value)

const fontCache = new WeakMap<PDFDocumentProxy, Map<string, FontInfo>>()

/** Forgets the fonts read for `doc` (pdf.js may reuse font ids after `doc.cleanup()`). */
export const forgetFonts = (doc: PDFDocumentProxy): void => {
  fontCache.delete(doc)
  fontFactsCache.delete(doc)
}

/** The facts of a font pdf.js loaded for this page (its PostScript name only reaches `commonObjs` via the operator list). */
const fontOf = (doc: PDFDocumentProxy, page: PDFPageProxy, fontName: string, family: string | undefined): FontInfo => {
  let cache = fontCache.get(doc)
  if (cache === undefined) {
    cache = new Map()
    fontCache.set(doc, cache)
  }
  const hit = cache.get(fontName)
  if (hit !== undefined) return hit
  let name = ""
  const fallbackMono = family === "monospace"
  const objs = page.commonObjs as unknown as { has(id: string): boolean; get(id: string): unknown }
  if (objs.has(fontName)) {
    const font = objs.get(fontName) as { name?: string; isMonospace?: boolean } | null
    name = typeof font?.name === "string" ? font.name : ""
  }
  const info = fontInfoFromName(name, fallbackMono)
  cache.set(fontName, info)
  return info
}

/** Ligatures and Arabic presentation forms: expanded to their plain letters (NFKC, these code points only). */
const PRESENTATION_FORMS = /[\ufb00-\ufb06\ufb13-\ufb17\ufb50-\ufdff\ufe70-\ufefe]/
const PRESENTATION_FORMS_ALL = /[\ufb00-\ufb06\ufb13-\ufb17\ufb50-\ufdff\ufe70-\ufefe]/g

// Control characters are exactly what these match: text layers of custom-encoded fonts carry them.
// oxlint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f]/
// oxlint-disable-next-line no-control-regex
const CONTROL_ALL = /[\u0000-\u0008\u000b-\u001f\u007f]/g
const C1 = /[\u0080-\u009f]/
const C1_ALL = /[\u0080-\u009f]/g

const LAM_ALEF_SWAPPED = /\u0627([\u0627\u0622\u0623\u0625])\u0644/
const LAM_ALEF_SWAPPED_ALL = /\u0627([\u0627\u0622\u0623\u0625])\u0644/g

const isTextItem = (item: unknown): item is TextItem => typeof (item as TextItem).str === "string"

/** Turns pdf.js text items into runs in page coordinates. */
export const runsFrom = (
  doc: PDFDocumentProxy,
  page: PDFPageProxy,
  items: ReadonlyArray<unknown>,
  styles: Record<string, TextStyle>,
  viewport: Matrix
): { runs: Array<TextRun>; unmapped: number } => {
  const runs: Array<TextRun> = []
  let unmapped = 0
  for (const item of items) {
    if (!isTextItem(item)) continue
    const style = styles[item.fontName] ?? {}
    const font = fontOf(doc, page, item.fontName, style.fontFamily)
    // CMEX's glyph names (and its clones') have no Unicode: its text is the character code, read from TeX's table.
    let text = readsByCmexCodes(font.name) ? cmexText(item.str)
      : PRESENTATION_FORMS.test(item.str) ? item.str.replace(PRESENTATION_FORMS_ALL, (ch) => ch.normalize("NFKC")) : item.str
    // C0 controls are never text; a symbol-font glyph mapped into C1 is kept only as a lone marker (a bullet or box).
    if (CONTROL.test(text)) {
      // A glyph that came with control codes from a custom-encoded font, standing alone, is a bullet or box.
      text = text.replace(CONTROL_ALL, " ")
      if (text.trim().length === 1) text = "•"
    }
    if (C1.test(text) && text.trim().length > 1) text = text.replace(C1_ALL, " ")
    if (text.length === 0 || text.trim().length === 0) continue
    // pdf.js reverses right-to-left text after mapping a lam-alef ligature glyph to its two letters, so
    // the pair comes out swapped. Two alefs in a row never occur in Arabic or Persian: where one
    // precedes "alef + lam", the article's lam-alef was swapped ("اإلنتاج" is "الإنتاج").
    if (item.dir === "rtl" && LAM_ALEF_SWAPPED.test(text)) text = text.replace(LAM_ALEF_SWAPPED_ALL, "\u0627\u0644$1")
    for (let k = 0; k < text.length; k++) if (text.charCodeAt(k) === 0xfffd) unmapped++
    const tx = multiply(viewport, item.transform as Matrix)
    const size = Math.hypot(tx[2], tx[3]) || Math.hypot(tx[0], tx[1])
    if (!(size > 0.5)) continue

    const ascent = clamp(style.ascent && style.ascent > 0 ? style.ascent : 0.8, 0.5, 1.05)
    const descent = clamp(style.descent && style.descent < 0 ? -style.descent : 0.2, 0, 0.4)
    const horizontal = Math.abs(tx[1]) < 0.05 * Math.abs(tx[0]) && tx[0] > 0 && !style.vertical
    if (horizontal) {
      // Glyph height in page space is what the vertical scale says; text-space ascent is relative to it.
      const x0 = tx[4]
      const width = item.width > 0 ? item.width : size * 0.5 * text.length
      runs.push({
        text, x0, x1: x0 + width, baseline: tx[5], top: tx[5] - ascent * size, bottom: tx[5] + descent * size, size,
        bold: font.bold, italic: font.italic, mono: font.mono, math: font.math, symbol: font.symbol, font: font.name, rotated: false, rtl: item.dir === "rtl"
      })
    } else {
      // Rotated text: keep its box so that it can be placed (and usually dropped as a margin stamp).
      const len = item.width > 0 ? item.width : size * 0.5 * text.length
      const ux = tx[0] / (Math.hypot(tx[0], tx[1]) || 1)
      const uy = tx[1] / (Math.hypot(tx[0], tx[1]) || 1)
      const xs = [tx[4], tx[4] + ux * len, tx[4] - tx[2] / (Math.hypot(tx[2], tx[3]) || 1) * size, tx[4] + ux * len - tx[2] / (Math.hypot(tx[2], tx[3]) || 1) * size]
      const ys = [tx[5], tx[5] + uy * len, tx[5] - tx[3] / (Math.hypot(tx[2], tx[3]) || 1) * size, tx[5] + uy * len - tx[3] / (Math.hypot(tx[2], tx[3]) || 1) * size]
      const top = Math.min(...ys)
      const bottom = Math.max(...ys)
      runs.push({
        text, x0: Math.min(...xs), x1: Math.max(...xs), top, bottom, baseline: bottom, size,
        bold: font.bold, italic: font.italic, mono: font.mono, math: font.math, symbol: font.symbol, rotated: true, rtl: item.dir === "rtl"
      })
    }
  }
  return { runs, unmapped }
}

/** The quarter turn (0..3, clockwise in page space) most of the page's characters are set at. */
const dominantTurn = (items: ReadonlyArray<unknown>, base: Matrix): number => {
  const weight = [0, 0, 0, 0]
  for (const item of items) {
    if (!isTextItem(item) || item.str.length === 0) continue
    const t = multiply(base, item.transform as Matrix)
    const angle = Math.atan2(t[1], t[0])
    const quarter = ((Math.round(angle / (Math.PI / 2)) % 4) + 4) % 4
    weight[quarter] += item.str.length
  }
  let best = 0
  for (let q = 1; q < 4; q++) if (weight[q] > weight[best] * 1.5 && weight[q] > weight[0]) best = q
  return best
}

/** The matrix that turns a `width` x `height` page back by `turn` (1..3) quarters, its box moved to the origin. */
const quarterTurn = (turn: number, width: number, height: number): Matrix =>
  turn === 1 ? [0, -1, 1, 0, 0, width] : turn === 2 ? [-1, 0, 0, -1, width, height] : [0, 1, -1, 0, height, 0]

/** The page matrix turned back by `turn` quarters, with the page box moved to the origin. */
const turned = (base: Matrix, turn: number, width: number, height: number): { matrix: Matrix; width: number; height: number } => {
  if (turn === 0) return { matrix: base, width, height }
  const r = quarterTurn(turn, width, height)
  return { matrix: multiply(r, base), width: turn === 2 ? width : height, height: turn === 2 ? height : width }
}

const turnImage = (box: ImageBox, turn: number, width: number, height: number): ImageBox => {
  const r = quarterTurn(turn, width, height)
  const corners = [box.x0, box.x1].flatMap((x) => [box.top, box.bottom].map((y) => applyMatrix(r, x, y)))
  const xs = corners.map(([x]) => x)
  const ys = corners.map(([, y]) => y)
  return { x0: Math.min(...xs), x1: Math.max(...xs), top: Math.min(...ys), bottom: Math.max(...ys) }
}

const turnRule = (rule: Rule, turn: number, width: number, height: number): Rule => {
  const r = quarterTurn(turn, width, height)
  const [ax, ay] = applyMatrix(r, rule.x0, rule.y0)
  const [bx, by] = applyMatrix(r, rule.x1, rule.y1)
  const horizontal = Math.abs(ay - by) < Math.abs(ax - bx)
  const edge = rule.edge === true ? { edge: true } : {}
  return horizontal
    ? { horizontal, x0: Math.min(ax, bx), x1: Math.max(ax, bx), y0: (ay + by) / 2, y1: (ay + by) / 2, ...edge }
    : { horizontal, x0: (ax + bx) / 2, x1: (ax + bx) / 2, y0: Math.min(ay, by), y1: Math.max(ay, by), ...edge }
}

const fontFactsCache = new WeakMap<PDFDocumentProxy, Map<string, FontFacts | undefined>>()

/** The facts of a font pdf.js loaded (for the operator list), from `commonObjs`. */
const fontFactsOf = (doc: PDFDocumentProxy, page: PDFPageProxy, loadedName: string): FontFacts | undefined => {
  let cache = fontFactsCache.get(doc)
  if (cache === undefined) fontFactsCache.set(doc, (cache = new Map()))
  if (cache.has(loadedName)) return cache.get(loadedName)
  const objs = page.commonObjs as unknown as { has(id: string): boolean; get(id: string): unknown }
  let facts: FontFacts | undefined
  const font = objs.has(loadedName) ? objs.get(loadedName) as Record<string, unknown> | string | null : null
  if (font !== null && typeof font === "object") {
    const matrix = font["fontMatrix"] as ArrayLike<number> | undefined
    const bbox = font["bbox"] as ArrayLike<number> | undefined
    facts = {
      name: typeof font["name"] === "string" ? font["name"] : undefined,
      fontMatrix: matrix !== undefined && matrix !== null && matrix.length === 6 ? Array.from(matrix) : [0.001, 0, 0, 0.001, 0, 0],
      vertical: font["vertical"] === true,
      type3: font["isType3Font"] === true,
      bbox: bbox !== undefined && bbox !== null && bbox.length === 4 ? Array.from(bbox) : undefined,
      fallbackName: typeof font["fallbackName"] === "string" ? font["fallbackName"] : undefined,
      ascent: typeof font["ascent"] === "number" ? font["ascent"] : undefined,
      descent: typeof font["descent"] === "number" ? font["descent"] : undefined
    }
  }
  cache.set(loadedName, facts)
  return facts
}

/** The page's text, rules and images from one operator list; the text from the text pass where that fails. */
const readOnce = async (doc: PDFDocumentProxy, page: PDFPageProxy, base: Matrix) => {
  let ops: { fnArray: ArrayLike<number>; argsArray: ReadonlyArray<unknown> } | undefined
  try {
    // Annotation appearances (form widgets, stamps) are not page content: their drawings are skipped.
    ops = await page.getOperatorList({ intent: "display", annotationMode: pdfjs.AnnotationMode.DISABLE })
  } catch {
    ops = undefined
  }
  let text: { items: ReadonlyArray<unknown>; styles: Record<string, TextStyle> } | undefined
  if (ops !== undefined) {
    try {
      text = textFromOperatorList(ops.fnArray, ops.argsArray, (name) => fontFactsOf(doc, page, name), page.view)
    } catch {
      text = undefined
    }
  }
  // The text pass may still read what the operator list could not.
  text ??= await textPassContent(page)
  let rules: Array<Rule> = []
  let images: Array<ImageBox> = []
  let drawings: Array<DrawingBox> = []
  let contours: Array<PathContour> = []
  let graphicsFailed = ops === undefined
  if (ops !== undefined) {
    try {
      ;({ rules, images, drawings, contours } = graphicsFrom(ops.fnArray, ops.argsArray, base))
    } catch {
      graphicsFailed = true
    }
  }
  return { items: text.items, styles: text.styles, rules, images, drawings, contours, graphicsFailed }
}

/** A drawing covering this share of the page is a background (a page tint, a frame around everything), never part of a picture. */
const BACKGROUND_DRAWING_SHARE = 0.6

/** The drawings as the figure stage wants them: clipped to the page, without empties, slivers off the page and page backgrounds. */
const pageDrawings = (drawings: ReadonlyArray<DrawingBox>, width: number, height: number): Array<DrawingBox> => {
  const out: Array<DrawingBox> = []
  const limit = width * height * BACKGROUND_DRAWING_SHARE
  for (const d of drawings) {
    const x0 = Math.max(0, d.x0), x1 = Math.min(width, d.x1), top = Math.max(0, d.top), bottom = Math.min(height, d.bottom)
    // A hairline has no area: its length is what counts, so the test is on the sides, not the area.
    if (x1 < x0 || bottom < top || (x1 - x0) + (bottom - top) < 0.5) continue
    if ((x1 - x0) * (bottom - top) > limit) continue
    out.push(x0 === d.x0 && x1 === d.x1 && top === d.top && bottom === d.bottom ? d : { x0, top, x1, bottom })
  }
  return out
}

/**
 * Reads one page from its operator list (text, rules, images and font names in one pdf.js pass).
 * A failure of the graphics leaves the text usable (the page becomes `partial`). Plain promise,
 * no effect: the page worker threads run it too.
 */
export interface ReadPageOptions {
  /** Text from pdf.js's text pass, as before the operator list carried it (comparison only; slower). */
  readonly textPass?: boolean | undefined
}

export const readPage = async (doc: PDFDocumentProxy, pageNumber: number, options: ReadPageOptions = {}): Promise<PageContent> => {
  const page = await doc.getPage(pageNumber)
  try {
    const viewport = page.getViewport({ scale: 1 })
    const base = viewport.transform as Matrix
    const read = options.textPass === true
      ? { ...(await readWithTextPass(page, base, viewport.height, (name) => fontCache.get(doc)?.has(name) === true)), contours: [] }
      : await readOnce(doc, page, base)
    let { rules, images, drawings } = read
    // Text mostly running down or up the page (a landscape table on a portrait page, or /Rotate
    // over unrotated content) is read in its own orientation: the page frame turns with it.
    const turn = dominantTurn(read.items, base)
    const frame = turned(base, turn, viewport.width, viewport.height)
    if (turn !== 0) {
      rules = rules.map((r) => turnRule(r, turn, viewport.width, viewport.height))
      images = images.map((b) => turnImage(b, turn, viewport.width, viewport.height))
      drawings = drawings.map((b) => turnImage(b, turn, viewport.width, viewport.height))
    }
    const all = runsFrom(doc, page, read.items, read.styles, frame.matrix)
    // Text outside the visible box (CropBox) is not on the page as readers see it.
    const runs = all.runs.filter((r) => (r.x0 + r.x1) / 2 >= -2 && (r.x0 + r.x1) / 2 <= frame.width + 2 && (r.top + r.bottom) / 2 >= -2 && (r.top + r.bottom) / 2 <= frame.height + 2)
    // Words drawn as outlines, read in the page's own frame (a turned page is left as it is).
    const outlined = turn === 0 ? outlinedRegions(read.contours, runs, frame.width, frame.height) : []
    return {
      pageNumber, width: frame.width, height: frame.height, runs, rules, images, drawings: pageDrawings(drawings, frame.width, frame.height), unmapped: all.unmapped, graphicsFailed: read.graphicsFailed,
      ...(outlined.length > 0 ? { outlined } : {})
    }
  } finally {
    page.cleanup()
  }
}
