/**
 * Table cells whose text wraps onto a second line, in tables whose rows come from the text (no
 * rule between them): the wrap makes a row of its own with only the first column filled. A row
 * label that goes on in lower case on the next row ("Property, plant and" / "equipment, net") is one
 * cell: the two rows are joined, the values of whichever row holds them kept. A row whose every
 * filled cell goes on in lower case from the cell above it is that row's continuation. A label-only
 * row followed by a capitalised label is a section of the table ("Revenue:" over its items) and stays.
 */
import type { Line } from "./Lines.ts"
import type { TableCell, TableGrid } from "./TableGrid.ts"

const onlyFirst = (cells: ReadonlyArray<TableCell>) => cells.every((c) => c.col === 0 || c.text.length === 0) && cells.some((c) => c.col === 0 && c.text.length > 0)

/** The grid with wrapped row labels joined; a grid with spanning cells is left as it is. */
export const joinWrappedRows = (grid: TableGrid, headerRows = 1): TableGrid => {
  if (grid.cols < 2 || grid.cells.some((c) => c.rowSpan > 1 || c.colSpan > 1)) return grid
  const rows: Array<Array<TableCell>> = Array.from({ length: grid.rows }, () => [])
  for (const c of grid.cells) rows[c.row]?.push(c)
  const label = (row: ReadonlyArray<TableCell>) => row.find((c) => c.col === 0)?.text ?? ""
  const out: Array<Array<TableCell>> = []
  for (let r = 0; r < rows.length; r++) {
    const row = rows[r]
    const next = rows[r + 1]
    const continues = (text: string) => /^\p{Ll}/u.test(text)
    // A label-only row whose label goes on in the next row: the next row takes the whole label.
    if (r >= headerRows && next !== undefined && onlyFirst(row) && !onlyFirst(next) && continues(label(next))) {
      rows[r + 1] = next.map((c) => (c.col === 0 ? { ...c, text: `${label(row)} ${c.text}`.replace(/(\w)- (\p{Ll})/gu, "$1$2") } : c))
      continue
    }
    // A row with values whose label goes on in a label-only row under it.
    const previous = out[out.length - 1]
    if (r > headerRows && previous !== undefined && label(previous).length > 0 && onlyFirst(row) && !onlyFirst(previous) && continues(label(row))) {
      out[out.length - 1] = previous.map((c) => (c.col === 0 ? { ...c, text: `${c.text} ${label(row)}`.replace(/(\w)- (\p{Ll})/gu, "$1$2") } : c))
      continue
    }
    // A row of continuations only: every filled cell goes on in lower case from a filled cell above
    // ("Name of the user profile that has a usage setting for this" / "function.").
    const filled = row.filter((c) => c.text.length > 0)
    if (r > headerRows && previous !== undefined && filled.length > 0 && filled.length < previous.filter((c) => c.text.length > 0).length &&
      filled.every((c) => continues(c.text) && previous.some((p) => p.col === c.col && p.text.length > 0))) {
      out[out.length - 1] = previous.map((p) => {
        const more = filled.find((c) => c.col === p.col)
        return more === undefined ? p : { ...p, text: `${p.text} ${more.text}`.replace(/(\w)- (\p{Ll})/gu, "$1$2") }
      })
      continue
    }
    out.push(row)
  }
  if (out.length === rows.length) return grid
  return { rows: out.length, cols: grid.cols, cells: out.flatMap((row, r) => row.map((c) => ({ ...c, row: r }))) }
}

const NUMBER = /^[-+−–(]?[$€£¥]?\s*\d[\d.,\s]*%?\)?$/

/**
 * Row boundaries of a table whose rules stand between some of its rows only (two or more rules
 * across it inside the frame): between two rules, lines of text that never give a row label
 * beside values twice and hold no two figures in one column are one row of wrapped cells ("분류" / "기준" beside
 * two lines of prose each); elsewhere every line of text is a row. `rows` are the text rows top to
 * bottom, `rules` the rules' heights, `xs` the column boundaries.
 */
export const bandedRows = (
  rows: ReadonlyArray<ReadonlyArray<Line>>,
  top: number,
  bottom: number,
  rules: ReadonlyArray<number>,
  xs: ReadonlyArray<number>
): Array<number> => {
  const labelEdge = xs[1]
  const columnOf = (l: Line) => xs.findIndex((x, c) => c + 1 < xs.length && (l.x0 + l.x1) / 2 <= xs[c + 1])
  const cuts: Array<number> = []
  for (let i = 1; i < rows.length; i++) cuts.push((Math.max(...rows[i - 1].map((l) => l.bottom)) + Math.min(...rows[i].map((l) => l.top))) / 2)
  if (rules.length < 2) return [top, ...cuts, bottom]
  const ruled = (i: number) => {
    const above = Math.max(...rows[i - 1].map((l) => l.bottom)), below = Math.min(...rows[i].map((l) => l.top))
    return rules.some((y) => y >= above - 1 && y <= below + 1)
  }
  const keep = cuts.map(() => true)
  let start = 0
  for (let i = 1; i <= rows.length; i++) {
    if (i < rows.length && !ruled(i)) continue
    // rows[start..i) lie between two rules.
    const band = rows.slice(start, i)
    // A row label beside values opens a row, unless it goes on in lower case from the label above.
    const labelled = band.filter((row) => row.some((l) => l.x1 <= labelEdge && !/^\p{Ll}/u.test(l.text)) && row.some((l) => l.x0 >= labelEdge)).length
    // Two figures in one column are two rows; a figure beside a wrapped cell is one.
    const numeric = xs.slice(1).some((_, c) => band.filter((row) => row.some((l) => columnOf(l) === c && NUMBER.test(l.text.trim()))).length >= 2)
    // A wrap puts two lines or more in one column; lines each in a column of their own are rows.
    const wraps = xs.slice(1).some((_, c) => band.filter((row) => row.some((l) => columnOf(l) === c)).length >= 2)
    // A cell wraps over a few lines; a dozen lines between two rules in one or two columns are
    // running text caught in a frame.
    const columns = xs.slice(1).filter((_, c) => band.some((row) => row.some((l) => columnOf(l) === c))).length
    if (band.length > 1 && (band.length <= 6 || columns >= 3) && labelled < 2 && !numeric && wraps) for (let k = start + 1; k < i; k++) keep[k - 1] = false
    start = i
  }
  return [top, ...cuts.filter((_, k) => keep[k]), bottom]
}
