/**
 * The one table writer of every format (web pages, PDF, office documents): a grid of cells in,
 * a markdown table out.
 *
 * A grid where every cell holds one slot becomes a GFM pipe table; the first row is the header
 * (GFM has no table without one). When a cell spans rows or columns, GFM cannot say so without
 * repeating or losing text, so the table is written as HTML with `colspan`/`rowspan`, one `<tr>`
 * per line, `<th>` in the first row. Line breaks inside a cell become `<br>` in both forms. A
 * grid whose cells are all blank writes nothing; a row where no cell starts (every slot covered
 * by a span from above) writes no line of its own.
 *
 * Readers decide what a grid looks like (the web path flattens spans into empty slots itself,
 * as Firecrawl does); this module decides only how it is written. `writeHtmlTable` writes the
 * same grid for a document's HTML (`BlockHtml.ts`).
 */
import { escapeHtml } from "./HtmlEscape.ts"

/** One cell, placed by its top-left slot. */
export interface GridCell {
  readonly row: number
  readonly col: number
  readonly text: string
  readonly rowSpan?: number
  readonly colSpan?: number
}

/** A table as rows x cols slots; a spanning cell appears once, at its top-left slot. */
export interface CellGrid {
  readonly rows: number
  readonly cols: number
  readonly cells: ReadonlyArray<GridCell>
}

export interface TableWriterOptions {
  /**
   * What the cells' text is. `markdown` (the default): inline markdown, written into a pipe
   * table as it is (only `|` escaped) and into an HTML table as visible text. `plain`: text
   * with no markup (PDF text layers), whose whitespace runs collapse and whose backslashes are
   * escaped in a pipe table so they stay visible.
   */
  readonly text?: "markdown" | "plain"
  /**
   * Rows that head the table (1 by default): in an HTML table (one with spans) they are written
   * with `<th>`, so that a header of two levels (a group head over its columns) stays a header.
   * A pipe table has exactly one header row whatever this says.
   */
  readonly headerRows?: number
}

const spanOf = (n: number | undefined): number => (n !== undefined && n > 1 ? Math.floor(n) : 1)

const spans = (cell: GridCell): boolean => spanOf(cell.rowSpan) > 1 || spanOf(cell.colSpan) > 1

const pipeCell = (text: string, plain: boolean): string =>
  (plain ? text.replace(/\\/g, "\\\\").replace(/\s+/g, " ") : text).replace(/\|/g, "\\|").replace(/\s*\n\s*/g, "<br>").trim()

const htmlCell = (text: string, plain: boolean): string =>
  escapeHtml((plain ? text.replace(/\s+/g, " ") : text).trim()).replace(/\s*\n\s*/g, "<br>")

/** The grid's cells by row, in column order; rows where no cell starts are left out. */
const rowsOf = (grid: CellGrid): Array<Array<GridCell>> => {
  const byRow = new Map<number, Array<GridCell>>()
  for (const cell of grid.cells) {
    if (cell.row < 0 || cell.row >= grid.rows || cell.col < 0) continue
    let row = byRow.get(cell.row)
    if (row === undefined) byRow.set(cell.row, (row = []))
    row.push(cell)
  }
  return [...byRow.entries()].sort(([a], [b]) => a - b).map(([, cells]) => cells.sort((a, b) => a.col - b.col))
}

const pipeTable = (rows: ReadonlyArray<ReadonlyArray<GridCell>>, cols: number, plain: boolean): string => {
  let width = cols
  for (const row of rows) for (const cell of row) width = Math.max(width, cell.col + 1)
  const line = (row: ReadonlyArray<GridCell>): string => {
    const texts = Array.from({ length: width }, () => "")
    for (const cell of row) texts[cell.col] = pipeCell(cell.text, plain)
    return `| ${texts.join(" | ")} |`
  }
  const lines = [line(rows[0]), `|${" --- |".repeat(width)}`]
  for (let r = 1; r < rows.length; r++) lines.push(line(rows[r]))
  return lines.join("\n")
}

