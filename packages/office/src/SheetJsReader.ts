/**
 * Binary workbooks (.xls BIFF, .xlsb) through SheetJS, which has the only maintained pure-JS
 * readers for them: cell text as Excel displays it (SheetJS applies the number formats), merges,
 * sheet order. Each sheet goes through the same `sheetBlocks` as the XML workbooks.
 */
import XLSX from "xlsx"
import type { Diagnostic, DocumentInfo } from "@strata/core"
import { toDocumentError, unsupported } from "./Failure.ts"
import { page, type ParsedDocument } from "./ReaderKit.ts"
import { sheetBlocks, type CellRange } from "./SheetBlocks.ts"
import { CellBudget, maxSheetColumns, maxSheetRows, sheetTruncated } from "./SheetLimits.ts"

interface SheetJsCell {
  readonly t?: string
  readonly v?: unknown
  readonly w?: string
}
type SheetJsSheet = Record<string, unknown> & { "!ref"?: string; "!fullref"?: string; "!merges"?: Array<{ s: { r: number; c: number }; e: { r: number; c: number } }> }

export const readWithSheetJs = (bytes: Uint8Array, format: string): ParsedDocument => {
  let workbook: { SheetNames: Array<string>; Sheets: Record<string, SheetJsSheet>; Props?: Record<string, unknown> }
  try {
    // cellFormula/cellHTML off: we only need the displayed values; no scripts are ever run.
    workbook = XLSX.read(bytes, { type: "array", cellFormula: false, cellHTML: false, cellStyles: false, sheetRows: maxSheetRows, dense: false }) as unknown as typeof workbook
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error)
    if (/password|encrypt/i.test(message)) throw unsupported(format, "the workbook is password protected")
    throw toDocumentError(format, error)
  }
  const props = workbook.Props ?? {}
  const metadata: Record<string, string> = {}
  for (const [from, to] of [["Title", "title"], ["Author", "author"], ["Subject", "subject"], ["Keywords", "keywords"], ["Comments", "description"]] as const) {
    const v = props[from]
    if (typeof v === "string" && v.trim().length > 0) metadata[to] = v.trim()
  }
  const info: DocumentInfo = { metadata }
  const budget = new CellBudget(format)
  const pages = workbook.SheetNames.map((name, index) => () => {
    const sheet = workbook.Sheets[name] ?? {}
    const countCell = budget.forSheet(name)
    const rows: Array<Array<string | undefined>> = []
    let width = 0
    for (const key of Object.keys(sheet)) {
      if (key.startsWith("!")) continue
      const ref = XLSX.utils.decode_cell(key)
      if (ref.r >= maxSheetRows || ref.r < 0 || ref.c < 0) continue
      const cell = sheet[key] as SheetJsCell
      const text = cell.w ?? (cell.v === undefined || cell.v === null ? "" : String(cell.v))
      if (text.length === 0) continue
      width = Math.max(width, ref.c + 1)
      if (ref.c >= maxSheetColumns) continue
      countCell()
      ;(rows[ref.r] ??= [])[ref.c] = text
    }
    const diagnostics: Array<Diagnostic> = []
    // SheetJS stops reading at `sheetRows`; the sheet's full range (`!fullref`) says how far it went.
    const full = sheet["!fullref"]
    const height = full === undefined ? 0 : XLSX.utils.decode_range(full).e.r + 1
    if (height > maxSheetRows) diagnostics.push(sheetTruncated(name, "rows", maxSheetRows, height))
    if (width > maxSheetColumns) diagnostics.push(sheetTruncated(name, "columns", maxSheetColumns, width))
    const merges: Array<CellRange> = (sheet["!merges"] ?? []).map((m) => ({ r0: m.s.r, c0: m.s.c, r1: m.e.r, c1: m.e.c }))
    const blocks = sheetBlocks({ name, rows, merges }, format, diagnostics)
    return page(index + 1, blocks, diagnostics.length > 0 ? { diagnostics } : {})
  })
  return { info, pages }
}
