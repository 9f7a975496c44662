/**
 * A table's adjacency pairs, the unit of the table-structure scores (TableNeighbours.ts against
 * Docling's tables, TableStructure.ts against generated ones): each cell with the nearest filled
 * cell to its right (from the slot after its last column, on its first row) and below it (from
 * the slot under its last row, in its first column), spans included, so a header that spans its
 * columns pairs with the first sub-header under it. Texts keep letters and digits only, lower-cased.
 */
export interface Cell { readonly row: number; readonly col: number; readonly rowSpan: number; readonly colSpan: number; readonly text: string }
export interface Grid { readonly rows: number; readonly cols: number; readonly cells: ReadonlyArray<Cell> }

const norm = (s: string) => s.normalize("NFKC").toLowerCase().replace(/<[^>]+>/g, " ").replace(/[^\p{L}\p{N}]/gu, "")

/** Adjacency pairs of a grid: right and below neighbours, skipping empty slots. */
export const neighbourPairs = (grid: Grid): Array<string> => {
  const slot: Array<Cell | undefined> = Array.from({ length: grid.rows * grid.cols }, () => undefined)
  for (const c of grid.cells) {
    for (let r = c.row; r < Math.min(grid.rows, c.row + c.rowSpan); r++) {
      for (let k = c.col; k < Math.min(grid.cols, c.col + c.colSpan); k++) slot[r * grid.cols + k] = c
    }
  }
  const pairs: Array<string> = []
  for (const c of grid.cells) {
    const text = norm(c.text)
    if (text.length === 0) continue
    for (let k = c.col + c.colSpan; k < grid.cols; k++) {
      const n = slot[c.row * grid.cols + k]
      if (n !== undefined && n !== c && norm(n.text).length > 0) { pairs.push(`${text}\u0000R\u0000${norm(n.text)}`); break }
    }
    for (let r = c.row + c.rowSpan; r < grid.rows; r++) {
      const n = slot[r * grid.cols + c.col]
      if (n !== undefined && n !== c && norm(n.text).length > 0) { pairs.push(`${text}\u0000D\u0000${norm(n.text)}`); break }
    }
  }
  return pairs
}

