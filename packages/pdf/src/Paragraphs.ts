/**
 * Lines to blocks. Lines are taken top to bottom and each joins the block right above it when the
 * two overlap horizontally, share a style, and the vertical gap is one this page uses between the
 * lines of a paragraph (measured, not assumed: leading differs between documents). A list marker,
 * a first-line indent after a finished sentence, or a change between bold heading and body text
 * starts a new block. A table-of-contents entry (a title, leader dots, a page number) ends its
 * block: each entry becomes a list item of its own instead of one paragraph of dots.
 */
import { blockOf, extend, type LayoutBlock } from "./LayoutBlock.ts"
import type { Line } from "./Lines.ts"

/**
 * Bullets, numbers and letters that open a list item (followed by a space): symbols (TeX's
 * second-level bullets are the math asterisk "∗" and the star "⋆"), dashes, "1." or "(a)". Not a
 * bracketed number ("[3]"): references are text in DocBank's labels, footnotes in some documents.
 */
export const LIST_MARKER = /^(?:[•●○◦▪▫■□‣⁃∙·◆◇►▸➢✓✔☐☑☒✗✘❑❒◻◼∗⋆★☆✦❖⁎\ue000-\uf8ff\u0080-\u009f]|[-–—*+](?=\s)|\(?\d{1,3}[.)](?=\s)|\(?[a-z][.)](?=\s)|\(?[ivx]{1,4}[.)](?=\s))\s*/

/** Leader dots (or a run of ellipses) and the page number they lead to, ending a table-of-contents entry. */
const LEADER = String.raw`(?:(?:[.·]\s?){4,}|…{2,})`
const PAGE_REF = String.raw`(?:\d{1,4}|[ivxlcdm]{1,7})`

/** A line that ends a table-of-contents entry: leader dots, then a page number. */
const TOC_ENTRY = new RegExp(`${LEADER}\\s*${PAGE_REF}$`, "i")

/** The leader of an entry with the spaces around it, before its page number (what the markdown writes as one ellipsis). */
export const TOC_LEADER = new RegExp(`\\s*${LEADER}\\s*(?=${PAGE_REF}$)`, "i")

/** Whether the block ends as a table-of-contents entry does. */
export const isTocEntry = (block: LayoutBlock): boolean => {
  const last = block.lines[block.lines.length - 1]
  return last !== undefined && TOC_ENTRY.test(last.text)
}

/** The gap between the lines of a paragraph most used on this page, per font size. */
const typicalGaps = (lines: ReadonlyArray<Line>): Map<number, number> => {
  const counts = new Map<number, Map<number, number>>()
  const byTop = [...lines].sort((a, b) => a.top - b.top)
  for (let i = 0; i < byTop.length; i++) {
    const a = byTop[i]
    for (let j = i + 1; j < byTop.length && j < i + 12; j++) {
      const b = byTop[j]
      if (b.row === a.row) continue
      if (b.top - a.bottom > 2 * a.size) break
      if (Math.abs(a.size - b.size) > 0.5 || Math.min(a.x1, b.x1) - Math.max(a.x0, b.x0) <= 0) continue
      const gap = Math.round(Math.max(0, b.top - a.bottom) * 2) / 2
      let perSize = counts.get(a.size)
      if (perSize === undefined) counts.set(a.size, (perSize = new Map()))
      perSize.set(gap, (perSize.get(gap) ?? 0) + 1)
      break
    }
  }
  const result = new Map<number, number>()
  for (const [size, perSize] of counts) {
    let best = 0, bestCount = 0
    for (const [gap, count] of perSize) if (count > bestCount || (count === bestCount && gap < best)) { best = gap; bestCount = count }
    if (bestCount >= 2) result.set(size, best)
  }
  return result
}

const endsSentence = (text: string) => /[.!?:;)"”]$/.test(text)

/** A first-line indent this wide (in font sizes) starts a paragraph whether or not the page repeats it. */
const PLAIN_INDENT = 0.8

/**
 * The first-line indents this page repeats, in points: a line set in from the line above it, which
 * ends a sentence, while the line below it goes back to where the line above starts (only the
 * first line is set in). Offsets seen twice or more (to half a point) are the page's paragraph
 * indent, however small: CSS and word processors indent by any amount, down to a few points, and
 * under PLAIN_INDENT such paragraphs ran together (issue 17, bench/pdf/ArticleOrder.ts).
 */
