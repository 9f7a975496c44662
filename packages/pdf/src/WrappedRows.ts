/**
 * Table cells whose text wraps onto a second line, in tables whose rows come from the text (no
 * rule between them): the wrap makes a row of its own with only the first column filled. A row
 * label that goes on in lower case on the next row ("Property, plant and" / "equipment, net") is one
 * cell: the two rows are joined, the values of whichever row holds them kept. A row whose every
 * filled cell goes on in lower case from the cell above it is that row's continuation. A label-only
 * row followed by a capitalised label is a section of the table ("Revenue:" over its items) and stays.
 */
import { type Line, pieces } from "./Lines.ts"
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

/** Whether `line` is a figure standing under (or over) a figure of `row`, in the same column. */
const figureUnderFigure = (line: Line, row: ReadonlyArray<Line>): boolean =>
  NUMBER.test(line.text.trim()) && row.some((o) => o.x0 < line.x1 && o.x1 > line.x0 && NUMBER.test(o.text.trim()))

/**
 * Text rows with the lines of wrapped cells joined to the row they belong to. Where a table pads its
 * cells, the space between two of its rows is wider than between two lines of one cell: cut at the
 * wider gaps, a stretch of rows where one row holds the most pieces (two or more), the others
 * each continuing its cells (a piece starting or centred where one of its pieces is, and ending
 * before the next), is one row ("Terror usitas at aestas" / "tabella cunabula eum" in a comment
 * column, under its row's first line or, in cells set at the middle or bottom, above it). Without
 * that contrast (rows set as closely as lines), a line under a later cell of the row above goes on
 * with it (`topAligned`).
 */
export const wrappedRows = (rows: ReadonlyArray<Array<Line>>): Array<Array<Line>> => {
  if (rows.length < 3) return [...rows]
  const sizes = rows.flat().map((l) => l.size).sort((a, b) => a - b)
  const size = sizes[Math.floor(sizes.length / 2)]
  const gaps = rows.slice(1).map((row, i) => Math.min(...row.map((l) => l.top)) - Math.max(...rows[i].map((l) => l.bottom)))
  const lineGaps = gaps.filter((g) => g < size)
  if (lineGaps.length === 0) return [...rows]
  const wide = Math.min(...lineGaps) + 0.25 * size
  const edges = (row: ReadonlyArray<Line>) => row.flatMap((l) => pieces(l)).sort((a, b) => a[0] - b[0])
  // Each piece of `wrap` goes on with a cell of `row` (starts where it starts, or is centred where
  // it is centred, and ends before the next) or stands in a column that row leaves empty (a cell of
  // more lines, centred beside the row's line).
  const continues = (wrap: ReadonlyArray<Line>, row: ReadonlyArray<Line>) => {
    const own = edges(wrap), other = edges(row)
    // A figure under a figure is no wrapped line of a cell: they are two rows (OTSL's row and HTML's
    // in one band of a results table). A figure under a currency sign is ("$" / "1,206,000").
    if (own.length === 0 || own.length >= other.length || wrap.some((l) => l.math || figureUnderFigure(l, row))) return false
    const ends = (k: number) => (k + 1 === other.length ? Infinity : other[k + 1][0] - 0.5 * size)
    return own.every(([x0, x1]) =>
      other.some(([o0, o1], k) => (Math.abs(o0 - x0) <= 0.5 * size || Math.abs(o0 + o1 - x0 - x1) <= size) && x1 < ends(k)) ||
      other.every(([o0, o1]) => x1 < o0 - 0.5 * size || x0 > o1 + 0.5 * size))
  }
  // Rows set as closely as one cell's lines (TeX's p{} columns): a line alone on its row, starting
  // where a later cell of the row above starts (never the row label's: joinWrappedRows joins a label
  // wrapped onto the next row), goes on with that cell; TeX sets such cells from the top.
  const topAligned = (stretch: ReadonlyArray<Array<Line>>): Array<Array<Line>> => {
    const joined: Array<Array<Line>> = []
    let anchor: Array<Line> | undefined
    for (const row of stretch) {
      // (The line whole: a justified narrow column stretches its spaces past a cell gap. The cell
      // it goes on with is a piece of one of the row's lines, and no other line of the row starts
      // under it.)
      if (anchor !== undefined && row.length === 1 && !row[0].math && !figureUnderFigure(row[0], anchor)) {
        const { x0, x1 } = row[0]
        const first = Math.min(...anchor.map((l) => l.x0))
        const cell = anchor.find((l) => pieces(l).some(([p0]) => Math.abs(p0 - x0) <= 0.5 * size))
        if (cell !== undefined && x0 > first + size && !anchor.some((o) => o !== cell && o.x0 > x0 && o.x0 < x1)) {
          joined[joined.length - 1].push(...row)
          continue
        }
      }
      joined.push([...row])
      anchor = row.length >= 2 ? row : undefined
    }
    return joined
  }
  // Rows parted by a wider gap somewhere: the table pads its cells.
  const contrast = gaps.some((g) => g >= wide && g < 3 * size)
  const out: Array<Array<Line>> = []
  let start = 0
  for (let i = 1; i <= rows.length; i++) {
    if (i < rows.length && gaps[i - 1] < wide) continue
    // rows[start..i) are set as one cell's lines are, with wider gaps before and after (or
    // nothing); they are one row when one of them holds the row's cells and the others continue them.
    const stretch = rows.slice(start, i)
    // The row holding the most cells; the others (fewer) continue them.
    const counts = stretch.map((r) => edges(r).length)
    const most = Math.max(...counts)
    const anchors = stretch.filter((_, k) => counts[k] === most)
    // (The row with the most pieces must be two lines or more: a numbered paragraph's first line is
    // its number and its text, one line, and its other lines start under the text.)
    if (stretch.length > 1 && most >= 2 && anchors.length === 1 && anchors[0].length >= 2 && contrast && stretch.every((r) => r === anchors[0] || continues(r, anchors[0]))) out.push(stretch.flat())
    else if (stretch.filter((r) => r.length >= 2).length > 1) out.push(...topAligned(stretch))
    else out.push(...stretch)
    start = i
  }
  return out
}
