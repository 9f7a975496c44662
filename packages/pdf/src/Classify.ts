/**
 * Gives text blocks their kinds from typography and wording: headings by size against the
 * document's body size (or bold short lines), the title on the first page, captions by their
 * opening word, numbered bold lines as headings rather than lists, formulas by math fonts.
 */
import type { FontStats } from "./FontStats.ts"
import type { LayoutBlock } from "./LayoutBlock.ts"
import { isTocEntry } from "./Paragraphs.ts"

const CAPTION = /^(?:figure|fig\.|table|tab\.|listing|chart|scheme|plate|exhibit|graph|diagram|image|photo)\s*[\dIVXivx]+[a-z]?\s*[.:\-–—]|^(?:source|note|notes)\s*:/i

const FOOTNOTE = /^(?:\d{1,3}\)?|\(\d{1,3}\)|[*†‡§¶])\s*\S/

const textOf = (block: LayoutBlock) => block.lines.map((l) => l.text).join(" ").trim()
const rowsOf = (block: LayoutBlock) => new Set(block.lines.map((l) => l.row)).size

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
  page: { pageNumber: number; height: number }
): void => {
  const body = stats.bodySize
  // The title: the largest heading-sized block in the upper part of the first page.
  if (page.pageNumber === 1 && stats.titleSize === undefined) {
    let title: LayoutBlock | undefined
    for (const block of blocks) {
      if (block.kind !== "text" || block.top > page.height * 0.6) continue
      if (block.size >= body * 1.5 && headingLike(block, textOf(block)) && (title === undefined || block.size > title.size)) title = block
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
      if (/^\(?\d{1,2}[.)]?\)?\s/.test(text) && (block.lines.every((l) => l.bold) || stats.isHeadingSize(block.size)) && rowsOf(block) <= 2 &&
        text.length <= 100 && !/[.:;,]$/.test(text)) {
        block.kind = "section_header"
        block.level = stats.level(block.size)
      }
      continue
    }
    if (block.kind !== "text") continue
    const text = textOf(block)
    if (CAPTION.test(text)) {
      block.kind = "caption"
      continue
    }
    const mathLines = block.lines.filter((l) => l.math).length
    if (mathLines > 0 && mathLines >= block.lines.length * 0.5 && text.length < 200) {
      block.kind = "formula"
      continue
    }
    if (!headingLike(block, text)) continue
    const bigger = stats.isHeadingSize(block.size)
    const boldHeading = block.lines.every((l) => l.bold) && block.size >= body * 0.95 && text.length <= 120 &&
      !/[.:]$/.test(text) && rowsOf(block) <= 2
    const words = text.split(/\s+/)
    const italicHeading = block.lines.every((l) => l.italic) && rowsOf(block) === 1 && text.length <= 60 && words.length >= 2 &&
      !/[.:;,]$/.test(text) && words.filter((w) => /^\p{Lu}/u.test(w)).length >= words.length * 0.6 && block.size >= body * 0.95
    if (bigger || boldHeading || italicHeading) {
      block.kind = "section_header"
      block.level = stats.level(block.size)
    }
  }
}
