/**
 * The OpenDocument readers: text (.odt, one page), spreadsheets (.ods, one page per sheet,
 * displayed cell text, spans, repeated rows and columns expanded only where they hold data)
 * and presentations (.odp, one page per slide, frames by position, title frames as headings,
 * speaker notes marked as such). Styles come from styles.xml and the automatic styles of
 * content.xml; properties from meta.xml.
 */
import { structuredBlock, type Block, type Diagnostic, type DocumentInfo, ZipArchive } from "@strata/core"
import { corrupt } from "./Failure.ts"
import { imageInfo } from "./MarkdownText.ts"
import { readProperties } from "./OfficeMetadata.ts"
import { withImages } from "./ImageRefs.ts"
import { embeddedObjectBlocks, odfBlocks, odfInline, odfPictureRef, OdfStyles, tableRows, type OdfContext } from "./OdfText.ts"
import { page, type ParsedDocument } from "./ReaderKit.ts"
import { sheetBlocks, type CellRange } from "./SheetBlocks.ts"
import { CellBudget, maxSheetColumns, maxSheetRows, sheetCuts } from "./SheetLimits.ts"
import { child, childrenNamed, descendants, parseXml, textOf, type XmlElement } from "./Xml.ts"

const openOdf = (bytes: Uint8Array, format: string) => {
  const zip = new ZipArchive(bytes, format)
  const content = zip.text("content.xml")
  if (content === undefined) throw corrupt(format, "no content.xml")
  const root = parseXml(content)
  const styles = new OdfStyles()
  const stylesXml = zip.text("styles.xml")
  if (stylesXml !== undefined) styles.add(parseXml(stylesXml))
  styles.add(root)
  const info: DocumentInfo = { metadata: readProperties(zip.text("meta.xml")) }
  const body = child(root, "body")
  const embedded = (href: string) => zip.text(`${href}/content.xml`)
  const partBytes = (part: string) => zip.read(part)
  return { styles, info, body, embedded, partBytes }
}

const notesBlocks = (ctx: OdfContext): Array<Block> =>
  ctx.notes.map(({ label, text }) => structuredBlock("footnote", { note: { label }, text }, { source: ctx.source }))

export const readOdt = (bytes: Uint8Array, format: string): ParsedDocument => {
  const { styles, info, body, embedded, partBytes } = openOdf(bytes, format)
  const text = child(body, "text")
  if (text === undefined) throw corrupt(format, "content.xml has no office:text body")
  return {
    info,
    pages: [() => {
      const hasTitle = descendants(text, "p").some((p) => styles.names(p.attrs["style-name"]).includes("title"))
      const diagnostics: Array<Diagnostic> = []
      const ctx: OdfContext = { styles, source: "odt", notes: [], hasTitle, embedded, after: [], partBytes, pictures: [], diagnostics }
      const blocks = odfBlocks(text, ctx)
      return page(1, [...blocks, ...notesBlocks(ctx)], diagnostics.length > 0 ? { diagnostics } : {})
    }]
  }
}

export const readOds = (bytes: Uint8Array, format: string): ParsedDocument => {
  const { styles, info, body } = openOdf(bytes, format)
  const sheet = child(body, "spreadsheet")
  if (sheet === undefined) throw corrupt(format, "content.xml has no office:spreadsheet body")
  const tables = childrenNamed(sheet, "table")
  const budget = new CellBudget(format)
  return {
    info,
    pages: tables.map((table, index) => () => {
      const name = table.attrs.name ?? `Sheet${index + 1}`
      const countCell = budget.forSheet(name)
      const ctx: OdfContext = { styles, source: "ods", notes: [] }
      const rows: Array<Array<string | undefined>> = []
      const merges: Array<CellRange> = []
      // The columns the data reaches, those past the limit included, for the warning that says what was cut.
      let width = 0
      const read = tableRows(table, maxSheetRows)
      read.rows.forEach((row, r) => {
        let col = 0
        for (const cell of row.children) {
          if (typeof cell === "string" || (cell.name !== "table-cell" && cell.name !== "covered-table-cell")) continue
          const repeat = Number(cell.attrs["number-columns-repeated"] ?? 1) || 1
          const past = col >= maxSheetColumns
          const text = cell.name !== "table-cell" ? "" : past ? textOf(cell).trim() : childrenNamed(cell, "p").map((p) => odfInline(p, ctx)).join("\n")
          if (text.length > 0) {
            width = Math.max(width, col + repeat)
            // Repeats of an empty cell are padding (often to column 1024); only data is materialised.
            for (let i = 0; i < Math.min(repeat, maxSheetColumns - col); i++) {
              countCell()
              ;(rows[r] ??= [])[col + i] = text
            }
            const colSpan = Number(cell.attrs["number-columns-spanned"] ?? 1) || 1
            const rowSpan = Number(cell.attrs["number-rows-spanned"] ?? 1) || 1
            if (!past && (colSpan > 1 || rowSpan > 1)) merges.push({ r0: r, c0: col, r1: r + rowSpan - 1, c1: col + colSpan - 1 })
          }
          col += repeat
        }
      })
      const diagnostics = sheetCuts(name, read.height, width)
      const blocks = sheetBlocks({ name, rows, merges }, "ods", diagnostics)
      return page(index + 1, blocks, diagnostics.length > 0 ? { diagnostics } : {})
    })
  }
}

