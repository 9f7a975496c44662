/**
 * Tables as a browser prints them, each against the exact grid it was made from
 * (`bench/pdf/tables/generate.ts`, seeds 0, 28, 21, 19, 14, 126, 5, 115, 4, 26 and 46, copied into
 * fixtures/printed-tables with their cells), and two typeset by pdflatex (`tables/latex.ts`, seeds
 * 2007 and 2065). What they hold that the reader once got wrong:
 * - booktabs-groups: a results table under group heads; its cells stand closer than a fragment
 *   gap, so columns of figures were read as one;
 * - booktabs-wrapped-labels: row labels wrapped over two lines, their figures centred beside them
 *   (each line made a row of its own);
 * - statement-periods: two period heads over years centred above right-aligned figures (the years
 *   made columns of their own);
 * - statement-wrapped-heads: the period heads wrapped over two lines, over the years (the heads
 *   bridged the gutters between the year columns, which were read as one);
 * - statement-sections: a statement with section labels on rows of their own and rules over its
 *   totals' figures only (the rules framed a table of figures without their labels);
 * - statement-figures: three columns of figures, with the gaps between them empty all the way
 *   down (they were read as a page's column gutters, which part a table);
 * - zebra: shaded bands and no rules (the sides of the shaded cells read as borders, so the rows
 *   between the bands became one cell, and the unshaded last row was left out);
 * - grid-spans: a ruled grid with a category column spanning rows and a column of wrapped text;
 * - wrapped-comments: no rules, and a comment column whose cells wrap over two or three lines (the
 *   wrapped lines broke the table into pieces too small to be one);
 * - centred-remarks: the same with every cell centred in its row, so that a remark's lines stand
 *   above and below the row's label and figure;
 * - bottom-notes: cells set at the bottom beside notes of up to seven lines, under headers wrapped
 *   over two lines (the gap before the notes column was read as a page's column gutter);
 * - latex-paragraph-column: a p{} column of justified, hyphenated comments, its rows set as closely
 *   as its lines (each wrapped line was a row of its own, and no table was found);
 * - latex-stripes: \rowcolors bands under an unshaded header whose cells stand closer than a
 *   fragment gap (the header, one line wider than half the table, was taken for a caption).
 * Cells without a letter or digit (a dash for "none") are left out on both sides.
 */
import { assert, describe, it } from "@effect/vitest"
import { readFileSync } from "node:fs"
import { Effect } from "effect"
import { readAll } from "./helpers/ReadAll.ts"

interface Cell { readonly row: number; readonly col: number; readonly rowSpan?: number; readonly colSpan?: number; readonly text: string }

const dir = new URL("./fixtures/printed-tables/", import.meta.url)
const norm = (s: string) => s.normalize("NFKC").toLowerCase().replace(/[^\p{L}\p{N}]/gu, "")
const keys = (cells: ReadonlyArray<Cell>) =>
  cells.filter((c) => norm(c.text).length > 0).map((c) => `${c.row},${c.col} ${c.rowSpan ?? 1}x${c.colSpan ?? 1} ${norm(c.text)}`).sort()

describe("tables printed by a browser", () => {
  // fixtures/printed-tables/rotated-heads.html, printed by Chromium: a ruled grid whose narrow
  // columns' heads are turned up the page, then a listing set between two rules.
  it.effect("rotated-heads: heads set sideways are the grid's heads; the listing after the grid is not part of it", () =>
    Effect.gen(function*() {
      const { pages } = yield* readAll(new Uint8Array(readFileSync(new URL("rotated-heads.pdf", dir))))
      const tables = pages[0].blocks.flatMap((b) => (b.table === undefined ? [] : [b]))
      const grid = tables.find((b) => b.content.includes("User action"))
      assert.isDefined(grid)
      assert.include(grid!.content, "| User action | *JOBCTL | QIBM_DB_SECADM | QIBM_DB_SQLADM | No Authority |")
      assert.include(grid!.content, "| STRDBMON or ENDDBMON commands targeting a job that matches the current user | X |  | X | X |")
      assert.strictEqual(grid!.table!.rows, 6)
      assert.notInclude(grid!.content, "SELECT")
    }), 30_000)

  for (const name of ["booktabs-groups", "booktabs-wrapped-labels", "statement-periods", "statement-wrapped-heads", "statement-sections", "statement-figures", "zebra", "grid-spans", "wrapped-comments", "centred-remarks", "bottom-notes", "latex-paragraph-column", "latex-stripes"]) {
    it.effect(`${name}: one table, every cell in its place`, () =>
      Effect.gen(function*() {
        const truth = JSON.parse(readFileSync(new URL(`${name}.json`, dir), "utf8")) as { rows: number; cols: number; headerRows: number; cells: Array<Cell> }
        const { pages } = yield* readAll(new Uint8Array(readFileSync(new URL(`${name}.pdf`, dir))))
        const tables = pages[0].blocks.flatMap((b) => (b.table === undefined ? [] : [b.table]))
        assert.strictEqual(tables.length, 1)
        const table = tables[0]
        assert.deepStrictEqual([table.rows, table.cols], [truth.rows, truth.cols])
        assert.deepStrictEqual(keys(table.cells), keys(truth.cells))
      }), 30_000)
  }
})
