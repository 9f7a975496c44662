/**
 * Page furniture: running headers, footers and page numbers. A block near the top or bottom edge
 * is furniture when a block with the same text (digits and roman numerals masked) sits in the same
 * band on other pages of a window around its page. What a page shows by itself (page numbers,
 * stamps, small print at the edges) is found after, by MarginFurniture.ts. Lines larger than the
 * body text are never furniture (chapter headings repeat too). The window is what the streaming
 * reader keeps in memory, so this never needs the whole document.
 */
import type { LayoutBlock } from "./LayoutBlock.ts"
import { isPageNumberText, markMarginFurniture } from "./MarginFurniture.ts"

/** The top and bottom fraction of the page where furniture lives. */
const BAND = 0.14

export interface FurniturePage {
  readonly pageNumber: number
  readonly height: number
  readonly blocks: ReadonlyArray<LayoutBlock>
}

const textOf = (block: LayoutBlock) => block.lines.map((l) => l.text).join(" ").trim()

/** Masks what changes from page to page (numbers), so that running texts compare equal. */
export const signature = (text: string) =>
  text.toLowerCase().replace(/\d+/g, "#").replace(/\b[ivxlcdm]{1,7}\b/g, "#").replace(/\s+/g, " ").trim()

type Band = "top" | "bottom"

const bandOf = (block: LayoutBlock, height: number): Band | undefined => {
  if (block.bottom <= height * BAND) return "top"
  if (block.top >= height * (1 - BAND)) return "bottom"
  return undefined
}

export { isPageNumberText }

/**
 * Marks furniture on `page` in place, comparing with its neighbours (pages of the window other than
 * itself). Returns nothing: kinds are set to page_header, page_footer or page_number.
 */
interface BandSignatures { readonly top: Array<{ sig: string; centre: number }>; readonly bottom: Array<{ sig: string; centre: number }> }

// Each page's band texts are compared with up to 2 * WINDOW neighbours: computed once per page.
const bandCache = new WeakMap<FurniturePage, BandSignatures>()

const signaturesOf = (p: FurniturePage, band: Band) => {
  let cached = bandCache.get(p)
  if (cached === undefined) {
    cached = { top: [], bottom: [] }
    for (const b of p.blocks) {
      if (b.kind === "table") continue
      const where = bandOf(b, p.height)
      if (where !== undefined) cached[where].push({ sig: signature(textOf(b)), centre: (b.top + b.bottom) / 2 / p.height })
    }
    bandCache.set(p, cached)
  }
  return cached[band]
}

export const markFurniture = (page: FurniturePage, neighbours: ReadonlyArray<FurniturePage>, bodySize: number): void => {
  const others = neighbours.filter((p) => p.pageNumber !== page.pageNumber)

  const needed = others.length >= 4 ? 2 : 1
  for (const block of page.blocks) {
    if (block.kind === "table") continue
    const band = bandOf(block, page.height)
    if (band === undefined) continue
    const text = textOf(block)
    // Running heads are set no larger than the body; a big line at the top of every page is a heading.
    if (others.length === 0 || block.size > bodySize * 1.1 + 0.5) continue
    const sig = signature(text)
    if (sig.length === 0) continue
    const centre = (block.top + block.bottom) / 2 / page.height
    let matches = 0
    for (const other of others) {
      if (signaturesOf(other, band).some((s) => s.sig === sig && Math.abs(s.centre - centre) < 0.04)) matches++
    }
    if (matches >= needed) block.kind = isPageNumberText(text) ? "page_number" : band === "top" ? "page_header" : "page_footer"
  }
  markMarginFurniture(page, bodySize)
}