/** "2.5cm", "1in", "72pt" -> centimetres (only relative order matters). */
const length = (value: string | undefined): number | undefined => {
  if (value === undefined) return undefined
  const m = /^(-?[\d.]+)\s*(cm|mm|in|pt|pc|px)?$/.exec(value.trim())
  if (m === null) return undefined
  const n = Number(m[1])
  const unit = m[2] ?? "cm"
  return unit === "mm" ? n / 10 : unit === "in" ? n * 2.54 : unit === "pt" ? n / 28.35 : unit === "pc" ? n / 2.36 : unit === "px" ? n / 37.8 : n
}

export const readOdp = (bytes: Uint8Array, format: string): ParsedDocument => {
  const { styles, info, body, embedded, partBytes } = openOdf(bytes, format)
  const presentation = child(body, "presentation")
  if (presentation === undefined) throw corrupt(format, "content.xml has no office:presentation body")
  const slides = childrenNamed(presentation, "page")
  return {
    info,
    pages: slides.map((slide, index) => () => {
      const diagnostics: Array<Diagnostic> = []
      const ctx: OdfContext = { styles, source: "odp", notes: [], embedded, after: [], diagnostics }
      const titles: Array<Block> = []
      const items: Array<{ x: number; y: number; h: number; order: number; blocks: Array<Block> }> = []
      const shapes = slide.children.filter((c): c is XmlElement => typeof c !== "string" && c.name !== "notes" && c.name !== "forms")
      const visit = (shape: XmlElement, order: number): void => {
        if (shape.name === "g") {
          for (const c of shape.children) if (typeof c !== "string") visit(c, order)
          return
        }
        const cls = shape.attrs.class
        if (cls === "title") {
          const text = descendants(shape, "p").map((p) => odfInline(p, ctx)).join(" ").trim()
          if (text.length > 0) titles.push(structuredBlock("section_header", { heading: { level: 2 }, text }, { source: "odp" }))
          return
        }
        if (cls === "page-number" || cls === "footer" || cls === "date-time" || cls === "header") return
        const holder = child(shape, "text-box") ?? (shape.name === "custom-shape" || shape.name === "rect" ? shape : undefined)
        const table = child(shape, "table")
        let blocks: Array<Block> = []
        const object = child(shape, "object")
        if (table !== undefined) blocks = odfBlocks({ ...shape, children: [table] }, ctx)
        else if (object !== undefined) blocks = embeddedObjectBlocks(object, ctx)
        else if (holder !== undefined) blocks = odfBlocks(holder, ctx)
        else if (child(shape, "image") !== undefined) {
          const alt = (textOf(child(shape, "title")) || textOf(child(shape, "desc"))).trim()
          const ref = odfPictureRef(child(shape, "image"), { ...ctx, partBytes })
          const figure = structuredBlock("figure", { image: imageInfo(alt) }, { source: "odp" })
          blocks = [ref === undefined ? figure : withImages(figure, [ref])]
        }
        if (cls === "subtitle") blocks = blocks.map((b) => ({ ...b, kind: "text" as const }))
        if (blocks.length === 0) return
        items.push({ x: length(shape.attrs.x) ?? 0, y: length(shape.attrs.y) ?? 0, h: length(shape.attrs.height) ?? 0, order, blocks })
      }
      shapes.forEach((shape, order) => visit(shape, order))
      items.sort((a, b) => a.y - b.y || a.x - b.x || a.order - b.order)
      const blocks = [...titles, ...items.flatMap((i) => i.blocks), ...notesBlocks(ctx)]
      const notes = child(slide, "notes")
      if (notes !== undefined) {
        const texts = descendants(notes, "frame")
          .filter((f) => f.attrs.class === "notes")
          .flatMap((f) => descendants(f, "p").map((p) => odfInline(p, ctx)))
          .filter((t) => t.length > 0)
        if (texts.length > 0) blocks.push(structuredBlock("text", { text: `**Notes:**\n${texts.join("\n")}`, quote: true }, { source: "odp", label: "speaker_notes" }))
      }
      return page(index + 1, blocks, diagnostics.length > 0 ? { diagnostics } : {})
    })
  }
}
