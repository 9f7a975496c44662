/**
 * Limits are stated, never silent: a sheet cut at the row or column limit, an ODF table cut at
 * its row limit and a sheet table cut at its slot budget each carry a warning with the count kept
 * and the count dropped; the cell budgets fail the document with LimitExceeded. Workbooks are
 * built in the test (sparse cells addressed by reference, so they stay small).
 */
import { Exit } from "effect"
import { strToU8, zipSync } from "fflate"
import { describe, expect, it } from "vitest"
import type { Diagnostic } from "@strata/core"
import { CellBudget, maxSheetCells, maxSheetColumns, maxSheetRows, maxWorkbookCells, sheetTruncated } from "../src/SheetLimits.ts"
import { sheetBlocks } from "../src/SheetBlocks.ts"
import { readExit } from "./fixtures/ReadDocument.ts"

const columnName = (index: number): string => {
  let name = ""
  for (let n = index + 1; n > 0; n = Math.floor((n - 1) / 26)) name = String.fromCharCode(65 + ((n - 1) % 26)) + name
  return name
}

/** An .xlsx with one sheet named `name` holding `cells` ([row, column, text], 0-based). */
const xlsx = (name: string, cells: ReadonlyArray<readonly [number, number, string]>): Uint8Array => {
  const byRow = new Map<number, Array<string>>()
  for (const [r, c, text] of cells) byRow.set(r, [...(byRow.get(r) ?? []), `<c r="${columnName(c)}${r + 1}" t="inlineStr"><is><t>${text}</t></is></c>`])
  const rows = [...byRow.entries()].sort((a, b) => a[0] - b[0]).map(([r, cs]) => `<row r="${r + 1}">${cs.join("")}</row>`).join("")
  return zipSync({
    "[Content_Types].xml": strToU8("<Types/>"),
    "xl/workbook.xml": strToU8(`<workbook xmlns:r="r"><sheets><sheet name="${name}" sheetId="1" r:id="rId1"/></sheets></workbook>`),
    "xl/_rels/workbook.xml.rels": strToU8(`<Relationships><Relationship Id="rId1" Type="http://x/worksheet" Target="worksheets/sheet1.xml"/></Relationships>`),
    "xl/worksheets/sheet1.xml": strToU8(`<worksheet><sheetData>${rows}</sheetData></worksheet>`)
  })
}

const odf = (mimetype: string, body: string): Uint8Array =>
  zipSync({
    mimetype: strToU8(mimetype),
    "content.xml": strToU8(`<office:document-content xmlns:office="o" xmlns:table="t" xmlns:text="x"><office:body>${body}</office:body></office:document-content>`)
  })

const warningsOf = async (bytes: Uint8Array, format: "xlsx" | "ods" | "odt") => {
  const exit = await readExit(bytes, format)
  if (!Exit.isSuccess(exit)) throw new Error(`read failed: ${String(exit.cause)}`)
  const diagnostics = exit.value.pages.flatMap((page): ReadonlyArray<Diagnostic> => page.diagnostics ?? [])
  return { diagnostics, markdown: exit.value.markdown }
}

describe("sheetTruncated", () => {
  it("states the count kept and the count dropped", () => {
    expect(sheetTruncated("Data", "rows", 100_000, 2_300_000)).toEqual({
      severity: "warning",
      code: "rows_truncated",
      message: "Sheet 'Data': kept the first 100,000 of 2,300,000 rows; 2,200,000 rows dropped"
    })
    expect(sheetTruncated("Wide", "columns", 2_000, 2_500, true).message).toBe("Sheet 'Wide': kept the first 2,000 of at least 2,500 columns; at least 500 columns dropped")
  })
})

