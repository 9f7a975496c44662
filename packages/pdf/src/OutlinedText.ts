/**
 * Words drawn as vector outlines (posters, covers, logos with words, titles "converted to
 * curves"): no text layer, only filled paths shaped like glyphs. This finds the regions where
 * they are, from the subpaths (contours) of the page's filled paths that the graphics walk
 * records (Graphics.ts), so that `auto` can render and OCR just those regions (OutlinedOcr.ts).
 *
 * A pure pass, cheap on pages without outlines (a born-digital page has few filled paths):
 * 1. contours are kept when glyph-sized (a box no wider than a few times its height);
 * 2. contours that overlap or sit right above one another (holes of "o", dots of "i", accents)
 *    are joined into glyphs;
 * 3. glyphs are chained left to right into rows: overlapping vertically, close horizontally;
 * 4. a row is words when it looks like set type: at least three glyphs, most on one baseline,
 *    heights on one or two levels (x-height, cap height), varied widths (not repeated markers,
 *    bars or hatching), gaps like letter spacing, and curves in enough of its glyphs (bars and
 *    table rules are rectangles);
 * 5. rows that text of the text layer covers are dropped (a path behind real text: a shadow, a
 *    highlight), and the rest are joined into regions, a block of lines each.
 */
import type { DrawingBox, TextRun } from "@strata/core"

/** The box of one subpath of a filled path, in page space (y down), with what kind of segments drew it. */
export interface PathContour {
  readonly x0: number
  readonly x1: number
  readonly top: number
  readonly bottom: number
  /** Bezier segments in the subpath: letters are mostly curved, bars and rules never. */
  readonly curves: number
  /** All segments (lines and curves). */
  readonly segments: number
}

/** A region whose words are drawn as outlines: where to render and read. */
export interface OutlinedRegion extends DrawingBox {
  /** Rows of glyphs in the region (its lines). */
  readonly rows: number
  /** Glyphs in the region. */
  readonly glyphs: number
  /** The typical glyph height (cap or ascender height) in points: sets the render resolution. */
  readonly glyphHeight: number
}

/** Contours kept per page: a poster title is a few hundred; a map of thousands of shapes is not words anyway. */
export const MAX_CONTOURS = 6000

/** Regions per page beyond which the page is not "some outlined words" (the reader then leaves it as it is). */
const MAX_REGIONS = 40

/** Glyph sizes in points: smaller than this cannot be read from a render; larger is not a letter. */
const MIN_GLYPH = 3
const MAX_GLYPH = 250

interface Glyph {
  x0: number
  x1: number
  top: number
  bottom: number
  curves: number
  segments: number
}

interface Row {
  readonly glyphs: Array<Glyph>
  top: number
  bottom: number
  x1: number
  /** The tallest glyph's height: the reference for gaps. */
  height: number
}

const height = (b: { top: number; bottom: number }) => b.bottom - b.top
const width = (b: { x0: number; x1: number }) => b.x1 - b.x0

/** Removes, in place (no allocation per step of a sweep), the boxes that end before `x` (with `reach` times their height). */
const dropEnded = (boxes: Array<{ x1: number; height?: number; top: number; bottom: number }>, x: number, reach: number): void => {
  let kept = 0
  for (let i = 0; i < boxes.length; i++) {
    const b = boxes[i]
    if (b.x1 + reach * (b.height ?? b.bottom - b.top) >= x && (reach > 0 || b.x1 > x)) boxes[kept++] = b
  }
  boxes.length = kept
}

/** Glyph-sized contours joined into glyphs (holes, dots and accents with their letter). */
const glyphsOf = (contours: ReadonlyArray<PathContour>, pageWidth: number, pageHeight: number): Array<Glyph> => {
  const maxGlyph = Math.min(MAX_GLYPH, pageHeight * 0.3)
  const kept: Array<Glyph> = []
  for (const c of contours) {
    const h = height(c), w = width(c)
    // Off the visible page (outside the CropBox): not there for a reader.
    const cx = (c.x0 + c.x1) / 2, cy = (c.top + c.bottom) / 2
    if (cx < 0 || cy < 0 || cx > pageWidth || cy > pageHeight) continue
    // Dots and commas are small: they are kept here and judged with their row.
    if (h < 0.5 || h > maxGlyph || w > h * 4 + 2 || w < 0.2) continue
    kept.push({ x0: c.x0, x1: c.x1, top: c.top, bottom: c.bottom, curves: c.curves, segments: c.segments })
  }
  kept.sort((a, b) => a.x0 - b.x0)
  const glyphs: Array<Glyph> = []
  // A sweep: only glyphs still open at this x can take the contour.
  const open: Array<Glyph> = []
  for (const c of kept) {
    dropEnded(open, c.x0, 0)
    let into: Glyph | undefined
    for (const g of open) {
      const overlapX = Math.min(g.x1, c.x1) - Math.max(g.x0, c.x0)
      if (overlapX < 0.6 * Math.min(width(g), width(c))) continue
      const overlapY = Math.min(g.bottom, c.bottom) - Math.max(g.top, c.top)
      const small = Math.min(height(g), height(c)), large = Math.max(height(g), height(c))
      // Overlapping (a hole, a stroke of the same letter), or a small mark just above or below (a dot, an accent).
      if (overlapY >= 0.5 * small || (small <= 0.45 * large && overlapY > -0.35 * large)) {
        into = g
        break
      }
    }
    if (into === undefined) {
      const g = { ...c }
      glyphs.push(g)
      open.push(g)
    } else {
      into.x0 = Math.min(into.x0, c.x0)
      into.x1 = Math.max(into.x1, c.x1)
      into.top = Math.min(into.top, c.top)
      into.bottom = Math.max(into.bottom, c.bottom)
      into.curves += c.curves
      into.segments += c.segments
    }
  }
  return glyphs.filter((g) => height(g) >= MIN_GLYPH * 0.25)
}

