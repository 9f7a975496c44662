/**
 * The heuristic layout chain for a page, as plain functions the stage layers (HeuristicLayout.ts)
 * wrap: `analyseLines` (lines, figures, paragraphs: needs only the page and its tables) runs as a
 * page enters the reader's look-ahead window; `labelPage` (kinds, furniture) and `orderBlocks`
 * (reading order) run when the page leaves it, with the font statistics and the neighbouring
 * pages they need; `writePage` turns the ordered blocks into the page's `Block`s.
 */
import { type Block, type LayoutBlock, type LayoutPage, type Line, type Page, type PageElements, structuredBlock } from "@strata/core"
import { blockStructure, pageVocabulary } from "./BlockStructure.ts"
import { findFigures, placeCaptions } from "./Figures.ts"
import { findVectorFigures } from "./VectorFigures.ts"
import { attachEquationNumbers, classifyBlocks, observeHeadings } from "./Classify.ts"
import type { FontStats } from "./FontStats.ts"
import { markFurniture } from "./Furniture.ts"
import { nestLists } from "./Lists.ts"
import { groupLines, measuredIndents } from "./Paragraphs.ts"
import { readingOrder } from "./ReadingOrder.ts"
import { orderAsides } from "./Asides.ts"
import { findPanels, panelRegions } from "./Panels.ts"
import { mirrorGrid, type TableGrid } from "./TableGrid.ts"

/**
 * The page-local pass over a page whose tables are already found: pictures, drawn figures,
 * paragraphs and heading candidates. `lines` are all the page's lines, `rest` those outside tables.
 * `withPanels: false` leaves out issue 17's panels and measured indents (benches compare).
 */
export const analyseLines = (
  content: PageElements,
  lines: ReadonlyArray<Line>,
  split: { readonly tables: Array<LayoutBlock>; readonly rest: Array<Line> },
  stats: FontStats,
  withPanels = true
): LayoutPage => {
  let rest = split.rest
  let tables = split.tables
  // Pictures come after tables (a table on a tinted image stays a table) and before paragraphs (their labels stay out).
  const pictures = findFigures(content.images, rest, tables, content)
  // Charts and diagrams drawn with paths, outside the tables and image figures already found.
  const drawn = findVectorFigures(content.drawings, pictures.rest, tables, pictures.figures, content)
  rest = drawn.rest
  tables = drawn.tables
  // The body size is measured on running text: table cells are often set smaller.
  stats.observe(rest)
  // Paragraphs never run across the edge of a panel (a boxed or shaded aside).
  const panels = withPanels ? findPanels(content.drawings, lines) : []
  // Paragraph indents are measured on the whole page's running text, then each region is grouped.
  const indents = withPanels ? measuredIndents(rest) : []
  const blocks = [...tables, ...pictures.figures, ...drawn.figures, ...panelRegions(rest, panels).flatMap((region) => groupLines(region, indents))]
  // Rotated text (margin stamps, vertical labels) is kept, as furniture-like headers, so that it never breaks the body.
  for (const line of rest) if (line.rotated) blocks.push({ kind: "page_header", lines: [line], x0: line.x0, x1: line.x1, top: line.top, bottom: line.bottom, size: line.size })
  observeHeadings(blocks, stats)
  let chars = 0
  let rtlLines = 0
  for (const line of lines) {
    chars += line.text.length
    if (line.rtl) rtlLines++
  }
  const diagnostics: LayoutPage["diagnostics"] = [...(content.diagnostics ?? [])]
  if (content.graphicsFailed) {
    diagnostics.push({ severity: "warning", code: "pdf_graphics_unreadable", message: "the page's drawings could not be read; tables drawn with lines may be missed", page: content.pageNumber })
  }
  return {
    pageNumber: content.pageNumber,
    width: content.width,
    height: content.height,
    blocks,
    status: content.graphicsFailed ? "partial" : "ok",
    diagnostics,
    rtl: rtlLines > lines.length / 2,
    chars,
    textSource: content.textSource ?? "native_text",
    ...(panels.length > 0 ? { panels } : {})
  }
}

