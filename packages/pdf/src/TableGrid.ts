/**
 * A table as rows and columns of cells with spans, and its markdown through the core table
 * writer: a GFM pipe table when the grid is regular, an HTML table when a cell spans rows or
 * columns (GFM cannot say that).
 */
import { type TableGrid, writeTable } from "@strata/core"

export type { TableCell, TableGrid } from "@strata/core"

/** The same grid read right to left (columns mirrored), for right-to-left pages. */
export const mirrorGrid = (grid: TableGrid): TableGrid => ({
  rows: grid.rows,
  cols: grid.cols,
  cells: grid.cells
    .map((c) => ({ ...c, col: grid.cols - c.col - c.colSpan }))
    .sort((a, b) => a.row - b.row || a.col - b.col)
})

/** The table's markdown fragment; the text layer's cell text is plain text, not markdown. */
export const tableMarkdown = (grid: TableGrid): string => writeTable(grid, { text: "plain" })
