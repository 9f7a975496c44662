/**
 * Multi-level column headers ("Year Ended" over two year columns, "TEDs" over simple / complex /
 * all). A table's header band (its text above the rule that closes the header) is rebuilt as rows
 * of cells with spans: a header fragment that covers several columns and has header text under it
 * is a group head, one header row per level of nesting; what else stands in a column (its leaf
 * header, however many lines it wraps over) is one cell, spanning down to the last header row
 * under the heads above it. The body rows keep the grid they were given.
 *
 * How far a fragment reaches: over the columns of a short rule drawn just under it (booktabs'
 * cmidrule); else, in a table with vertical rules, from its own column across every column
 * boundary that no rule crosses at its height (and with no other fragment of its line in the
 * way); else over the columns its text overlaps.
 */
import { cellGap, joinRuns, type Line } from "./Lines.ts"
import type { TableCell, TableGrid } from "./TableGrid.ts"

/** Whether a vertical rule runs at `x` over the vertical extent `top`..`bottom`. */
export type RuledAt = (x: number, top: number, bottom: number) => boolean

/** A horizontal rule shorter than the table (booktabs' cmidrule under a group head). */
export interface PartialRule { readonly x0: number; readonly x1: number; readonly y: number }

interface Fragment { readonly line: Line; c0: number; c1: number }

const overlap = (a0: number, a1: number, b0: number, b1: number) => Math.min(a1, b1) - Math.max(a0, b0)

/** Which of the intervals between the boundaries `xs` holds `x` (the first or last where outside them). */
export const columnOf = (xs: ReadonlyArray<number>, x: number) => {
  let c = 0
  while (c < xs.length - 2 && x > xs[c + 1]) c++
  return c
}

/** The columns a fragment covers. */
const reach = (
  line: Line,
  xs: ReadonlyArray<number>,
  sameLine: ReadonlyArray<Line>,
  ruled: RuledAt | undefined,
  partial: ReadonlyArray<PartialRule>
): [number, number] => {
  const cols = xs.length - 1
  const centre = (line.x0 + line.x1) / 2
  const own = columnOf(xs, centre)
  // A rule drawn just under the fragment and wider than it says which columns it heads.
  const under = partial.find((r) => r.y >= line.bottom - 1 && r.y - line.bottom < 1.5 * line.size && r.x0 <= centre && r.x1 >= centre)
  if (under !== undefined) {
    const inside = (c: number) => (xs[c] + xs[c + 1]) / 2 >= under.x0 && (xs[c] + xs[c + 1]) / 2 <= under.x1
    let c0 = own, c1 = own
    while (c0 > 0 && inside(c0 - 1)) c0--
    while (c1 < cols - 1 && inside(c1 + 1)) c1++
    return [c0, c1]
  }
  if (ruled === undefined) {
    // Flush with the table's left edge, a line heads the row labels, however far it runs ("(in
    // thousands, except per share data)" over a narrow column of labels); a group head is centred
    // over the columns it heads.
    if (own === 0 && line.x0 < xs[0] + line.size) return [0, 0]
    let c0 = own, c1 = own
    // Overlapping a neighbour column by a fair part of the fragment's own size counts.
    const enough = Math.max(2, line.size * 0.5)
    while (c0 > 0 && overlap(line.x0, line.x1, xs[c0 - 1], xs[c0]) > enough) c0--
    while (c1 < cols - 1 && overlap(line.x0, line.x1, xs[c1 + 1], xs[c1 + 2]) > enough) c1++
    return [c0, c1]
  }
  const blocked = (c: number) => sameLine.some((o) => o !== line && columnOf(xs, (o.x0 + o.x1) / 2) === c)
  let c0 = own, c1 = own
  while (c0 > 0 && !ruled(xs[c0], line.top, line.bottom) && !blocked(c0 - 1)) c0--
  while (c1 < cols - 1 && !ruled(xs[c1 + 1], line.top, line.bottom) && !blocked(c1 + 1)) c1++
  return [c0, c1]
}

/**
 * A header line cut into pieces: the line builder joins what one gap apart stands on a row, and
 * neighbouring column headers ("enc-layers  dec-layers") come out as one line. Pieces part at a gap
 * wider than a word space or at a vertical rule.
 */
const pieces = (line: Line, ruled: RuledAt | undefined, xs: ReadonlyArray<number>): Array<Line> => {
  const runs = [...line.runs].sort((a, b) => a.x0 - b.x0)
  if (runs.length < 2) return [line]
  const out: Array<Line> = []
  let current = [runs[0]]
  const flush = () => {
    let x0 = Infinity, x1 = -Infinity
    for (const r of current) { x0 = Math.min(x0, r.x0); x1 = Math.max(x1, r.x1) }
    out.push({ ...line, runs: current, text: joinRuns(current), x0, x1 })
  }
  for (let i = 1; i < runs.length; i++) {
    const previous = current[current.length - 1]
    const gap = runs[i].x0 - previous.x1
    const rule = ruled !== undefined && xs.some((x) => x > previous.x1 - 1 && x < runs[i].x0 + 1 && ruled(x, line.top, line.bottom))
    if (gap > cellGap(previous, runs[i]) || rule) {
      flush()
      current = []
    }
    current.push(runs[i])
  }
  flush()
  return out
}

