/**
 * Reading order by recursive XY-cut: a region's blocks are split at the widest empty gutter,
 * whichever axis it runs along, and the halves are read top-then-bottom or left-then-right
 * (right-then-left on right-to-left pages). Columns, sidebars and full-width titles fall out of
 * this without detecting columns explicitly; a region with no gap left is read top to bottom.
 */
import type { LayoutBlock } from "./LayoutBlock.ts"

/** The narrowest gutter that may separate columns, in points. */
const MIN_VERTICAL_GAP = 6

/**
 * A gutter running the whole region is cut before a horizontal gap unless that gap is wider than
 * the gutter divided by this (1.67 times the gutter):
 * a sidebar's margin that ends level with a short column leaves a gap across the page as wide as
 * the gutter, and cut there first the columns were read band by band (the sidebar fixture of
 * ReadingOrder.test.ts; the generated articles and Docling's PDFs read the same with 0.5 to 1).
 */
const COLUMNS_FIRST = 0.6

interface Gap { at: number; size: number }

/**
 * A block spanning the region may overlap the line above or below it by this much (points) and
 * still be cut from it: a figure's box drawn with its margin reached 1.2 pt into the last line
 * above it, no gap was left, and the whole band above it was read top to bottom across columns.
 */
const TOUCHING = 2

const largestGap = (blocks: ReadonlyArray<LayoutBlock>, lo: (b: LayoutBlock) => number, hi: (b: LayoutBlock) => number): Gap | undefined => {
  const sorted = [...blocks].sort((a, b) => lo(a) - lo(b))
  let best: Gap | undefined
  let reach = hi(sorted[0])
  for (let i = 1; i < sorted.length; i++) {
    const start = lo(sorted[i])
    const size = start - reach
    if (size > 0 && (best === undefined || size > best.size)) best = { at: (reach + start) / 2, size }
    reach = Math.max(reach, hi(sorted[i]))
  }
  return best
}

/**
 * The widest horizontal gap that borders a block spanning most of the region (a title, a figure
 * or a quote across the columns), when there is one. Cut there first: a wider gap elsewhere may
 * run between paragraphs of both columns at one height (a sidebar's margin beside the end of a
 * column), and cut there the columns' halves are read band by band.
 */
const spanningGap = (blocks: ReadonlyArray<LayoutBlock>): Gap | undefined => {
  let x0 = Infinity, x1 = -Infinity
  for (const b of blocks) { x0 = Math.min(x0, b.x0); x1 = Math.max(x1, b.x1) }
  const wide = (b: LayoutBlock) => b.x1 - b.x0 >= 0.6 * (x1 - x0)
  if (!blocks.some(wide) || blocks.every(wide)) return undefined
  const sorted = [...blocks].sort((a, b) => a.top - b.top)
  let best: Gap | undefined
  let reach = sorted[0].bottom
  let last = sorted[0]
  for (let i = 1; i < sorted.length; i++) {
    const start = sorted[i].top
    const size = start - reach
    if (size > -TOUCHING && (wide(last) || wide(sorted[i])) && (best === undefined || size > best.size)) best = { at: (reach + start) / 2, size }
    if (sorted[i].bottom >= reach) { reach = sorted[i].bottom; last = sorted[i] }
  }
  return best
}

/**
 * A block set across a column gutter, alone at its height between text above and below: it
 * reaches a quarter or more into two of the columns the region's other blocks form, and every
 * other block is wholly above or below it. The columns break into bands there (a pull quote or a
 * figure set across them), even when the block stops short of the last column, whose gutter then
 * runs the whole region: cut there first, the block went with the columns it covers and the last
 * column was read after them (bench/pdf/ArticleOrder.ts). The cut is the gap above the block.
 */
const bandGap = (blocks: ReadonlyArray<LayoutBlock>): Gap | undefined => {
  // The columns: the x-ranges of the other blocks, merged where they overlap or stand closer than a gutter.
  const crosses = (b: LayoutBlock) => {
    const spans = blocks.filter((o) => o !== b).map((o) => [o.x0, o.x1] as const).sort((p, q) => p[0] - q[0])
    const columns: Array<[number, number]> = []
    for (const [x0, x1] of spans) {
      const last = columns.at(-1)
      if (last !== undefined && x0 < last[1] + MIN_VERTICAL_GAP) last[1] = Math.max(last[1], x1)
      else columns.push([x0, x1])
    }
    return columns.filter(([x0, x1]) => Math.min(b.x1, x1) - Math.max(b.x0, x0) > 0.25 * (x1 - x0)).length >= 2
  }
  const sorted = [...blocks].sort((a, b) => a.top - b.top)
  // Alone at its height: what starts before it ends above it, what comes next starts below it.
  let reach = -Infinity
  for (let i = 0; i < sorted.length - 1; i++) {
    const b = sorted[i]
    if (i > 0 && reach <= b.top + 1 && sorted[i + 1].top >= b.bottom - 1 && crosses(b)) return { at: (reach + b.top) / 2, size: b.top - reach }
    reach = Math.max(reach, b.bottom)
  }
  return undefined
}

