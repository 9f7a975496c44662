/**
 * Furniture leaks and margin text lost, judged on an engine's markdown of one page alone, so that
 * engines without blocks or boxes (pdf-inspector writes only markdown) are scored by the same code
 * as ours. Furniture.ts's block measure needs our blocks' boxes and kinds; this one needs only the
 * text.
 *
 * - **Leaked**: a Docling `page_header`/`page_footer` text (as words) occurs in the page's markdown
 *   more often than in the page's body texts and table cells (so "9" the page number counts only
 *   when the markdown holds one "9" more than the body does).
 * - **Margin lost**: a body text whose box lies in the top or bottom band of the page (where
 *   furniture sits, and where a furniture rule can take body text with it) has fewer than half of
 *   its words anywhere in the markdown. DocBank's lines are judged the same way, by label.
 * - **Lost anywhere**: the same test over every body text, for scale (text lost for any reason).
 */

/** Words: runs of letters and digits of NFKC, lower-cased text; HTML tags and markdown syntax fall away. */
export const words = (s: string): Array<string> =>
  s.replace(/<\/?[a-z][^>]*>/gi, " ").normalize("NFKC").toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []

/** How often `needle` occurs as consecutive words of `hay`. */
const occurrences = (hay: ReadonlyArray<string>, needle: ReadonlyArray<string>): number => {
  let n = 0
  for (let i = 0; i + needle.length <= hay.length; i++) {
    let j = 0
    while (j < needle.length && hay[i + j] === needle[j]) j++
    if (j === needle.length) n++
  }
  return n
}

/** Top and bottom bands of the page, as a fraction of its height. */
export const MARGIN = 0.12
export const inMargin = (top: number, bottom: number) => bottom <= MARGIN || top >= 1 - MARGIN

const lost = (text: ReadonlyArray<string>, found: ReadonlySet<string>) =>
  text.filter((w) => found.has(w)).length * 2 < text.length

export interface MarkdownCounts { pages: number; furniture: number; leaked: number; marginBody: number; marginLost: number; body: number; lost: number; details: Array<string> }
export const markdownCounts = (): MarkdownCounts => ({ pages: 0, furniture: 0, leaked: 0, marginBody: 0, marginLost: 0, body: 0, lost: 0, details: [] })

/** A Docling text on the page: its label, text and box (0-1, top-left origin). */
export interface PageItem { readonly label: string; readonly text: string; readonly box: readonly [number, number, number, number] }

/** One page's markdown against Docling's texts of that page (`cells`: its table cells' texts). */
export const scoreDoclingPage = (into: MarkdownCounts, where: string, markdown: string, items: ReadonlyArray<PageItem>, cells: ReadonlyArray<string>) => {
  into.pages++
  const md = words(markdown)
  const found = new Set(md)
  const isFurniture = (label: string) => label === "page_header" || label === "page_footer"
  const body = [...items.filter((i) => !isFurniture(i.label)).map((i) => words(i.text)), ...cells.map(words)]
  const groups = new Map<string, { text: Array<string>; count: number }>()
  for (const item of items.filter((i) => isFurniture(i.label))) {
    const text = words(item.text)
    if (text.length === 0) continue
    into.furniture++
    const group = groups.get(text.join(" ")) ?? { text, count: 0 }
    group.count++
    groups.set(text.join(" "), group)
  }
  for (const [key, { text, count }] of groups) {
    const extra = occurrences(md, text) - body.reduce((n, b) => n + occurrences(b, text), 0)
    const leaked = Math.min(count, Math.max(0, extra))
    into.leaked += leaked
    if (leaked > 0) into.details.push(`${where} leaked ${leaked}x: ${key.slice(0, 80)}`)
  }
  for (const item of items.filter((i) => !isFurniture(i.label))) {
    const text = words(item.text)
    if (text.length === 0) continue
    into.body++
    const gone = lost(text, found)
    if (gone) {
      into.lost++
      into.details.push(`${where} lost ${item.label}: ${item.text.slice(0, 80)}`)
    }
    if (inMargin(item.box[1], item.box[3])) {
      into.marginBody++
      if (gone) {
        into.marginLost++
        into.details.push(`${where} lost ${item.label} in the margin: ${item.text.slice(0, 80)}`)
      }
    }
  }
}

export interface BankMarkdownCounts { pages: number; marginLines: number; lost: Record<string, number>; details: Array<string> }
export const bankMarkdownCounts = (): BankMarkdownCounts => ({ pages: 0, marginLines: 0, lost: {}, details: [] })

/** One DocBank page's markdown against its labelled lines (boxes 0-1, top-left origin). */
export const scoreBankPage = (into: BankMarkdownCounts, where: string, markdown: string, lines: ReadonlyArray<{ label: string; tokens: ReadonlyArray<{ text: string; box: readonly [number, number, number, number] }> }>) => {
  into.pages++
  const found = new Set(words(markdown))
  for (const line of lines) {
    if (!line.tokens.every((t) => inMargin(t.box[1], t.box[3]))) continue
    // DocBank's stand-ins for drawn things (##LTLine##, ##LTFigure##) are no text.
    const text = line.tokens.filter((t) => !/^##LT\w+##$/.test(t.text)).flatMap((t) => words(t.text))
    if (text.length === 0) continue
    into.marginLines++
    if (lost(text, found)) {
      into.lost[line.label] = (into.lost[line.label] ?? 0) + 1
      into.details.push(`${where} lost ${line.label}: ${line.tokens.map((t) => t.text).join(" ").slice(0, 80)}`)
    }
  }
}
