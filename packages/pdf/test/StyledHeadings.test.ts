/**
 * Headings that only their style sets apart, as journal styles set their lower levels: small caps
 * at the body's size ("1. Measured effects"), italic with a section number, capitals; a bold
 * "Abstract" a size smaller than the body; a caption whose label is followed by a space only; a
 * second list level marked with TeX's math asterisk, which is a bullet and not inline math. Two
 * columns, the right one shorter: the left one goes on below its end, under a figure, and is read
 * whole before the right one. The fixture is built with pdflatex from styled.tex beside it
 * (fixtures/styled-headings/build.sh).
 */
import { readFileSync } from "node:fs"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { isSmallCapsFont, fontInfoFromName } from "../src/Fonts.ts"
import { readAll } from "./helpers/ReadAll.ts"

const fixture = (name = "styled") => new Uint8Array(readFileSync(new URL(`./fixtures/styled-headings/${name}.pdf`, import.meta.url)))

describe("headings set apart by style", () => {
  it.effect("small caps, italic and capital headings at the body's size are headings; the text under them is not", () =>
    Effect.gen(function*() {
      const { pages, markdown } = yield* readAll(fixture())
      const blocks = pages.flatMap((p) => p.blocks)
      const headings = blocks.filter((b) => b.kind === "section_header").map((b) => b.content.replace(/^#+\s*/, ""))
      // In reading order: the left column's last section before the right column's.
      assert.deepStrictEqual(headings, ["Abstract", "1. Measured effects", "1.1 Controls and baselines", "1.1.1 SAMPLING FRAMES", "2. Listed items"])
      assert.strictEqual(blocks.filter((b) => b.kind === "text").length, 10)
      assert.include(markdown, "## 1.1 Controls and baselines\n\nThe second heading is italic and numbered")
    }))

  it.effect("a caption labelled with a space only is a caption; TeX's asterisk bullets make a nested list", () =>
    Effect.gen(function*() {
      const { pages, markdown } = yield* readAll(fixture())
      const captions = pages.flatMap((p) => p.blocks).filter((b) => b.kind === "caption").map((b) => b.content)
      assert.deepStrictEqual(captions, ["Figure 1 Phased response of the framed box"])
      assert.include(markdown, "- The first outer item of the list.\n  - An inner item under the first.\n  - Another inner item under the first.\n- The second outer item of the list.")
      assert.notInclude(markdown, "∗")
      assert.notInclude(markdown, "\\ast")
    }))

  it.effect("LaTeX's own section numbers stay with their titles; a table's bare numbers stay cells; a centred table is read before the heading under it", () =>
    Effect.gen(function*() {
      const { pages, markdown } = yield* readAll(fixture("article"))
      // The authors, large and centred under the title, side by side, are text, not headings.
      assert.include(markdown, "# Measured Effects of Sampling\n\nAda Lovelace")
      const headings = pages.flatMap((p) => p.blocks).filter((b) => b.kind === "section_header").map((b) => b.content.replace(/^#+\s*/, ""))
      assert.deepStrictEqual(headings, ["1 Introduction", "1.1 Background and motivation", "2 Results"])
      assert.include(markdown, "## 1 Introduction\n\nThe introduction runs")
      assert.include(markdown, "### 1.1 Background and motivation")
      assert.include(markdown, "| 1 | Apples | Crates |\n| --- | --- | --- |\n| 2 | Berries | Punnets |")
      assert.isBelow(markdown.indexOf("| 3 | Cherries | Boxes |"), markdown.indexOf("## 2 Results"))
    }))

  it.effect("a title in large capitals, smaller than the numbered section headings under it, is the title", () =>
    Effect.gen(function*() {
      const { pages, markdown } = yield* readAll(fixture("title"))
      assert.strictEqual(pages[0]!.blocks[0]!.kind, "title")
      assert.include(markdown, "# THE MEASURED EFFECTS OF SAMPLING\n\n## 1 Introduction")
    }))

  it("reads caps-and-small-caps fonts and URW's abbreviated italics from their names", () => {
    for (const name of ["CMCSC10", "ABCDEF+CMCSC10", "LMRomanCaps10-Regular", "MinionPro-RegularSC", "Garamond-SmallCaps"]) assert.isTrue(isSmallCapsFont(name), name)
    for (const name of ["CMR10", "Helvetica", "Arial-Misc", "TimesNewRomanPS-BoldMT"]) assert.isFalse(isSmallCapsFont(name), name)
    for (const name of ["NimbusSanL-ReguItal", "URWBookmanL-LighItal", "NimbusRomNo9L-MediItal", "URWPalladioL-Ital"]) assert.isTrue(fontInfoFromName(name, false).italic, name)
    assert.isFalse(fontInfoFromName("DS-Digital", false).italic)
  })
})