const htmlTable = (rows: ReadonlyArray<ReadonlyArray<GridCell>>, plain: boolean, headerRows: number): string => {
  const lines = ["<table>"]
  rows.forEach((row, r) => {
    // `row` counts grid rows by the cells that start in them: a head row is one whose cells start above `headerRows`.
    const tag = r === 0 || (row[0] !== undefined && row[0].row < headerRows) ? "th" : "td"
    const cells = row.map((cell) => {
      const colSpan = spanOf(cell.colSpan)
      const rowSpan = spanOf(cell.rowSpan)
      const attributes = `${colSpan > 1 ? ` colspan="${colSpan}"` : ""}${rowSpan > 1 ? ` rowspan="${rowSpan}"` : ""}`
      return `<${tag}${attributes}>${htmlCell(cell.text, plain)}</${tag}>`
    })
    lines.push(`<tr>${cells.join("")}</tr>`)
  })
  lines.push("</table>")
  return lines.join("\n")
}

/** The table's markdown: a GFM pipe table, or HTML when a cell spans; "" when no cell has text. */
export const writeTable = (grid: CellGrid, options: TableWriterOptions = {}): string => {
  if (grid.cells.every((cell) => cell.text.trim().length === 0)) return ""
  const rows = rowsOf(grid)
  if (rows.length === 0) return ""
  const plain = options.text === "plain"
  return grid.cells.some(spans) ? htmlTable(rows, plain, Math.max(1, Math.floor(options.headerRows ?? 1))) : pipeTable(rows, grid.cols, plain)
}

export interface HtmlTableOptions {
  /** Rows that head the table (at least one is, as the markdown heads a table with its first row). */
  readonly headerRows: number
  /** A cell's text as HTML. */
  readonly cell: (text: string) => string
}

/**
 * The table of an HTML document (not HTML inside markdown, above): every row of the grid is
 * kept, an empty `<tr>` where no cell starts, so that `rowspan`s count the rows they cover;
 * slots no cell covers get an empty cell; the head rows go in `<thead>`, the rest in `<tbody>`.
 */
export const writeHtmlTable = (grid: CellGrid, options: HtmlTableOptions): string => {
  const rows = Math.max(0, Math.floor(grid.rows))
  let cols = Math.max(0, Math.floor(grid.cols))
  const byRow: Array<Array<GridCell>> = Array.from({ length: rows }, () => [])
  for (const cell of grid.cells) {
    if (cell.row < 0 || cell.row >= rows || cell.col < 0) continue
    byRow[cell.row].push(cell)
    cols = Math.max(cols, cell.col + 1)
  }
  const covered = Array.from({ length: rows }, () => new Uint8Array(cols))
  for (const cell of grid.cells) {
    if (cell.row < 0 || cell.row >= rows || cell.col < 0) continue
    for (let r = cell.row; r < Math.min(rows, cell.row + spanOf(cell.rowSpan)); r++) {
      for (let c = cell.col; c < Math.min(cols, cell.col + spanOf(cell.colSpan)); c++) covered[r][c] = 1
    }
  }
  const head = Math.min(rows, Math.max(1, Math.floor(options.headerRows)))
  const lines: Array<string> = ["<table>"]
  for (let r = 0; r < rows; r++) {
    if (r === 0) lines.push("<thead>")
    if (r === head) lines.push("<tbody>")
    const tag = r < head ? "th" : "td"
    const starts = new Map<number, GridCell>()
    for (const cell of byRow[r]) if (!starts.has(cell.col)) starts.set(cell.col, cell)
    let tr = "<tr>"
    for (let c = 0; c < cols; c++) {
      const cell = starts.get(c)
      if (cell === undefined) {
        if (covered[r][c] === 0) tr += `<${tag}></${tag}>`
        continue
      }
      const colSpan = spanOf(cell.colSpan)
      const rowSpan = spanOf(cell.rowSpan)
      const attributes = `${colSpan > 1 ? ` colspan="${colSpan}"` : ""}${rowSpan > 1 ? ` rowspan="${rowSpan}"` : ""}`
      tr += `<${tag}${attributes}>${options.cell(cell.text)}</${tag}>`
    }
    lines.push(`${tr}</tr>`)
    if (r === head - 1) lines.push("</thead>")
  }
  if (rows > head) lines.push("</tbody>")
  lines.push("</table>")
  return lines.join("\n")
}

/** Rows of cell texts, none spanning, as a grid as wide as the longest row (shorter rows end in empty slots). */
export const gridOfRows = (rows: ReadonlyArray<ReadonlyArray<string>>): CellGrid => {
  const cells: Array<GridCell> = []
  let cols = 0
  rows.forEach((texts, row) => {
    cols = Math.max(cols, texts.length)
    texts.forEach((text, col) => cells.push({ row, col, text }))
  })
  return { rows: rows.length, cols, cells }
}
