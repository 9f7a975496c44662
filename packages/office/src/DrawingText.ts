/**
 * DrawingML text bodies (`a:txBody`, shared by PowerPoint shapes and table cells) and
 * DrawingML tables (`a:tbl`) to markdown: runs with bold/italic/links, bullets and automatic
 * numbering with levels, and table cells with gridSpan/rowSpan merges. Blocks carry their
 * structure (list depth and number, table grid); core writes their markdown.
 */
import { structuredBlock, type Block } from "@strata/core"
import { collapseSpaces, finishParagraph, renderRuns, type Run } from "./MarkdownText.ts"
import { layoutCells } from "./TableMarkdown.ts"
import { child, childrenNamed, relationshipId, textOf, type Relationship, type XmlElement } from "./Xml.ts"

export interface TextOptions {
  /** Paragraphs without explicit bullet properties are bullets (body placeholders). */
  readonly bulletByDefault: boolean
  readonly rels: Map<string, Relationship>
  readonly source: string
}

const paragraphRuns = (p: XmlElement, rels: Map<string, Relationship>): Array<Run> => {
  const runs: Array<Run> = []
  for (const c of p.children) {
    if (typeof c === "string") continue
    if (c.name === "r" || c.name === "fld") {
      const rPr = child(c, "rPr")
      const link = relationshipId(child(rPr, "hlinkClick"))
      const rel = link === undefined ? undefined : rels.get(link)
      runs.push({
        text: collapseSpaces(textOf(child(c, "t"))),
        bold: rPr?.attrs.b === "1" || rPr?.attrs.b === "true",
        italic: rPr?.attrs.i === "1" || rPr?.attrs.i === "true",
        strike: rPr?.attrs.strike !== undefined && rPr.attrs.strike !== "noStrike",
        href: rel?.external ? rel.target : undefined
      })
    } else if (c.name === "br") runs.push({ text: "\n" })
  }
  return runs
}

/** The plain inline markdown of every paragraph of a text body, joined with newlines (for table cells). */
export const textBodyInline = (body: XmlElement | undefined, rels: Map<string, Relationship>): string =>
  childrenNamed(body, "p")
    .map((p) => finishParagraph(renderRuns(paragraphRuns(p, rels))))
    .filter((s) => s.length > 0)
    .join("\n")

/** A text body as blocks: list items (with depth and numbering) and paragraphs. */
export const textBodyBlocks = (body: XmlElement | undefined, options: TextOptions): Array<Block> => {
  const blocks: Array<Block> = []
  const counters: Array<number> = []
  const widths: Array<number> = []
  for (const p of childrenNamed(body, "p")) {
    const text = finishParagraph(renderRuns(paragraphRuns(p, options.rels)))
    if (text.length === 0) continue
    const pPr = child(p, "pPr")
    const level = Math.min(8, Math.max(0, Number(pPr?.attrs.lvl ?? 0) || 0))
    const auto = child(pPr, "buAutoNum")
    const bullet = child(pPr, "buChar") !== undefined || child(pPr, "buBlip") !== undefined
    const none = child(pPr, "buNone") !== undefined
    const isList = !none && (auto !== undefined || bullet || options.bulletByDefault)
    if (!isList) {
      counters.length = 0
      widths.length = 0
      blocks.push(structuredBlock("text", { text: text.replace(/\n/g, "  \n") }, { source: options.source }))
      continue
    }
    counters.length = Math.min(counters.length, level + 1)
    let ordinal: number | null = null
    if (auto !== undefined) {
      const start = Number(auto.attrs.startAt ?? 1) || 1
      counters[level] = (counters[level] ?? start - 1) + 1
      ordinal = counters[level]
    } else counters[level] = 0
    // Nested items indent to the content column of their parents ("- " is 2 wide, "10. " is 4).
    widths.length = Math.min(widths.length, level)
    while (widths.length < level) widths.push(2)
    const indent = widths.reduce((a, b) => a + b, 0)
    widths.push(ordinal === null ? 2 : `${ordinal}.`.length + 1)
    blocks.push(structuredBlock("list_item", { list: { depth: level, ordinal, indent }, text }, { source: options.source }))
  }
  return blocks
}

/** A DrawingML table as one table block. */
export const drawingTable = (tbl: XmlElement, rels: Map<string, Relationship>, source: string): Block | undefined => {
  const cells: Array<{ row: number; col: number; text: string; colSpan: number; rowSpan: number }> = []
  const rows = childrenNamed(tbl, "tr")
  rows.forEach((tr, r) => {
    childrenNamed(tr, "tc").forEach((tc, c) => {
      // Continuation cells of a merge carry hMerge/vMerge and are covered by the anchor's span.
      if (tc.attrs.hMerge === "1" || tc.attrs.vMerge === "1" || tc.attrs.hMerge === "true" || tc.attrs.vMerge === "true") return
      cells.push({
        row: r,
        col: c,
        text: textBodyInline(child(tc, "txBody"), rels),
        colSpan: Math.max(1, Number(tc.attrs.gridSpan ?? 1) || 1),
        rowSpan: Math.max(1, Number(tc.attrs.rowSpan ?? 1) || 1)
      })
    })
  })
  const block = structuredBlock("table", { table: { ...layoutCells(cells, rows.length), headerRows: 1 } }, { source })
  return block.content.length === 0 ? undefined : block
}
