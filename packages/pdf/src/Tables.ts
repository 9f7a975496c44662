/**
 * Table detection. Ruled tables come from drawn lines: rules are snapped and joined, grouped into
 * connected frames, and the frame's rule positions give the grid (a missing border between two
 * cells makes a spanning cell). Frames with only horizontal rules (the usual "booktabs" style)
 * take their columns from the text. The grid builder here is shared with `AlignedTables.ts`,
 * which finds tables drawn without any rules.
 */
import { blockOf, type LayoutBlock } from "./LayoutBlock.ts"
import { joinRuns, type Line, pieces } from "./Lines.ts"
import type { Rule } from "./PageContent.ts"
import type { TableCell, TableGrid } from "./TableGrid.ts"
import { columnOf, headerRowsOf, nestHeader, withHeader } from "./HeaderLevels.ts"
import { bandedRows, joinWrappedRows, wrappedRows } from "./WrappedRows.ts"
import type { TextRun } from "./PageContent.ts"

const SNAP = 2.5

interface Box { x0: number; x1: number; top: number; bottom: number }

/** Joins collinear, touching rules and drops specks. */
export const normaliseRules = (rules: ReadonlyArray<Rule>): { h: Array<Rule>; v: Array<Rule> } => {
  const merge = (list: Array<Rule>, horizontal: boolean): Array<Rule> => {
    const pos = (r: Rule) => (horizontal ? r.y0 : r.x0)
    const start = (r: Rule) => (horizontal ? r.x0 : r.y0)
    const end = (r: Rule) => (horizontal ? r.x1 : r.y1)
    list.sort((a, b) => pos(a) - pos(b) || start(a) - start(b))
    const out: Array<Rule> = []
    for (const r of list) {
      const last = out[out.length - 1]
      if (last !== undefined && Math.abs(pos(last) - pos(r)) <= SNAP / 2 && start(r) <= end(last) + SNAP) {
        const e = Math.max(end(last), end(r))
        // A drawn line joined with a filled area's edge is drawn.
        const edge = last.edge === true && r.edge === true ? { edge: true } : { edge: undefined }
        out[out.length - 1] = horizontal ? { ...last, x1: e, ...edge } : { ...last, y1: e, ...edge }
      } else {
        out.push(r)
      }
    }
    return out.filter((r) => end(r) - start(r) >= 6)
  }
  return { h: merge(rules.filter((r) => r.horizontal), true), v: merge(rules.filter((r) => !r.horizontal), false) }
}

const cluster = (values: Array<number>, tolerance: number): Array<number> => {
  values.sort((a, b) => a - b)
  const out: Array<number> = []
  for (const v of values) if (out.length === 0 || v - out[out.length - 1] > tolerance) out.push(v)
  return out
}

const centreX = (r: TextRun) => (r.x0 + r.x1) / 2
const centreY = (r: TextRun) => (r.top + r.bottom) / 2
const inside = (box: Box, x: number, y: number) => x >= box.x0 - 1 && x <= box.x1 + 1 && y >= box.top - 1 && y <= box.bottom + 1

/** Column boundaries from the gaps in the union of the horizontal extents of the lines' pieces. */
export const columnsFromText = (lines: ReadonlyArray<Line>): Array<number> => {
  const spans = lines.flatMap(pieces).sort((a, b) => a[0] - b[0])
  const cuts: Array<number> = []
  let right = -Infinity
  for (const [x0, x1] of spans) {
    if (right !== -Infinity && x0 > right + 1) cuts.push((right + x0) / 2)
    right = Math.max(right, x1)
  }
  return cuts
}

/**
 * Column boundaries of a table given as rows of text, top first. A column whose pieces all stand
 * in the first two rows, with rows under them, is a header's own: a year centred over a column of
 * right-aligned figures leaves a gap of its own between the row labels and the figures. It joins the
 * neighbouring column it stands nearer to.
 */