/** Final kinds (headings, captions, formulas) and page furniture, with the pages around it. */
export const labelPage = (page: LayoutPage, neighbours: ReadonlyArray<LayoutPage>, stats: FontStats): LayoutPage => {
  classifyBlocks(page.blocks, stats, page)
  const numbers = attachEquationNumbers(page.blocks, page)
  if (numbers.size > 0) page.blocks = page.blocks.filter((b) => !numbers.has(b))
  markFurniture(page, neighbours, stats.bodySize)
  return page
}

/**
 * Reading order of a labelled page: XY-cut, paragraphs cut by a column break joined, captions by
 * their figures; with `asides`, sidebars, pull quotes and panels are placed after the flow they
 * cut (Asides.ts).
 */
export const orderBlocks = (page: LayoutPage, options: { readonly asides: boolean } = { asides: true }): Array<LayoutBlock> => {
  const ordered = readingOrder(page.blocks, page.rtl, options.asides)
  return placeCaptions(joinContinuations(options.asides ? orderAsides(page, ordered) : ordered))
}

const normalisedBox = (block: LayoutBlock, page: LayoutPage): [number, number, number, number] => {
  const c = (v: number) => Math.round(Math.min(1, Math.max(0, v)) * 10000) / 10000
  return [c(block.x0 / page.width), c(block.top / page.height), c(block.x1 / page.width), c(block.bottom / page.height)]
}

/**
 * A paragraph cut by a column break is one paragraph: a text block that stops mid-sentence (no
 * closing punctuation) followed in reading order by a text block that starts in lower case, higher
 * up the page (the next column), in the same font size, is joined to it.
 */
const joinContinuations = (ordered: Array<LayoutBlock>): Array<LayoutBlock> => {
  const out: Array<LayoutBlock> = []
  // Where the last open paragraph sits in `out`, and whether only small print has come after it
  // (a footnote or copyright block at the foot of a column does not end the paragraph).
  let open: LayoutBlock | undefined
  for (const block of ordered) {
    // The continuation starts a new column: higher up the page and to the right of the paragraph's middle.
    if (open !== undefined && block.kind === "text" && block.top < open.bottom - 2 * block.size &&
      block.x0 > (open.x0 + open.x1) / 2 && Math.abs(block.size - open.size) < 0.5) {
      const last = open.lines[open.lines.length - 1]?.text ?? ""
      const first = block.lines[0]?.text ?? ""
      if (/[\p{Ll},\-\u00ad]$/u.test(last) && /^\p{Ll}/u.test(first)) {
        open.lines.push(...block.lines)
        open.x1 = Math.max(open.x1, block.x1)
        open.bottom = Math.max(open.bottom, block.bottom)
        continue
      }
    }
    out.push(block)
    if (block.kind === "text" && (open === undefined || Math.abs(block.size - open.size) < 0.5 || block.size > open.size)) open = block
    // Small print below the paragraph (a footnote at the column's foot) keeps it open; anything else closes it.
    else if (open !== undefined && !((block.size < open.size * 0.92 && block.top >= open.bottom - open.size) || isFurnitureKind(block))) open = undefined
  }
  return out
}

/** A page whose blocks have kinds and reading order, not yet written. */
export interface OrderedPage {
  readonly page: LayoutPage
  ordered: Array<LayoutBlock>
}

const isFurnitureKind = (block: LayoutBlock) =>
  block.kind === "page_header" || block.kind === "page_footer" || block.kind === "page_number"

const isBody = (block: LayoutBlock) =>
  block.kind !== "page_header" && block.kind !== "page_footer" && block.kind !== "page_number" && block.kind !== "footnote"

/**
 * A paragraph running over the page break is kept whole on the page where it starts: when the
 * last body block of `current` stops mid-sentence and the first body block of `next` starts in lower
 * case at the same size, that block's lines move to `current` (its box stays the one on `current`).
 * A table whose rows go on at the top of the next page is joined the same way.
 */
