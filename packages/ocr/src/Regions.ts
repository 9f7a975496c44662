/**
 * A cheap page segmentation of our own, so tesseract can skip its page layout analysis: the page
 * is binarised (Otsu), long horizontal and vertical ink runs (table rules, boxes) are found,
 * and a recursive XY cut on a coarse ink grid splits the page into columns (a vertical gap of
 * white running the height of a tall region) and, inside them, into text blocks and lines
 * (horizontal gaps). Tesseract then reads each block as one uniform block of text (PSM 6) or
 * each line as one line (PSM 7), in page coordinates.
 */
import { otsuThreshold } from "./ImageOps.ts"
import type { Gray } from "./ImageOps.ts"

/** [x0, y0, x1, y1] in pixels, x1/y1 exclusive. */
export type Box = readonly [number, number, number, number]

export interface Segmentation {
  /** Text blocks in XY-cut order (top to bottom, columns left to right). */
  readonly blocks: ReadonlyArray<Box>
  /** Ink threshold used (grey levels at or below it are ink: Otsu's class 0). */
  readonly threshold: number
  /** Pixels that belong to long rules, as indices into the page; whitened before recognition. */
  readonly rules: Uint32Array
}

export interface SegmentOptions {
  /** The page's resolution; the gaps below are in points and scale with it. Default 300. */
  readonly dpi?: number | undefined
  /** A vertical gap at least this wide (pt) through a tall region splits columns. Default 8. */
  readonly columnGap?: number | undefined
  /**
   * A region must be at least this tall (pt) to be split into columns. Default 24 (two lines of
   * body text): at 72 a band of two-column text between paragraph gaps that line up across the
   * gutter stayed whole, and its lines were read across both columns (held-out page, CER 53%).
   */
  readonly minColumnHeight?: number | undefined
  /** A horizontal gap at least this tall (pt) separates blocks. Default 5. */
  readonly blockGap?: number | undefined
  /** Ink runs at least this long (pt) are rules, not glyphs. Default 36. */
  readonly minRule?: number | undefined
}

/** Marks the pixels of horizontal and vertical ink runs at least `minRun` long (gaps of 2 px bridged) and one pixel around them. */
const findRules = (ink: Uint8Array, width: number, height: number, minRun: number): Uint32Array => {
  const out: Array<number> = []
  const mark = (i: number) => out.push(i)
  for (let y = 0; y < height; y++) {
    let start = -1
    let last = -1
    for (let x = 0; x <= width; x++) {
      const on = x < width && ink[y * width + x] === 1
      if (on) {
        if (start < 0 || x - last > 3) {
          if (start >= 0 && last - start + 1 >= minRun) for (let k = start; k <= last; k++) for (let dy = -1; dy <= 1; dy++) if (y + dy >= 0 && y + dy < height) mark((y + dy) * width + k)
          start = x
        }
        last = x
      }
    }
    if (start >= 0 && last - start + 1 >= minRun) for (let k = start; k <= last; k++) for (let dy = -1; dy <= 1; dy++) if (y + dy >= 0 && y + dy < height) mark((y + dy) * width + k)
  }
  for (let x = 0; x < width; x++) {
    let start = -1
    let last = -1
    const flush = () => {
      if (start >= 0 && last - start + 1 >= minRun) for (let k = start; k <= last; k++) for (let dx = -1; dx <= 1; dx++) if (x + dx >= 0 && x + dx < width) mark(k * width + x + dx)
    }
    for (let y = 0; y < height; y++) {
      if (ink[y * width + x] !== 1) continue
      if (start < 0 || y - last > 3) {
        flush()
        start = y
      }
      last = y
    }
    flush()
  }
  return Uint32Array.from(out)
}

/** Runs of zeros at least `min` long in `profile[from..to)`, as [start, end) pairs, interior only (not touching the ends). */
const gaps = (profile: Int32Array, from: number, to: number, min: number): Array<[number, number]> => {
  const out: Array<[number, number]> = []
  let first = from
  while (first < to && profile[first] === 0) first++
  let last = to - 1
  while (last >= first && profile[last] === 0) last--
  let start = -1
  for (let i = first; i <= last + 1; i++) {
    const empty = i <= last && profile[i] === 0
    if (empty && start < 0) start = i
    if (!empty && start >= 0) {
      if (i - start >= min) out.push([start, i])
      start = -1
    }
  }
  return out
}

