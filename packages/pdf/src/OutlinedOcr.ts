/**
 * The plain parts of reading words drawn as outlines (regions found by OutlinedText.ts): where
 * to crop and at what resolution, and how the recognised words join the page. OcrPages.ts does
 * the rendering and the recognition with the same renderer and engine as scanned pages, and the
 * words then go through the same Layout -> ReadingOrder chain as the text layer: they are runs
 * at the region's place on the page, so reading order puts them where a reader would.
 */
import type { DrawingBox, OcrLine, OcrResult, PageElements, TextRun } from "@strata/core"

/**
 * Whether outlines carry more of the page's words than its text layer does (a table or a form
 * drawn as paths, with a heading or two of real text): the page is then read whole by OCR, as a
 * scan is, so that its tables and columns are laid out from one consistent set of words. Region
 * by region, a drawn table came back as a few cut-off cells (docling-parse case_07: 2 words from
 * 8 regions).
 */
export const outlinesDominate = (page: PageElements): boolean => {
  let glyphs = 0
  for (const region of page.outlined ?? []) glyphs += region.glyphs ?? 0
  let chars = 0
  for (const run of page.runs) chars += run.text.replace(/\s/g, "").length
  return glyphs > Math.max(MIN_DOMINANT_GLYPHS, chars)
}

/** Below this many outlined letters a page is never read whole for them (a logo beside a short note). */
const MIN_DOMINANT_GLYPHS = 60

/** Glyph height in pixels the crop is rendered at: Tesseract reads best around 30-60 px letters. */
const TARGET_GLYPH_PX = 48
const MIN_DPI = 100
const MAX_DPI = 400
/** Longest side of a crop in pixels: a banner across the page is read at a lower resolution rather than as a huge image. */
const MAX_SIDE_PX = 4000

export interface RegionCrop {
  /** Normalised [x0, y0, x1, y1] of the page, top-left origin, padded. */
  readonly region: readonly [number, number, number, number]
  readonly dpi: number
}

/** The padded crop of a region and the resolution that makes its letters about `TARGET_GLYPH_PX` tall. */
export const regionCrop = (region: DrawingBox & { readonly rows?: number }, pageWidth: number, pageHeight: number): RegionCrop => {
  const rows = Math.max(1, region.rows ?? 1)
  const line = Math.max(1, (region.bottom - region.top) / rows)
  // An engine finds lines better with a margin of paper around them.
  const pad = Math.max(4, line * 0.5)
  const x0 = Math.max(0, region.x0 - pad), x1 = Math.min(pageWidth, region.x1 + pad)
  const top = Math.max(0, region.top - pad), bottom = Math.min(pageHeight, region.bottom + pad)
  let dpi = Math.min(MAX_DPI, Math.max(MIN_DPI, (72 * TARGET_GLYPH_PX) / line))
  const side = Math.max(x1 - x0, bottom - top)
  if ((side * dpi) / 72 > MAX_SIDE_PX) dpi = Math.max(36, (MAX_SIDE_PX * 72) / side)
  return { region: [x0 / pageWidth, top / pageHeight, x1 / pageWidth, bottom / pageHeight], dpi: Math.round(dpi) }
}

/**
 * The regions to read, joined where they lie within a line of each other (the cells of a table
 * drawn as outlines, a title over its subtitle): one render and one recognition each, where a
 * region apiece would pay the engine's fixed cost per call many times over (measured: 8 regions
 * of a drawn table, 5.5 s as 8 calls). `rows` keeps the smallest line height of the group, which
 * sets the resolution.
 */