export const columnsOfRows = (rows: ReadonlyArray<ReadonlyArray<Line>>): Array<number> => {
  const cuts = columnsFromText(rows.flat())
  if (rows.length < 4 || cuts.length === 0) return cuts
  const placed = rows.flatMap((row, r) => row.flatMap((l) => pieces(l).map(([x0, x1]) => ({ r, x0, x1 }))))
  for (let changed = true; changed && cuts.length > 0;) {
    changed = false
    const edges = [-Infinity, ...cuts, Infinity]
    for (let c = 0; c + 1 < edges.length; c++) {
      const inColumn = placed.filter((p) => (p.x0 + p.x1) / 2 > edges[c] && (p.x0 + p.x1) / 2 < edges[c + 1])
      if (inColumn.length === 0 || inColumn.some((p) => p.r >= 2)) continue
      const x0 = Math.min(...inColumn.map((p) => p.x0)), x1 = Math.max(...inColumn.map((p) => p.x1))
      const left = placed.filter((p) => (p.x0 + p.x1) / 2 < edges[c]).reduce((m, p) => Math.max(m, p.x1), -Infinity)
      const right = placed.filter((p) => (p.x0 + p.x1) / 2 > edges[c + 1]).reduce((m, p) => Math.min(m, p.x0), Infinity)
      if (left === -Infinity && right === Infinity) continue
      // Drop the cut on the nearer side (cuts index c - 1 is the left edge, c the right one).
      cuts.splice(x0 - left <= right - x1 ? c - 1 : c, 1)
      changed = true
      break
    }
  }
  return cuts
}

/** Text rows: fragments whose vertical extents overlap. */
export const textRows = (lines: ReadonlyArray<Line>): Array<Array<Line>> => {
  const sorted = [...lines].sort((a, b) => a.top - b.top)
  const rows: Array<{ bottom: number; top: number; lines: Array<Line> }> = []
  for (const line of sorted) {
    const last = rows[rows.length - 1]
    const mid = (line.top + line.bottom) / 2
    if (last !== undefined && mid < last.bottom && mid > last.top) {
      last.lines.push(line)
      last.bottom = Math.max(last.bottom, line.bottom)
    } else {
      rows.push({ top: line.top, bottom: line.bottom, lines: [line] })
    }
  }
  return rows.map((r) => r.lines)
}

/** One visual line of a cell, in its reading direction. */
const joinLine = (runs: Array<TextRun>): string => {
  const rtl = runs.filter((r) => r.rtl).reduce((n, r) => n + r.text.length, 0) > runs.reduce((n, r) => n + r.text.length, 0) / 2
  return joinRuns(runs.sort(rtl ? (a, b) => b.x1 - a.x1 : (a, b) => a.x0 - b.x0), rtl)
}

const cellText = (runs: Array<TextRun>): string => {
  if (runs.length === 0) return ""
  runs.sort((a, b) => a.baseline - b.baseline || a.x0 - b.x0)
  const parts: Array<string> = []
  let current: Array<TextRun> = []
  for (const run of runs) {
    const last = current[current.length - 1]
    if (last !== undefined && Math.abs(run.baseline - last.baseline) > 0.5 * Math.min(run.size, last.size)) {
      parts.push(joinLine(current))
      current = []
    }
    current.push(run)
  }
  parts.push(joinLine(current))
  return parts.join(" ").replace(/(\w)- (\p{Ll})/gu, "$1$2")
}

