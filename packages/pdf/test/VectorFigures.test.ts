/**
 * The vector-figure decision on hand-made page content: a diagram of boxes with short labels is a
 * figure holding its labels; the same area drawn as a form (thin rules and a few shaded bands) is
 * not, and a table the drawings would have swallowed stays a table when no figure takes it, or
 * when it is ruled in rows and columns.
 */
import { describe, expect, it } from "vitest"
import type { LayoutBlock } from "../src/LayoutBlock.ts"
import type { Line } from "../src/Lines.ts"
import type { DrawingBox } from "../src/PageContent.ts"
import { findVectorFigures } from "../src/VectorFigures.ts"

const page = { width: 612, height: 792 }

const line = (text: string, x0: number, top: number, size = 10): Line => ({
  runs: [], text, x0, x1: x0 + text.length * size * 0.5, top, bottom: top + size, baseline: top + size * 0.8, size,
  bold: false, italic: false, mono: false, math: false, rotated: false, rtl: false, row: Math.round(top)
})

const body = (): Array<Line> => [
  line("Body text above the drawing runs the whole width of the column, as prose does.", 72, 100),
  line("Body text below the drawing runs the whole width of the column, as prose does.", 72, 500)
]

/**
 * A form's drawing: a thin rule under each row, thin dividers between the entry fields, and a small
 * filled check box on every `checkEvery`-th row, from `top` down, between x 72 and 512.
 */
const formDrawing = (top: number, rows: number, checkEvery: number): Array<DrawingBox> => {
  const out: Array<DrawingBox> = []
  for (let r = 0; r <= rows; r++) out.push({ x0: 72, x1: 512, top: top + r * 30, bottom: top + r * 30 + 0.5 }) // row rules
  for (let r = 0; r < rows; r++) {
    const y = top + r * 30
    for (const x of [222, 332, 442]) out.push({ x0: x, x1: x + 0.5, top: y, bottom: y + 30 }) // field dividers
    if (r % checkEvery === 0) out.push({ x0: 480, x1: 488, top: y + 3, bottom: y + 11 }) // a check box
  }
  return out
}

describe("vector figures", () => {
  it("a diagram of connected boxes with short labels is a figure that holds its labels", () => {
    const drawings: Array<DrawingBox> = []
    const labels: Array<Line> = []
    for (let i = 0; i < 8; i++) {
      const x0 = 90 + (i % 4) * 110, top = 180 + Math.floor(i / 4) * 120
      drawings.push({ x0, x1: x0 + 90, top, bottom: top + 50 })
      labels.push(line(`Step ${i + 1}`, x0 + 10, top + 20))
      // arrows to the next box and down to the next row, each with a head
      if (i % 4 < 3) drawings.push({ x0: x0 + 90, x1: x0 + 110, top: top + 25, bottom: top + 25.5 }, { x0: x0 + 104, x1: x0 + 110, top: top + 22, bottom: top + 28 })
      if (i < 4) drawings.push({ x0: x0 + 45, x1: x0 + 45.5, top: top + 50, bottom: top + 120 }, { x0: x0 + 42, x1: x0 + 48, top: top + 114, bottom: top + 120 })
    }
    const split = findVectorFigures(drawings, [...body(), ...labels], [], [], page)
    expect(split.figures).toHaveLength(1)
    expect(split.rest.map((l) => l.text)).toEqual(body().map((l) => l.text))
  })

  it("a form drawn with thin dividers and a few check boxes is not a figure: its labels and values stay text", () => {
    const labels: Array<Line> = []
    for (let r = 0; r < 8; r++) labels.push(line(`Line ${r + 1}`, 76, 170 + r * 30), line(`${r * 7}`, 300, 170 + r * 30))
    const split = findVectorFigures(formDrawing(160, 8, 3), [...body(), ...labels], [], [], page)
    expect(split.figures).toHaveLength(0)
    expect(split.rest).toHaveLength(body().length + labels.length)
  })

  it("labels in rows inside a diagram go back to the picture, but a table ruled in rows and columns stays a table", () => {
    const drawings: Array<DrawingBox> = []
    for (let i = 0; i < 12; i++) {
      const x0 = 90 + (i % 4) * 110, top = 180 + Math.floor(i / 4) * 90
      drawings.push({ x0, x1: x0 + 90, top, bottom: top + 50 }, { x0: x0 + 90, x1: x0 + 110, top: top + 25, bottom: top + 25.5 })
      if (i < 8 && i % 4 === 0) drawings.push({ x0: x0 + 45, x1: x0 + 45.5, top: top + 50, bottom: top + 90 })
    }
    const cells = [line("Name", 100, 190), line("Value", 160, 190), line("Alpha", 100, 205), line("12", 160, 205)]
    const table = (ruled: boolean): LayoutBlock => ({ kind: "table", lines: cells, x0: 95, x1: 185, top: 186, bottom: 218, size: 10, ...(ruled ? { ruled } : {}) })
    const labelled = findVectorFigures(drawings, body(), [table(false)], [], page)
    expect(labelled.tables).toHaveLength(0)
    const ruled = findVectorFigures(drawings, body(), [table(true)], [], page)
    expect(ruled.tables).toHaveLength(1)
    expect(ruled.tables[0].lines).toEqual(cells)
  })

  it("a table inside a large drawing stays a table when no figure takes the drawing", () => {
    const drawings = formDrawing(160, 12, 2)
    const cells = [line("2020", 250, 232), line("2021", 330, 232), line("233,512", 250, 262), line("201,683", 330, 262)]
    const table: LayoutBlock = { kind: "table", lines: cells, x0: 245, x1: 400, top: 228, bottom: 275, size: 10 }
    const split = findVectorFigures(drawings, body(), [table], [], page)
    expect(split.figures).toHaveLength(0)
    expect(split.tables).toEqual([table])
    expect(split.rest.some((l) => cells.includes(l))).toBe(false)
  })
})
