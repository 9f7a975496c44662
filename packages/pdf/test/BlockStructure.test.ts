/** Unit checks of the text rules: hyphen repair, ligatures, list markers and code as structure, table markdown, furniture signatures. */
import { assert, describe, it } from "@effect/vitest"
import { blockMarkdown, type BlockKind, type LayoutBlock, type Line } from "@strata/core"
import { blockStructure, expandLigatures, joinLines } from "../src/BlockStructure.ts"
import { isPageNumberText, signature } from "../src/Furniture.ts"
import { tableMarkdown } from "../src/TableGrid.ts"

describe("block text", () => {
  it("repairs words broken at line ends and keeps real hyphens", () => {
    assert.strictEqual(joinLines(["the docu-", "ment is"]), "the document is")
    assert.strictEqual(joinLines(["a well-", "known fact"]), "a well-known fact")
    assert.strictEqual(joinLines(["state-of-the-", "art"]), "state-of-the-art")
    assert.strictEqual(joinLines(["Anglo-", "Saxon"]), "Anglo-Saxon")
    assert.strictEqual(joinLines(["soft\u00ad", "ware"]), "software")
    assert.strictEqual(joinLines(["ends here.", "Next one"]), "ends here. Next one")
    // The page's own words settle what the rules cannot.
    assert.strictEqual(joinLines(["a pre-", "trained model"], new Set(["pre-trained"])), "a pre-trained model")
    assert.strictEqual(joinLines(["a pre-", "trained model"]), "a pretrained model")
    assert.strictEqual(joinLines(["self-", "attention"], new Set(["selfattention"])), "selfattention")
  })

  it("expands ligatures only", () => {
    assert.strictEqual(expandLigatures("ﬁnal ﬂow ﬀ ½"), "final flow ff ½")
  })

  const line = (text: string, x0 = 72, top = 100, row = 0): Line => ({
    text, runs: [], row, x0, x1: x0 + 6 * text.length, top, bottom: top + 10, baseline: top + 8, size: 10,
    bold: false, italic: false, mono: false, math: false, rotated: false, rtl: false
  })
  const block = (kind: BlockKind, lines: Array<Line>, extra: Partial<LayoutBlock> = {}): LayoutBlock =>
    ({ kind, lines, x0: Math.min(...lines.map((l) => l.x0)), x1: 500, top: lines[0].top, bottom: lines[lines.length - 1].bottom, size: 10, ...extra })

  it("gives list items a number or a bullet, keeping other markers as text", () => {
    assert.deepStrictEqual(blockStructure(block("list_item", [line("12. twelfth")], { depth: 1, indent: 2 })), { list: { depth: 1, ordinal: 12, indent: 2 }, text: "twelfth" })
    assert.deepStrictEqual(blockStructure(block("list_item", [line("• dot")])), { list: { depth: 0, ordinal: null, indent: 0 }, text: "dot" })
    const lettered = blockStructure(block("list_item", [line("a) first")]))
    assert.strictEqual(lettered.text, "a) first")
    assert.strictEqual(blockMarkdown(lettered), "- a) first")
  })

  it("keeps a code block's lines and indentation, and one short line as inline code", () => {
    const fenced = blockStructure(block("code", [line("if x:"), line("return 1", 84, 112, 1)]))
    assert.deepStrictEqual(fenced, { text: "if x:\n  return 1", code: { language: null } })
    assert.strictEqual(blockMarkdown(fenced), "```\nif x:\n  return 1\n```")
    assert.strictEqual(blockMarkdown(blockStructure(block("code", [line("/usr/bin/env")]))), "`/usr/bin/env`")
  })

  it("writes GFM for regular grids and HTML where cells span", () => {
    assert.strictEqual(
      tableMarkdown({ rows: 2, cols: 2, cells: [
        { row: 0, col: 0, rowSpan: 1, colSpan: 1, text: "a|b" }, { row: 0, col: 1, rowSpan: 1, colSpan: 1, text: "c" },
        { row: 1, col: 0, rowSpan: 1, colSpan: 1, text: "1" }, { row: 1, col: 1, rowSpan: 1, colSpan: 1, text: "" }
      ] }),
      "| a\\|b | c |\n| --- | --- |\n| 1 |  |"
    )
    assert.strictEqual(
      tableMarkdown({ rows: 2, cols: 2, cells: [
        { row: 0, col: 0, rowSpan: 1, colSpan: 2, text: "Head <1>" },
        { row: 1, col: 0, rowSpan: 1, colSpan: 1, text: "x" }, { row: 1, col: 1, rowSpan: 1, colSpan: 1, text: "y" }
      ] }),
      "<table>\n<tr><th colspan=\"2\">Head &lt;1&gt;</th></tr>\n<tr><td>x</td><td>y</td></tr>\n</table>"
    )
  })

  it("masks numbers in running heads and knows page-number patterns", () => {
    assert.strictEqual(signature("Chapter 3 — Page 12"), signature("Chapter 4 — Page 13"))
    assert.notStrictEqual(signature("Annual report"), signature("Annual review"))
    for (const text of ["12", "- 4 -", "Page 3", "page 3 of 10", "iv", "xii", "XIV", "7 / 20"]) assert.isTrue(isPageNumberText(text), text)
    // Words spelt with roman-numeral letters and equation numbers are not folios.
    for (const text of ["12 apples", "Chapter 2", "2019 results", "Mild", "DC", "mix", "(56)"]) assert.isFalse(isPageNumberText(text), text)
  })
})