/** Builds a grid from column cut positions and row boundaries, with optional span detection. */
export const buildGrid = (
  lines: ReadonlyArray<Line>,
  xs: ReadonlyArray<number>,
  ys: ReadonlyArray<number>,
  hasBorder?: (kind: "v" | "h", row: number, col: number) => boolean,
  strict = false
): TableGrid | undefined => {
  const rows = ys.length - 1
  const cols = xs.length - 1
  if (rows < 1 || cols < 2) return undefined
  const slotOf = (x: number, y: number): number => columnOf(ys, y) * cols + columnOf(xs, x)
  // Union-find over slots: slots with no border between them form one spanning cell. Two slots
  // one above the other that both hold text join only where their texts are lines of one paragraph
  // (set as closely as lines are): a rule missing down one column (its rows ruled only beside it)
  // is no cell spanning the rows, and its texts stay in their rows.
  const parent = Array.from({ length: rows * cols }, (_, i) => i)
  const find = (i: number): number => (parent[i] === i ? i : (parent[i] = find(parent[i])))
  // Each run's slot, by its centre; and the extent of the text each slot (then each joined region) holds.
  const placed = lines.flatMap((line) => line.runs.map((run) => ({ run, slot: slotOf(centreX(run), centreY(run)) })))
  type Extent = { readonly top: number; readonly bottom: number; readonly size: number }
  const union = (a: Extent | undefined, b: Extent): Extent =>
    a === undefined ? b : { top: Math.min(a.top, b.top), bottom: Math.max(a.bottom, b.bottom), size: Math.max(a.size, b.size) }
  const texts = new Map<number, Extent>()
  for (const { run, slot } of placed) texts.set(slot, union(texts.get(slot), run))
  const join = (a: number, b: number, vertical: boolean) => {
    const ra = find(a), rb = find(b)
    if (ra === rb) return
    const ta = texts.get(ra), tb = texts.get(rb)
    if (vertical && ta !== undefined && tb !== undefined && tb.top - ta.bottom > 0.6 * Math.max(ta.size, tb.size)) return
    parent[rb] = ra
    if (tb !== undefined) texts.set(ra, union(ta, tb))
  }
  if (hasBorder !== undefined) {
    for (let r = 0; r < rows; r++) {
      for (let c = 0; c < cols; c++) {
        if (c + 1 < cols && !hasBorder("v", r, c + 1)) join(r * cols + c, r * cols + c + 1, false)
        if (r + 1 < rows && !hasBorder("h", r + 1, c)) join(r * cols + c, (r + 1) * cols + c, true)
      }
    }
  }
  const runsBySlot = new Map<number, Array<TextRun>>()
  for (const { run, slot } of placed) {
    const root = find(slot)
    let list = runsBySlot.get(root)
    if (list === undefined) runsBySlot.set(root, (list = []))
    list.push(run)
  }
  const extent = new Map<number, { r0: number; r1: number; c0: number; c1: number }>()
  for (let i = 0; i < rows * cols; i++) {
    const root = find(i)
    const r = Math.floor(i / cols), c = i % cols
    const e = extent.get(root)
    if (e === undefined) extent.set(root, { r0: r, r1: r, c0: c, c1: c })
    else { e.r0 = Math.min(e.r0, r); e.r1 = Math.max(e.r1, r); e.c0 = Math.min(e.c0, c); e.c1 = Math.max(e.c1, c) }
  }
  const cells: Array<TableCell> = []
  for (const [root, e] of extent) {
    // A merged region that is not a rectangle cannot be a cell: give up on spans for this table.
    let count = 0
    for (let i = 0; i < rows * cols; i++) if (find(i) === root) count++
    if (count !== (e.r1 - e.r0 + 1) * (e.c1 - e.c0 + 1)) return hasBorder === undefined ? undefined : buildGrid(lines, xs, ys)
    cells.push({ row: e.r0, col: e.c0, rowSpan: e.r1 - e.r0 + 1, colSpan: e.c1 - e.c0 + 1, text: cellText(runsBySlot.get(root) ?? []) })
  }
  cells.sort((a, b) => a.row - b.row || a.col - b.col)
  return compact({ rows, cols, cells }, strict ? 0.6 : 0.45, strict ? 3 : 2)
}

/**
 * Drops rows and columns with no text (rules drawn twice, spacer rows, decorative frames), then
 * refuses grids that are mostly empty: those are forms or page frames, better read as text.
 */
