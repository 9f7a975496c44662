/**
 * Table cells whose text wraps onto a second line, in tables whose rows come from the text (no
 * rule between them): the wrap makes a row of its own with only the first column filled. A row
 * label that goes on in lower case on the next row ("Property, plant and" / "equipment, net") is one
 * cell: the two rows are joined, the values of whichever row holds them kept. A row whose every
 * filled cell goes on in lower case from the cell above it is that row's continuation. A label-only
 * row followed by a capitalised label is a section of the table ("Revenue:" over its items) and stays.
 */
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
