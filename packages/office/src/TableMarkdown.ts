/**
 * Tables as markdown: a GFM pipe table when every cell occupies one grid slot, an HTML table
 * with `colspan`/`rowspan` when cells span (GFM cannot say that without repeating or losing text).
 * Shared by the word-processor, presentation and spreadsheet readers.
 */

export interface TableCell {
  /** Inline markdown of the cell; line breaks inside are kept as `\n`. */
  readonly text: string
  readonly colSpan?: number
  readonly rowSpan?: number
}

/** Rows of cells in document order; spanned slots are simply absent from later rows. */
export type TableRows = ReadonlyArray<ReadonlyArray<TableCell>>

const hasSpans = (rows: TableRows): boolean =>
  rows.some((row) => row.some((cell) => (cell.colSpan ?? 1) > 1 || (cell.rowSpan ?? 1) > 1))

const gfmCell = (text: string): string => text.replace(/\|/g, "\\|").replace(/\s*\n\s*/g, "<br>").trim()

const htmlEscape = (text: string): string => text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;")

/** A cell as HTML: its inline markdown is kept as text (readers of HTML tables in markdown expect that), line breaks as `<br>`. */
const htmlCell = (text: string): string => htmlEscape(text.trim()).replace(/\s*\n\s*/g, "<br>")

/** Renders a table; the first row is the header. Returns "" for a table with no text at all. */
export const renderTable = (rows: TableRows): string => {
  const nonEmpty = rows.filter((row) => row.length > 0)
  if (nonEmpty.every((row) => row.every((cell) => cell.text.trim().length === 0))) return ""
  return hasSpans(nonEmpty) ? renderHtml(nonEmpty) : renderGfm(nonEmpty)
}

const renderGfm = (rows: TableRows): string => {
  const width = Math.max(...rows.map((row) => row.length))
  const line = (row: ReadonlyArray<TableCell>): string => {
    const cells: Array<string> = []
    for (let c = 0; c < width; c++) cells.push(gfmCell(row[c]?.text ?? ""))
    return `| ${cells.join(" | ")} |`
  }
  const out = [line(rows[0]), `|${" --- |".repeat(width)}`]
  for (let r = 1; r < rows.length; r++) out.push(line(rows[r]))
  return out.join("\n")
}

const renderHtml = (rows: TableRows): string => {
  const out = ["<table>"]
  rows.forEach((row, r) => {
    const tag = r === 0 ? "th" : "td"
    const cells = row.map((cell) => {
      const attrs = `${(cell.colSpan ?? 1) > 1 ? ` colspan="${cell.colSpan}"` : ""}${(cell.rowSpan ?? 1) > 1 ? ` rowspan="${cell.rowSpan}"` : ""}`
      return `<${tag}${attrs}>${htmlCell(cell.text)}</${tag}>`
    })
    out.push(`<tr>${cells.join("")}</tr>`)
  })
  out.push("</table>")
  return out.join("\n")
}

/**
 * A grid of display strings with merged ranges (spreadsheets) as table rows: the top-left cell of
 * a range carries the spans, the other cells of the range are dropped.
 */
export const gridToRows = (
  grid: ReadonlyArray<ReadonlyArray<string>>,
  merges: ReadonlyArray<{ readonly r0: number; readonly c0: number; readonly r1: number; readonly c1: number }>
): Array<Array<TableCell>> => {
  const covered = new Set<number>()
  const spans = new Map<number, { colSpan: number; rowSpan: number }>()
  const width = Math.max(0, ...grid.map((row) => row.length))
  const key = (r: number, c: number) => r * (width + 1) + c
  for (const m of merges) {
    const r1 = Math.min(m.r1, grid.length - 1)
    const c1 = Math.min(m.c1, width - 1)
    if (m.r0 > r1 || m.c0 > c1 || (m.r0 === r1 && m.c0 === c1)) continue
    spans.set(key(m.r0, m.c0), { colSpan: c1 - m.c0 + 1, rowSpan: r1 - m.r0 + 1 })
    for (let r = m.r0; r <= r1; r++) for (let c = m.c0; c <= c1; c++) if (r !== m.r0 || c !== m.c0) covered.add(key(r, c))
  }
  return grid.map((row, r) => {
    const cells: Array<TableCell> = []
    for (let c = 0; c < width; c++) {
      if (covered.has(key(r, c))) continue
      const span = spans.get(key(r, c))
      cells.push(span === undefined ? { text: row[c] ?? "" } : { text: row[c] ?? "", ...span })
    }
    return cells
  })
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
export const layoutCells = (cells: ReadonlyArray<PlacedCell>, rowCount: number): Array<Array<TableCell>> => {
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
  return owner.map((slots) => {
    const row: Array<TableCell> = []
    for (let c = 0; c < width; c++) {
      const slot = slots[c]
      if (slot === null) continue
      if (slot === undefined) row.push({ text: "" })
      else {
        // Spans are recomputed from what was really claimed, so a clipped span stays consistent.
        let colSpan = 1
        while (c + colSpan < width && slots[c + colSpan] === null && colSpan < slot.colSpan) colSpan++
        let rowSpan = 1
        while (slot.row + rowSpan < owner.length && rowSpan < slot.rowSpan && owner[slot.row + rowSpan][c] === null) rowSpan++
        row.push(colSpan > 1 || rowSpan > 1 ? { text: slot.text, colSpan, rowSpan } : { text: slot.text })
      }
    }
    return row
  })
}