const joinText = (lines: ReadonlyArray<Line>) =>
  [...lines].sort((a, b) => a.baseline - b.baseline || a.x0 - b.x0).map((l) => l.text.trim()).filter((t) => t.length > 0).join(" ").replace(/(\w)- (\p{Ll})/gu, "$1$2")

/**
 * The header band's cells, rows and spans, or undefined when the band has no group head (a
 * one-level header stays as the grid builder made it) or its heads do not nest.
 */
export const nestHeader = (
  lines: ReadonlyArray<Line>,
  xs: ReadonlyArray<number>,
  ruled?: RuledAt,
  partial: ReadonlyArray<PartialRule> = []
): { readonly rows: number; readonly cells: Array<TableCell> } | undefined => {
  const cols = xs.length - 1
  const header = lines.flatMap((line) => pieces(line, ruled, xs))
  if (cols < 2 || header.length < 2) return undefined
  const sameBaseline = (a: Line, b: Line) => Math.abs(a.baseline - b.baseline) < 0.5 * Math.min(a.size, b.size)
  const fragments: Array<Fragment> = header.map((line) => {
    const [c0, c1] = reach(line, xs, header.filter((o) => sameBaseline(o, line)), ruled, partial)
    return { line, c0, c1 }
  })
  // A group head covers several columns and has header text below it within them.
  const below = (head: Fragment, f: Fragment) => f !== head && f.line.top >= head.line.bottom - 0.3 * head.line.size && f.c0 >= head.c0 && f.c1 <= head.c1
  let heads = fragments.filter((f) => f.c1 > f.c0 && fragments.some((o) => below(f, o)))
  if (heads.length === 0) return undefined
  // A head wrapped over two lines ("Year" / "Ended") is one head.
  heads.sort((a, b) => a.line.top - b.line.top)
  const groups: Array<{ c0: number; c1: number; lines: Array<Line>; bottom: number }> = []
  for (const h of heads) {
    const g = groups.find((x) => x.c0 === h.c0 && x.c1 === h.c1 && h.line.top - x.bottom < h.line.size)
    if (g !== undefined) { g.lines.push(h.line); g.bottom = Math.max(g.bottom, h.line.bottom) }
    else groups.push({ c0: h.c0, c1: h.c1, lines: [h.line], bottom: h.line.bottom })
  }
  // Heads must nest or stand apart; the depth of a head is how many heads cover it from above.
  for (const a of groups) {
    for (const b of groups) {
      if (a === b) continue
      const meets = a.c0 <= b.c1 && b.c0 <= a.c1
      const nested = (a.c0 <= b.c0 && a.c1 >= b.c1) || (b.c0 <= a.c0 && b.c1 >= a.c1)
      if (meets && !nested) return undefined
      if (a.c0 === b.c0 && a.c1 === b.c1) return undefined
    }
  }
  const depth = (g: (typeof groups)[number]) => groups.filter((o) => o !== g && o.c0 <= g.c0 && o.c1 >= g.c1).length
  const levels = Math.max(...groups.map(depth)) + 1
  const rows = levels + 1
  const cells: Array<TableCell> = []
  for (const g of groups) cells.push({ row: depth(g), col: g.c0, rowSpan: 1, colSpan: g.c1 - g.c0 + 1, text: joinText(g.lines) })
  heads = fragments.filter((f) => groups.some((g) => g.lines.includes(f.line)))
  const leaves = fragments.filter((f) => !heads.includes(f))
  for (let c = 0; c < cols; c++) {
    const over = groups.filter((g) => g.c0 <= c && g.c1 >= c).length
    const own = leaves.filter((f) => columnOf(xs, (f.line.x0 + f.line.x1) / 2) === c).map((f) => f.line)
    cells.push({ row: over, col: c, rowSpan: rows - over, colSpan: 1, text: joinText(own) })
  }
  cells.sort((a, b) => a.row - b.row || a.col - b.col)
  return { rows, cells }
}

/** The grid with its first `replaced` rows swapped for a nested header. */
export const withHeader = (grid: TableGrid, replaced: number, header: { readonly rows: number; readonly cells: ReadonlyArray<TableCell> }): TableGrid | undefined => {
  // A cell reaching from the header band into the body cannot be split between them.
  if (grid.cells.some((c) => c.row < replaced && c.row + c.rowSpan > replaced)) return undefined
  const shift = header.rows - replaced
  return {
    rows: grid.rows + shift,
    cols: grid.cols,
    cells: [...header.cells, ...grid.cells.filter((c) => c.row >= replaced).map((c) => ({ ...c, row: c.row + shift }))]
  }
}

/**
 * How many rows head a grid: one, or, when its first row has a cell spanning columns (a group
 * head), every row that a cell starting in the head rows reaches down to.
 */
export const headerRowsOf = (grid: TableGrid): number => {
  if (!grid.cells.some((c) => c.row === 0 && c.colSpan > 1)) return 1
  let rows = 1
  for (let changed = true; changed;) {
    changed = false
    for (const c of grid.cells) {
      if (c.row < rows && c.row + c.rowSpan > rows) { rows = c.row + c.rowSpan; changed = true }
    }
  }
  // A head band reaching the whole table would leave no body: then it was no header.
  return rows < grid.rows ? rows : 1
}
