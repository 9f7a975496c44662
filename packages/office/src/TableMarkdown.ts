/**
 * Office tables on a grid for the core table writer (`writeTable`): spreadsheet merged ranges,
 * and cells placed by their top-left slot (Word, ODF, DrawingML) with gaps filled and
 * overlapping spans from broken files clipped. The writer chooses GFM or, when cells span, HTML.
 */
import type { CellGrid, GridCell } from "@strata/core"

/**
 * A grid of display strings with merged ranges (spreadsheets) as a cell grid: the top-left cell
 * of a range carries the spans, the other cells of the range are dropped.
 */
export const sheetGrid = (
  grid: ReadonlyArray<ReadonlyArray<string>>,
  merges: ReadonlyArray<{ readonly r0: number; readonly c0: number; readonly r1: number; readonly c1: number }>
): CellGrid => {
  const covered = new Set<number>()
  const spans = new Map<number, { colSpan: number; rowSpan: number }>()
  // A loop, not Math.max(...): spreading 100,000 rows as arguments overflows the stack.
  let width = 0
  for (const row of grid) width = Math.max(width, row.length)
  const key = (r: number, c: number) => r * (width + 1) + c
  for (const m of merges) {
    const r1 = Math.min(m.r1, grid.length - 1)
    const c1 = Math.min(m.c1, width - 1)
    if (m.r0 > r1 || m.c0 > c1 || (m.r0 === r1 && m.c0 === c1)) continue
    spans.set(key(m.r0, m.c0), { colSpan: c1 - m.c0 + 1, rowSpan: r1 - m.r0 + 1 })
    for (let r = m.r0; r <= r1; r++) for (let c = m.c0; c <= c1; c++) if (r !== m.r0 || c !== m.c0) covered.add(key(r, c))
  }
  const cells: Array<GridCell> = []
  grid.forEach((row, r) => {
    for (let c = 0; c < width; c++) {
      if (covered.has(key(r, c))) continue
      const span = spans.get(key(r, c))
      cells.push(span === undefined ? { row: r, col: c, text: row[c] ?? "" } : { row: r, col: c, text: row[c] ?? "", ...span })
    }
  })
  return { rows: grid.length, cols: width, cells }
}

/** A cell placed on the grid by its top-left slot. */
export interface PlacedCell {
  readonly row: number
  readonly col: number
  readonly text: string
  readonly colSpan: number
  readonly rowSpan: number
}

/**
 * Places cells on a full grid: gaps (rows starting late, short rows) become empty cells, slots
 * covered by a span are skipped, and overlapping spans from broken files are clipped.
 */
export const layoutCells = (cells: ReadonlyArray<PlacedCell>, rowCount: number): CellGrid => {
  let width = 0
  for (const cell of cells) width = Math.max(width, cell.col + cell.colSpan)
  // Bounded grid: absurd offsets or widths in a broken file must not allocate millions of slots.
  width = Math.min(width, 10_000, Math.max(1, Math.floor(4_000_000 / Math.max(1, rowCount))))
  const owner: Array<Array<PlacedCell | null | undefined>> = Array.from({ length: rowCount }, () => Array.from<PlacedCell | null | undefined>({ length: width }))
  const starts = new Set<PlacedCell>()
  for (const cell of cells) {
    if (cell.row >= rowCount || cell.col >= width || owner[cell.row][cell.col] !== undefined) continue
    starts.add(cell)
    const r1 = Math.min(rowCount, cell.row + cell.rowSpan)
    const c1 = Math.min(width, cell.col + cell.colSpan)
    for (let r = cell.row; r < r1; r++) for (let c = cell.col; c < c1; c++) if (owner[r][c] === undefined) owner[r][c] = r === cell.row && c === cell.col ? cell : null
  }
  const placed: Array<GridCell> = []
  // Slots inside a written span; a covered slot outside every written span is left empty instead.
  const claimed = new Uint8Array(rowCount * width)
  owner.forEach((slots, r) => {
    for (let c = 0; c < width; c++) {
      const slot = slots[c]
      if (slot === null && claimed[r * width + c] === 1) continue
      if (slot === null || slot === undefined) placed.push({ row: r, col: c, text: "" })
      else {
        // Spans are recomputed from what was really claimed, so a clipped span stays consistent.
        let colSpan = 1
        while (c + colSpan < width && slots[c + colSpan] === null && claimed[r * width + c + colSpan] === 0 && colSpan < slot.colSpan) colSpan++
        // A row joins the span only when every slot of it under the cell is covered and free.
        const free = (row: number) => {
          for (let k = c; k < c + colSpan; k++) if (owner[row][k] !== null || claimed[row * width + k] === 1) return false
          return true
        }
        let rowSpan = 1
        while (r + rowSpan < owner.length && rowSpan < slot.rowSpan && free(r + rowSpan)) rowSpan++
        for (let dr = 0; dr < rowSpan; dr++) for (let dc = 0; dc < colSpan; dc++) claimed[(r + dr) * width + c + dc] = 1
        placed.push(colSpan > 1 || rowSpan > 1 ? { row: r, col: c, text: slot.text, colSpan, rowSpan } : { row: r, col: c, text: slot.text })
      }
    }
  })
  return { rows: rowCount, cols: width, cells: placed }
}
