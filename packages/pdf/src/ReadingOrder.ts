/**
 * Reading order by recursive XY-cut: a region's blocks are split at the widest empty gutter,
 * whichever axis it runs along, and the halves are read top-then-bottom or left-then-right
 * (right-then-left on right-to-left pages). Columns, sidebars and full-width titles fall out of
 * this without detecting columns explicitly; a region with no gap left is read top to bottom.
 */
import type { LayoutBlock } from "./LayoutBlock.ts"

/** The narrowest gutter that may separate columns, in points. */
const MIN_VERTICAL_GAP = 6

interface Gap { at: number; size: number }

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

const order = (blocks: Array<LayoutBlock>, rtl: boolean, out: Array<LayoutBlock>, depth: number): void => {
  if (blocks.length <= 1 || depth > 60) {
    out.push(...blocks.sort((a, b) => a.top - b.top || a.x0 - b.x0))
    return
  }
  const vertical = largestGap(blocks, (b) => b.x0, (b) => b.x1)
  const horizontal = largestGap(blocks, (b) => b.top, (b) => b.bottom)
  const useVertical = vertical !== undefined && vertical.size >= MIN_VERTICAL_GAP &&
    (horizontal === undefined || vertical.size >= horizontal.size)
  if (useVertical) {
    const left = blocks.filter((b) => (b.x0 + b.x1) / 2 < vertical.at)
    const right = blocks.filter((b) => (b.x0 + b.x1) / 2 >= vertical.at)
    const [first, second] = rtl ? [right, left] : [left, right]
    order(first, rtl, out, depth + 1)
    order(second, rtl, out, depth + 1)
    return
  }
  if (horizontal !== undefined) {
    order(blocks.filter((b) => (b.top + b.bottom) / 2 < horizontal.at), rtl, out, depth + 1)
    order(blocks.filter((b) => (b.top + b.bottom) / 2 >= horizontal.at), rtl, out, depth + 1)
    return
  }
  out.push(...blocks.sort((a, b) => a.top - b.top || a.x0 - b.x0))
}

/** Orders the body blocks of a page; furniture goes first (headers) and last (footers, page numbers). */
export const readingOrder = (blocks: ReadonlyArray<LayoutBlock>, rtl = false): Array<LayoutBlock> => {
  const headers = blocks.filter((b) => b.kind === "page_header").sort((a, b) => a.top - b.top)
  const footers = blocks.filter((b) => b.kind === "page_footer" || b.kind === "page_number").sort((a, b) => a.top - b.top)
  const body = blocks.filter((b) => b.kind !== "page_header" && b.kind !== "page_footer" && b.kind !== "page_number")
  const out: Array<LayoutBlock> = []
  if (body.length > 0) order(body, rtl, out, 0)
  return [...headers, ...out, ...footers]
}
