/**
 * The LaTeX layout data's labels (models/layout/data/LatexLabels.ts): colours name a label and an
 * element even when they come back one lower per channel, characters become one region per
 * element, page and column (a paragraph cut around its display formula), and TeX's boxes become
 * table and figure regions. The fixture (fixtures/latex-labels: doc.tex, with the stext XML and
 * .lbl pdflatex and mutool made of it) is read without texlive; when pdflatex and mutool are
 * installed the test also builds doc.tex again and expects the same regions (CI has no texlive,
 * so that case skips there).
 */
import { assert, describe, it } from "@effect/vitest"
import { execFileSync } from "node:child_process"
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { encodeColour, LATEX_LABELS } from "../../../models/layout/data/Latex.ts"
import { colourLabel, latexRegions, parseLbl, parseStext, type StextPage } from "../../../models/layout/data/LatexLabels.ts"

const fixture = new URL("./fixtures/latex-labels/", import.meta.url).pathname
const hex = (rgb: ReadonlyArray<number>) => "#" + rgb.map((v) => v.toString(16).padStart(2, "0")).join("")
const has = (tool: string) => {
  try {
    execFileSync("which", [tool], { stdio: "ignore" })
    return true
  } catch {
    return false
  }
}

describe("LatexLabels", () => {
  it("reads every label and element back from its colour, also one lower per channel", () => {
    LATEX_LABELS.forEach((label, l) => {
      for (let id = 0; id < 100; id++) {
        const rgb = encodeColour(l, id).split(",").map(Number)
        assert.isTrue(rgb.every((v) => v >= 1 && v <= 26))
        for (let lower = 0; lower < 8; lower++) {
          const back = rgb.map((v, c) => v - ((lower >> c) & 1))
          assert.deepStrictEqual(colourLabel(hex(back)), { label, id })
        }
      }
    })
    for (const other of ["#000000", "#b3b3b3", "#00cc00", "#191919", "#ff0000", "#0000ff"]) assert.isUndefined(colourLabel(other))
  })

  it("makes regions of the fixture page: a paragraph cut around its formula, the table's TeX box", () => {
    const pages = parseStext(readFileSync(join(fixture, "doc.stext.xml"), "utf8"))
    const lbl = parseLbl(readFileSync(join(fixture, "doc.lbl"), "utf8"))
    assert.strictEqual(pages.length, 1)
    assert.approximately(pages[0].width, 595.276, 0.01)
    const [regions] = latexRegions(pages, lbl, { columns: 1, spanning: [], firstPage: 1 })
    assert.deepStrictEqual(regions.map((r) => r.label), ["title", "section_header", "text", "formula", "text", "table", "page_number"])
    const [, heading, before, formula, after, table] = regions
    // The heading's number and words, the paragraph's two lines, the formula with its tag at the right margin.
    assert.isTrue(heading.box[0] < 86 && heading.box[2] > 150)
    assert.isTrue(before.box[3] - before.box[1] > 15 && before.box[2] > 500)
    assert.isTrue(formula.box[2] > 505 && formula.box[0] > 250)
    assert.isTrue(after.box[1] > formula.box[3] - 1 && after.box[2] < 200)
    // \lbox wrote sp from the page's bottom left and the box's size in TeX points.
    const x = (18383104 / 65536) * (72 / 72.27)
    assert.approximately(table.box[0], x, 0.01)
    assert.approximately(table.box[2] - table.box[0], 36.50006 * (72 / 72.27), 0.02)
    assert.approximately(table.box[3] - table.box[1], (17.5604 + 12.5604) * (72 / 72.27), 0.02)
  })

  it("cuts an element at the column gap unless it spans both columns", () => {
    const colour = hex(encodeColour(LATEX_LABELS.indexOf("text"), 7).split(",").map(Number))
    const wide = hex(encodeColour(LATEX_LABELS.indexOf("title"), 8).split(",").map(Number))
    const line = (x0: number, x1: number, top: number, c: string) => ({ colour: c, box: [x0, top, x1, top + 10] as [number, number, number, number] })
    const page: StextPage = {
      width: 600, height: 800,
      chars: [line(50, 290, 700, colour), line(50, 200, 711, colour), line(310, 550, 60, colour), line(310, 550, 71, colour), line(100, 500, 30, wide)]
    }
    const lbl = { area: { left: 50, width: 500 }, boxes: [] }
    const two = latexRegions([page], lbl, { columns: 2, spanning: [8], firstPage: 1 })[0]
    assert.deepStrictEqual(two.map((r) => [r.label, r.box]), [
      ["title", [100, 30, 500, 40]], ["text", [310, 60, 550, 81]], ["text", [50, 700, 290, 721]]
    ])
    const one = latexRegions([page], lbl, { columns: 1, spanning: [], firstPage: 1 })[0]
    // In one column the far-apart runs still part at the vertical gap.
    assert.strictEqual(one.filter((r) => r.label === "text").length, 2)
  })

  it.skipIf(!has("pdflatex") || !has("mutool"))("builds the fixture again with pdflatex to the same regions", () => {
    const dir = mkdtempSync(join(tmpdir(), "strata-latex-test-"))
    try {
      copyFileSync(join(fixture, "doc.tex"), join(dir, "doc.tex"))
      execFileSync("pdflatex", ["-interaction=nonstopmode", "-halt-on-error", "doc.tex"], { cwd: dir, stdio: "ignore", timeout: 60_000 })
      const stext = execFileSync("mutool", ["draw", "-q", "-F", "stext", "-o", "-", join(dir, "doc.pdf")], { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] })
      const options = { columns: 1 as const, spanning: [], firstPage: 1 }
      const built = latexRegions(parseStext(stext), parseLbl(readFileSync(join(dir, "doc.lbl"), "utf8")), options)
      const committed = latexRegions(parseStext(readFileSync(join(fixture, "doc.stext.xml"), "utf8")), parseLbl(readFileSync(join(fixture, "doc.lbl"), "utf8")), options)
      assert.deepStrictEqual(built, committed)
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
