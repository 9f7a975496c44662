/**
 * A spreadsheet sheet as blocks: a `## Sheet name` heading, then its data as markdown tables.
 * The used range is trimmed of empty rows and columns, and a sheet is cut into separate tables
 * at fully empty rows (sheets often stack a title, a table and a notes block). A lone cell
 * becomes a paragraph rather than a one-cell table. Merged ranges become spans.
 */
import { makeBlock, type Block, type Diagnostic, writeTable } from "@strata/core"
import { formatCount } from "./SheetLimits.ts"
import { sheetGrid } from "./TableMarkdown.ts"

export interface CellRange {
  readonly r0: number
  readonly c0: number
  readonly r1: number
  readonly c1: number
}

export interface SheetData {
  readonly name: string
  /** Display strings by row, then column (sparse arrays are fine). */
  readonly rows: ReadonlyArray<ReadonlyArray<string | undefined> | undefined>
  readonly merges: ReadonlyArray<CellRange>
}

/** Escapes text of a cell that would otherwise be read as emphasis or code. */
export const escapeCell = (text: string): string =>
  !/[*`_]/.test(text) ? text : text
    .replace(/[*`]/g, (c) => `\\${c}`)
    .replace(/(^|[^\p{L}\p{N}])_|_(?=$|[^\p{L}\p{N}])/gu, (m) => m.replace("_", "\\_"))

const isBlank = (v: string | undefined): boolean => v === undefined || v.trim().length === 0

/** "A1" style column letters to a 0-based index. */
export const columnIndex = (letters: string): number => {
  let n = 0
  for (let i = 0; i < letters.length; i++) n = n * 26 + (letters.charCodeAt(i) & 0x1f)
  return n - 1
}

/** Parses "B3" into { row: 2, col: 1 }; undefined when malformed. */
export const parseCellRef = (ref: string): { row: number; col: number } | undefined => {
  const m = /^\$?([A-Za-z]{1,3})\$?(\d{1,7})$/.exec(ref)
  return m === null ? undefined : { row: Number(m[2]) - 1, col: columnIndex(m[1].toUpperCase()) }
}

export const parseRange = (ref: string): CellRange | undefined => {
  const [a, b] = ref.split(":")
  const start = parseCellRef(a ?? "")
  const end = b === undefined ? start : parseCellRef(b)
  if (start === undefined || end === undefined) return undefined
  return { r0: Math.min(start.row, end.row), c0: Math.min(start.col, end.col), r1: Math.max(start.row, end.row), c1: Math.max(start.col, end.col) }
}

/** The sheet's blocks; a table cut to the slot budget adds its warning to `diagnostics`. */
export const sheetBlocks = (sheet: SheetData, source: string, diagnostics: Array<Diagnostic> = []): Array<Block> => {
  const blocks: Array<Block> = [makeBlock("section_header", `## ${sheet.name.replace(/\s+/g, " ").trim() || "Sheet"}`, { source })]
  for (const box of regions(sheet)) for (const block of segmentBlocks(sheet, box, source, diagnostics)) blocks.push(block)
  return blocks
}

/**
 * The data regions of a sheet: groups of filled cells that share an edge (diagonal contact does
 * not make a table; merged ranges
 * counting as filled), as bounding boxes with overlapping boxes merged, in reading order.
 */
/** More separate regions than this and the sheet is one table: scattered cells are not many tables. */
const maxRegions = 200

const regions = (sheet: SheetData): Array<CellRange> => {
  let width = 0
  for (const row of sheet.rows) if (row !== undefined) width = Math.max(width, row.length)
  const height = sheet.rows.length
  if (width === 0 || height === 0) return []
  // Dense sheets (the common case) get a typed-array grid; huge sparse ones a set of keys.
  const dense = height * width <= 16_000_000
  const grid = dense ? new Uint8Array(height * width) : undefined
  const sparse = dense ? undefined : new Set<number>()
  const mark = (k: number) => (grid !== undefined ? (grid[k] = 1) : sparse!.add(k))
  const isFilled = (k: number) => (grid !== undefined ? grid[k] === 1 : sparse!.has(k))
  let all: CellRange | undefined
  sheet.rows.forEach((row, r) => {
    row?.forEach((v, c) => {
      if (isBlank(v)) return
      mark(r * width + c)
      all = all === undefined ? { r0: r, c0: c, r1: r, c1: c } : { r0: Math.min(all.r0, r), c0: Math.min(all.c0, c), r1: Math.max(all.r1, r), c1: Math.max(all.c1, c) }
    })
  })
  if (all === undefined) return []
  for (const m of sheet.merges) {
    if (m.r0 >= height || m.c0 >= width || !isFilled(m.r0 * width + m.c0)) continue
    for (let r = m.r0; r <= m.r1 && r < height; r++) for (let c = m.c0; c <= m.c1 && c < width; c++) mark(r * width + c)
  }
  const seen = grid !== undefined ? new Uint8Array(height * width) : undefined
  const seenSet = grid !== undefined ? undefined : new Set<number>()
  const visit = (k: number): boolean => {
    if (seen !== undefined) {
      if (seen[k] === 1) return false
      seen[k] = 1
      return true
    }
    if (seenSet!.has(k)) return false
    seenSet!.add(k)
    return true
  }
  let boxes: Array<{ r0: number; c0: number; r1: number; c1: number }> = []
  const queue: Array<number> = []
  const starts = grid !== undefined ? undefined : [...sparse!]
  const total = grid !== undefined ? grid.length : starts!.length
  for (let i = 0; i < total; i++) {
    const start = grid !== undefined ? i : starts![i]
    if ((grid !== undefined && grid[start] === 0) || !visit(start)) continue
    const box = { r0: Infinity, c0: Infinity, r1: -1, c1: -1 }
    queue.push(start)
    while (queue.length > 0) {
      const key = queue.pop()!
      const r = Math.floor(key / width)
      const c = key - r * width
      if (r < box.r0) box.r0 = r
      if (r > box.r1) box.r1 = r
      if (c < box.c0) box.c0 = c
      if (c > box.c1) box.c1 = c
      // Edge neighbours only: cells touching at a corner are not one table.
      if (c > 0 && isFilled(key - 1) && visit(key - 1)) queue.push(key - 1)
      if (c < width - 1 && isFilled(key + 1) && visit(key + 1)) queue.push(key + 1)
      if (r > 0 && isFilled(key - width) && visit(key - width)) queue.push(key - width)
      if (r < height - 1 && isFilled(key + width) && visit(key + width)) queue.push(key + width)
    }
    boxes.push(box)
    if (boxes.length > maxRegions) return [all]
  }
  // Boxes whose rectangles overlap would print the same cells twice: merge them.
  let changed = true
  while (changed) {
    changed = false
    const out: typeof boxes = []
    for (const b of boxes) {
      const hit = out.find((o) => o.r0 <= b.r1 && b.r0 <= o.r1 && o.c0 <= b.c1 && b.c0 <= o.c1)
      if (hit === undefined) out.push({ ...b })
      else {
        hit.r0 = Math.min(hit.r0, b.r0)
        hit.r1 = Math.max(hit.r1, b.r1)
        hit.c0 = Math.min(hit.c0, b.c0)
        hit.c1 = Math.max(hit.c1, b.c1)
        changed = true
      }
    }
    boxes = out
  }
  return boxes.sort((a, b) => a.r0 - b.r0 || a.c0 - b.c0)
}

