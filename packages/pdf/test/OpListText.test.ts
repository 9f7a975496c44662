/**
 * The page text read from the operator list: glyph grouping, spaces, TJ gaps, text rise and
 * scaling on hand-made operator lists; right-to-left reordering by glyph; and, on generated PDFs,
 * the same page content as pdf.js's text pass (`readPage`'s `textPass` option).
 */
import { assert, describe, it } from "@effect/vitest"
import { logicalOrder } from "../src/Bidi.ts"
import { type FontFacts, textFromOperatorList } from "../src/OpListText.ts"
import { readPage } from "../src/PageContent.ts"
import { documentParams, pdfjs, portReady, skipFontFaces } from "../src/PdfJs.ts"
import { goldenCases } from "./helpers/GoldenCases.ts"

const OPS = pdfjs.OPS
const font: FontFacts = {
  name: "Helvetica", fontMatrix: [0.001, 0, 0, 0.001, 0, 0], vertical: false, type3: false, bbox: undefined,
  fallbackName: "sans-serif", ascent: 0.75, descent: -0.25
}
const glyph = (unicode: string, width = 500) => ({ unicode, width, isSpace: unicode === " ", vmetric: null })
const glyphs = (text: string) => [...text].map((ch) => glyph(ch))

/** An operator list that sets font F1 at `size` at (x, y) and shows `parts`. */
const ops = (size: number, x: number, y: number, ...shows: Array<Array<unknown>>) => {
  const fn: Array<number> = [OPS.beginText, OPS.setFont, OPS.setTextMatrix]
  const args: Array<unknown> = [null, ["F1", size], [new Float32Array([1, 0, 0, 1, x, y])]]
  for (const parts of shows) {
    fn.push(OPS.showText)
    args.push([parts])
  }
  fn.push(OPS.endText)
  args.push(null)
  return { fn, args }
}
const read = (list: { fn: Array<number>; args: Array<unknown> }) =>
  textFromOperatorList(list.fn, list.args, () => font, [0, 0, 612, 792]).items.filter((i) => i.str.trim() !== "")

describe("operator-list text", () => {
  it("groups glyphs into an item with its start transform and width", () => {
    const items = read(ops(10, 72, 700, glyphs("Hello")))
    assert.strictEqual(items.length, 1)
    assert.strictEqual(items[0].str, "Hello")
    assert.deepStrictEqual(items[0].transform, [10, 0, 0, 10, 72, 700])
    assert.closeTo(items[0].width, 25, 1e-9)
    assert.strictEqual(items[0].fontName, "F1")
  })

  it("writes a space for a space glyph or a word-sized TJ gap, and ends the item at a wide one", () => {
    assert.strictEqual(read(ops(10, 72, 700, glyphs("two words")))[0].str, "two words")
    assert.strictEqual(read(ops(10, 72, 700, [...glyphs("ab"), -300, ...glyphs("cd")]))[0].str, "ab cd")
    // Kerning (a few thousandths) joins, a column-sized jump splits.
    assert.strictEqual(read(ops(10, 72, 700, [...glyphs("ab"), -20, ...glyphs("cd")]))[0].str, "abcd")
    const split = read(ops(10, 72, 700, [...glyphs("ab"), -3000, ...glyphs("cd")]))
    assert.deepStrictEqual(split.map((i) => i.str), ["ab", "cd"])
    assert.closeTo(split[1].transform[4], 72 + 10 + 30, 1e-6)
  })

  it("applies horizontal scaling, character spacing and text rise", () => {
    const list = ops(10, 72, 700, glyphs("ab"))
    list.fn.splice(1, 0, OPS.setHScale, OPS.setCharSpacing, OPS.setTextRise)
    list.args.splice(1, 0, [50], [1], [3])
    const [item] = read(list)
    assert.deepStrictEqual(item.transform, [5, 0, 0, 10, 72, 703])
    // Two glyphs of 5 units at half width, the spacing after the first one only counted between them.
    assert.closeTo(item.width, 2.5 + 0.5 + 2.5, 1e-9)
  })

  it("follows the CTM and text state through save, transform and restore, and form XObjects", () => {
    const fn = [OPS.save, OPS.transform, OPS.beginText, OPS.setFont, OPS.setTextMatrix, OPS.showText, OPS.endText, OPS.restore,
      OPS.paintFormXObjectBegin, OPS.beginText, OPS.setFont, OPS.setTextMatrix, OPS.showText, OPS.endText, OPS.paintFormXObjectEnd]
    const args = [null, [2, 0, 0, 2, 10, 20], null, ["F1", 10], [new Float32Array([1, 0, 0, 1, 5, 5])], [glyphs("in")], null, null,
      [new Float32Array([1, 0, 0, 1, 100, 0]), null], null, ["F1", 10], [new Float32Array([1, 0, 0, 1, 5, 5])], [glyphs("form")], null, null]
    const items = textFromOperatorList(fn, args, () => font, [0, 0, 612, 792]).items
    assert.deepStrictEqual(items.map((i) => [i.str, i.transform[4], i.transform[5], i.transform[0]]), [["in", 20, 30, 20], ["form", 105, 5, 10]])
  })

  it("leaves out glyphs outside the page's box", () => {
    assert.strictEqual(read(ops(10, 700, 700, glyphs("gone"))).length, 0)
  })
})

describe("right-to-left order", () => {
  it("reverses glyphs drawn left to right into reading order, numbers staying as written", () => {
    // "سلام 12" drawn left to right: the number first, then the word's glyphs from its end.
    const drawn = ["1", "2", " ", "م", "ا", "ل", "س"]
    assert.deepStrictEqual(logicalOrder(drawn), { text: "سلام 12", rtl: true })
  })

  it("keeps a two-letter glyph (lam-alef) in its own order", () => {
    // "الإنتاج" with the article's lam-alef as one glyph mapped to "لإ".
    const drawn = ["ج", "ا", "ت", "ن", "لإ", "ا"]
    assert.strictEqual(logicalOrder(drawn).text, "الإنتاج")
  })

  it("leaves left-to-right text alone", () => {
    assert.deepStrictEqual(logicalOrder(["f", "i", "fi", "x"]), { text: "fifix", rtl: false })
  })
})

describe("operator list against the text pass", () => {
  it("gives the same runs on the golden documents", async () => {
    await portReady()
    for (const [name, build] of Object.entries(goldenCases)) {
      const task = pdfjs.getDocument(documentParams(await build()))
      const doc = await task.promise
      skipFontFaces(doc)
      try {
        for (let n = 1; n <= doc.numPages; n++) {
          const old = await readPage(doc, n, { textPass: true })
          const now = await readPage(doc, n)
          const key = (r: (typeof old.runs)[number]) => `${r.text}@${r.x0.toFixed(2)},${r.baseline.toFixed(2)},${r.x1.toFixed(2)},${r.size.toFixed(2)},${r.bold}`
          assert.deepStrictEqual(now.runs.map(key), old.runs.map(key), `${name} page ${n}`)
          assert.strictEqual(now.unmapped, old.unmapped)
        }
      } finally {
        await task.destroy()
      }
    }
  })
})