/** Splits the page into text blocks (see the module comment). */
export const segment = (gray: Gray, options: SegmentOptions = {}): Segmentation => {
  const dpi = options.dpi ?? 300
  const pt = dpi / 72
  const { width, height, data } = gray
  const threshold = Math.min(otsuThreshold(gray), 200)
  const ink = new Uint8Array(width * height)
  for (let i = 0; i < ink.length; i++) ink[i] = data[i] <= threshold ? 1 : 0
  const rules = findRules(ink, width, height, Math.round((options.minRule ?? 36) * pt))
  for (const i of rules) ink[i] = 0
  // A coarse grid (cells about 1 pt): a cell is ink when a few of its pixels are, so noise specks drop out.
  const cell = Math.max(1, Math.round(pt))
  const gw = Math.ceil(width / cell)
  const gh = Math.ceil(height / cell)
  const counts = new Uint16Array(gw * gh)
  for (let y = 0; y < height; y++) {
    const row = ((y / cell) | 0) * gw
    for (let x = 0; x < width; x++) if (ink[y * width + x] === 1) counts[row + ((x / cell) | 0)]++
  }
  const minInk = Math.max(2, Math.round(cell * cell * 0.15))
  const grid = new Uint8Array(gw * gh)
  for (let i = 0; i < grid.length; i++) grid[i] = counts[i] >= minInk ? 1 : 0

  const columnGap = Math.max(2, Math.round((options.columnGap ?? 8) * pt / cell))
  const minColumnHeight = Math.round((options.minColumnHeight ?? 24) * pt / cell)
  const blockGap = Math.max(1, Math.round((options.blockGap ?? 5) * pt / cell))
  const rows = new Int32Array(gh)
  const cols = new Int32Array(gw)

  /** The region's ink extent, or undefined when it has too little ink to hold a glyph. */
  const trim = (x0: number, y0: number, x1: number, y1: number): [number, number, number, number] | undefined => {
    let ax = x1, ay = y1, bx = x0, by = y0, n = 0
    for (let y = y0; y < y1; y++) {
      for (let x = x0; x < x1; x++) {
        if (grid[y * gw + x] === 0) continue
        n++
        if (x < ax) ax = x
        if (x >= bx) bx = x + 1
        if (y < ay) ay = y
        if (y >= by) by = y + 1
      }
    }
    return n < 3 ? undefined : [ax, ay, bx, by]
  }

  /** Leaves of the XY cut; consecutive unsplit pieces of one horizontal split are merged back into one block. */
  const cut = (x0: number, y0: number, x1: number, y1: number): Array<{ box: [number, number, number, number]; leaf: boolean }> => {
    const t = trim(x0, y0, x1, y1)
    if (t === undefined) return []
    ;[x0, y0, x1, y1] = t
    if (y1 - y0 >= minColumnHeight) {
      cols.fill(0, x0, x1)
      for (let y = y0; y < y1; y++) for (let x = x0; x < x1; x++) cols[x] += grid[y * gw + x]
      const v = gaps(cols, x0, x1, columnGap)
      if (v.length > 0) {
        const out: Array<{ box: [number, number, number, number]; leaf: boolean }> = []
        let from = x0
        for (const [s, e] of v) {
          for (const piece of cut(from, y0, s, y1)) out.push({ ...piece, leaf: false })
          from = e
        }
        for (const piece of cut(from, y0, x1, y1)) out.push({ ...piece, leaf: false })
        return out
      }
    }
    rows.fill(0, y0, y1)
    for (let y = y0; y < y1; y++) for (let x = x0; x < x1; x++) rows[y] += grid[y * gw + x]
    const h = gaps(rows, y0, y1, blockGap)
    if (h.length === 0) return [{ box: [x0, y0, x1, y1], leaf: true }]
    const pieces: Array<{ box: [number, number, number, number]; leaf: boolean }> = []
    let from = y0
    for (const [s, e] of h) {
      pieces.push(...cut(x0, from, x1, s))
      from = e
    }
    pieces.push(...cut(x0, from, x1, y1))
    const merged: Array<{ box: [number, number, number, number]; leaf: boolean }> = []
    for (const p of pieces) {
      const prev = merged[merged.length - 1]
      if (prev !== undefined && prev.leaf && p.leaf) {
        prev.box = [Math.min(prev.box[0], p.box[0]), prev.box[1], Math.max(prev.box[2], p.box[2]), p.box[3]]
      } else merged.push({ ...p, box: [...p.box] })
    }
    return merged
  }

  const pad = Math.round(3 * pt)
  const blocks = cut(0, 0, gw, gh).map(({ box: [x0, y0, x1, y1] }): Box => [
    Math.max(0, x0 * cell - pad),
    Math.max(0, y0 * cell - pad),
    Math.min(width, x1 * cell + pad),
    Math.min(height, y1 * cell + pad)
  ])
  return { blocks, threshold, rules }
}

