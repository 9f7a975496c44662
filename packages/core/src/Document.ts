/**
 * The Document model every reader fills: pages of typed blocks in reading order.
 *
 * Format readers (pdf, office, ocr) produce `Page`s of blocks. A block carries its structure
 * (heading level, list depth and ordinal, table grid, image, code language, formula source) and
 * its inline text; core's `markdown/BlockMarkdown.ts` writes its markdown fragment (`content`)
 * from that structure. Blocks of readers not yet moved to structure still carry a fragment they
 * wrote themselves. The shared `MarkdownWriter` joins fragments into the document markdown and
 * records each block's span. The block `kind` is richer than the contract's block `type`
 * (list items, code and footnotes are kinds of their own); `blockType` maps it onto the contract.
 */
import { Schema } from "effect"

/** The contract's block `type` values (the spec says new ones may be added; we keep to these ten). */
export const BlockTypes = [
  "title",
  "section_header",
  "text",
  "table",
  "formula",
  "figure",
  "caption",
  "page_number",
  "page_header",
  "page_footer"
] as const
export const BlockType = Schema.Literals(BlockTypes)
export type BlockType = typeof BlockType.Type

/** Every kind a reader may give a block: the contract's ten types, plus kinds written as `text` with their own label. */
export const BlockKind = Schema.Literals([...BlockTypes, "list_item", "code", "footnote"])
export type BlockKind = typeof BlockKind.Type

/** Kinds kept out of the document body: page furniture. Their blocks have a null `markdownSpan`. */
export const isFurniture = (kind: BlockKind): boolean =>
  kind === "page_header" || kind === "page_footer" || kind === "page_number"

/** The contract `type` of a block kind; the kind itself becomes the block's `label`. */
export const blockType = (kind: BlockKind): BlockType => {
  switch (kind) {
    case "list_item":
    case "code":
    case "footnote":
      return "text"
    default:
      return kind
  }
}

/** [x0, y0, x1, y1], normalised to 0..1 against the page's width and height. */
export const BBox = Schema.Tuple([Schema.Number, Schema.Number, Schema.Number, Schema.Number])
export type BBox = typeof BBox.Type

export const Confidence = Schema.Struct({
  layout: Schema.NullOr(Schema.Number),
  ocr: Schema.NullOr(Schema.Number)
})
export type Confidence = typeof Confidence.Type

/** A heading's level, 1..6. */
export const HeadingInfo = Schema.Struct({ level: Schema.Number })
export type HeadingInfo = typeof HeadingInfo.Type

/** Where a list item stands in its list. */
export const ListInfo = Schema.Struct({
  /** Nesting depth, 0 = top level. */
  depth: Schema.Number,
  /** The item's number in an ordered list; null for a bullet. */
  ordinal: Schema.NullOr(Schema.Number),
  /** A task item's box: checked or not; absent for an item that has none. */
  checked: Schema.optional(Schema.Boolean),
  /**
   * A further paragraph of the item before it (same depth and ordinal): written under that
   * item's text, with no marker of its own. Its block keeps its own kind (a paragraph is `text`).
   */
  continues: Schema.optional(Schema.Boolean),
  /**
   * Columns before the marker: the widths of the parent items' markers, as the reader nested
   * them (markdown nests an item under its parent's text, so this depends on the parents).
   */
  indent: Schema.Number
})
export type ListInfo = typeof ListInfo.Type

/** One cell of a table, placed at its top-left slot. */
export const TableCellInfo = Schema.Struct({
  row: Schema.Number,
  col: Schema.Number,
  rowSpan: Schema.optional(Schema.Number),
  colSpan: Schema.optional(Schema.Number),
  /** The cell's text: inline markdown, or plain text when the table says `cellText: "plain"`. */
  text: Schema.String
})

/** A table as rows x cols slots; a spanning cell appears once (core's `CellGrid`). */
export const TableInfo = Schema.Struct({
  rows: Schema.Number,
  cols: Schema.Number,
  cells: Schema.Array(TableCellInfo),
  /** Rows that head the table; the writer heads a table with its first row (GFM has exactly one). */
  headerRows: Schema.Number,
  /** `plain`: cell text with no markup (PDF text layers); `markdown` (the default): inline markdown. */
  cellText: Schema.optional(Schema.Literals(["markdown", "plain"]))
})
export type TableInfo = typeof TableInfo.Type

/** A picture: where it is (`""` when it has no address of its own) and its alt text (inline markdown). */
export const ImageInfo = Schema.Struct({ src: Schema.String, alt: Schema.String })
export type ImageInfo = typeof ImageInfo.Type

/** A code block's language (null when unknown); `inline` for a single short line written as inline code. */
export const CodeInfo = Schema.Struct({ language: Schema.NullOr(Schema.String), inline: Schema.optional(Schema.Boolean) })
export type CodeInfo = typeof CodeInfo.Type

