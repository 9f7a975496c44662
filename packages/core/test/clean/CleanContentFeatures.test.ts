/**
 * The classifier's features and scores, computed by char-code scans and complete trees
 * (CleanContent.ts), hold to the regular-expression version they replaced
 * (CleanContentReference.ts) on generated markdown: blocks, every feature bit for bit, every score
 * and the cleaned output. The pieces are the characters the patterns turn on: white space of
 * every kind (`\s` is more than a space), markers, list and heading marks, fences, links and
 * pictures, stops and closers, letters and digits beyond ASCII (astral ones too), and characters
 * whose lower case differs in length or matches an ASCII letter.
 */
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { BOILERPLATE_MODEL } from "../../src/clean/BoilerplateModel.ts"
import { blockFeatures, cleanMarkdown, contentScore, markdownBlocks } from "../../src/clean/CleanContent.ts"
import * as Reference from "./CleanContentReference.ts"

const pieces = fc.constantFrom(
  " ", "  ", "\n", "\n\n", "\n \n", "\t", "\r", "\u00a0", "\u2003", "\u3000", "\ufeff", "\u2028", "\u200b",
  "#", "## ", "   ### ", "####### ", "- ", "* ", "+ ", "1. ", "12) ", "3.", "```", "~~~", "``", "`", "~", "|", "> ", "**", "__", "_",
  "[", "]", "(", ")", "](", "[a](/x)", "![i](/i.png)", "[![i](/i.png)](/l)", "[t](/p(q))", "[ ](/e)", "!",
  ".", "?", "!", "。", "！", "？", ":", ";", "\"", "'", "”", "’",
  "word", "Word", "Zebra", "zoo", "A", "a", "I", "@x", "`q", "{b", "ok.", "Éclair", "été", "Ωmega", "ß", "İ", "\u212a", "日本語", "٣", "½", "²", "𝟙", "𐐀", "𐐨", "7", "2024"
)
const markdown = fc.array(pieces, { maxLength: 80 }).map((parts) => parts.join(""))

describe("CleanContent features", () => {
  it("are the regular-expression version's, bit for bit, with the same scores and output", () => {
    fc.assert(fc.property(markdown, (text) => {
      const blocks = markdownBlocks(text)
      expect(blocks).toEqual(Reference.markdownBlocks(text))
      const rows = blockFeatures(blocks)
      const expected = Reference.blockFeatures(blocks)
      for (const [i, row] of rows.entries()) {
        for (const [j, value] of row.entries()) expect(Object.is(value, expected[i]![j]), `block ${i} feature ${j}: ${value} against ${expected[i]![j]}`).toBe(true)
        expect(Object.is(contentScore(BOILERPLATE_MODEL, row), Reference.contentScore(BOILERPLATE_MODEL, row))).toBe(true)
      }
      expect(cleanMarkdown(text)).toEqual(Reference.cleanMarkdown(text))
    }), { numRuns: 3000 })
  })

  it("score rows with NaN and infinities as the trees walked node by node do", () => {
    const value = fc.oneof(fc.double(), fc.constantFrom(Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, 0, -1))
    fc.assert(fc.property(fc.array(value, { minLength: 32, maxLength: 32 }), (row) => {
      expect(Object.is(contentScore(BOILERPLATE_MODEL, row), Reference.contentScore(BOILERPLATE_MODEL, row))).toBe(true)
    }), { numRuns: 2000 })
  })
})

describe("contentScore", () => {
  it("scores a model of single leaves and one of uneven depth as walking the trees does", () => {
    const leaf = (value: number) => ({ feature: [-1], split: [0], left: [0], right: [0], value: [value] })
    const uneven = { feature: [2, -1, 0, -1, -1], split: [0.5, 0, 3, 0, 0], left: [1, 0, 3, 0, 0], right: [2, 0, 4, 0, 0], value: [0, 0.25, 0, -1, 2] }
    for (const model of [{ features: [], base: 0.1, threshold: 0.5, trees: [leaf(0.3), leaf(-0.7)] }, { features: [], base: 0, threshold: 0.5, trees: [uneven, leaf(1)] }]) {
      for (const row of [[0, 0, 0], [5, 0, 1], [2, 0, 1], [Number.NaN, 0, Number.NaN]]) expect(contentScore(model, row)).toBe(Reference.contentScore(model, row))
    }
    expect(contentScore({ features: [], base: 0.1, threshold: 0.5, trees: [leaf(0.3), leaf(-0.7)] }, [])).toBe(1 / (1 + Math.exp(-(0.1 + 0.3 - 0.7))))
  })
})