/**
 * Text lines inside a block: horizontal gaps in its ink, trimmed and padded; for PSM 7. Two lines
 * meet in the gap between them: at its middle (`cut: "middle"`, tesseract's default), or at its
 * emptiest row, the nearer the middle on ties (`"lightest"`, the line engine). Rows holding only a
 * line's few descenders, or the next line's few ascender tips, read as gap, so a cut in the middle
 * can run through a lone `g` or `y`, and a fixed cut lower down takes in the ascender tips below.
 */
export const linesOf = (gray: Gray, threshold: number, [x0, y0, x1, y1]: Box, dpi = 300, cut: "middle" | "lightest" = "middle"): Array<Box> => {
  const rows = new Int32Array(y1 - y0)
  for (let y = y0; y < y1; y++) {
    let n = 0
    for (let x = x0; x < x1; x++) if (gray.data[y * gray.width + x] <= threshold) n++
    rows[y - y0] = n
  }
  // Noise specks put a few ink pixels in every row of a bad copy: a row with under 2% of the block's width in ink is a gap.
  const floor = Math.max(2, Math.round((x1 - x0) * 0.02))
  const runs: Array<[number, number]> = []
  let start = -1
  for (let i = 0; i <= rows.length; i++) {
    const on = i < rows.length && rows[i] > floor
    if (on && start < 0) start = i
    if (!on && start >= 0) {
      runs.push([start, i])
      start = -1
    }
  }
  // A run shorter than 3 pt is the ascenders or descenders of a line (sparse rows), not a line: it joins its nearer neighbour.
  const short = dpi / 72 * 3
  for (let k = 0; k < runs.length && runs.length > 1;) {
    const [a, b] = runs[k]
    if (b - a >= short) {
      k++
      continue
    }
    const above = k > 0 ? a - runs[k - 1][1] : Infinity
    const below = k < runs.length - 1 ? runs[k + 1][0] - b : Infinity
    if (above <= below) runs[k - 1] = [runs[k - 1][0], b]
    else runs[k + 1] = [a, runs[k + 1][1]]
    runs.splice(k, 1)
    k = Math.max(0, k - 1)
  }
  // Each line reaches into the gaps around it, so no ink between two lines is lost.
  const meet = (from: number, to: number): number => {
    const middle = (from + to) / 2
    if (cut === "middle") return middle
    let best = from
    for (let i = from; i < to; i++) {
      if (rows[i] < rows[best] || (rows[i] === rows[best] && Math.abs(i + 0.5 - middle) < Math.abs(best + 0.5 - middle))) best = i
    }
    return best + 0.5
  }
  const kept = runs.filter(([a, b]) => b - a >= short)
  const meets = kept.slice(1).map(([a], k) => meet(kept[k][1], a))
  return kept.map(([a, b], k, all): Box => [
    x0,
    y0 + (k === 0 ? Math.max(0, a - Math.round(short)) : Math.floor(meets[k - 1])),
    x1,
    y0 + (k === all.length - 1 ? Math.min(rows.length, b + Math.round(short)) : Math.ceil(meets[k]))
  ])
}

/** A copy of the region with the rules' pixels whitened, for recognition. */
export const crop = (gray: Gray, rules: Uint32Array | undefined, [x0, y0, x1, y1]: Box): Gray => {
  const width = x1 - x0
  const height = y1 - y0
  const data = new Uint8Array(width * height)
  for (let y = 0; y < height; y++) data.set(gray.data.subarray((y0 + y) * gray.width + x0, (y0 + y) * gray.width + x1), y * width)
  if (rules !== undefined) {
    for (const i of rules) {
      const x = i % gray.width
      const y = (i / gray.width) | 0
      if (x >= x0 && x < x1 && y >= y0 && y < y1) data[(y - y0) * width + (x - x0)] = 255
    }
  }
  return { data, width, height }
}
