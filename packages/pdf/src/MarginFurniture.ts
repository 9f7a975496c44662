/**
 * Page furniture found on one page by itself, for documents of one page and for pages whose
 * running heads do not repeat: position, size, style and the shape of the text, no word lists.
 *
 * The page is peeled from each edge (top and bottom) strip by strip. A strip is the outermost
 * group of blocks with no vertical gap of a body line or more inside it, and it must be set off
 * from what lies inward by such a gap. A strip is furniture only when every block in it may be:
 * short (three rows at most), no larger than the body, not prose, and not a table, figure,
 * heading, caption, formula or footnote (so a title at the top of a page, a table's last row, a
 * caption under a figure or a footnote stop the peeling). Within such a strip a block is furniture
 *
 * - when it reads as a page number ("12", "- 4 -", "Page 3 of 10", "iv"), or shares a row with one;
 * - when it has the shape of a stamp: a URL or a DOI, a date, a copyright sign,
 *   or a folio number at either end ("Chapter 3. Access Control 15");
 * - when it is set apart from the body by size or style (smaller, italic, all capitals) and lies
 *   close to the edge.
 *
 * Peeling goes on inward while whole strips turn out to be furniture, so a licence line above a
 * page number is found too. Rotated text in the margins is made furniture earlier, by analyseLines.
 */
import { type LayoutBlock, sameRow } from "./LayoutBlock.ts"

/** Strips further from the edge than this fraction of the page are never furniture. */
const ZONE = 0.2
/** Blocks marked by size or style alone lie this close to the edge. */
const NEAR = 0.12

/** Roman folios up to 39, all lower or all upper case ("xii", "IV"); words such as "mild" or "DC" are not numerals. */
const ROMAN = "(?:x{0,3}(?:ix|iv|v?i{1,3}|v)|x{1,3}|X{0,3}(?:IX|IV|V?I{1,3}|V)|X{1,3})"
const PAGE_NUMBER = new RegExp(
  `^(?:(?:[Pp]age|PAGE|p\\.|[Ss]eite|[Pp]ágina|[Pp]agina)\\s*)?[-–—]?\\s*(?:\\d{1,3}[-–]\\d{1,4}|\\d{1,5}|${ROMAN})\\s*[-–—]?(?:\\s*(?:of|OF|\\/|von|de)\\s*\\d{1,5})?$`,
  "u"
)
// E-mail addresses are left out: at the foot of a first page they are the authors' (a footnote).
const URL_LIKE = /\b(?:https?:\/\/|www\.)\S|\bdoi\s*:|\b10\.\d{4,9}\/\S|\b[a-z0-9-]+\.(?:[a-z0-9-]+\.)*[a-z]{2,}\/\S/i
const MONTH = "(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\\.?"
const DATE = new RegExp(
  `\\b(?:\\d{4}[-/.]\\d{1,2}[-/.]\\d{1,2}|\\d{1,2}[-/.]\\d{1,2}[-/.]\\d{2,4}|\\d{1,2}\\s+${MONTH}\\s+\\d{4}|${MONTH}\\s+\\d{1,2},?\\s+\\d{4}|${MONTH}\\s+\\d{4})\\b`,
  "i"
)
const COPYRIGHT = /[©℗]|\(c\)\s*\d{4}/i
/** A folio at one end of a running head: "12 Row and Column ..." or "... Access Control 15". */
const FOLIO = new RegExp(`^(?:\\d{1,4}|${ROMAN})\\s+\\S.*\\p{L}|\\p{L}.*\\S\\s+(?:\\d{1,4}|${ROMAN})$`, "u")

const textOf = (block: LayoutBlock) => block.lines.map((l) => l.text).join(" ").replace(/\s+/g, " ").trim()
const rowsOf = (block: LayoutBlock) => new Set(block.lines.map((l) => l.row)).size

export const isPageNumberText = (text: string) => PAGE_NUMBER.test(text.trim())

/** Text shaped like a stamp or a running head's folio, whatever its size. */
const stampShaped = (text: string) => URL_LIKE.test(text) || DATE.test(text) || COPYRIGHT.test(text) || FOLIO.test(text)

const isFurnitureKind = (block: LayoutBlock) =>
  block.kind === "page_header" || block.kind === "page_footer" || block.kind === "page_number"

/** Whether a block could be furniture at all: small print in a short block, not prose or structure. */
const eligible = (block: LayoutBlock, bodySize: number): boolean => {
  if (isFurnitureKind(block)) return true
  const text = textOf(block)
  // A bold folio ("iii") may have been taken for a heading; a numeral alone is never one.
  if (block.size > bodySize * 1.1 + 0.5) return false
  if (block.kind === "section_header" && rowsOf(block) === 1 && isPageNumberText(text)) return true
  if (block.kind !== "text" && block.kind !== "list_item") return false
  if (rowsOf(block) > 3) return false
  if (text.length === 0 || text.length > 240) return false
  // A sentence of some length reads as body text (an unmarked footnote) unless it carries a stamp's shape.
  const words = text.split(" ").length
  return !(/[.!?:;]$/.test(text) && words >= 8 && !(URL_LIKE.test(text) || DATE.test(text) || COPYRIGHT.test(text)))
}