const compact = (grid: TableGrid, minFill: number, minRows: number): TableGrid | undefined => {
  const usedRows = new Set<number>()
  const usedCols = new Set<number>()
  for (const c of grid.cells) {
    if (c.text.length === 0) continue
    for (let r = c.row; r < c.row + c.rowSpan; r++) usedRows.add(r)
    for (let k = c.col; k < c.col + c.colSpan; k++) usedCols.add(k)
  }
  if (usedRows.size < minRows || usedCols.size < 2) return undefined
  const rowMap = new Map<number, number>()
  const colMap = new Map<number, number>()
  for (let r = 0, n = 0; r < grid.rows; r++) if (usedRows.has(r)) rowMap.set(r, n++)
  for (let k = 0, n = 0; k < grid.cols; k++) if (usedCols.has(k)) colMap.set(k, n++)
  const span = (from: number, count: number, map: Map<number, number>) => {
    let n = 0
    for (let i = from; i < from + count; i++) if (map.has(i)) n++
    return n
  }
  const firstKept = (from: number, count: number, map: Map<number, number>) => {
    for (let i = from; i < from + count; i++) { const v = map.get(i); if (v !== undefined) return v }
    return undefined
  }
  const cells: Array<TableCell> = []
  let filled = 0
  for (const c of grid.cells) {
    const row = firstKept(c.row, c.rowSpan, rowMap)
    const col = firstKept(c.col, c.colSpan, colMap)
    if (row === undefined || col === undefined) continue
    const rowSpan = span(c.row, c.rowSpan, rowMap)
    const colSpan = span(c.col, c.colSpan, colMap)
    if (c.text.length > 0) filled += rowSpan * colSpan
    cells.push({ row, col, rowSpan, colSpan, text: c.text })
  }
  const slots = rowMap.size * colMap.size
  if (filled < slots * minFill) return undefined
  return { rows: rowMap.size, cols: colMap.size, cells }
}

const covered = (rules: ReadonlyArray<Rule>, horizontal: boolean, at: number, from: number, to: number): boolean => {
  const need = (to - from) * 0.6
  let total = 0
  for (const r of rules) {
    if (horizontal ? Math.abs(r.y0 - at) > SNAP : Math.abs(r.x0 - at) > SNAP) continue
    const a = horizontal ? r.x0 : r.y0
    const b = horizontal ? r.x1 : r.y1
    total += Math.max(0, Math.min(b, to) - Math.max(a, from))
  }
  return total >= need
}

/** Frames of connected rules. */
const frames = (h: ReadonlyArray<Rule>, v: ReadonlyArray<Rule>): Array<{ h: Array<Rule>; v: Array<Rule>; box: Box }> => {
  const all = [...h, ...v]
  const parent = all.map((_, i) => i)
  const find = (i: number): number => (parent[i] === i ? i : (parent[i] = find(parent[i])))
  const crosses = (hr: Rule, vr: Rule) => vr.x0 >= hr.x0 - SNAP && vr.x0 <= hr.x1 + SNAP && hr.y0 >= vr.y0 - SNAP && hr.y0 <= vr.y1 + SNAP
  // A drawn rule that meets a drawn vertical one belongs to a ruled grid, and is no booktabs rule
  // (the sides of shaded bands are edges: a striped table's bands still stack).
  const inGrid = new Set(h.filter((hr) => hr.edge !== true && v.some((vr) => vr.edge !== true && crosses(hr, vr))))
  const touches = (a: Rule, b: Rule) => {
    if (a.horizontal === b.horizontal) {
      // Stacked horizontal rules of the same extent (booktabs), near each other; a ruled grid's
      // rules are not stacked onto the rules of what follows it (a listing set between two rules).
      if (!a.horizontal || inGrid.has(a) || inGrid.has(b)) return false
      return Math.abs(a.x0 - b.x0) < 8 && Math.abs(a.x1 - b.x1) < 8 && Math.abs(a.y0 - b.y0) < 250
    }
    return crosses(a.horizontal ? a : b, a.horizontal ? b : a)
  }
  for (let i = 0; i < all.length; i++) {
    for (let j = i + 1; j < all.length; j++) if (touches(all[i], all[j])) parent[find(j)] = find(i)
  }
  const groups = new Map<number, { h: Array<Rule>; v: Array<Rule>; box: Box }>()
  all.forEach((r, i) => {
    const root = find(i)
    let g = groups.get(root)
    if (g === undefined) groups.set(root, (g = { h: [], v: [], box: { x0: Infinity, x1: -Infinity, top: Infinity, bottom: -Infinity } }))
    ;(r.horizontal ? g.h : g.v).push(r)
    g.box.x0 = Math.min(g.box.x0, r.x0); g.box.x1 = Math.max(g.box.x1, r.x1)
    g.box.top = Math.min(g.box.top, r.y0); g.box.bottom = Math.max(g.box.bottom, r.y1)
  })
  return [...groups.values()]
}