export const measuredIndents = (lines: ReadonlyArray<Line>): Array<number> => {
  const sorted = [...lines].filter((l) => !l.rotated).sort((a, b) => a.top - b.top || a.x0 - b.x0)
  // The line right under each line, in its column (the next row that overlaps it, at its size).
  const under = (i: number): Line | undefined => {
    const a = sorted[i]
    for (let j = i + 1; j < sorted.length && j < i + 12; j++) {
      const b = sorted[j]
      if (b.row === a.row) continue
      if (b.top - a.bottom > a.size) return undefined
      if (Math.abs(a.size - b.size) <= 0.5 && Math.min(a.x1, b.x1) - Math.max(a.x0, b.x0) > 0) return b
    }
    return undefined
  }
  const below = new Map<Line, Line>()
  sorted.forEach((l, i) => {
    const b = under(i)
    if (b !== undefined) below.set(l, b)
  })
  const counts = new Map<number, number>()
  for (const [above, line] of below) {
    const next = below.get(line)
    const offset = line.x0 - above.x0
    if (next === undefined || !endsSentence(above.text) || offset < 1.5 || offset > 5 * line.size) continue
    if (Math.abs(next.x0 - above.x0) > 0.5) continue
    const key = Math.round(offset * 2) / 2
    counts.set(key, (counts.get(key) ?? 0) + 1)
  }
  const out: Array<number> = []
  for (const [offset, n] of counts) if (n + (counts.get(offset - 0.5) ?? 0) + (counts.get(offset + 0.5) ?? 0) >= 2) out.push(offset)
  return out.sort((a, b) => a - b)
}

/**
 * Groups line fragments into text blocks (kind `text`, or `code` for monospace). `indents` are
 * the page's measured first-line indents (measuredIndents), which start a paragraph even when
 * smaller than PLAIN_INDENT.
 */
export const groupLines = (lines: ReadonlyArray<Line>, indents: ReadonlyArray<number> = []): Array<LayoutBlock> => {
  const gaps = typicalGaps(lines)
  const sorted = [...lines].filter((l) => !l.rotated).sort((a, b) => a.top - b.top || a.x0 - b.x0)
  const tocEntries = new Set(sorted.filter((l) => TOC_ENTRY.test(l.text)))
  const blocks: Array<LayoutBlock> = []
  const open: Array<LayoutBlock> = []
  for (const line of sorted) {
    const limitFor = (size: number) => {
      const typical = gaps.get(size)
      return typical === undefined ? 0.75 * size : Math.min(typical + Math.max(1.5, 0.3 * size), 1.6 * size)
    }
    let best: LayoutBlock | undefined
    let bestGap = Infinity
    const marker = LIST_MARKER.test(line.text)
    for (let i = open.length - 1; i >= 0; i--) {
      const block = open[i]
      const last = block.lines[block.lines.length - 1]
      const gap = line.top - last.bottom
      if (gap > 2 * line.size) {
        open.splice(i, 1)
        continue
      }
      if (last.row === line.row || gap < -0.4 * line.size) continue
      if (tocEntries.has(last)) continue
      if (gap > limitFor(line.size)) continue
      const overlap = Math.min(block.x1, line.x1) - Math.max(block.x0, line.x0)
      if (overlap < 0.3 * Math.min(line.x1 - line.x0, block.x1 - block.x0)) continue
      if (Math.abs(line.size - block.size) > Math.max(0.6, 0.06 * block.size)) continue
      if (line.mono !== last.mono) continue
      if (last.bold !== line.bold && (block.lines.every((l) => l.bold) || line.bold)) continue
      // An italic line over roman text (or the reverse) is a run-in heading or a quotation: its own block.
      if (last.italic !== line.italic && block.lines.every((l) => l.italic)) continue
      if (marker && !line.mono) continue
      if (block.kind === "list_item" && line.x0 < block.lines[0].x0 + 0.5 * line.size && !block.lines[0].mono) continue
      // A first-line indent after a finished sentence starts a paragraph.
      // A ragged line may stop short of the block's right edge: only an indent the page repeats
      // is taken without its line running to the edge.
      const indent = line.x0 - block.x0
      const measured = indents.some((i) => Math.abs(indent - i) <= 0.75)
      if (block.lines.length >= 2 && indent < 5 * line.size && endsSentence(last.text) &&
        (measured || (indent > PLAIN_INDENT * line.size && Math.abs(line.x1 - block.x1) < 2 * line.size))) continue
      // A short line ending a sentence, in a block whose lines run full width, ended the paragraph.
      if (block.lines.length >= 2 && endsSentence(last.text) && last.x1 < block.x1 - 0.3 * (block.x1 - block.x0) &&
        Math.abs(line.x0 - block.x0) < 0.5 * line.size && gap > 0) continue
      if (gap < bestGap) {
        best = block
        bestGap = gap
      }
    }
    if (best !== undefined) {
      extend(best, line)
    } else {
      const block = blockOf(line.mono ? "code" : marker ? "list_item" : "text", [line])
      blocks.push(block)
      open.push(block)
    }
  }
  // Entries of a table of contents (a long title may wrap before its dots) are list items.
  for (const block of blocks) {
    if (block.kind === "text" && block.lines.length <= 3 && tocEntries.has(block.lines[block.lines.length - 1])) block.kind = "list_item"
  }
  return blocks
}
