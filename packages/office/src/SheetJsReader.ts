/**
 * Binary workbooks (.xls BIFF, .xlsb) through SheetJS, which has the only maintained pure-JS
 * readers for them: cell text as Excel displays it (SheetJS applies the number formats), merges,
 * sheet order. Each sheet goes through the same `sheetBlocks` as the XML workbooks.
 */
import XLSX from "xlsx"
import type { DocumentInfo } from "@strata/core"
import { toDocumentError, unsupported } from "./Failure.ts"
import { page, type ParsedDocument } from "./ReaderKit.ts"
import { sheetBlocks, type CellRange } from "./SheetBlocks.ts"

interface SheetJsCell {
  readonly t?: string
  readonly v?: unknown
  readonly w?: string
}
type SheetJsSheet = Record<string, unknown> & { "!ref"?: string; "!merges"?: Array<{ s: { r: number; c: number }; e: { r: number; c: number } }> }

const maxRows = 100_000
const maxCols = 2_000

export const readWithSheetJs = (bytes: Uint8Array, format: string): ParsedDocument => {
  let workbook: { SheetNames: Array<string>; Sheets: Record<string, SheetJsSheet>; Props?: Record<string, unknown> }
  try {
    // cellFormula/cellHTML off: we only need the displayed values; no scripts are ever run.
    workbook = XLSX.read(bytes, { type: "array", cellFormula: false, cellHTML: false, cellStyles: false, sheetRows: maxRows, dense: false }) as unknown as typeof workbook
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
  const pages = workbook.SheetNames.map((name, index) => () => {
    const sheet = workbook.Sheets[name] ?? {}
    const rows: Array<Array<string | undefined>> = []
    for (const key of Object.keys(sheet)) {
      if (key.startsWith("!")) continue
      const ref = XLSX.utils.decode_cell(key)
      if (ref.r >= maxRows || ref.c >= maxCols || ref.r < 0 || ref.c < 0) continue
      const cell = sheet[key] as SheetJsCell
      const text = cell.w ?? (cell.v === undefined || cell.v === null ? "" : String(cell.v))
      if (text.length > 0) (rows[ref.r] ??= [])[ref.c] = text
    }
    const merges: Array<CellRange> = (sheet["!merges"] ?? []).map((m) => ({ r0: m.s.r, c0: m.s.c, r1: m.e.r, c1: m.e.c }))
    return page(index + 1, sheetBlocks({ name, rows, merges }, format))
  })
  return { info, pages }
}