/**
 * Where a header of two or more lines of text ends: the first rule across the frame below its top
 * with text on both sides and no line cut by it.
 */
const headerClose = (inFrame: ReadonlyArray<Line>, frame: { h: ReadonlyArray<Rule> }, box: Box): number | undefined => {
  const width = box.x1 - box.x0
  const close = frame.h.filter((r) => r.x1 - r.x0 >= 0.8 * width && r.y0 > box.top + SNAP).sort((a, b) => a.y0 - b.y0)[0]
  if (close === undefined) return undefined
  const header = inFrame.filter((l) => (l.top + l.bottom) / 2 < close.y0)
  const baselines = new Set(header.map((l) => Math.round(l.baseline)))
  if (baselines.size < 2 || header.some((l) => l.bottom > close.y0 + SNAP) || header.length === inFrame.length) return undefined
  return close.y0
}

/**
 * The grid with a multi-level header (HeaderLevels.ts), when the frame has a rule across it that
 * closes a header of two or more lines of text; the rows above that rule are rebuilt from the text.
 */
const nestedHeader = (
  inFrame: ReadonlyArray<Line>,
  xs: ReadonlyArray<number>,
  ys: ReadonlyArray<number>,
  frame: { h: ReadonlyArray<Rule>; v: ReadonlyArray<Rule> },
  box: Box,
  grid: TableGrid,
  withRules: boolean,
  allH: ReadonlyArray<Rule>
): TableGrid | undefined => {
  if (grid.cols !== xs.length - 1) return undefined
  const width = box.x1 - box.x0
  const close = headerClose(inFrame, frame, box)
  if (close === undefined) return undefined
  const header = inFrame.filter((l) => (l.top + l.bottom) / 2 < close)
  // The grid rows above the rule: rows with text whose lower boundary is at or above it.
  let replaced = 0
  for (let r = 0; r + 1 < ys.length && ys[r + 1] <= close + SNAP; r++) {
    if (inFrame.some((l) => (l.top + l.bottom) / 2 > ys[r] && (l.top + l.bottom) / 2 < ys[r + 1])) replaced++
  }
  if (replaced === 0) return undefined
  const ruled = withRules
    ? (x: number, top: number, bottom: number) => frame.v.some((r) => Math.abs(r.x0 - x) <= SNAP && r.y0 <= top + 1 && r.y1 >= bottom - 1)
    : undefined
  // Short rules under group heads (booktabs' cmidrule) stand apart from the frame's own rules.
  const partial = allH.filter((r) => r.x1 - r.x0 < 0.8 * width && r.y0 > box.top - SNAP && r.y0 < close && r.x0 >= box.x0 - SNAP && r.x1 <= box.x1 + SNAP)
    .map((r) => ({ x0: r.x0, x1: r.x1, y: r.y0 }))
  const nested = nestHeader(header, xs, ruled, partial)
  return nested === undefined ? undefined : withHeader(grid, replaced, nested)
}

/**
 * Whether the frame's rows go on outside it: text on the very baselines of at least a third of its
 * rows lies beside it, left or right, no further from it than the frame is wide and on its side of
 * every page gutter. Another column's running text lies level with a table's rows too, but keeps
 * its own baselines.
 */
