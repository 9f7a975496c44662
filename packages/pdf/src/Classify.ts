/**
 * Gives text blocks their kinds from typography and wording: headings by size against the
 * document's body size (or bold short lines), the title on the first page, captions by their
 * opening word, numbered bold lines as headings rather than lists, formulas by math fonts.
 */
import type { FontStats } from "./FontStats.ts"
import { isSmallCapsFont } from "./Fonts.ts"
import { type LayoutBlock, sameRow } from "./LayoutBlock.ts"
import { INLINE_CLOSE, INLINE_OPEN } from "./MathInline.ts"
import { isTocEntry } from "./Paragraphs.ts"

const CAPTION_WORDS = ["figure", "fig\\.", "table", "tab\\.", "listing", "chart", "scheme", "plate", "exhibit", "graph", "diagram", "image", "photo"]
const CAPTION_WORD = String.raw`(?:${CAPTION_WORDS.join("|")})\s*[\dIVXivx]+[a-z]?`
// "Figure 3:" or "Table 2." opens a caption.
const CAPTION = new RegExp(String.raw`^${CAPTION_WORD}\s*[.:\-–—]|^(?:source|note|notes)\s*:`, "i")
// So does a label with only a space before a capitalised caption ("Figure 1 Phased array", not
// "Figure 1 shows"), its word capitalised and its number in digits or Roman capitals.
const CAPTION_SPACED = new RegExp(
  String.raw`^(?:${CAPTION_WORDS.map((w) => `${w[0]!.toUpperCase()}${w.slice(1)}|${w.toUpperCase()}`).join("|")})\s*(?:\d{1,3}[a-z]?|[IVX]{1,5})\s+\p{Lu}`,
  "u"
)
const isCaption = (text: string) => CAPTION.test(text) || CAPTION_SPACED.test(text)

/** Text that is one stretch of inline math (MathInline.ts marks) and nothing else, but the sentence's punctuation after it. */
const DISPLAYED = new RegExp(`^${INLINE_OPEN}([^${INLINE_CLOSE}]*)${INLINE_CLOSE}\\s*([,.;]?)$`)

const FOOTNOTE = /^(?:\d{1,3}\)?|\(\d{1,3}\)|[*†‡§¶])\s*\S/

const textOf = (block: LayoutBlock) => block.lines.map((l) => l.text).join(" ").trim()
const rowsOf = (block: LayoutBlock) => new Set(block.lines.map((l) => l.row)).size

/**
 * A section number that opens a heading: multi-level ("2.1", "4.0.1"), a Roman numeral or a capital
 * letter with a point ("IV.", "B."), followed by a capitalised word.
 */
const SECTION_NUMBER = /^(?:\d{1,2}(?:\.\d{1,2}){1,3}\.?|[IVX]{1,5}\.|[A-Z]\.)\s+(?=\p{Lu})/u

