/**
 * Asides in reading order: what sits in or beside the columns without being part of their flow.
 * The rules (issue 17 item 7, scored by bench/pdf/ArticleOrder.ts):
 * - a panel (a boxed or shaded sidebar, Panels.ts) is read as one unit, where its first block
 *   comes in the order; a panel standing in a column of its own, with no running text above or
 *   below it, is read after the page's main flow;
 * - a pull quote (large type repeating the page's body text) is kept, as text, not a heading;
 * - a paragraph cut by asides (pull quotes, panels, figures, captions, tables) is joined across
 *   them when it stops mid-sentence and goes on in lower case at its own size (after them, or at
 *   the top of the next column); the asides then come after the whole paragraph.
 * - a paragraph cut exactly between two sentences is joined too when the type says it goes on
 *   (goesOn): on a page whose paragraphs open with a first-line indent, the text after the cut
 *   starts flush; or, at a column break, the line before the break is full (the next word would
 *   not have fit in it).
 */
import type { LayoutBlock, LayoutPage, Line } from "@strata/core"
import { panelOf } from "./Panels.ts"
import { measuredIndents } from "./Paragraphs.ts"

const textOf = (block: LayoutBlock) => block.lines.map((l) => l.text).join(" ")

/** The size most of the page's text characters are set in. */
const bodySize = (blocks: ReadonlyArray<LayoutBlock>): number => {
  const weights = new Map<number, number>()
  for (const b of blocks) if (b.kind === "text") weights.set(b.size, (weights.get(b.size) ?? 0) + textOf(b).length)
  let best = 0, weight = -1
  for (const [size, w] of weights) if (w > weight) { best = size; weight = w }
  return best
}

const words = (text: string) => text.toLowerCase().split(/[^\p{L}\p{N}]+/u).filter((w) => w.length > 0)

/**
 * Large type whose words the page's body text repeats (three-word runs, most of them): a pull
 * quote. Headings are large too, but their words are seldom a run of the text under them.
 */
const pullQuotes = (blocks: ReadonlyArray<LayoutBlock>, size: number): Set<LayoutBlock> => {
  const out = new Set<LayoutBlock>()
  if (size <= 0) return out
  const large = blocks.filter((b) => (b.kind === "text" || b.kind === "section_header") && b.size >= 1.3 * size)
  if (large.length === 0) return out
  const runs = new Set<string>()
  for (const b of blocks) {
    if (b.kind !== "text" || Math.abs(b.size - size) > 0.5) continue
    const w = words(textOf(b))
    for (let i = 2; i < w.length; i++) runs.add(`${w[i - 2]} ${w[i - 1]} ${w[i]}`)
  }
  for (const b of large) {
    const w = words(textOf(b))
    if (w.length < 5) continue
    let found = 0
    for (let i = 2; i < w.length; i++) if (runs.has(`${w[i - 2]} ${w[i - 1]} ${w[i]}`)) found++
    if (found >= 0.6 * (w.length - 2)) out.add(b)
  }
  return out
}

const isFlow = (b: LayoutBlock) => b.kind === "text" || b.kind === "section_header" || b.kind === "list_item"
const isFurniture = (b: LayoutBlock) => b.kind === "page_header" || b.kind === "page_footer" || b.kind === "page_number"
const endsSentence = (text: string) => /[.!?:;)"”’]$/u.test(text)

/** Where a block's lines start, from its lines after the first (undefined for one line). */
const lineStart = (block: LayoutBlock): number | undefined => {
  let x = Infinity
  for (const line of block.lines.slice(1)) x = Math.min(x, line.x0)
  return x === Infinity ? undefined : x
}

/**
 * Whether the line was full: what is left of its measure (the right edge of the block's other
 * lines in its column) could not have held a space and the word that follows. A paragraph's last
 * line ends with room to spare, or at the right edge only by chance; a line cut by a column break
 * runs to the edge (justified) or stops where the next word would not fit (ragged).
 */
const full = (block: LayoutBlock, line: Line, next: Line): boolean => {
  let right = -Infinity
  for (const l of block.lines) if (l !== line && Math.min(l.x1, line.x1) - Math.max(l.x0, line.x0) > 0) right = Math.max(right, l.x1)
  if (right === -Infinity || next.text.length === 0) return false
  const word = next.text.split(" ")[0]
  const perChar = (next.x1 - next.x0) / next.text.length
  return line.x1 + (word.length + 1) * perChar > right + 0.5
}

/**
 * Whether paragraph `a`, which ends a sentence, goes on in `c` (after asides or a column break)
 * rather than `c` opening a paragraph. With the page's first-line indents measured, `c` goes on
 * when its first line starts flush with its other lines; without them only a column break is told
 * apart, by a full last line before it. Gaps say nothing here: an aside's margins are the same
 * inside a paragraph and between two.
 */