const partOfWiderRows = (inFrame: ReadonlyArray<Line>, lines: ReadonlyArray<Line>, box: Box, gutters: () => ReadonlyArray<number>): boolean => {
  const reach = box.x1 - box.x0
  const near = lines.filter((l) => !l.rotated && ((l.x1 <= box.x0 + SNAP && l.x1 > box.x0 - reach) || (l.x0 >= box.x1 - SNAP && l.x0 < box.x1 + reach)))
  if (near.length === 0) return false
  const cuts = gutters()
  const across = (a: number, b: number) => cuts.some((g) => g > a && g < b)
  const outside = near.filter((l) => (l.x1 <= box.x0 + SNAP ? !across(l.x1, box.x0) : !across(box.x1, l.x0)))
  const rows = textRows(inFrame)
  let level = 0
  for (const row of rows) {
    if (outside.some((l) => row.some((r) => Math.abs(r.baseline - l.baseline) <= 0.15 * Math.min(r.size, l.size)))) level++
  }
  return level >= Math.max(2, rows.length / 3)
}

/**
 * The lines of a row standing right on a frame's top rule (`above`: a header over rules under each
 * row and none over the first) or just under its last one (`below`: a striped table's unshaded last
 * row under its last band), within its width: two pieces or more, none of them a wide line (a
 * caption is one), the lines of its cells wrapped further out kept.
 */
const rowOutside = (lines: ReadonlyArray<Line>, box: Box, side: "above" | "below"): Array<Line> => {
  const within = (l: Line) => !l.rotated && l.x0 >= box.x0 - l.size && l.x1 <= box.x1 + l.size
  // How far out from the rule a line starts, and whether it stands on the right side of it.
  const out = (l: Line) => (side === "above" ? box.top - l.bottom : l.top - box.bottom)
  const row = lines.filter((l) => within(l) && out(l) >= -SNAP && out(l) <= 1.2 * l.size)
  if (row.length === 0) return []
  for (let added = true; added;) {
    const reach = Math.max(...row.map((l) => (side === "above" ? box.top - l.top : l.bottom - box.bottom)))
    const more = lines.filter((l) => within(l) && !row.includes(l) && out(l) >= -SNAP && out(l) <= reach + 0.5 * l.size)
    added = more.length > 0 && row.length + more.length <= 30
    row.push(...more)
  }
  // (Pieces, not lines: a header's cells set closer than a fragment gap are one line.)
  const wide = row.some((l) => pieces(l).some(([x0, x1]) => x1 - x0 > 0.5 * (box.x1 - box.x0)))
  return wide || row.reduce((n, l) => n + pieces(l).length, 0) < 2 ? [] : row
}

export const tableBlock = (lines: Array<Line>, grid: TableGrid): LayoutBlock => {
  const block = blockOf("table", lines)
  block.table = grid
  return block
}

/**
 * Row spans of a table whose rules part groups of rows (bands): a column holding one line of text
 * in a band of two rows or more, centred in the band's height, is one cell spanning the band (TeX's
 * \multirow: "6" beside its "OTSL" and "HTML" rows). Gives the rows again (a centred line standing
 * between two rows makes no row of its own) and the grid builder's border test: every column border
 * stands; a row border is missing only inside such a cell.
 */
