/**
 * Unruled tables, from text alignment alone: consecutive rows of several short fragments whose
 * horizontal extents leave common vertical gutters. Prose set in columns leaves gutters too, so
 * page columns are found first (gutters running down most of the text) and tables are looked for
 * inside each column; fragment length tells a table's cells from a column's lines.
 */
import type { LayoutBlock } from "./LayoutBlock.ts"
import { type Line, pieces } from "./Lines.ts"
import { buildGrid, columnsOfRows, tableBlock, textRows } from "./Tables.ts"
import { headerRowsOf, nestHeader, withHeader } from "./HeaderLevels.ts"
import { joinWrappedRows, wrappedRows } from "./WrappedRows.ts"

/**
 * How page gutters are told. `spanning`: the share of the text's height that lines crossing a
 * gutter may cover (a title, a deck, a figure, a caption or a pull quote set across the columns);
 * it was 0.04, and a one-page article's title and deck alone hid its gutters. `perRow`: a side's
 * characters are counted per row, not per fragment, so that a narrow justified column whose
 * two-word lines are cut at their one stretched space still reads as running text. Without
 * either, narrow columns were read as one table (bench/pdf/ArticleOrder.ts). Both sides of a
 * gutter must still be running text.
 */
export interface GutterRules {
  readonly spanning: number
  readonly perRow: boolean
  /**
   * Running text on both sides is mostly letters, at most two and a half fragments a row (figures
   * side by side, and rows of several cells, are a table's columns).
   */
  readonly letters: boolean
}

export const GUTTERS: GutterRules = { spanning: 0.15, perRow: true, letters: true }

/** The rules before issue 17's reading-order work (benches compare). */
export const GUTTERS_BEFORE: GutterRules = { spanning: 0.04, perRow: false, letters: false }

/** A fragment that is a bare number of a few digits. */
const LINE_NUMBER = /^\s*\d{1,4}\s*$/

/**
 * Page columns: x positions where (almost) no text crosses over most of the text's height. Unruled
 * tables are looked for inside each column, so that a column of prose beside a table never
 * becomes the table's first column.
 */
export const pageGutters = (lines: ReadonlyArray<Line>, width: number, rules: GutterRules = GUTTERS): Array<number> => {
  const BIN = 2
  const bins = Math.max(1, Math.ceil(width / BIN))
  const covered = new Float64Array(bins)
  let top = Infinity, bottom = -Infinity
  for (const l of lines) {
    if (l.rotated) continue
    top = Math.min(top, l.top); bottom = Math.max(bottom, l.bottom)
    // Line numbers (a listing's, set out in the gutter) cross it without closing it.
    if (LINE_NUMBER.test(l.text)) continue
    const h = l.bottom - l.top
    for (let b = Math.max(0, Math.floor(l.x0 / BIN)); b <= Math.min(bins - 1, Math.floor(l.x1 / BIN)); b++) covered[b] += h
  }
  const total = bottom - top
  if (!(total > 0)) return []
  const gutters: Array<number> = []
  let start = -1
  for (let b = 0; b <= bins; b++) {
    const empty = b < bins && covered[b] <= total * rules.spanning
    if (empty && start < 0) start = b
    if (!empty && start >= 0) {
      const x0 = start * BIN, x1 = b * BIN
      if (x1 - x0 >= 8 && start > 0 && b < bins) {
        const mid = (x0 + x1) / 2
        // Both sides must be columns of running text, not the last column of a table: words (mostly
        // letters; a statement's columns of figures beside each other leave gaps down the page too),
        // a line a row (a table's rows are several cells; a wrapped notes column beside them is not
        // a page's column).
        const side = (keep: (l: Line) => boolean) => {
          const own = lines.filter((l) => !l.rotated && keep(l))
          let chars = 0, letters = 0, lo = Infinity, hi = -Infinity
          for (const l of own) {
            chars += l.text.length
            letters += rules.letters ? (l.text.match(/\p{L}/gu)?.length ?? 0) : l.text.length
            lo = Math.min(lo, l.top); hi = Math.max(hi, l.bottom)
          }
          const rowCount = new Set(own.map((l) => l.row)).size
          const units = rules.perRow ? rowCount : own.length
          // A row of running text is one fragment, or two where a justified line's stretched space cut it.
          const fragmentsPerRow = rules.letters ? own.length / Math.max(1, rowCount) : 0
          return own.length >= lines.length * 0.15 && chars / Math.max(1, units) >= 15 && hi - lo >= total * 0.5 && letters >= chars * 0.5 && fragmentsPerRow <= 2.5
        }
        if (side((l) => l.x1 <= mid) && side((l) => l.x0 >= mid)) gutters.push(mid)
      }
      start = -1
    }
  }
  return gutters
}