/** Glyphs chained into rows, left to right. */
const rowsOf = (glyphs: Array<Glyph>): Array<Row> => {
  glyphs.sort((a, b) => a.x0 - b.x0)
  const rows: Array<Row> = []
  const active: Array<Row> = []
  for (const g of glyphs) {
    const h = height(g)
    dropEnded(active, g.x0, 0.9)
    let best: Row | undefined
    let bestOverlap = 0
    for (const r of active) {
      if (g.x0 - r.x1 > r.height * 0.8 + 1) continue
      if (h > r.height * 2.2 && r.glyphs.length > 1) continue
      const overlap = Math.min(r.bottom, g.bottom) - Math.max(r.top, g.top)
      if (overlap >= 0.5 * Math.min(h, r.bottom - r.top) && overlap > bestOverlap) {
        best = r
        bestOverlap = overlap
      }
    }
    if (best === undefined) {
      const r: Row = { glyphs: [g], top: g.top, bottom: g.bottom, x1: g.x1, height: h }
      rows.push(r)
      active.push(r)
    } else {
      best.glyphs.push(g)
      best.x1 = Math.max(best.x1, g.x1)
      // The band follows the letters, not the odd descender or tall mark.
      if (h >= best.height * 0.5) {
        best.top = Math.min(best.top, g.top)
        best.bottom = Math.max(best.bottom, g.bottom)
      }
      best.height = Math.max(best.height, h)
    }
  }
  return rows
}

const median = (xs: Array<number>): number => {
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.floor(s.length / 2)]
}

/** The row without shapes much taller than its letters (the emblem of a logo beside its name). */
const withoutOutsized = (row: Row): Row => {
  if (row.glyphs.length < 3) return row
  const heights = row.glyphs.map(height).sort((a, b) => a - b)
  const H = heights[Math.floor(heights.length * 0.75)]
  const glyphs = row.glyphs.filter((g) => height(g) <= H * 1.6)
  return glyphs.length === row.glyphs.length ? row : { ...row, glyphs }
}

/** Why a row of glyph-sized shapes is (or is not) set type; undefined: it is. Exported for tests and the corpus measure. */
export const rowRejection = (glyphs: ReadonlyArray<PathContour>): string | undefined => {
  const n = glyphs.length
  if (n < 3) return "few"
  const heights = glyphs.map(height)
  const sorted = [...heights].sort((a, b) => a - b)
  // Cap or ascender height: the 75th percentile ignores the odd tall mark.
  const H = sorted[Math.min(n - 1, Math.floor(n * 0.75))]
  if (H < MIN_GLYPH || H > MAX_GLYPH) return "size"
  // Letters (not punctuation): at least a third of the cap height.
  const letters = glyphs.filter((g) => height(g) >= H * 0.35)
  if (letters.length < 3) return "few"
  const baseline = median(letters.map((g) => g.bottom))
  const onBaseline = letters.filter((g) => Math.abs(g.bottom - baseline) <= H * 0.12).length
  if (onBaseline < letters.length * 0.6) return "baseline"
  // Heights on one or two levels (x-height, cap height), as set type has; bars of a chart vary.
  const levels: Array<{ h: number; n: number }> = []
  for (const g of letters) {
    const h = height(g)
    const level = levels.find((l) => Math.abs(l.h - h) <= H * 0.12)
    if (level === undefined) levels.push({ h, n: 1 })
    else level.n++
  }
  levels.sort((a, b) => b.n - a.n)
  const onLevels = levels[0].n + (levels[1]?.n ?? 0)
  if (onLevels < letters.length * 0.75) return "heights"
  // Repeated markers, bars and hatching are all alike: one width and one shape. Letters vary in
  // width from "i" to "m"; figures of a table often share one width but not one outline.
  const widths = letters.map(width)
  const mean = widths.reduce((a, b) => a + b, 0) / widths.length
  const sd = Math.sqrt(widths.reduce((a, b) => a + (b - mean) ** 2, 0) / widths.length)
  if (sd < mean * 0.12) {
    const shapes = new Map<number, number>()
    for (const g of letters) shapes.set(g.curves * 4096 + g.segments, (shapes.get(g.curves * 4096 + g.segments) ?? 0) + 1)
    if (Math.max(...shapes.values()) >= letters.length * 0.6) return "uniform"
  }
  // Letters are close: gaps like letter and word spacing, not the spacing of bars or icons.
  const byX = [...glyphs].sort((a, b) => a.x0 - b.x0)
  const gaps: Array<number> = []
  for (let i = 1; i < byX.length; i++) gaps.push(byX[i].x0 - byX[i - 1].x1)
  if (median(gaps) > H * 0.4) return "spacing"
  // Curved outlines: rectangles (bars, rules, cells) have none; a word of only straight letters is rare.
  const curved = letters.filter((g) => g.curves > 0).length
  if (curved < letters.length * 0.2) return "straight"
  // Glyph outlines have several segments; a run of triangles or diamonds has three or four.
  if (median(letters.map((g) => g.segments)) < 5) return "simple"
  return undefined
}