/** The filled cells of row `r` within columns c0..c1. */
const filledIn = (sheet: SheetData, r: number, c0: number, c1: number): Array<string> => {
  const out: Array<string> = []
  const row = sheet.rows[r]
  if (row !== undefined) for (let c = c0; c <= c1; c++) if (!isBlank(row[c])) out.push(row[c] ?? "")
  return out
}

const segmentBlocks = (sheet: SheetData, box: CellRange, source: string, diagnostics: Array<Diagnostic>): Array<Block> => {
  const { c0, r1, c1 } = box
  let r0 = box.r0
  // A lone cell on top of a table (often merged across it) is the table's title, not a header row.
  const titles: Array<Block> = []
  while (r0 < r1) {
    const top = filledIn(sheet, r0, c0, c1)
    if (top.length !== 1 || filledIn(sheet, r0 + 1, c0, c1).length < 2) break
    titles.push(makeBlock("text", escapeCell(top[0].trim()).replace(/\s*\n\s*/g, "  \n"), { source }))
    r0++
  }
  return [...titles, ...tableBlocks(sheet, { r0, c0, r1, c1 }, source, diagnostics)]
}

/** Most grid slots one table may have; an L-shaped region can have a huge, nearly empty bounding box. */
const maxSlots = 4_000_000

const tableBlocks = (sheet: SheetData, box: CellRange, source: string, diagnostics: Array<Diagnostic>): Array<Block> => {
  const { r0, c0, c1 } = box
  const r1 = Math.min(box.r1, r0 + Math.floor(maxSlots / (c1 - c0 + 1)) - 1)
  if (r1 < box.r1) {
    const rows = box.r1 - r0 + 1
    const kept = r1 - r0 + 1
    diagnostics.push({
      severity: "warning",
      code: "table_truncated",
      message: `Sheet '${sheet.name}': a table of ${formatCount(rows)} rows and ${formatCount(c1 - c0 + 1)} columns is over the ${formatCount(maxSlots)} cells one table may have: kept its first ${formatCount(kept)} rows; ${formatCount(rows - kept)} rows dropped`
    })
  }
  let filled = 0
  let lone = ""
  for (let r = r0; r <= r1; r++) {
    const row = sheet.rows[r]
    if (row === undefined) continue
    for (let c = c0; c <= c1; c++) {
      const v = row[c]
      if (isBlank(v)) continue
      filled++
      lone = v ?? ""
    }
  }
  if (filled === 0) return []
  if (filled === 1) return [makeBlock("text", escapeCell(lone.trim()).replace(/\s*\n\s*/g, "  \n"), { source })]
  const grid: Array<Array<string>> = []
  for (let r = r0; r <= r1; r++) {
    const row = sheet.rows[r]
    const out: Array<string> = []
    for (let c = c0; c <= c1; c++) out.push(escapeCell((row?.[c] ?? "").trim()))
    grid.push(out)
  }
  const merges = sheet.merges
    .filter((m) => m.r0 >= r0 && m.r0 <= r1 && m.c0 >= c0 && m.c0 <= c1)
    .map((m) => ({ r0: m.r0 - r0, c0: m.c0 - c0, r1: Math.min(m.r1, r1) - r0, c1: Math.min(m.c1, c1) - c0 }))
  const markdown = writeTable(sheetGrid(grid, merges))
  return markdown.length === 0 ? [] : [makeBlock("table", markdown, { source })]
}