/** Unruled tables from text alignment, looked for column by column. */
export const alignedTables = (lines: ReadonlyArray<Line>, width: number, rules: GutterRules = GUTTERS): { tables: Array<LayoutBlock>; rest: Array<Line> } => {
  const gutters = pageGutters(lines, width, rules)
  if (gutters.length === 0) return alignedTablesIn(lines)
  const regions: Array<Array<Line>> = Array.from({ length: gutters.length + 1 }, () => [])
  const crossing: Array<Line> = []
  for (const line of lines) {
    const left = gutters.filter((g) => line.x1 <= g).length
    const right = gutters.filter((g) => line.x0 >= g).length
    // A line crossing a gutter (a title, a footer) belongs to no column.
    if (left + right < gutters.length) crossing.push(line)
    else regions[gutters.length - left].push(line)
  }
  const tables: Array<LayoutBlock> = []
  const rest: Array<Line> = [...crossing]
  for (const region of regions) {
    const found = alignedTablesIn(region)
    tables.push(...found.tables)
    rest.push(...found.rest)
  }
  return { tables, rest }
}

const alignedTablesIn = (lines: ReadonlyArray<Line>): { tables: Array<LayoutBlock>; rest: Array<Line> } => {
  const rows = wrappedRows(textRows(lines.filter((l) => !l.rotated)))
  const tables: Array<LayoutBlock> = []
  const taken = new Set<Line>()
  const top = (row: Array<Line>) => Math.min(...row.map((l) => l.top))
  const bottom = (row: Array<Line>) => Math.max(...row.map((l) => l.bottom))
  const flush = (from: number, to: number) => {
    const candidate = rows.slice(from, to)
    if (candidate.length < 3) return
    const all = candidate.flat()
    const totalChars = all.reduce((n, l) => n + l.text.length, 0)
    if (totalChars / all.length > 32) return
    const cuts = columnsOfRows(candidate)
    if (cuts.length < 1) return
    const multi = candidate.filter((r) => r.length >= 2).length
    if (multi < Math.max(3, candidate.length * 0.6)) return
    // Two columns of sentences are a two-column layout or a definition list, not a table.
    // (Columns counted where at least two rows, and a third of them, have text: a justified line's
    // stretched space can leave a gap down a few rows of prose.)
    const solid = [-Infinity, ...cuts, Infinity].slice(1).filter((right, c, edges) => {
      const left = c === 0 ? -Infinity : edges[c - 1]
      const filledRows = candidate.filter((row) => row.some((l) => pieces(l).some(([a, b]) => (a + b) / 2 > left && (a + b) / 2 < right))).length
      return filledRows >= Math.max(2, candidate.length / 3)
    }).length
    if (solid <= 2 && totalChars / all.length > 20) return
    let x0 = Infinity, x1 = -Infinity
    for (const l of all) { x0 = Math.min(x0, l.x0); x1 = Math.max(x1, l.x1) }
    const ys = [Math.min(...candidate[0].map((l) => l.top))]
    for (let i = 1; i < candidate.length; i++) {
      ys.push((Math.max(...candidate[i - 1].map((l) => l.bottom)) + Math.min(...candidate[i].map((l) => l.top))) / 2)
    }
    ys.push(Math.max(...candidate[candidate.length - 1].map((l) => l.bottom)))
    // Without rules only a well-filled grid is believed: labels scattered over a diagram also align.
    const xs = [x0, ...cuts, x1]
    let grid = buildGrid(all, xs, ys, undefined, true)
    if (grid === undefined) return
    // A group head on the table's own first row, beside the row labels' heading ("(in millions)
    // Year Ended December 31,"): that row has fewer pieces than the one under it, and with it makes
    // a header of two levels.
    let inner = false
    // Group heads on the table's own first rows (beside the row labels' heading: "(in millions)
    // Year Ended December 31,", wrapped or not) bridge the gutters between the columns they head:
    // the rows under them set the columns, and the heads with the leaf headers under them make a
    // header of two levels or more. Tried with one and with two rows of heads.
    // Cells of a row: its pieces, those over one another (a head wrapped onto a second line) as one.
    const cellsOf = (row: ReadonlyArray<Line>) => {
      let n = 0, right = -Infinity
      for (const [x0, x1] of row.flatMap((l) => pieces(l)).sort((a, b) => a[0] - b[0])) {
        if (x0 >= right) n++
        right = Math.max(right, x1)
      }
      return n
    }
    for (let heads = 1; !inner && heads <= 2 && candidate.length - heads >= 3; heads++) {
      if (candidate.slice(0, heads).some((row) => cellsOf(row) > 3)) break
      const under = columnsOfRows(candidate.slice(heads))
      if (under.length <= columnsOfRows(candidate.slice(heads - 1)).length && !(heads === 1 && cellsOf(candidate[0]) < cellsOf(candidate[1]))) continue
      // The head rows' own pieces would set the gutters at their edges: the rows under them place them.
      const bxs = under.length >= cuts.length ? [x0, ...under, x1] : xs
      const nested = nestHeader(candidate.slice(0, heads + 1).flat(), bxs)
      const body = nested === undefined || nested.cells.some((c) => c.colSpan > 1 && c.col === 0) ? undefined : buildGrid(all, bxs, ys, undefined, true)
      const merged = nested === undefined || body === undefined || body.cols !== bxs.length - 1 ? undefined : withHeader(body, heads + 1, nested)
      if (merged !== undefined) {
        grid = merged
        inner = true
      }
    }
    // A group head ("Year Ended December 31,") stands alone on its row just above the table, over
    // the columns it heads: with the table's first row it makes a header of two levels.
    const above: Array<Line> = []
    for (let i = from - 1, below = top(candidate[0]); !inner && i >= 0 && i >= from - 2; i--) {
      const row = rows[i]
      const size = row[0].size
      if (below - bottom(row) > 1.2 * size || row.some((l) => taken.has(l) || l.x0 < x0 - size || l.x1 > x1 + size)) break
      if (row.reduce((n, l) => n + l.text.length, 0) > 60 || row.every((l) => l.x1 <= xs[1])) break
      above.unshift(...row)
      below = top(row)
    }
    if (!inner && above.length > 0 && grid.cols === xs.length - 1) {
      const nested = nestHeader([...above, ...candidate[0]], xs)
      // Group heads stand over the value columns; a line reaching over the first column (the row
      // labels) is the table's title, centred over it, not a head.
      const title = nested?.cells.some((c) => c.colSpan > 1 && c.col === 0) ?? true
      const merged = nested === undefined || title ? undefined : withHeader(grid, 1, nested)
      if (merged !== undefined) {
        grid = merged
        all.unshift(...above)
      }
    }
    tables.push(tableBlock(all, joinWrappedRows(grid, headerRowsOf(grid))))
    for (const l of all) taken.add(l)
  }
  // A row label wrapped onto a line of its own above its values: it stays in the run when it stands
  // in the first column of the row under it (WrappedRows.ts joins the two).
  const wrappedLabel = (row: Array<Line>, next: Array<Line> | undefined) => {
    if (row.length !== 1 || next === undefined || next.length < 2) return false
    const sorted = [...next].sort((a, b) => a.x0 - b.x0)
    if (row[0].x0 > sorted[0].x0 + 2 * row[0].size || row[0].x1 >= sorted[1].x0 - 0.5 * row[0].size) return false
    // The label goes on in lower case on the next line, beside its values: a wrap, not a formula
    // or a caption. (A label wrapped under its values' row still splits an unruled table.)
    return /^\p{Ll}/u.test(sorted[0].text) && !row[0].math && !sorted[0].math
  }
  // A row label alone on its row ("Revenue:" over its items, a total's label whose values were
  // drawn as a ruled band) stays in the run when the row under it is a row of the table whose
  // first piece stands in the same column, an indent away at most.
  const sectionLabel = (row: Array<Line>, next: Array<Line> | undefined) => {
    if (row.length !== 1 || next === undefined || next.length < 2 || row[0].math) return false
    const first = [...next].sort((a, b) => a.x0 - b.x0)
    const size = row[0].size
    return row[0].x0 <= first[0].x0 + 0.5 * size && row[0].x0 >= first[0].x0 - 4 * size && row[0].x1 < first[1].x0 - size &&
      top(next) - bottom(row) < 1.5 * size && row[0].text.length <= 60
  }
  let start = -1
  for (let i = 0; i <= rows.length; i++) {
    const row = rows[i]
    const multi = row !== undefined && (row.length >= 2 || (start >= 0 && (wrappedLabel(row, rows[i + 1]) || sectionLabel(row, rows[i + 1]))))
    if (multi && (start < 0 || top(row) - bottom(rows[i - 1]) < 2.5 * row[0].size)) {
      if (start < 0) start = i
      continue
    }
    if (start >= 0) flush(start, i)
    start = multi ? i : -1
  }
  return { tables, rest: lines.filter((l) => !taken.has(l)) }
}