/** Set apart from the body by size or style: smaller, italic throughout, or in capitals. */
const setApart = (block: LayoutBlock, bodySize: number): boolean => {
  if (block.size <= bodySize * 0.9) return true
  if (block.lines.every((l) => l.italic)) return true
  const text = textOf(block)
  const letters = text.replace(/[^\p{L}]/gu, "")
  return letters.length >= 6 && text.split(" ").length >= 2 && letters === letters.toUpperCase() && letters !== letters.toLowerCase()
}

/** The page's blocks from one edge inward, in strips separated by a gap of at least `gap`. */
const stripsFrom = (blocks: ReadonlyArray<LayoutBlock>, edge: "top" | "bottom", height: number, gap: number): Array<Array<LayoutBlock>> => {
  // Distance from the edge of a block's near and far sides.
  const near = (b: LayoutBlock) => (edge === "top" ? b.top : height - b.bottom)
  const far = (b: LayoutBlock) => (edge === "top" ? b.bottom : height - b.top)
  const sorted = [...blocks].sort((a, b) => near(a) - near(b))
  const strips: Array<Array<LayoutBlock>> = []
  let current: Array<LayoutBlock> = []
  let reach = -Infinity
  for (const block of sorted) {
    if (current.length > 0 && near(block) >= reach + gap) {
      strips.push(current)
      current = []
    }
    current.push(block)
    reach = Math.max(reach, far(block))
  }
  if (current.length > 0) strips.push(current)
  return strips
}

/** Marks furniture on one page from the page alone; blocks already marked (by repetition) stay marked. */
export const markMarginFurniture = (page: { readonly height: number; readonly blocks: ReadonlyArray<LayoutBlock> }, bodySize: number): void => {
  const height = page.height
  const blocks = page.blocks.filter((b) => !(b.lines.length > 0 && b.lines.every((l) => l.rotated)))
  if (blocks.length < 2) return
  const gap = Math.max(bodySize, 6)
  for (const edge of ["top", "bottom"] as const) {
    const strips = stripsFrom(blocks, edge, height, gap)
    // The last strip runs into the body: only strips with something inward of them are peeled.
    const depth = (b: LayoutBlock) => (edge === "top" ? b.bottom : height - b.top) / height
    const nearSide = (b: LayoutBlock) => (edge === "top" ? b.top : height - b.bottom)
    const farSide = (strip: ReadonlyArray<LayoutBlock>) => Math.max(...strip.map((b) => edge === "top" ? b.bottom : height - b.top))
    for (let s = 0; s < strips.length - 1; s++) {
      const strip = strips[s]
      if (strip.some((b) => depth(b) > ZONE || !eligible(b, bodySize))) {
        // The outermost strip may hold a page number beside a running head set like a heading; a
        // number just before a heading on its row ("4  Findings") is the heading's own number.
        if (s === 0) {
          for (const b of strip) {
            if ((b.kind !== "text" && b.kind !== "section_header") || rowsOf(b) > 1 || b.size > bodySize * 1.5 || depth(b) > ZONE ||
              !isPageNumberText(textOf(b))) continue
            if (strip.some((o) => o !== b && !eligible(o, bodySize) && sameRow(o, b) && o.x0 >= b.x1)) continue
            b.kind = "page_number"
            // A running head on the page number's row is furniture too, even when it was taken for a heading.
            for (const o of strip) {
              if (o !== b && (o.kind === "text" || o.kind === "section_header") && rowsOf(o) === 1 && o.size <= bodySize * 1.1 + 0.5 && sameRow(o, b)) {
                o.kind = edge === "top" ? "page_header" : "page_footer"
              }
            }
          }
        }
        break
      }
      // Just outside a table or a figure, short lines are its caption or title ("TABLE V"): only page numbers go.
      const next = strips[s + 1]
      const nextFirst = next.reduce((a, b) => (nearSide(b) < nearSide(a) ? b : a))
      const captionPlace = (nextFirst.kind === "table" || nextFirst.kind === "figure") && nearSide(nextFirst) - farSide(strip) < 2.5 * gap
      const numbers = strip.filter((b) => !isFurnitureKind(b) && rowsOf(b) <= 2 && isPageNumberText(textOf(b)))
      for (const b of numbers) b.kind = "page_number"
      const kind = edge === "top" ? "page_header" : "page_footer"
      for (const b of strip) {
        if (isFurnitureKind(b)) continue
        const text = textOf(b)
        if (numbers.some((n) => sameRow(n, b))) b.kind = kind
        else if (!captionPlace && (stampShaped(text) || (setApart(b, bodySize) && depth(b) <= NEAR && rowsOf(b) <= 2))) b.kind = kind
      }
      if (!strip.every(isFurnitureKind)) break
    }
  }
}