/** Every letter upper case (an upper-case heading), with enough letters to say so. */
const allCapitals = (text: string) => {
  const letters = text.replace(/[^\p{L}]/gu, "")
  // Only cased letters (Hangul or Han have no capitals), and words rather than an equation or a code ("USER = ALICE").
  return letters.length >= 3 && /^\p{Lu}+$/u.test(letters) && !/[=<>+*/|_@#{}[\]\\]/.test(text)
}

/** Every run set in a caps-and-small-caps font. */
const smallCaps = (block: LayoutBlock) => block.lines.every((l) => l.runs.every((r) => r.font !== undefined && isSmallCapsFont(r.font)))

/**
 * A short line set apart from the body by its style alone, at about the body's size: small caps,
 * capitals, italic or plain with a section number (what journal styles use for their lower levels,
 * where only the largest headings are bigger or bold).
 */
const styledHeading = (block: LayoutBlock, text: string, body: number) => {
  const words = text.split(/\s+/)
  // One stretch of text a row: a table's header row (cells apart on one row) is no heading.
  if (rowsOf(block) > 2 || block.lines.length > rowsOf(block) || text.length > 100 || words.length > 12 || /[.:;,]$/.test(text) ||
    block.size < body * 0.75) return false
  const numbered = SECTION_NUMBER.test(text)
  if (smallCaps(block) || allCapitals(text)) return true
  // Italic or plain text needs a section number, and a single row at the body's size.
  return numbered && rowsOf(block) === 1 && block.size >= body * 0.95 && !block.lines.some((l) => l.mono || l.math)
}

/** No other text within four body sizes to either side of the block, level with it. */
const aloneOnRow = (block: LayoutBlock, blocks: ReadonlyArray<LayoutBlock>, body: number) =>
  !blocks.some((b) => b !== block && b.kind !== "figure" && b.kind !== "table" && sameRow(b, block) &&
    Math.max(b.x0 - block.x1, block.x0 - b.x1) < body * 4)

/** Whether a block reads like a heading rather than a sentence. */
const headingLike = (block: LayoutBlock, text: string) =>
  rowsOf(block) <= 3 && text.length <= 160 && /\p{L}/u.test(text) && !/[,;]$/.test(text) && !/^\d+([.,]\d+)?$/.test(text) &&
  !(/[.!?]$/.test(text) && text.split(/\s+/).length >= 6)

/** Records heading candidates' sizes; done for every page as it enters the look-ahead window. */
export const observeHeadings = (blocks: ReadonlyArray<LayoutBlock>, stats: FontStats): void => {
  for (const block of blocks) {
    if (block.kind !== "text") continue
    const text = textOf(block)
    if (stats.isHeadingSize(block.size) && headingLike(block, text)) stats.observeHeading(block.size)
  }
}

export const classifyBlocks = (
  blocks: ReadonlyArray<LayoutBlock>,
  stats: FontStats,
  page: { pageNumber: number; width: number; height: number }
): void => {
  const body = stats.bodySize
  // The title: the largest heading-sized block in the upper part of the first page.
  if (page.pageNumber === 1 && stats.titleSize === undefined) {
    let title: LayoutBlock | undefined
    for (const block of blocks) {
      if (block.kind !== "text" || block.top > page.height * 0.6) continue
      if (block.size >= body * 1.5 && headingLike(block, textOf(block)) && (title === undefined || block.size > title.size)) title = block
    }
    // Else a smaller title (as big as the section headings, or smaller than numbered ones): the first
    // text on the page, larger than the body and as large as anything else on the page but numbered
    // section headings.
    if (title === undefined) {
      const text = blocks.filter((b) => b.kind === "text" || b.kind === "list_item" || b.kind === "code")
      const first = text.reduce<LayoutBlock | undefined>((a, b) => (a === undefined || b.top < a.top ? b : a), undefined)
      const centre = first === undefined ? 0 : (first.x0 + first.x1) / 2
      const columnCentre = text.length === 0 ? 0 : (Math.min(...text.map((b) => b.x0)) + Math.max(...text.map((b) => b.x1))) / 2
      if (first !== undefined && first.kind === "text" && first.top < page.height * 0.35 && first.size >= body * 1.15 &&
        text.every((b) => b.size <= first.size + 0.25 || /^(?:\d{1,2}(?:\.\d{1,2})*\.?|[IVX]{1,5}\.)\s+\p{Lu}/u.test(textOf(b))) && headingLike(first, textOf(first)) &&
        // Centred, or set flush but without a section number ("1 Introduction" opening a chapter is no title).
        (Math.abs(centre - columnCentre) < page.width * 0.05 || !/^(?:\d|[IVX]+\.\s)/.test(textOf(first)))) title = first
    }
    if (title !== undefined) {
      title.kind = "title"
      title.level = 1
      stats.titleSize = title.size
    }
  }
  for (const block of blocks) {
    // Table-of-contents entries stay list items ("3.2.1 Special registers . . . 18" is neither a footnote nor a heading).
    if (block.kind === "list_item" && isTocEntry(block)) continue
    // Footnotes: smaller than the body, low on the page, opening with a note mark.
    if ((block.kind === "list_item" || block.kind === "text" || block.kind === "code") && block.size < body * 0.92 && block.top > page.height * 0.55 &&
      FOOTNOTE.test(textOf(block))) {
      block.kind = "footnote"
      continue
    }
    if (block.kind === "list_item") {
      const text = textOf(block)
      // "(1) Scope" in bold on its own line is a numbered heading, not a list.
      if (/^\(?\d{1,2}[.)]?\)?\s/.test(text) && (block.lines.every((l) => l.bold) || smallCaps(block) || stats.isHeadingSize(block.size)) && rowsOf(block) <= 2 &&
        text.length <= 100 && !/[.:;,]$/.test(text)) {
        block.kind = "section_header"
        block.level = stats.level(block.size)
      }
      continue
    }
    if (block.kind !== "text") continue
    const text = textOf(block)
    if (isCaption(text)) {
      block.kind = "caption"
      continue
    }
    // A line that is one stretch of inline math and nothing else is a displayed formula: the math
    // pass kept it inline for text on its row (the other column's, across a gutter).
    const display = rowsOf(block) <= 3 ? DISPLAYED.exec(text) : null
    if (display !== null && display[1]!.trim().length > 0) {
      block.kind = "formula"
      // The punctuation goes inside, where a TeX source puts it ("\\frac{a}{b},").
      block.latex = display[1]!.trim() + display[2]!
      continue
    }
    const mathLines = block.lines.filter((l) => l.math).length
    if (mathLines > 0 && mathLines >= block.lines.length * 0.5 && text.length < 200) {
      block.kind = "formula"
      continue
    }
    if (!headingLike(block, text)) continue
    const bigger = stats.isHeadingSize(block.size)
    const bold = block.lines.every((l) => l.bold) && text.length <= 120 && !/[.:]$/.test(text) && rowsOf(block) <= 2
    const boldHeading = bold && block.size >= body * 0.95
    const words = text.split(/\s+/)
    const italicHeading = block.lines.every((l) => l.italic) && rowsOf(block) === 1 && text.length <= 60 && words.length >= 2 &&
      !/[.:;,]$/.test(text) && words.filter((w) => /^\p{Lu}/u.test(w)).length >= words.length * 0.6 && block.size >= body * 0.95
    // A bold line a little smaller than the body ("Abstract" over a \small abstract), or a line set apart
    // by small caps, capitals or a section number, must also stand alone on its row: one with text a few
    // ems beside it is a table's cell (a bold header or row label) whose table was not found.
    const styled = ((bold && block.size >= body * 0.88) || styledHeading(block, text, body)) && aloneOnRow(block, blocks, body)
    if (bigger || boldHeading || italicHeading || styled) {
      block.kind = "section_header"
      block.level = stats.level(block.size)
    }
  }
  bylinesUnder(blocks, page)
}

