/**
 * A table as rows and columns of cells with spans, and its markdown: a GFM pipe table when the
 * grid is regular, an HTML table when a cell spans rows or columns (GFM cannot say that).
 */

export interface TableCell {
  readonly row: number
  readonly col: number
  readonly rowSpan: number
  readonly colSpan: number
  readonly text: string
}

export interface TableGrid {
  readonly rows: number
  readonly cols: number
  /** Cells in row-major order; a spanning cell appears once, at its top-left slot. */
  readonly cells: ReadonlyArray<TableCell>
}

const escapeCell = (text: string) => text.replace(/\\/g, "\\\\").replace(/\|/g, "\\|").replace(/\s+/g, " ").trim()
const escapeHtml = (text: string) => text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/\s+/g, " ").trim()

const hasSpans = (grid: TableGrid) => grid.cells.some((c) => c.rowSpan > 1 || c.colSpan > 1)

const gfm = (grid: TableGrid): string => {
  const matrix: Array<Array<string>> = Array.from({ length: grid.rows }, () => Array.from({ length: grid.cols }, () => ""))
  for (const cell of grid.cells) matrix[cell.row][cell.col] = escapeCell(cell.text)
  const lines: Array<string> = []
  matrix.forEach((row, index) => {
    lines.push(`| ${row.map((c) => c || " ").join(" | ")} |`)
    if (index === 0) lines.push(`|${row.map(() => "---").join("|")}|`)
  })
  return lines.join("\n")
}

const html = (grid: TableGrid): string => {
  const parts: Array<string> = ["<table>"]
  for (let r = 0; r < grid.rows; r++) {
    const cells = grid.cells.filter((c) => c.row === r)
    if (cells.length === 0) continue
    const tag = r === 0 ? "th" : "td"
    parts.push(`<tr>${cells.map((c) => {
      const span = `${c.rowSpan > 1 ? ` rowspan="${c.rowSpan}"` : ""}${c.colSpan > 1 ? ` colspan="${c.colSpan}"` : ""}`
      return `<${tag}${span}>${escapeHtml(c.text)}</${tag}>`
    }).join("")}</tr>`)
  }
  parts.push("</table>")
  return parts.join("")
}

/** The same grid read right to left (columns mirrored), for right-to-left pages. */
export const mirrorGrid = (grid: TableGrid): TableGrid => ({
  rows: grid.rows,
  cols: grid.cols,
  cells: grid.cells
    .map((c) => ({ ...c, col: grid.cols - c.col - c.colSpan }))
    .sort((a, b) => a.row - b.row || a.col - b.col)
})

/** The table's markdown fragment. */
export const tableMarkdown = (grid: TableGrid): string => (hasSpans(grid) ? html(grid) : gfm(grid))
