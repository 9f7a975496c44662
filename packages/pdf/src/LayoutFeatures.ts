/**
 * The layout block classifier's input (models/layout, run by `LearnedLayout.ts`): each block the
 * heuristic Layout layer labels, seen as the reader sees it (its lines' fonts and sizes, its box,
 * its text, its neighbours) plus the heuristic's own kind, as a row of numbers. Blocks are taken
 * from a Layout layer that wraps the heuristic one and keeps a copy of every page it labels
 * (`capturingLayout`, for training and the bench), or by the learned layer itself. A row needs
 * only what a streaming reader has when it labels a page: the page and the pages of its window,
 * whose body size (the size most characters are set in) is taken then (`snapshot`); no page
 * count, no later pages.
 */
import { Effect } from "effect"
import { type BlockKind, Layout, type LayoutPage } from "@strata/core"

/** What the classifier keeps of one labelled block (a copy: later stages change the live block). */
export interface BlockSnapshot {
  readonly kind: BlockKind
  readonly x0: number
  readonly x1: number
  readonly top: number
  readonly bottom: number
  readonly size: number
  readonly lines: ReadonlyArray<{ x0: number; x1: number; top: number; bottom: number; size: number; bold: boolean; italic: boolean; mono: boolean; math: boolean; row: number; text: string }>
  readonly rows: number
  readonly cols: number
  /** A table grid or a formula's LaTeX the heuristic built (not a feature: LayoutDecision keeps such a kind). */
  readonly structured: boolean
}

export interface PageSnapshot {
  readonly pageNumber: number
  readonly width: number
  readonly height: number
  /** The body size of the page with its window's pages, when it was labelled. */
  readonly body: number
  readonly blocks: ReadonlyArray<BlockSnapshot>
}

/** The body size: the size most characters are set in, over `pages`. */
export const bodySizeOf = (pages: ReadonlyArray<{ readonly blocks: ReadonlyArray<{ readonly lines: ReadonlyArray<{ readonly size: number; readonly text: string }> }> }>): number => {
  const counts = new Map<number, number>()
  for (const p of pages) for (const b of p.blocks) for (const l of b.lines) {
    const s = Math.round(l.size * 2) / 2
    counts.set(s, (counts.get(s) ?? 0) + l.text.length)
  }
  let best = 10, most = 0
  for (const [s, n] of counts) if (n > most) { best = s; most = n }
  return best
}

/** What the classifier sees of a labelled page, with the analysed pages of its window for the body size. */
export const snapshot = (page: LayoutPage, neighbours: ReadonlyArray<LayoutPage>): PageSnapshot => ({
  pageNumber: page.pageNumber,
  width: page.width,
  height: page.height,
  body: bodySizeOf([page, ...neighbours]),
  blocks: page.blocks.map((b) => ({
    kind: b.kind, x0: b.x0, x1: b.x1, top: b.top, bottom: b.bottom, size: b.size,
    lines: b.lines.map((l) => ({ x0: l.x0, x1: l.x1, top: l.top, bottom: l.bottom, size: l.size, bold: l.bold, italic: l.italic, mono: l.mono, math: l.math, row: l.row, text: l.text })),
    rows: b.table?.rows ?? 0,
    cols: b.table?.cols ?? 0,
    structured: b.table !== undefined || b.latex !== undefined
  }))
})

/** `inner`, with every page it labels copied into `into` (by page number). */
export const capturingLayout = (inner: Layout["Service"], into: Map<number, PageSnapshot>): Layout["Service"] =>
  Layout.of({
    name: inner.name,
    begin: Effect.map(inner.begin, (session) => ({
      analyse: session.analyse,
      label: (page, neighbours) => Effect.tap(session.label(page, neighbours), (labelled) => Effect.sync(() => into.set(labelled.pageNumber, snapshot(labelled, neighbours))))
    }))
  })

export const KINDS: ReadonlyArray<BlockKind> = [
  "title", "section_header", "text", "list_item", "table", "figure", "caption", "formula", "code", "footnote", "page_header", "page_footer", "page_number"
]

export const FEATURES = [
  ...KINDS.map((k) => `heuristic_${k}`),
  "size_rel", "size_rel_max", "bold", "italic", "mono", "math",
  "x0", "x1", "top", "bottom", "width", "height", "centre_off", "indent",
  "lines", "chars_log", "chars_per_line", "fragments_per_row", "line_gap",
  "numbered", "bullet", "enumerated", "caption_word", "ends_stop", "digits", "upper", "math_symbols", "letters",
  "gap_above", "gap_below", "above_figure_table", "below_figure_table", "above_kind_heading", "same_size_above",
  "page_index", "table_rows", "table_cols", "blocks_on_page"
] as const

