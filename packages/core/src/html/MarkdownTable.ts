/**
 * Tables for the markdown writer. A data table becomes a GFM table: cells are flattened to one
 * line with `|` escaped, `colspan`/`rowspan` are laid out on a grid (the content sits in the
 * first slot, the slots it spans stay empty, so every row has the same width), a table without
 * a header row gets its first row promoted, and a table nested in a cell is flattened into that
 * cell's text; TableWriter writes the grid. A layout table (role="presentation", a single column, code blocks in cells, or
 * nesting tables without any `th`) is not data: its cells are written as ordinary blocks, in row order.
 */
import type { Element } from "hast"
import { type CellGrid, gridOfRows, writeTable } from "../markdown/TableWriter.ts"
import { stringProp } from "./HtmlNodes.ts"

/** How the writer renders what a table holds; supplied by the block writer. */
export interface TableCallbacks {
  /** One cell's content as single-line inline markdown. */
  readonly cell: (cell: Element) => string
  /** A layout cell's content as blocks. */
  readonly blocks: (cell: Element) => Array<string>
}

interface Row {
  readonly cells: Array<Element>
}

/** The table's own rows: under the table or its row groups, never those of nested tables. */
const collectRows = (table: Element): { rows: Array<Row>; caption: Element | undefined } => {
  const rows: Array<Row> = []
  let caption: Element | undefined
  const addRow = (tr: Element) => {
    const cells: Array<Element> = []
    for (const child of tr.children) {
      if (child.type === "element" && (child.tagName === "td" || child.tagName === "th")) cells.push(child)
    }
    rows.push({ cells })
  }
  const visit = (parent: Element) => {
    for (const child of parent.children) {
      if (child.type !== "element") continue
      if (child.tagName === "tr") addRow(child)
      else if (child.tagName === "thead" || child.tagName === "tbody" || child.tagName === "tfoot") visit(child)
      else if (child.tagName === "caption") caption ??= child
      // htmlparser2 keeps stray cells where the markup put them: treat a bare cell run as a row.
      else if (child.tagName === "td" || child.tagName === "th") {
        rows.push({ cells: [child] })
      }
    }
  }
  visit(table)
  return { rows, caption }
}

const hasDescendant = (element: Element, test: (e: Element) => boolean): boolean => {
  for (const child of element.children) {
    if (child.type !== "element") continue
    if (test(child) || hasDescendant(child, test)) return true
  }
  return false
}

const isLayout = (table: Element, rows: ReadonlyArray<Row>): boolean => {
  const role = stringProp(table, "role")
  if (role === "presentation" || role === "none") return true
  let widest = 0
  let hasTh = false
  for (const row of rows) {
    let width = 0
    for (const cell of row.cells) {
      width += spanOf(cell, "colSpan")
      if (cell.tagName === "th") hasTh = true
    }
    widest = Math.max(widest, width)
  }
  if (widest <= 1) return true
  // Highlighters lay code out as a table of gutter + `<pre>`: that is code, not data.
  if (hasDescendant(table, (e) => e.tagName === "pre")) return true
  return !hasTh && hasDescendant(table, (e) => e.tagName === "table")
}

const spanOf = (cell: Element, name: "colSpan" | "rowSpan"): number => {
  const value = Number(cell.properties[name])
  // Browsers clamp spans (colspan 1000, rowspan 65534); a rowspan of 0 means "to the end".
  if (!Number.isFinite(value) || value < 1) return name === "rowSpan" && value === 0 ? 1000 : 1
  return Math.min(Math.floor(value), name === "colSpan" ? 100 : 1000)
}

const MAX_GRID_CELLS = 200_000

/** A block a table renders to: its markdown, and the grid it was written from (for the table itself). */
export interface TablePart {
  readonly text: string
  readonly grid?: CellGrid
}

/** Renders a table element as markdown blocks (one GFM table, or the blocks of a layout table). */
export const renderTable = (table: Element, callbacks: TableCallbacks): Array<TablePart> => {
  const { rows, caption } = collectRows(table)
  const out: Array<TablePart> = []
  if (caption !== undefined) {
    const text = callbacks.cell(caption)
    if (text !== "") out.push({ text })
  }
  if (isLayout(table, rows)) {
    for (const row of rows) for (const cell of row.cells) for (const text of callbacks.blocks(cell)) out.push({ text })
    return out
  }

  const grid: Array<Array<string | undefined>> = []
  // Spans multiply: a few hundred cells with rowspan=500 would build a grid of millions.
  let budget = MAX_GRID_CELLS
  for (let r = 0; r < rows.length; r++) {
    const row = rows[r]!
    grid[r] ??= []
    let c = 0
    for (const cell of row.cells) {
      while (grid[r]![c] !== undefined) c++
      let colSpan = spanOf(cell, "colSpan")
      let rowSpan = Math.min(spanOf(cell, "rowSpan"), rows.length - r)
      budget -= colSpan * rowSpan
      if (budget < 0) colSpan = rowSpan = 1
      const text = callbacks.cell(cell)
      for (let dr = 0; dr < rowSpan; dr++) {
        const target = (grid[r + dr] ??= [])
        for (let dc = 0; dc < colSpan; dc++) target[c + dc] = dr === 0 && dc === 0 ? text : ""
      }
      c += colSpan
    }
  }
  // Rows with nothing in them (spacers) say nothing; a table of only those is no table.
  const kept: Array<Array<string>> = []
  let width = 0
  for (let r = 0; r < grid.length; r++) {
    const cells = grid[r]!
    const filled = Array.from(cells, (cell) => cell ?? "")
    if (filled.every((cell) => cell === "")) continue
    kept.push(filled)
    width = Math.max(width, filled.length)
  }
  if (kept.length === 0) return out
  // Trailing columns that are empty in every row are layout residue (stray spans).
  while (width > 1 && kept.every((row) => (row[width - 1] ?? "") === "")) width--
  // No cell spans any more, so this is always a pipe table; a header-less table's first row is its header.
  const cells = gridOfRows(kept.map((row) => row.slice(0, width)))
  out.push({ text: writeTable(cells), grid: cells })
  return out
}