const centredInBands = (
  lines: ReadonlyArray<Line>,
  xs: ReadonlyArray<number>,
  ys: ReadonlyArray<number>,
  bands: ReadonlyArray<number>
): { ys: Array<number>; spans: (kind: "v" | "h", row: number, col: number) => boolean } | undefined => {
  if (bands.length < 3) return undefined
  const bandOf = (y: number) => bands.findIndex((b, i) => i + 1 < bands.length && y >= b - SNAP && y <= bands[i + 1] + SNAP)
  const column = (x: number) => columnOf(xs, x)
  const mid = (l: Line) => (l.top + l.bottom) / 2
  const centred = new Set<string>()
  for (let b = 0; b + 1 < bands.length; b++) {
    const inBand = lines.filter((l) => bandOf(mid(l)) === b)
    if (new Set(inBand.map((l) => columnOf(ys, mid(l)))).size < 2) continue
    const centre = (bands[b] + bands[b + 1]) / 2, height = bands[b + 1] - bands[b]
    for (let c = 0; c + 1 < xs.length; c++) {
      const own = inBand.filter((l) => column((l.x0 + l.x1) / 2) === c)
      const baselines = new Set(own.map((l) => Math.round(l.baseline)))
      if (baselines.size === 1 && own.every((l) => Math.abs(mid(l) - centre) < 0.2 * height)) centred.add(`${b},${c}`)
    }
  }
  if (centred.size === 0) return undefined
  const isCentred = (l: Line) => centred.has(`${bandOf(mid(l))},${column((l.x0 + l.x1) / 2)}`)
  // A row of centred lines only joins the row above it in its band.
  const kept = ys.filter((y, i) => {
    if (i === 0 || i === ys.length - 1) return true
    const row = lines.filter((l) => mid(l) > y && mid(l) < ys[i + 1])
    return row.length === 0 || !row.every(isCentred) || bandOf((ys[i - 1] + y) / 2) !== bandOf((y + ys[i + 1]) / 2)
  })
  return {
    ys: kept,
    spans: (kind, row, col) => {
      if (kind === "v") return true
      const above = bandOf((kept[row - 1] + kept[row]) / 2), below = bandOf((kept[row] + kept[row + 1]) / 2)
      return above !== below || !centred.has(`${above},${col}`)
    }
  }
}

/**
 * Ruled tables: returns the table blocks and the lines they did not take. `gutters`: the page's
 * column gutters (AlignedTables.pageGutters), asked for only when a frame of rules across needs them.
 */