/**
 * The lines between a title and the text under it, centred under the title (authors, side by side
 * or not, affiliations, a date), are text, however large or italic: they head nothing. A bold or
 * numbered line keeps its heading ("Abstract" over the abstract), and so does anything after the
 * first paragraph of prose.
 */
const bylinesUnder = (blocks: ReadonlyArray<LayoutBlock>, page: { width: number }): void => {
  const title = blocks.find((b) => b.kind === "title")
  if (title === undefined) return
  const centre = (title.x0 + title.x1) / 2
  const below = blocks.filter((b) => b.top >= title.bottom - 1 && b.kind !== "page_header" && b.kind !== "page_footer").sort((a, b) => a.top - b.top)
  for (const block of below) {
    if (block.kind === "text" && rowsOf(block) >= 2) return
    if (block.kind !== "section_header") continue
    if (block.lines.every((l) => l.bold) || SECTION_NUMBER.test(textOf(block)) || /^\d/.test(textOf(block))) return
    // The row it stands in (authors set side by side), centred under the title as a whole.
    const row = below.filter((b) => (b.kind === "text" || b.kind === "section_header") && sameRow(b, block))
    const x0 = Math.min(...row.map((b) => b.x0)), x1 = Math.max(...row.map((b) => b.x1))
    if (Math.abs((x0 + x1) / 2 - centre) > page.width * 0.03) return
    block.kind = "text"
    block.level = undefined
  }
}

/** An equation number: "(3)", "(2.4)", "(5a)". */
const EQUATION_TAG = /^\(\s*(\d{1,3}(?:\.\d{1,3})?[a-z]?)\s*\)$/

/**
 * Equation numbers left as text beside a displayed formula (one the math pass kept inline for text
 * on its row, and the classifier made a formula) become the formula's `\tag`; the numbers' blocks
 * are returned, to be dropped. The number sits level with the formula's middle, to its right, with
 * no other block between them.
 */
export const attachEquationNumbers = (blocks: ReadonlyArray<LayoutBlock>, page: { width: number }): Set<LayoutBlock> => {
  const drop = new Set<LayoutBlock>()
  for (const formula of blocks) {
    if (formula.kind !== "formula" || formula.latex === undefined || formula.latex.includes("\\tag")) continue
    const mid = (formula.top + formula.bottom) / 2
    const level = (b: LayoutBlock) => b.top <= mid && b.bottom >= mid
    const number = blocks.find((b) => b.kind === "text" && !drop.has(b) && rowsOf(b) === 1 && level(b) && b.x0 > formula.x1 &&
      b.x0 - formula.x1 < page.width * 0.4 && EQUATION_TAG.test(textOf(b)) &&
      !blocks.some((o) => o !== b && o !== formula && level(o) && o.x0 >= formula.x1 && o.x1 <= b.x0))
    if (number === undefined) continue
    formula.latex = `${formula.latex}\\tag{${EQUATION_TAG.exec(textOf(number))![1]}}`
    drop.add(number)
  }
  return drop
}

