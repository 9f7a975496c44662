/**
 * The layout stage's output for one page: regions of lines with a kind. This is the contract a
 * learned layout model could fill instead of the rules (it would give boxes and kinds; the lines
 * inside each box come from the text layer either way).
 */
import type { BlockKind, LayoutBlock, Line } from "@strata/core"

export type { LayoutBlock } from "@strata/core"

export const blockOf = (kind: BlockKind, lines: Array<Line>): LayoutBlock => {
  let x0 = Infinity, x1 = -Infinity, top = Infinity, bottom = -Infinity
  const sizes = new Map<number, number>()
  for (const line of lines) {
    x0 = Math.min(x0, line.x0); x1 = Math.max(x1, line.x1)
    top = Math.min(top, line.top); bottom = Math.max(bottom, line.bottom)
    sizes.set(line.size, (sizes.get(line.size) ?? 0) + line.text.length)
  }
  let size = lines[0]?.size ?? 0
  let weight = -1
  for (const [s, w] of sizes) if (w > weight) { size = s; weight = w }
  return { kind, lines, x0, x1, top, bottom, size }
}

/** Two blocks level with each other: they share at least half the height of the shorter. */
export const sameRow = (a: LayoutBlock, b: LayoutBlock): boolean =>
  Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top) > 0.5 * Math.min(a.bottom - a.top, b.bottom - b.top)

export const extend = (block: LayoutBlock, line: Line): void => {
  block.lines.push(line)
  block.x0 = Math.min(block.x0, line.x0)
  block.x1 = Math.max(block.x1, line.x1)
  block.top = Math.min(block.top, line.top)
  block.bottom = Math.max(block.bottom, line.bottom)
}
