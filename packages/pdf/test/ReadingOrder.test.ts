/**
 * Reading order of asides (issue 17 item 7) on one-page two-column articles printed by Chromium
 * (fixtures/reading-order/make.ts): a paragraph cut mid-sentence by a sidebar, a pull quote or a
 * figure across the columns is read whole, and the aside comes after it; a panel beside the
 * columns comes after the main flow; a caption stays with its picture.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { readFileSync } from "node:fs"
import { readAll } from "./helpers/ReadAll.ts"

const read = (name: string) =>
  readAll(new Uint8Array(readFileSync(new URL(`./fixtures/reading-order/${name}.pdf`, import.meta.url)))).pipe(Effect.map((r) => r.markdown))

const JOINED = "Opening words of the interrupted sentence run on until the interrupted sentence closes."

/** Asserts the texts appear in this order, each once from where the previous one was found. */
const inOrder = (markdown: string, texts: ReadonlyArray<string>) => {
  let from = 0
  for (const text of texts) {
    const at = markdown.indexOf(text, from)
    assert.isAtLeast(at, 0, `"${text}" after offset ${from} in:\n${markdown}`)
    from = at + text.length
  }
}

describe("reading order of asides", () => {
  it.effect("a sidebar inside a column: the paragraph it cuts is read whole, then the sidebar as one unit", () =>
    Effect.gen(function*() {
      const md = yield* read("sidebar-in-column")
      assert.include(md, JOINED)
      inOrder(md, [JOINED, "Boxed note", "Sidebar first sentence here.", "Sidebar closing words.", "Second paragraph begins.", "Third paragraph begins."])
      // The sidebar is not interleaved with the column beside it.
      const sidebar = md.slice(md.indexOf("Boxed note"), md.indexOf("Sidebar closing words."))
      assert.notInclude(sidebar, "paragraph begins")
    }))

  it.effect("a panel beside the columns is read after the main flow", () =>
    Effect.gen(function*() {
      const md = yield* read("sidebar-beside")
      inOrder(md, ["First paragraph begins.", "Second paragraph begins.", "Last paragraph begins.", "Main flow ends here.", "Side panel", "Panel first sentence here.", "Panel closing words."])
    }))

  it.effect("a panel beside the columns under a deck is still read after the main flow (the deck is not running text)", () =>
    Effect.gen(function*() {
      const md = yield* read("sidebar-beside-deck")
      inOrder(md, ["The deck runs across the page", "First paragraph begins.", "Second paragraph begins.", "Last paragraph begins.", "Main flow ends here.", "Side panel", "Panel first sentence here.", "Panel closing words."])
    }))

  it.effect("a pull quote does not split the sentence it interrupts; it follows its paragraph, as text", () =>
    Effect.gen(function*() {
      const md = yield* read("pull-quote")
      const quote = "The quoted river stone sentence of this story is long enough to repeat"
      // Once in the body, once as the quote: after the whole paragraph, before the next one.
      inOrder(md, [quote, JOINED, quote, "Second paragraph begins.", "Third paragraph begins."])
      assert.notMatch(md, /^#+ .*quoted/m)
    }))

  it.effect("a pull quote across the columns that stops short of the last one is read between the bands, after its paragraph", () =>
    Effect.gen(function*() {
      const md = yield* read("pull-quote-across")
      // The first band's third column comes before the quote, the quote before the second band.
      inOrder(md, ["First paragraph begins.", "The silver lantern of the harbor story.", JOINED, "\n\nThe silver lantern of the harbor\n\n", "Second paragraph begins.", "Third paragraph begins."])
    }))

  it.effect("a paragraph cut by a sidebar exactly between two sentences is read whole when the text after it starts flush on an indented page", () =>
    Effect.gen(function*() {
      const md = yield* read("sidebar-between-sentences")
      inOrder(md, ["Second paragraph begins.", "The sentence before the sidebar ends here. The sentence after the sidebar starts here.", "Boxed note", "Sidebar closing words.", "\n\nThird paragraph begins.", "\n\nFourth paragraph begins."])
    }))

  it.effect("a pull quote in large type one gutter from a column's running text is not read into its lines", () =>
    Effect.gen(function*() {
      const md = yield* read("pull-quote-beside-text")
      const first = md.slice(md.indexOf("First paragraph begins."), md.indexOf("First paragraph ends here."))
      assert.notInclude(first, "silver valley", md)
      assert.notInclude(first, "The lantern", md)
      inOrder(md, ["First paragraph begins.", "First paragraph ends here.", "Second paragraph begins.", JOINED, "\n\nThe lantern orchard of the silver valley"])
    }))

  it.effect("a first-line indent under 0.8 em, repeated on the page, starts a paragraph", () =>
    Effect.gen(function*() {
      const md = yield* read("small-indent")
      // Each paragraph opens a block of its own (a blank line before it); the fourth runs on into the next column whole.
      for (const opening of ["First", "Second", "Third", "Fourth"]) assert.match(md, new RegExp(`(^|\\n\\n)${opening} paragraph begins\\.`), md)
      inOrder(md, ["First paragraph begins.", "Second paragraph begins.", "Third paragraph begins.", "Fourth paragraph begins.", "signal north silver. Orchard"])
    }))

  it.effect("an indent the page repeats starts a paragraph even where its ragged first line stops short", () =>
    Effect.gen(function*() {
      const md = yield* read("ragged-indent")
      for (const letter of "ABCDEF") assert.match(md, new RegExp(`(^|\\n\\n)Paragraph ${letter} begins\\.`), md)
    }))

  it.effect("a picture across the columns whose box reaches a point into the lines above still divides the bands", () =>
    Effect.gen(function*() {
      const md = yield* read("figure-touching-text")
      // The first band is read column by column (read top to bottom across them, its paragraphs interleaved).
      inOrder(md, ["First paragraph begins.", "Second paragraph begins.", JOINED, "<!-- image -->", "Third paragraph begins."])
    }))

  it.effect("a figure and caption between two bands of columns: the paragraph is read whole, the caption stays with its picture", () =>
    Effect.gen(function*() {
      const md = yield* read("caption-between-columns")
      inOrder(md, ["First paragraph begins.", JOINED, "<!-- image -->\n\nFigure 1: The caption sits between the two bands of columns.", "Second paragraph begins."])
    }))
})