/** Whether text of the text layer covers a good share of the row (a path behind real text). */
const coveredByText = (row: Row, runs: ReadonlyArray<TextRun>): boolean => {
  let covered = 0
  for (const g of row.glyphs) {
    const cx = (g.x0 + g.x1) / 2, cy = (g.top + g.bottom) / 2
    for (const r of runs) {
      if (cx >= r.x0 && cx <= r.x1 && cy >= r.top && cy <= r.bottom) {
        covered++
        break
      }
    }
  }
  return covered >= row.glyphs.length * 0.25
}

/** The rows, as line boxes, joined into regions: a row just below another and overlapping it across is the next line. */
const regionsOf = (rows: Array<Row>): Array<OutlinedRegion> => {
  const boxes = rows.map((r) => {
    let x0 = Infinity, x1 = -Infinity, top = Infinity, bottom = -Infinity
    for (const g of r.glyphs) {
      x0 = Math.min(x0, g.x0); x1 = Math.max(x1, g.x1); top = Math.min(top, g.top); bottom = Math.max(bottom, g.bottom)
    }
    const H = r.glyphs.map(height).sort((a, b) => a - b)[Math.floor(r.glyphs.length * 0.75)]
    return { x0, x1, top, bottom, rows: 1, glyphs: r.glyphs.length, glyphHeight: H }
  }).sort((a, b) => a.top - b.top)
  const out: Array<{ x0: number; x1: number; top: number; bottom: number; rows: number; glyphs: number; glyphHeight: number }> = []
  for (const b of boxes) {
    const prev = out.find((o) =>
      b.top - o.bottom <= Math.max(o.glyphHeight, b.glyphHeight) * 1.2 && b.top >= o.top &&
      Math.min(o.x1, b.x1) - Math.max(o.x0, b.x0) > 0 &&
      Math.max(o.glyphHeight, b.glyphHeight) <= Math.min(o.glyphHeight, b.glyphHeight) * 2)
    if (prev === undefined) out.push({ ...b })
    else {
      prev.x0 = Math.min(prev.x0, b.x0); prev.x1 = Math.max(prev.x1, b.x1)
      prev.top = Math.min(prev.top, b.top); prev.bottom = Math.max(prev.bottom, b.bottom)
      prev.glyphHeight = (prev.glyphHeight * prev.glyphs + b.glyphHeight * b.glyphs) / (prev.glyphs + b.glyphs)
      prev.rows += b.rows
      prev.glyphs += b.glyphs
    }
  }
  return out
}

/**
 * The regions of a page whose words are drawn as outlines and that no text of the text layer
 * covers. `contours` are the filled subpaths of the page (Graphics.ts), in the frame of `runs`.
 * A page with no text layer at all gives none: `auto` reads the whole page by OCR then.
 */
export const outlinedRegions = (
  contours: ReadonlyArray<PathContour>,
  runs: ReadonlyArray<TextRun>,
  pageWidth: number,
  pageHeight: number
): Array<OutlinedRegion> => {
  // Three letters at the least. A page without any text layer is left to whole-page OCR (OcrDecision.ts).
  if (contours.length < 3 || runs.length === 0) return []
  const rows = rowsOf(glyphsOf(contours, pageWidth, pageHeight)).map(withoutOutsized).filter((r) => r.glyphs.length >= 3)
  const words = rows.filter((r) => rowRejection(r.glyphs) === undefined && !coveredByText(r, runs))
  if (words.length === 0) return []
  const regions = regionsOf(words)
  return regions.length > MAX_REGIONS ? regions.sort((a, b) => b.glyphs - a.glyphs).slice(0, MAX_REGIONS) : regions
}