export const cropGroups = (
  regions: ReadonlyArray<DrawingBox & { readonly rows?: number; readonly glyphs?: number }>
): Array<DrawingBox & { readonly rows: number; readonly glyphs: number }> => {
  const groups = regions.map((r) => ({ x0: r.x0, x1: r.x1, top: r.top, bottom: r.bottom, line: (r.bottom - r.top) / Math.max(1, r.rows ?? 1), glyphs: r.glyphs ?? 0 }))
  for (let merged = true; merged;) {
    merged = false
    for (let i = 0; i < groups.length && !merged; i++) {
      for (let j = i + 1; j < groups.length && !merged; j++) {
        const a = groups[i], b = groups[j]
        const reach = Math.max(a.line, b.line)
        if (a.x0 - reach > b.x1 || b.x0 - reach > a.x1 || a.top - reach > b.bottom || b.top - reach > a.bottom) continue
        groups[i] = {
          x0: Math.min(a.x0, b.x0), x1: Math.max(a.x1, b.x1), top: Math.min(a.top, b.top), bottom: Math.max(a.bottom, b.bottom),
          line: Math.min(a.line, b.line), glyphs: a.glyphs + b.glyphs
        }
        groups.splice(j, 1)
        merged = true
      }
    }
  }
  return groups.map((g) => ({ x0: g.x0, x1: g.x1, top: g.top, bottom: g.bottom, rows: Math.max(1, Math.round((g.bottom - g.top) / g.line)), glyphs: g.glyphs }))
}

const LETTER_OR_DIGIT = /[\p{L}\p{N}]/u

/** What the engine read in a crop, kept where it is words: sure words (`minConfidence`), on lines with a letter or a digit. */
export const outlinedLines = (result: OcrResult, minConfidence: number): Array<OcrLine> => {
  const lines: Array<OcrLine> = []
  for (const line of result.lines) {
    if (line.confidence < minConfidence) continue
    // An engine that gives lines without words: the line is one word.
    const all = line.words.length > 0 ? line.words : [{ text: line.text, bbox: line.bbox, confidence: line.confidence }]
    const words = all.filter((w) => w.confidence >= minConfidence && w.text.trim() !== "")
    if (!words.some((w) => LETTER_OR_DIGIT.test(w.text))) continue
    lines.push({ ...line, text: words.map((w) => w.text.trim()).join(" "), words })
  }
  return lines
}

/** The runs that no word of the text layer lies under: a crop may take in a little of the text layer beside the outlines. */
const freshRuns = (native: ReadonlyArray<TextRun>, runs: ReadonlyArray<TextRun>): Array<TextRun> =>
  runs.filter((run) => {
    const cx = (run.x0 + run.x1) / 2, cy = (run.top + run.bottom) / 2
    return !native.some((r) => cx >= r.x0 && cx <= r.x1 && cy >= r.top && cy <= r.bottom)
  })

/**
 * The words read in a crop of `glyphs` outlined letters, or none when they are too few to be
 * those letters: at least half as many characters as glyphs, counting only words off the text
 * layer. Fewer means the shapes were not letters after all: diagram labels such as "⟨Φ⟩" came
 * back as "=", a diagram beside its caption as "T" (docbank pages, bench/pdf/Outlined.ts).
 */
export const cropWords = (native: ReadonlyArray<TextRun>, runs: ReadonlyArray<TextRun>, glyphs: number): Array<TextRun> => {
  const fresh = freshRuns(native, runs)
  let chars = 0
  for (const run of fresh) chars += run.text.trim().length
  return chars * 2 >= glyphs ? fresh : []
}

const inside = (d: DrawingBox, box: DrawingBox): boolean =>
  d.x0 >= box.x0 - 1 && d.x1 <= box.x1 + 1 && d.top >= box.top - 1 && d.bottom <= box.bottom + 1

/**
 * The page with the words read from its outlined regions: their runs join the text layer's,
 * and the outlines they were read from leave the drawings (else the figure stage would also
 * make a picture of them).
 */
export const withOutlinedRuns = (page: PageElements, read: ReadonlyArray<DrawingBox>, runs: ReadonlyArray<TextRun>): PageElements => {
  const { outlined: _found, ...rest } = page
  // The text layer has its own words already.
  const added = freshRuns(page.runs, runs)
  if (added.length === 0) return rest
  return {
    ...rest,
    runs: [...page.runs, ...added],
    drawings: page.drawings.filter((d) => !read.some((box) => inside(d, box)))
  }
}