export const ruledTables = (
  lines: ReadonlyArray<Line>,
  rules: ReadonlyArray<Rule>,
  page: { width: number; height: number },
  gutters: () => ReadonlyArray<number> = () => []
): { tables: Array<LayoutBlock>; rest: Array<Line> } => {
  if (rules.length < 2 || rules.length > 5000) return { tables: [], rest: [...lines] }
  const { h, v } = normaliseRules(rules)
  const tables: Array<LayoutBlock> = []
  let rest = [...lines]
  for (const frame of frames(h, v)) {
    let { box } = frame
    if (box.x1 - box.x0 < 30 || box.bottom - box.top < 10) continue
    // A frame around (nearly) the whole page is a border, not a table.
    if (box.x1 - box.x0 > page.width * 0.95 && box.bottom - box.top > page.height * 0.9) continue
    let inFrame = rest.filter((l) => !l.rotated && inside(box, (l.x0 + l.x1) / 2, (l.top + l.bottom) / 2))
    if (inFrame.length < 2) continue
    // Shaded bands alone (a striped table) leave the rows before the first band and after the last
    // outside the frame.
    // The frame and its lines grown by the lines of a row outside it.
    const grow = (row: ReadonlyArray<Line>, side: "above" | "below") => {
      if (row.length === 0) return
      box = side === "above" ? { ...box, top: Math.min(...row.map((l) => l.top)) - 1 } : { ...box, bottom: Math.max(...row.map((l) => l.bottom)) + 1 }
      inFrame = side === "above" ? [...row, ...inFrame] : [...inFrame, ...row]
    }
    if (frame.h.every((r) => r.edge === true)) {
      const head = rowOutside(rest, box, "above")
      grow(rowOutside(rest.filter((l) => !head.includes(l)), box, "below"), "below")
      grow(head, "above")
    }
    let xs: Array<number>
    let ys: Array<number>
    let spans: ((kind: "v" | "h", row: number, col: number) => boolean) | undefined
    let textColumns = false
    let rowsFromText = false
    const vx = cluster(frame.v.filter((r) => r.y1 - r.y0 > 4).map((r) => r.x0), SNAP)
    // Columns drawn as lines (shaded cells show no border between cells of one shade).
    const drawnColumns = vx.length >= 2 && frame.v.some((r) => r.edge !== true)
    const hy = cluster(frame.h.map((r) => r.y0), SNAP)
    if (vx.length >= 2 || (vx.length >= 1 && frame.h.length >= 2)) {
      xs = cluster([box.x0, ...vx, box.x1], SNAP)
    } else {
      // Columns from the text: only for the "booktabs" shape (three or more rules across the frame).
      const across = frame.h.filter((r) => r.x1 - r.x0 >= 0.8 * (box.x1 - box.x0)).length
      if (across < 3) continue
      // Rules over only some of a table's columns (a statement's rules under its year heads and over
      // its totals, none under the row labels) frame part of it: its rows go on beside the frame, and
      // the table is read from the alignment of its text.
      if (partOfWiderRows(inFrame, rest, box, gutters)) continue
      // A header standing on the first rule (rules under each row, none above the first) is the
      // table's first row.
      grow(rowOutside(rest, box, "above"), "above")
      // Under a header of two or more lines, columns come from the body: a group head ("Year Ended")
      // bridges the gutter between the columns it heads.
      const close = headerClose(inFrame, frame, box)
      const body = close === undefined ? [] : inFrame.filter((l) => (l.top + l.bottom) / 2 > close)
      const cuts = columnsFromText(body.length >= 2 ? body : inFrame)
      if (cuts.length === 0) continue
      xs = [box.x0, ...cuts, box.x1]
      textColumns = true
    }
    const rowsOfText = wrappedRows(textRows(inFrame))
    const innerH = hy.filter((y) => y > box.top + SNAP && y < box.bottom - SNAP)
    if (innerH.length + 1 >= rowsOfText.length * 0.8 && hy.length >= 2) {
      ys = cluster([box.top, ...hy, box.bottom], SNAP)
      // Spans come from missing borders.
      if (drawnColumns) {
        spans = (kind, row, col) => kind === "v"
          ? covered(frame.v, false, xs[col], ys[row], ys[row + 1])
          : covered(frame.h, true, ys[row], xs[col], xs[col + 1])
      }
    } else {
      // Rules do not separate every row: rows come from the text.
      rowsFromText = true
      // Between rules that part groups of lines, wrapped prose is one row (WrappedRows.ts).
      const across = frame.h.filter((r) => r.x1 - r.x0 >= 0.8 * (box.x1 - box.x0) && r.y0 > box.top + SNAP && r.y0 < box.bottom - SNAP).map((r) => r.y0)
      ys = bandedRows(rowsOfText, box.top, box.bottom, across, xs)
      const multirow = centredInBands(inFrame, xs, ys, [box.top, ...across.sort((a, b) => a - b), box.bottom])
      if (multirow !== undefined) ({ ys, spans } = multirow)
    }
    // Where rules give the rows and columns, text set sideways in a cell (a narrow column's head
    // turned up the page) is that cell's text.
    const cellLines = rowsFromText || textColumns ? inFrame : [...inFrame, ...rest.filter((l) => l.rotated && inside(box, (l.x0 + l.x1) / 2, (l.top + l.bottom) / 2))]
    let grid = buildGrid(cellLines, xs, ys, spans, textColumns)
    if (grid === undefined) continue
    grid = nestedHeader(inFrame, xs, ys, frame, box, grid, vx.length >= 1, h) ?? grid
    // Rows taken from the text split a wrapped cell over two rows; ruled rows never do.
    if (rowsFromText) grid = joinWrappedRows(grid, headerRowsOf(grid))
    // An empty column means the columns were guessed wrong.
    const usedCols = new Set(grid.cells.filter((c) => c.text.length > 0).map((c) => c.col))
    if (usedCols.size < 2) continue
    const block = tableBlock(cellLines, grid)
    // Ruled in rows and columns (drawn lines both ways): a table, whatever is drawn around it.
    if (drawnColumns && !rowsFromText) block.ruled = true
    tables.push(block)
    const taken = new Set(cellLines)
    rest = rest.filter((l) => !taken.has(l))
  }
  return { tables, rest }
}
