/**
 * Page gutters for the unruled-table search (AlignedTables.ts): a code listing's line numbers,
 * set out to the left of the right column, stand in the gutter. They must not close it: the
 * columns were then searched as one, and a row of the left column's prose, a line number and a
 * line of code became a table across the page.
 */
import { assert, describe, it } from "@effect/vitest"
import { pageGutters } from "../src/AlignedTables.ts"
import type { Line } from "../src/Lines.ts"

const line = (text: string, x0: number, x1: number, top: number, row = top): Line => ({
  text, x0, x1, top, bottom: top + 10, baseline: top + 8, size: 10,
  bold: false, italic: false, mono: false, math: false, rotated: false, rtl: false, row, runs: []
})

const prose = "words of the left column set as justified prose"

/** A two-column page: prose on the left (x 60-290); on the right (x 310-540), prose and a numbered listing. */
const page = (): Array<Line> => {
  const lines: Array<Line> = []
  for (let i = 0; i < 40; i++) lines.push(line(prose, 60, 290, 60 + i * 12))
  for (let i = 0; i < 40; i++) {
    const top = 60 + i * 12
    if (i >= 10 && i < 22) {
      // The listing: numbers hung in the gutter (x 295-304), code from x 310.
      lines.push(line(String(i - 9), 295, 304, top), line(`value = item . call (${i})`, 310, 430, top))
    } else lines.push(line("and the right column goes on in prose to its end", 310, 540, top))
  }
  return lines
}

describe("page gutters", () => {
  it("a listing's line numbers in the gutter leave it a gutter", () => {
    const gutters = pageGutters(page(), 600)
    assert.strictEqual(gutters.length, 1)
    assert.isTrue(gutters[0]! > 290 && gutters[0]! < 310)
  })

})