const goesOn = (a: LayoutBlock, c: LayoutBlock, indents: ReadonlyArray<number>, columnBreak: boolean): boolean => {
  const first = c.lines[0], last = a.lines.at(-1)
  if (first === undefined || last === undefined || !/^\p{Lu}/u.test(first.text)) return false
  if (indents.length > 0) {
    const start = lineStart(c)
    return start !== undefined && Math.abs(first.x0 - start) <= Math.min(1, 0.5 * indents[0])
  }
  return columnBreak && full(a, last, first)
}

export const orderAsides = (page: LayoutPage, ordered: Array<LayoutBlock>): Array<LayoutBlock> => {
  const panels = page.panels ?? []
  const size = bodySize(ordered)
  const quotes = pullQuotes(ordered, size)
  for (const q of quotes) if (q.kind === "section_header") q.kind = "text"
  const unit = new Map<LayoutBlock, number>()
  for (const b of ordered) {
    const at = panels.length > 0 && !isFurniture(b) ? panelOf(panels, b) : -1
    if (at >= 0) unit.set(b, at)
  }
  // A panel with no running text above or below it stands beside the flow. Running text is set at
  // the body size: a deck under the title (larger italic across the page) is above every column.
  const beside = new Set<number>()
  panels.forEach((p, i) => {
    const width = p.x1 - p.x0
    const under = ordered.some((b) => !unit.has(b) && isFlow(b) && b.kind !== "section_header" && Math.abs(b.size - size) <= 0.5 &&
      Math.min(b.x1, p.x1) - Math.max(b.x0, p.x0) > 0.3 * Math.min(width, b.x1 - b.x0))
    if (!under) beside.add(i)
  })
  // Each panel's blocks together, where its first block comes (or at the end of the flow).
  const grouped: Array<LayoutBlock> = []
  const later: Array<LayoutBlock> = []
  const placed = new Set<number>()
  for (const b of ordered) {
    const at = unit.get(b)
    if (at === undefined) {
      grouped.push(b)
      continue
    }
    if (placed.has(at)) continue
    placed.add(at)
    const members = ordered.filter((m) => unit.get(m) === at)
    if (beside.has(at)) later.push(...members)
    else grouped.push(...members)
  }
  if (later.length > 0) {
    // After the flow, before the footnotes and furniture that close the page.
    let end = grouped.length
    while (end > 0 && (isFurniture(grouped[end - 1]) || grouped[end - 1].kind === "footnote")) end--
    grouped.splice(end, 0, ...later)
  }
  // A paragraph cut by asides goes on after them: join it, the asides follow it.
  const aside = (b: LayoutBlock) => quotes.has(b) || unit.has(b) || b.kind === "figure" || b.kind === "caption" || b.kind === "table"
  // The page's paragraph indents, measured on its running text (as Paragraphs.ts split them).
  const indents = measuredIndents(ordered.filter((b) => b.kind === "text" && Math.abs(b.size - size) <= 0.5).flatMap((b) => b.lines))
  const out: Array<LayoutBlock> = []
  const gone = new Set<LayoutBlock>()
  for (let i = 0; i < grouped.length; i++) {
    const a = grouped[i]
    if (gone.has(a)) continue
    out.push(a)
    if (a.kind !== "text" || quotes.has(a) || Math.abs(a.size - size) > 0.5) continue
    // Joined again while it goes on: the joined part may itself be cut by the next aside.
    let k = i + 1
    for (;;) {
      const stops = endsSentence(a.lines.at(-1)?.text ?? ".")
      let j = k
      while (j < grouped.length && j <= k + 8 && (gone.has(grouped[j]) || (aside(grouped[j]) && !(unit.has(a) && unit.get(grouped[j]) === unit.get(a))))) j++
      const c = grouped[j]
      if (c === undefined || c.kind !== "text" || quotes.has(c) || unit.get(c) !== unit.get(a)) break
      // With nothing between, only a column break (the next column's top) is joined here: a large
      // quote before the paragraph would otherwise keep PageLayout's column join from seeing it.
      // A column break: the text goes on higher up and to the right of the line it stopped on.
      const end = a.lines.at(-1)!
      const columnBreak = c.top < end.top - 2 * c.size && c.x0 > (end.x0 + end.x1) / 2
      if (j === k && !columnBreak) break
      if (Math.abs(c.size - a.size) >= 0.5) break
      if (stops ? !goesOn(a, c, indents, columnBreak) : !/^\p{Ll}/u.test(c.lines[0]?.text ?? "")) break
      a.lines.push(...c.lines)
      a.x0 = Math.min(a.x0, c.x0)
      a.x1 = Math.max(a.x1, c.x1)
      a.bottom = Math.max(a.bottom, c.bottom)
      gone.add(c)
      k = j + 1
    }
  }
  return out
}