/**
 * A formula: `latex` source is written between `$$` (display) or `$`; `text` source (a PDF's
 * text layer, no markup) is written as it is.
 */
export const FormulaInfo = Schema.Struct({
  source: Schema.String,
  notation: Schema.Literals(["latex", "text"]),
  display: Schema.Boolean
})
export type FormulaInfo = typeof FormulaInfo.Type

/** One block as a reader produces it. */
export const Block = Schema.Struct({
  kind: BlockKind,
  /**
   * The markdown fragment this block adds to the document (a heading with its `#`s, a list item
   * with its marker and indentation, a whole table...). Written by core from the structure
   * fields below when the block has them (`structuredBlock`); readers not yet moved write it.
   */
  content: Schema.String,
  /** The block's inline text as markdown (emphasis, links): a paragraph, a heading's title, a list item's body, a code block's lines. */
  text: Schema.optional(Schema.String),
  heading: Schema.optional(HeadingInfo),
  list: Schema.optional(ListInfo),
  table: Schema.optional(TableInfo),
  image: Schema.optional(ImageInfo),
  code: Schema.optional(CodeInfo),
  formula: Schema.optional(FormulaInfo),
  /** A footnote's (or endnote's) label: the block is its definition, `[^label]: text`. */
  note: Schema.optional(Schema.Struct({ label: Schema.String })),
  /** A quoted paragraph (a quote style): its text is written as a block quote. */
  quote: Schema.optional(Schema.Boolean),
  bbox: Schema.NullOr(BBox),
  /** The raw label of the layout model, when one labelled this block; else the kind is used. */
  label: Schema.optional(Schema.NullOr(Schema.String)),
  /** The pipeline path: `native_text`, `layout_ocr`, `tsr`, `full_page`, `docx`, ... */
  source: Schema.NullOr(Schema.String),
  confidence: Confidence,
  /** Nesting depth of a list item (0 = top level); consecutive list items are written as one tight list. */
  depth: Schema.optional(Schema.Number)
})
export type Block = typeof Block.Type

export const PageStatus = Schema.Literals(["ok", "partial", "failed"])
export type PageStatus = typeof PageStatus.Type

/** Non-fatal problems are data, with where they happened. */
export const Diagnostic = Schema.Struct({
  severity: Schema.Literals(["info", "warning"]),
  code: Schema.String,
  message: Schema.String,
  page: Schema.optional(Schema.Number)
})
export type Diagnostic = typeof Diagnostic.Type

export const Page = Schema.Struct({
  /** 1-based physical page (or slide, or sheet) number. */
  pageNumber: Schema.Number,
  status: PageStatus,
  /** Rendered pixels (PDF points at 72 dpi for PDFs), null when the page was never laid out. */
  width: Schema.NullOr(Schema.Number),
  height: Schema.NullOr(Schema.Number),
  /** Blocks in reading order. */
  blocks: Schema.Array(Block),
  diagnostics: Schema.optional(Schema.Array(Diagnostic))
})
export type Page = typeof Page.Type

/** Document-level facts a reader knows before (or after) the pages. */
export const DocumentInfo = Schema.Struct({
  /** Pages that will be produced (after `maxPages`). */
  numPages: Schema.optional(Schema.Number),
  /** Pages the document really has, before any cap. */
  totalPages: Schema.optional(Schema.Number),
  /** Extra metadata (title, author, subject, keywords, language, ...), merged into `metadata`. */
  metadata: Schema.Record(Schema.String, Schema.Union([Schema.String, Schema.Array(Schema.String)]))
})
export type DocumentInfo = typeof DocumentInfo.Type

/**
 * A block whose reader wrote its fragment itself (furniture, footnotes, and what is not yet
 * moved to structure), with the defaults most readers want. A block with structure is made
 * with `structuredBlock` (`markdown/BlockMarkdown.ts`), which writes `content` from it.
 */
export const makeBlock = (
  kind: BlockKind,
  content: string,
  options: Partial<Omit<Block, "kind" | "content">> = {}
): Block => ({
  kind,
  content,
  bbox: options.bbox ?? null,
  source: options.source ?? null,
  confidence: options.confidence ?? { layout: null, ocr: null },
  ...(options.label !== undefined ? { label: options.label } : {}),
  ...(options.depth !== undefined ? { depth: options.depth } : {})
})

/**
 * The block with its markdown replaced (cut, redacted): the structure fields no longer describe
 * it, so they are dropped and the new `content` stands alone.
 */
export const withContent = (block: Block, content: string): Block => ({
  kind: block.kind,
  content,
  bbox: block.bbox,
  source: block.source,
  confidence: block.confidence,
  ...(block.label !== undefined ? { label: block.label } : {}),
  ...(block.depth !== undefined ? { depth: block.depth } : {})
})
