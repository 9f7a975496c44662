/**
 * What the layout stages work on: a page's elements in page coordinates (points, origin top-left,
 * y down), as a reader finds them (pdf.js's operator list, or OCR words turned into runs), and
 * the blocks the layout stage groups them into. Plain data, so that every stage after the reader
 * is a swappable service (Layout, Tables, ReadingOrder) and a learned model can fill the same
 * shapes the heuristics fill.
 */
import type { BlockKind, Diagnostic } from "../Document.ts"

/** Where a piece of text sits and how it is set: what runs and the lines made of them share. */
export interface TextBox {
  readonly x0: number
  readonly x1: number
  readonly top: number
  readonly bottom: number
  readonly baseline: number
  /** Font size (of most of the characters, for a line). */
  readonly size: number
  readonly bold: boolean
  readonly italic: boolean
  readonly mono: boolean
  /** Math fonts (CMMI, CMSY, ...): a hint for formulas. */
  readonly math: boolean
  /** Text that does not run left to right along the page (vertical stamps, rotated labels). */
  readonly rotated: boolean
  readonly rtl: boolean
}

/** A run of text in one font. */
export interface TextRun extends TextBox {
  readonly text: string
  /** Set in a symbol font (dingbats): a lone glyph opening a line is a bullet. */
  readonly symbol: boolean
  /** The font's PostScript name without its subset prefix ("CMMI10"): math is found by it (MathRegions.ts in pdf). */
  readonly font?: string | undefined
  /** Recognition confidence 0..1 of OCR'd text; absent for a native text layer. */
  readonly confidence?: number | undefined
}

/** An axis-aligned rule: `horizontal` ones have y0 == y1 (their centre line), vertical ones x0 == x1. */
export interface Rule {
  readonly horizontal: boolean
  readonly x0: number
  readonly y0: number
  readonly x1: number
  readonly y1: number
  /** A side of a filled area (a shaded cell or band), not a line drawn as one: it parts rows or columns, but two cells of one shade show no border between them. */
  readonly edge?: boolean | undefined
}

/** Where an image is painted, in page space; pixels are never decoded. */
export interface ImageBox {
  readonly x0: number
  readonly top: number
  readonly x1: number
  readonly bottom: number
}

/** The box of one painted (stroked or filled) path, in page space: the stuff of charts and diagrams. */
export interface DrawingBox {
  readonly x0: number
  readonly top: number
  readonly x1: number
  readonly bottom: number
}

/** Everything the layout stages know about one page. */
export interface PageElements {
  readonly pageNumber: number
  readonly width: number
  readonly height: number
  readonly runs: ReadonlyArray<TextRun>
  readonly rules: ReadonlyArray<Rule>
  readonly images: ReadonlyArray<ImageBox>
  readonly drawings: ReadonlyArray<DrawingBox>
  /** Characters the reader could not map to Unicode (U+FFFD): many of them mean the text layer is unusable. */
  readonly unmapped: number
  /** True when the graphics could not be read (the page is then `partial`). */
  readonly graphicsFailed: boolean
  /** Where the text came from: the native text layer, or OCR of the rendered page. */
  readonly textSource?: "native_text" | "layout_ocr" | undefined
  /**
   * Regions whose words are drawn as vector outlines, with no text layer over them: OCR reads them
   * in `auto`. `rows` are their lines and `glyphs` their letters, as the reader counted them.
   */
  readonly outlined?: ReadonlyArray<DrawingBox & { readonly rows?: number; readonly glyphs?: number }> | undefined
  /** What the reader noticed about the page (OCR applied or skipped, ...): carried onto the page. */
  readonly diagnostics?: ReadonlyArray<Diagnostic> | undefined
}

/** A line fragment: runs sharing a baseline, cut at wide gaps. The unit the layout stages group. */
export interface Line extends TextBox {
  readonly runs: ReadonlyArray<TextRun>
  readonly text: string
  /** Index of the row the fragment was cut from: fragments of one row share it. */
  readonly row: number
}

export interface TableCell {
  readonly row: number
  readonly col: number
  readonly rowSpan: number
  readonly colSpan: number
  readonly text: string
}

/** A table as rows and columns of cells with spans. */
export interface TableGrid {
  readonly rows: number
  readonly cols: number
  /** Cells in row-major order; a spanning cell appears once, at its top-left slot. */
  readonly cells: ReadonlyArray<TableCell>
}

/** A region of lines with a kind: what the Layout stage gives the later stages. */
export interface LayoutBlock {
  kind: BlockKind
  lines: Array<Line>
  x0: number
  x1: number
  top: number
  bottom: number
  /** Dominant font size. */
  size: number
  /** Heading level 1..6 (for `title` and `section_header`). */
  level?: number
  /** List nesting depth (for `list_item`). */
  depth?: number
  /** Spaces before a list item's marker, so that nested items nest in markdown. */
  indent?: number
  /** The cells of a `table` block. */
  table?: TableGrid
  /** A `table` block whose rows and columns were drawn as rules: no picture's labels, whatever is drawn around it. */
  ruled?: boolean
  /** A `formula` block's LaTeX, when the math pass rebuilt it from the glyphs (`source: formula_glyphs`). */
  latex?: string
  /** The layout model's own label and its confidence, when a model labelled the block. */
  label?: string
  confidence?: number
}

/** One page after the page-local layout pass: blocks with provisional kinds, before reading order. */
export interface LayoutPage {
  readonly pageNumber: number
  readonly width: number
  readonly height: number
  blocks: Array<LayoutBlock>
  readonly status: "ok" | "partial" | "failed"
  readonly diagnostics: Array<Diagnostic>
  /** Most lines run right to left. */
  readonly rtl: boolean
  /** Characters of text on the page (0 means no text layer). */
  readonly chars: number
  readonly textSource: "native_text" | "layout_ocr"
  /** Boxes drawn around or under text (sidebars, boxed notes): reading order reads each as one unit. */
  readonly panels?: ReadonlyArray<DrawingBox> | undefined
}