const NUMBERED = /^\s*(\d+(\.\d+)*\.?|[IVX]+\.|[A-Z]\.)\s+\S/
const BULLET = /^\s*[•◦▪▫●○■□–—\-*·‣⁃]\s*/u
const ENUM = /^\s*(\(?[a-z]\)|\(?\d+\)|[ivx]+\.|\d+\.)\s*\S/i
const CAPTION = /^\s*(fig(ure)?|tab(le)?|chart|plate|exhibit|listing)\.?\s*[\dIVX]+/i

const charsOf = (b: BlockSnapshot) => b.lines.reduce((s, l) => s + l.text.length, 0)

/** One row of FEATURES for each block of each page, in the pages' order. */
export const documentRows = (pages: ReadonlyArray<PageSnapshot>): Array<Array<Array<number>>> => pages.map(pageRows)

/** One row of FEATURES for each block of `page`, in its order. */
export const pageRows = (page: PageSnapshot): Array<Array<number>> => {
  const body = page.body
  const pageIndex = page.pageNumber - 1
  const { width: W, height: H } = page
  const textBlocks = page.blocks.filter((b) => b.lines.length > 0)
  const left = textBlocks.length > 0 ? Math.min(...textBlocks.map((b) => b.x0)) : 0
  return page.blocks.map((b) => {
    const chars = charsOf(b)
    const weight = (pick: (l: BlockSnapshot["lines"][number]) => boolean) =>
      chars === 0 ? 0 : b.lines.reduce((s, l) => s + (pick(l) ? l.text.length : 0), 0) / chars
    const text = b.lines.map((l) => l.text).join(" ")
    const letters = (text.match(/\p{L}/gu) ?? []).length
    const upper = (text.match(/\p{Lu}/gu) ?? []).length
    const digits = (text.match(/\p{N}/gu) ?? []).length
    const mathSymbols = (text.match(/[\p{Sm}\u0370-\u03ff]/gu) ?? []).length
    const rows = new Set(b.lines.map((l) => l.row)).size
    const overlapsX = (o: BlockSnapshot) => Math.min(o.x1, b.x1) > Math.max(o.x0, b.x0)
    let above: BlockSnapshot | undefined, below: BlockSnapshot | undefined
    for (const o of page.blocks) {
      if (o === b || !overlapsX(o)) continue
      if (o.bottom <= b.top + 1 && (above === undefined || o.bottom > above.bottom)) above = o
      if (o.top >= b.bottom - 1 && (below === undefined || o.top < below.top)) below = o
    }
    const isFigTable = (o: BlockSnapshot | undefined) => o !== undefined && (o.kind === "figure" || o.kind === "table")
    const maxSize = b.lines.reduce((m, l) => Math.max(m, l.size), 0)
    const gaps = b.lines.slice(1).map((l, i) => l.top - b.lines[i].bottom).filter((g) => g > -2)
    return [
      ...KINDS.map((k) => (b.kind === k ? 1 : 0)),
      b.size / body, maxSize / body, weight((l) => l.bold), weight((l) => l.italic), weight((l) => l.mono), weight((l) => l.math),
      b.x0 / W, b.x1 / W, b.top / H, b.bottom / H, (b.x1 - b.x0) / W, (b.bottom - b.top) / H,
      Math.abs((b.x0 + b.x1) / 2 - W / 2) / W, (b.x0 - left) / body,
      b.lines.length, Math.log1p(chars), chars / Math.max(1, rows), b.lines.length / Math.max(1, rows),
      gaps.length > 0 ? gaps.reduce((a, c) => a + c, 0) / gaps.length / body : -1,
      NUMBERED.test(text) ? 1 : 0, BULLET.test(text) ? 1 : 0, ENUM.test(text) ? 1 : 0, CAPTION.test(text) ? 1 : 0,
      /[.!?:;]\s*$/.test(text) ? 1 : 0, digits / Math.max(1, text.length), upper / Math.max(1, letters), mathSymbols / Math.max(1, text.length), letters / Math.max(1, text.length),
      above === undefined ? 99 : (b.top - above.bottom) / body, below === undefined ? 99 : (below.top - b.bottom) / body,
      isFigTable(below) ? 1 : 0, isFigTable(above) ? 1 : 0,
      above !== undefined && (above.kind === "section_header" || above.kind === "title") ? 1 : 0,
      above !== undefined && Math.abs(above.size - b.size) < 0.3 ? 1 : 0,
      pageIndex, b.rows, b.cols, page.blocks.length
    ]
  })
}
