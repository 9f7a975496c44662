/**
 * The limits a spreadsheet is read under, and how a cut is reported. A sheet can address
 * 16,384 columns by 1,048,576 rows; what lies past the row and column limits is dropped with a
 * warning that states what was kept and what was dropped, never silently. Cells with data are
 * budgeted per sheet and per workbook: past either budget the document fails with
 * `LimitExceeded` (422 DOCUMENT_TOO_COMPLEX), since a cut there would leave out most of it.
 */
import type { Diagnostic } from "@strata/core"
import { limitExceeded } from "./Failure.ts"

/** Rows read per sheet: 100,000 rows of a dozen columns is about 10 MB of markdown. */
export const maxSheetRows = 100_000
/** Columns read per sheet: far past any table a reader of the markdown can use. */
export const maxSheetColumns = 2_000
/** Cells with data per sheet. */
export const maxSheetCells = 2_000_000
/**
 * Cells with data per workbook: at about 10 characters of markdown a cell, 5,000,000 cells is
 * some 50 MB of markdown, under the 64 M characters one document may produce.
 */
export const maxWorkbookCells = 5_000_000

export const formatCount = (n: number): string => n.toLocaleString("en-US")

/**
 * The warning for a sheet cut at `kept` of `total` rows or columns: "Sheet 'Data': kept the first
 * 100,000 of 2,300,000 rows; 2,200,000 rows dropped". `atLeast` when `total` is a lower bound.
 */
export const sheetTruncated = (sheet: string, unit: "rows" | "columns", kept: number, total: number, atLeast = false): Diagnostic => {
  const bound = atLeast ? "at least " : ""
  return {
    severity: "warning",
    code: unit === "rows" ? "rows_truncated" : "columns_truncated",
    message: `Sheet '${sheet}': kept the first ${formatCount(kept)} of ${bound}${formatCount(total)} ${unit}; ${bound}${formatCount(total - kept)} ${unit} dropped`
  }
}

/** The row and column warnings of a sheet whose data reaches `height` rows and `width` columns. */
export const sheetCuts = (sheet: string, height: number, width: number): Array<Diagnostic> => [
  ...(height > maxSheetRows ? [sheetTruncated(sheet, "rows", maxSheetRows, height)] : []),
  ...(width > maxSheetColumns ? [sheetTruncated(sheet, "columns", maxSheetColumns, width)] : [])
]

/** Counts the cells with data a workbook's sheets keep; throws `LimitExceeded` past a budget. */
export class CellBudget {
  private cells = 0
  private readonly format: string
  constructor(format: string) {
    this.format = format
  }

  /** A counter for one sheet: call it once for every cell with data that is kept. */
  forSheet(sheet: string): () => void {
    let cells = 0
    return () => {
      if (++cells > maxSheetCells) {
        throw limitExceeded(this.format, `Sheet '${sheet}' has more than ${formatCount(maxSheetCells)} cells with data, the most one sheet may have`)
      }
      if (++this.cells > maxWorkbookCells) {
        throw limitExceeded(this.format, `the workbook has more than ${formatCount(maxWorkbookCells)} cells with data, the most one workbook may have`)
      }
    }
  }
}