describe("xlsx", () => {
  it("warns when rows past the limit are dropped, with the sheet's real extent", async () => {
    const { diagnostics, markdown } = await warningsOf(xlsx("Data", [[0, 0, "head"], [0, 1, "er"], [1, 0, "kept"], [1, 1, "too"], [maxSheetRows + 4, 0, "dropped row"], [249_999, 1, "last row"]]), "xlsx")
    expect(diagnostics).toEqual([{ severity: "warning", code: "rows_truncated", message: "Sheet 'Data': kept the first 100,000 of 250,000 rows; 150,000 rows dropped" }])
    expect(markdown).toContain("kept")
    expect(markdown).not.toContain("dropped row")
  })

  it("warns when columns past the limit are dropped", async () => {
    const { diagnostics, markdown } = await warningsOf(xlsx("Wide", [[0, 0, "a"], [0, 1, "b"], [1, 0, "c"], [1, maxSheetColumns + 499, "far"]]), "xlsx")
    expect(diagnostics.map((d) => [d.code, d.message])).toEqual([["columns_truncated", "Sheet 'Wide': kept the first 2,000 of 2,500 columns; 500 columns dropped"]])
    expect(markdown).not.toContain("far")
  })

  it("says nothing when nothing was cut", async () => {
    const { diagnostics } = await warningsOf(xlsx("Small", [[0, 0, "a"], [0, 1, "b"], [1, 0, "c"], [1, 1, "d"]]), "xlsx")
    expect(diagnostics).toEqual([])
  })
})

describe("ods and odt", () => {
  const spreadsheet = (rows: string) => odf("application/vnd.oasis.opendocument.spreadsheet", `<office:spreadsheet><table:table table:name="Log">${rows}</table:table></office:spreadsheet>`)
  const row = (text: string, repeat = 1) => `<table:table-row table:number-rows-repeated="${repeat}"><table:table-cell><text:p>${text}</text:p></table:table-cell><table:table-cell><text:p>${text}</text:p></table:table-cell></table:table-row>`

  it("warns when an ods sheet's repeated data rows run past the row limit", async () => {
    const { diagnostics } = await warningsOf(spreadsheet(row("x", 150_000)), "ods")
    expect(diagnostics.map((d) => d.message)).toContain("Sheet 'Log': kept the first 100,000 of 150,000 rows; 50,000 rows dropped")
  })

  it("does not count the empty rows that pad an ods sheet to a million rows", async () => {
    const padding = `<table:table-row table:number-rows-repeated="1048570"><table:table-cell table:number-columns-repeated="1024"/></table:table-row>`
    const { diagnostics, markdown } = await warningsOf(spreadsheet(row("a") + row("b") + padding), "ods")
    expect(diagnostics).toEqual([])
    expect(markdown).toContain("| a | a |")
  })

  it("warns when an odt table runs past its row limit", async () => {
    const table = `<table:table>${row("cell", 12_000)}</table:table>`
    const { diagnostics } = await warningsOf(odf("application/vnd.oasis.opendocument.text", `<office:text>${table}</office:text>`), "odt")
    expect(diagnostics.map((d) => [d.code, d.message])).toEqual([["table_truncated", "a table of 12,000 rows was cut to its first 10,000 rows; 2,000 rows dropped"]])
  })
})

describe("sheet tables past the slot budget", () => {
  it("warns when a table is cut to the cells one table may have", () => {
    const rows = Array.from({ length: 5_000 }, () => Array.from({ length: 1_000 }, () => "1"))
    const diagnostics: Array<Diagnostic> = []
    sheetBlocks({ name: "Big", rows, merges: [] }, "xlsx", diagnostics)
    expect(diagnostics).toEqual([{
      severity: "warning",
      code: "table_truncated",
      message: "Sheet 'Big': a table of 5,000 rows and 1,000 columns is over the 4,000,000 cells one table may have: kept its first 4,000 rows; 1,000 rows dropped"
    }])
  })
})

describe("CellBudget", () => {
  it("fails a sheet past its cell budget with LimitExceeded", () => {
    const count = new CellBudget("xlsx").forSheet("Huge")
    for (let i = 0; i < maxSheetCells; i++) count()
    expect(count).toThrow(expect.objectContaining({
      reason: expect.objectContaining({ _tag: "LimitExceeded", message: "Sheet 'Huge' has more than 2,000,000 cells with data, the most one sheet may have" })
    }))
  })

  it("fails a workbook past its cell budget, though each sheet is under its own", () => {
    const budget = new CellBudget("ods")
    const sheets = Math.ceil(maxWorkbookCells / maxSheetCells)
    let thrown: unknown
    try {
      for (let s = 0; s < sheets; s++) {
        const count = budget.forSheet(`S${s}`)
        for (let i = 0; i < maxSheetCells; i++) count()
      }
    } catch (error) {
      thrown = error
    }
    expect(thrown).toMatchObject({ reason: { _tag: "LimitExceeded", message: "the workbook has more than 5,000,000 cells with data, the most one workbook may have" } })
  })
})
