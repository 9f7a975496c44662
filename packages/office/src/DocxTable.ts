/**
 * WordprocessingML tables (`w:tbl`) on a grid: `gridBefore` offsets, `gridSpan` column spans,
 * `vMerge` continuations growing the cell above, rows and cells wrapped in content controls,
 * placed on a grid for core's table writer (GFM, or HTML when cells span).
 */
import type { CellGrid } from "@strata/core"
import { layoutCells } from "./TableMarkdown.ts"
import { child, type XmlElement } from "./Xml.ts"

/** The grid of a table; `cellText` converts one cell's content to inline markdown. */
export const wordTable = (tbl: XmlElement, cellText: (tc: XmlElement) => string): CellGrid => {
  const cells: Array<{ row: number; col: number; text: string; colSpan: number; rowSpan: number }> = []
  // The last cell that started at each grid column: vMerge continuations extend it (no scan back).
  const lastAt = new Map<number, { row: number; rowSpan: number }>()
  const trs = rowsOf(tbl)
  trs.forEach((tr, rowIndex) => {
    let col = Math.min(1000, Math.max(0, Number(child(child(tr, "trPr"), "gridBefore")?.attrs.val ?? 0) || 0))
    for (const tc of cellsOf(tr)) {
      const tcPr = child(tc, "tcPr")
      const span = Math.max(1, Math.min(1000, Number(child(tcPr, "gridSpan")?.attrs.val ?? 1) || 1))
      const vMerge = child(tcPr, "vMerge")
      if (vMerge !== undefined && vMerge.attrs.val !== "restart") {
        // A continuation grows the cell above that starts at the same grid column.
        const above = lastAt.get(col)
        if (above !== undefined && above.row + above.rowSpan === rowIndex) above.rowSpan += 1
      } else {
        const cell = { row: rowIndex, col, text: cellText(tc), colSpan: span, rowSpan: 1 }
        cells.push(cell)
        lastAt.set(col, cell)
      }
      col += span
    }
  })
  return layoutCells(cells, trs.length)
}

const rowsOf = (tbl: XmlElement): Array<XmlElement> => {
  const out: Array<XmlElement> = []
  for (const c of tbl.children) {
    if (typeof c === "string") continue
    if (c.name === "tr") out.push(c)
    else if (c.name === "sdt" || c.name === "customXml") for (const row of rowsOf(child(c, "sdtContent") ?? c)) out.push(row)
  }
  return out
}

const cellsOf = (tr: XmlElement): Array<XmlElement> => {
  const out: Array<XmlElement> = []
  for (const c of tr.children) {
    if (typeof c === "string") continue
    if (c.name === "tc") out.push(c)
    else if (c.name === "sdt" || c.name === "customXml") for (const cell of cellsOf(child(c, "sdtContent") ?? c)) out.push(cell)
  }
  return out
}