export const carryOver = (current: Array<LayoutBlock>, next: Array<LayoutBlock>): void => {
  const last = current.filter(isBody).at(-1)
  const firstIndex = next.findIndex(isBody)
  const first = next[firstIndex]
  if (last === undefined || first === undefined) return
  if (last.table !== undefined && first.table !== undefined) {
    const merged = appendRows(last.table, first.table)
    if (merged !== undefined) {
      last.table = merged
      last.lines.push(...first.lines)
      next.splice(firstIndex, 1)
    }
    return
  }
  if (last.kind !== "text" || first.kind !== "text") return
  if (Math.abs(last.size - first.size) >= 0.5) return
  const tail = last.lines[last.lines.length - 1]?.text ?? ""
  const head = first.lines[0]?.text ?? ""
  if (!/[\p{Ll},\-\u00ad]$/u.test(tail) || !/^\p{Ll}/u.test(head)) return
  last.lines.push(...first.lines)
  next.splice(firstIndex, 1)
}

/**
 * A table continued on the next page: same number of columns and no spanning cells. A header row
 * repeated at the top of the continuation is dropped.
 */
const appendRows = (table: TableGrid, more: TableGrid): TableGrid | undefined => {
  const spans = (g: TableGrid) => g.cells.some((c) => c.rowSpan > 1 || c.colSpan > 1)
  if (table.cols !== more.cols || spans(table) || spans(more)) return undefined
  const rowText = (g: TableGrid, row: number) => g.cells.filter((c) => c.row === row).map((c) => c.text).join("\u0000")
  const skip = rowText(table, 0) === rowText(more, 0) ? 1 : 0
  const cells = [...table.cells]
  for (const c of more.cells) if (c.row >= skip) cells.push({ ...c, row: c.row - skip + table.rows })
  return { rows: table.rows + more.rows - skip, cols: table.cols, cells }
}

/** The mean recognition confidence of an OCR'd block's runs, weighted by their length. */
const ocrConfidence = (block: LayoutBlock): number | null => {
  let chars = 0
  let sum = 0
  for (const line of block.lines) {
    for (const run of line.runs) {
      if (run.confidence === undefined) continue
      chars += run.text.length
      sum += run.confidence * run.text.length
    }
  }
  return chars === 0 ? null : Math.round((sum / chars) * 1000) / 1000
}

/** Writes an ordered page: each block's structure, box and kind (core writes its markdown). */
export const writePage = ({ page, ordered }: OrderedPage): Page => {
  nestLists(ordered)
  const vocabulary = pageVocabulary(ordered)
  const blocks: Array<Block> = []
  for (const block of ordered) {
    if (page.rtl && block.table !== undefined) block.table = mirrorGrid(block.table)
    // OCR'd runs carry a confidence: a block of them on a native page (words drawn as outlines) is OCR'd text too.
    const ocr = ocrConfidence(block)
    const written = structuredBlock(block.kind, blockStructure(block, vocabulary), {
      bbox: normalisedBox(block, page),
      source: block.latex !== undefined ? "formula_glyphs" : ocr !== null ? "layout_ocr" : page.textSource,
      ...(block.label !== undefined ? { label: block.label } : {}),
      confidence: { layout: block.confidence ?? null, ocr }
    })
    if (written.content.length > 0) blocks.push(written)
  }
  return {
    pageNumber: page.pageNumber,
    status: page.status,
    width: page.width,
    height: page.height,
    blocks,
    ...(page.diagnostics.length > 0 ? { diagnostics: page.diagnostics } : {})
  }
}

/** The record of a page that could not be read at all. */
export const failedPage = (pageNumber: number, message: string): Page => ({
  pageNumber,
  status: "failed",
  width: null,
  height: null,
  blocks: [],
  diagnostics: [{ severity: "warning", code: "pdf_page_failed", message, page: pageNumber }]
})
