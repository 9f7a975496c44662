/** Office tables on a grid: whatever spans a broken file declares, the placed cells tile the table exactly once. */
import { describe, expect, it } from "vitest"
import fc from "fast-check"
import { writeTable } from "@strata/core"
import { layoutCells, sheetGrid } from "../src/TableMarkdown.ts"

const coverage = (grid: ReturnType<typeof layoutCells>): Array<number> => {
  const count = Array.from<number>({ length: grid.rows * grid.cols }).fill(0)
  for (const c of grid.cells) {
    for (let r = c.row; r < c.row + (c.rowSpan ?? 1); r++) for (let k = c.col; k < c.col + (c.colSpan ?? 1); k++) count[r * grid.cols + k]++
  }
  return count
}

describe("layoutCells", () => {
  it("clips overlapping spans so that every slot belongs to exactly one cell", () => {
    const cell = fc.record({ row: fc.nat(4), col: fc.nat(4), text: fc.constant("x"), colSpan: fc.integer({ min: 1, max: 3 }), rowSpan: fc.integer({ min: 1, max: 3 }) })
    fc.assert(fc.property(fc.array(cell, { maxLength: 12 }), fc.integer({ min: 1, max: 5 }), (cells, rows) => {
      expect(coverage(layoutCells(cells, rows)).every((n) => n === 1)).toBe(true)
    }))
  })

  it("a span clipped by a cell that came first leaves the slots it lost as empty cells", () => {
    const grid = layoutCells([{ row: 0, col: 3, text: "!", colSpan: 1, rowSpan: 1 }, { row: 0, col: 2, text: "a", colSpan: 3, rowSpan: 1 }], 1)
    expect(writeTable(grid)).toBe("|  |  | a | ! |  |\n| --- | --- | --- | --- | --- |")
  })
})

describe("sheetGrid", () => {
  it("gives a merged range's spans to its top-left cell and drops the cells it covers", () => {
    expect(writeTable(sheetGrid([["Region", "", "Total"], ["North", "1", "2"]], [{ r0: 0, c0: 0, r1: 0, c1: 1 }]))).toBe(
      "<table>\n<tr><th colspan=\"2\">Region</th><th>Total</th></tr>\n<tr><td>North</td><td>1</td><td>2</td></tr>\n</table>"
    )
  })
})