/**
 * Whether a gap across the region at `y` only opens below a column that has ended: above it there
 * is text both sides of the gutter at `x`, below it on one side only. Cut there, the rest of the
 * longer column was read after the whole of the shorter one (a short right column beside a left
 * one that goes on under a heading's space or a figure's); the gutter is cut first instead.
 */
const columnGoesOn = (blocks: ReadonlyArray<LayoutBlock>, x: number, y: number): boolean => {
  const side = (b: LayoutBlock) => ((b.x0 + b.x1) / 2 < x ? "left" : "right")
  const above = new Set(blocks.filter((b) => (b.top + b.bottom) / 2 < y).map(side))
  const below = new Set(blocks.filter((b) => (b.top + b.bottom) / 2 >= y).map(side))
  return above.size === 2 && below.size === 1
}

/** Whether two groups of blocks share some height (columns side by side), rather than one lying wholly above the other. */
const sideBySide = (a: ReadonlyArray<LayoutBlock>, b: ReadonlyArray<LayoutBlock>) =>
  Math.min(Math.max(...a.map((x) => x.bottom)), Math.max(...b.map((x) => x.bottom))) > Math.max(Math.min(...a.map((x) => x.top)), Math.min(...b.map((x) => x.top)))

const order = (blocks: Array<LayoutBlock>, rtl: boolean, out: Array<LayoutBlock>, depth: number, spanning = false): void => {
  if (blocks.length <= 1 || depth > 60) {
    out.push(...blocks.sort((a, b) => a.top - b.top || a.x0 - b.x0))
    return
  }
  const band = spanning ? bandGap(blocks) : undefined
  if (band !== undefined) {
    order(blocks.filter((b) => (b.top + b.bottom) / 2 < band.at), rtl, out, depth + 1, spanning)
    order(blocks.filter((b) => (b.top + b.bottom) / 2 >= band.at), rtl, out, depth + 1, spanning)
    return
  }
  const vertical = largestGap(blocks, (b) => b.x0, (b) => b.x1)
  const across = spanning ? spanningGap(blocks) : undefined
  const horizontal = across ?? largestGap(blocks, (b) => b.top, (b) => b.bottom)
  const useVertical = vertical !== undefined && vertical.size >= MIN_VERTICAL_GAP &&
    (horizontal === undefined || vertical.size >= (spanning ? COLUMNS_FIRST : 1) * horizontal.size ||
      (spanning && across === undefined && columnGoesOn(blocks, vertical.at, horizontal.at)))
  const left = useVertical ? blocks.filter((b) => (b.x0 + b.x1) / 2 < vertical.at) : []
  const right = useVertical ? blocks.filter((b) => (b.x0 + b.x1) / 2 >= vertical.at) : []
  // Two sides one wholly above the other are no columns side by side: a heading set flush left
  // under a centred table was read before it.
  if (useVertical && (horizontal === undefined || sideBySide(left, right))) {
    const [first, second] = rtl ? [right, left] : [left, right]
    order(first, rtl, out, depth + 1, spanning)
    order(second, rtl, out, depth + 1, spanning)
    return
  }
  if (horizontal !== undefined) {
    order(blocks.filter((b) => (b.top + b.bottom) / 2 < horizontal.at), rtl, out, depth + 1, spanning)
    order(blocks.filter((b) => (b.top + b.bottom) / 2 >= horizontal.at), rtl, out, depth + 1, spanning)
    return
  }
  out.push(...blocks.sort((a, b) => a.top - b.top || a.x0 - b.x0))
}

/**
 * Orders the body blocks of a page; furniture goes first (headers) and last (footers, page
 * numbers). `spanning: false` takes the widest gap always (as before spanningGap; benches compare).
 */
export const readingOrder = (blocks: ReadonlyArray<LayoutBlock>, rtl = false, spanning = true): Array<LayoutBlock> => {
  const headers = blocks.filter((b) => b.kind === "page_header").sort((a, b) => a.top - b.top)
  const footers = blocks.filter((b) => b.kind === "page_footer" || b.kind === "page_number").sort((a, b) => a.top - b.top)
  const body = blocks.filter((b) => b.kind !== "page_header" && b.kind !== "page_footer" && b.kind !== "page_number")
  const out: Array<LayoutBlock> = []
  if (body.length > 0) order(body, rtl, out, 0, spanning)
  return [...headers, ...out, ...footers]
}
