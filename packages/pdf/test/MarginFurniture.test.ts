/**
 * Furniture on a document of one page, where repetition across pages cannot help: running heads,
 * page numbers, download stamps, revision lines and rotated side stamps become page_header,
 * page_footer or page_number blocks and stay out of the markdown, while a title at the top of the
 * page, a footnote, a table's last row and a figure's caption at the foot stay in it.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { degrees } from "pdf-lib"
import type { Line } from "@strata/core"
import { blockOf } from "../src/LayoutBlock.ts"
import { markMarginFurniture } from "../src/MarginFurniture.ts"
import { DUIS, LOREM, makePdf } from "./helpers/MakePdf.ts"
import { readAll } from "./helpers/ReadAll.ts"

const kindOf = (blocks: ReadonlyArray<{ kind: string; content: string }>, text: string) =>
  blocks.find((b) => b.content.includes(text))?.kind

describe("furniture on a single page", () => {
  it.effect("running head, revision line, download stamp and page number are furniture, out of the markdown", () =>
    Effect.gen(function*() {
      const bytes = yield* Effect.promise(() => makePdf((b) => b.page((c) => {
        c.text(72, 28, "Journal of Widget Studies", 8, "italic")
        c.text(430, 28, "Rev. 3, 2024-02-01", 8)
        let y = c.text(72, 80, "Measuring Widgets", 20, "bold")
        y = c.paragraph(72, y + 12, 460, LOREM)
        c.paragraph(72, y + 8, 460, DUIS)
        c.text(72, 742, "Downloaded from https://widgets.example.org/paper/42 on 5 May 2023", 7)
        c.text(280, 760, "Page 1 of 1", 9)
        // An arXiv-style stamp up the left margin.
        c.page.drawText("arXiv:2401.01234v1 [cs.CL] 3 Jan 2024", { x: 30, y: 250, size: 16, rotate: degrees(90) })
      })))
      const { pages, markdown } = yield* readAll(bytes)
      const blocks = pages[0].blocks
      assert.strictEqual(kindOf(blocks, "Journal of Widget Studies"), "page_header")
      assert.strictEqual(kindOf(blocks, "Rev. 3"), "page_header")
      assert.strictEqual(kindOf(blocks, "Downloaded from"), "page_footer")
      assert.strictEqual(kindOf(blocks, "Page 1 of 1"), "page_number")
      assert.strictEqual(kindOf(blocks, "arXiv:2401.01234v1"), "page_header")
      for (const text of ["Journal of Widget", "Rev. 3", "Downloaded", "Page 1 of 1", "arXiv"]) assert.notInclude(markdown, text)
      assert.include(markdown, "# Measuring Widgets")
      assert.include(markdown, "Lorem ipsum")
      assert.include(markdown, "Duis aute")
    }))

  it.effect("a title at the top, a footnote, a table's last row and a caption at the foot stay in the body", () =>
    Effect.gen(function*() {
      // Each case is a document of one page.
      const footnote = yield* readAll(yield* Effect.promise(() => makePdf((b) => b.page((c) => {
        // A plain one-line title at the very top, in the body's size: nothing marks it as furniture.
        let y = c.text(72, 30, "Notes on the Spring Survey", 11)
        y = c.paragraph(72, y + 30, 460, LOREM)
        c.paragraph(72, y + 8, 460, DUIS)
        c.line(72, 720, 250, 720)
        c.text(72, 728, "1 The survey ran from March to May 2023 in four towns.", 8)
      }))))
      assert.include(footnote.markdown, "Notes on the Spring Survey")
      assert.include(footnote.markdown, "The survey ran from March to May 2023")
      assert.strictEqual(kindOf(footnote.pages[0].blocks, "The survey ran"), "footnote")

      const table = yield* readAll(yield* Effect.promise(() => makePdf((b) => b.page((c) => {
        const y = c.paragraph(72, 60, 460, LOREM)
        c.paragraph(72, y + 8, 460, DUIS)
        const xs = [72, 250, 400]
        const ys = [680, 700, 720, 740]
        for (const x of xs) c.line(x, ys[0], x, ys[3])
        for (const yy of ys) c.line(xs[0], yy, xs[2], yy)
        const rows = [["Town", "Count"], ["Northfield", "112"], ["Total 2023", "340"]]
        rows.forEach((row, r) => row.forEach((cell, k) => c.text(xs[k] + 4, ys[r] + 5, cell, 9)))
      }))))
      assert.include(table.markdown, "Total 2023")
      assert.include(table.markdown, "340")

      const figure = yield* readAll(yield* Effect.promise(() => makePdf((b) => b.page((c) => {
        const y = c.paragraph(72, 60, 460, LOREM)
        c.paragraph(72, y + 8, 460, DUIS)
        c.image(150, 560, 300, 160)
        c.text(150, 730, "Figure 2: Widgets per town, May 2023", 8)
      }), { picture: true })))
      assert.include(figure.markdown, "Figure 2: Widgets per town")
      assert.strictEqual(kindOf(figure.pages[0].blocks, "Figure 2"), "caption")
    }))
})

const line = (text: string, x0: number, top: number, size = 10, row = top): Line => ({
  text, x0, x1: x0 + text.length * size * 0.5, top, bottom: top + size, baseline: top + size * 0.8, size,
  bold: false, italic: false, mono: false, math: false, rotated: false, rtl: false, row, runs: []
})

describe("markMarginFurniture", () => {
  it("a number set before a heading is the heading's number; an equation number below the folio is not a page number", () => {
    const number = blockOf("text", [line("4", 60, 60)])
    const heading = blockOf("section_header", [line("Findings", 90, 60, 14)])
    const folio = blockOf("text", [line("9", 540, 20)])
    const formula = blockOf("formula", [line("x = y + z", 250, 96)])
    const equationNumber = blockOf("text", [line("(56)", 520, 96)])
    const body = blockOf("text", Array.from({ length: 30 }, (_, i) => line("body text of the page goes on here", 60, 130 + i * 12)))
    markMarginFurniture({ height: 792, blocks: [folio, number, heading, formula, equationNumber, body] }, 10)
    assert.strictEqual(folio.kind, "page_number")
    assert.strictEqual(number.kind, "text")
    assert.strictEqual(heading.kind, "section_header")
    assert.strictEqual(equationNumber.kind, "text")
    assert.strictEqual(body.kind, "text")
  })

  it("a revision line with a month and year at the foot is furniture; a line of words that only look like a month is not", () => {
    const body = blockOf("text", Array.from({ length: 40 }, (_, i) => line("body text of the page goes on here", 60, 80 + i * 12)))
    const revision = blockOf("text", [line("Revision of March 2021 (draft)", 60, 740)])
    const top = blockOf("text", [line("Market overview for the year", 60, 40)])
    markMarginFurniture({ height: 792, blocks: [top, body, revision] }, 10)
    assert.strictEqual(revision.kind, "page_footer")
    assert.strictEqual(top.kind, "text")
    const market = blockOf("text", [line("Decline in market 2021 and beyond", 60, 740)])
    markMarginFurniture({ height: 792, blocks: [body, market] }, 10)
    assert.strictEqual(market.kind, "text")
  })
})

