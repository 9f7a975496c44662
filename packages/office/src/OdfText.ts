/**
 * OpenDocument text content shared by the .odt, .ods and .odp readers: automatic and common
 * styles (bold, italic, list kinds, title and heading paragraph styles), inline content of
 * paragraphs (spans, links, spaces, tabs, line breaks, notes), lists with nesting, tables with
 * spans, and frames (text boxes and image descriptions). Headings, first paragraphs of list
 * items, code, tables and chart data carry their structure; core writes their markdown.
 */
import { type CellGrid, structuredBlock, type Block, type Diagnostic } from "@strata/core"
import { isRasterPart, withImages, type ImageRef } from "./ImageRefs.ts"
import { collapseSpaces, finishParagraph, imageMarkdown, renderRuns, type Run } from "./MarkdownText.ts"
import { layoutCells } from "./TableMarkdown.ts"
import { child, childrenNamed, descendants, firstDescendant, parseXml, textOf, type XmlElement } from "./Xml.ts"

interface TextStyle {
  readonly bold?: boolean
  readonly italic?: boolean
  readonly strike?: boolean
  readonly parent?: string
  readonly displayName?: string
}

export class OdfStyles {
  private readonly text = new Map<string, TextStyle>()
  /** List style name -> ordered per level (1-based). */
  private readonly lists = new Map<string, Map<number, boolean>>()

  add(root: XmlElement | undefined): void {
    if (root === undefined) return
    for (const holder of [child(root, "automatic-styles"), child(root, "styles")]) {
      for (const style of childrenNamed(holder, "style")) {
        const props = child(style, "text-properties")
        const weight = props?.attrs["font-weight"]
        const fontStyle = props?.attrs["font-style"]
        const through = props?.attrs["text-line-through-style"]
        this.text.set(style.attrs.name ?? "", {
          ...(through !== undefined ? { strike: through !== "none" } : {}),
          ...(weight !== undefined ? { bold: weight === "bold" || Number(weight) >= 600 } : {}),
          ...(fontStyle !== undefined ? { italic: fontStyle === "italic" || fontStyle === "oblique" } : {}),
          ...(style.attrs["parent-style-name"] !== undefined ? { parent: style.attrs["parent-style-name"] } : {}),
          ...(style.attrs["display-name"] !== undefined ? { displayName: style.attrs["display-name"] } : {})
        })
      }
      for (const list of childrenNamed(holder, "list-style")) {
        const levels = new Map<number, boolean>()
        for (const level of list.children) {
          if (typeof level === "string") continue
          const n = Number(level.attrs.level ?? 1)
          if (level.name === "list-level-style-number") levels.set(n, (level.attrs["num-format"] ?? "1") !== "")
          else if (level.name === "list-level-style-bullet" || level.name === "list-level-style-image") levels.set(n, false)
        }
        this.lists.set(list.attrs.name ?? "", levels)
      }
    }
  }

  emphasis(name: string | undefined): { bold: boolean; italic: boolean; strike: boolean } {
    let bold: boolean | undefined
    let italic: boolean | undefined
    let strike: boolean | undefined
    let cur = name
    for (let i = 0; i < 10 && cur !== undefined; i++) {
      const style = this.text.get(cur)
      if (style === undefined) break
      bold ??= style.bold
      italic ??= style.italic
      strike ??= style.strike
      cur = style.parent
    }
    return { bold: bold ?? false, italic: italic ?? false, strike: strike ?? false }
  }

  /** The style name and its ancestors, lower-cased (to recognise Title, Heading, Preformatted Text). */
  names(name: string | undefined): Array<string> {
    const out: Array<string> = []
    let cur = name
    for (let i = 0; i < 10 && cur !== undefined; i++) {
      out.push(cur.toLowerCase(), (this.text.get(cur)?.displayName ?? cur).toLowerCase())
      cur = this.text.get(cur)?.parent
    }
    return out
  }

  ordered(listStyle: string | undefined, level: number): boolean {
    return listStyle === undefined ? false : (this.lists.get(listStyle)?.get(level) ?? false)
  }
}

export interface OdfContext {
  readonly styles: OdfStyles
  readonly source: string
  readonly notes: Array<{ readonly label: string; readonly text: string }>
  /** Headings move one level down when the document has a Title paragraph (it takes `#`). */
  readonly hasTitle?: boolean
  /** The content.xml of an embedded object (`./Object 1`), for charts. */
  readonly embedded?: (href: string) => string | undefined
  /** Blocks found inside a paragraph (charts) that follow it. */
  readonly after?: Array<Block>
  /** The bytes of a stored part; with it, pictures met in a paragraph are collected into `pictures`. */
  readonly partBytes?: ((part: string) => Uint8Array | undefined) | undefined
  readonly pictures?: Array<ImageRef>
  /** Where a table cut to the row limit says so; without it the cut is still made. */
  readonly diagnostics?: Array<Diagnostic>
}

/** Rows of a text table (ODT, ODP) read; a table this long is a data dump, not prose. */
export const maxTextTableRows = 10_000

/** The stored raster picture of a `draw:image`, as an OCR reference. */
export const odfPictureRef = (image: XmlElement | undefined, ctx: OdfContext): ImageRef | undefined => {
  const href = (image?.attrs.href ?? "").replace(/^\.\//, "")
  const bytes = ctx.partBytes
  if (bytes === undefined || href.length === 0 || /^[a-z][a-z0-9+.-]*:/i.test(href) || !isRasterPart(href)) return undefined
  return { part: href, load: () => bytes(href) }
}

/** The inline runs of a paragraph-like element. */
export const odfRuns = (el: XmlElement, ctx: OdfContext, inherited: { bold: boolean; italic: boolean; strike: boolean; href?: string }, out: Array<Run> = [], images: Array<string> = []): Array<Run> => {
  for (const c of el.children) {
    if (typeof c === "string") {
      out.push({ text: collapseSpaces(c), bold: inherited.bold, italic: inherited.italic, strike: inherited.strike, href: inherited.href })
      continue
    }
    switch (c.name) {
      case "span": {
        const own = ctx.styles.emphasis(c.attrs["style-name"])
        odfRuns(c, ctx, { ...inherited, bold: inherited.bold || own.bold, italic: inherited.italic || own.italic, strike: inherited.strike || own.strike }, out, images)
        break
      }
      case "a":
        odfRuns(c, ctx, { ...inherited, href: c.attrs.href }, out, images)
        break
      case "s":
        out.push({ text: " ".repeat(Math.min(100, Number(c.attrs.c ?? 1) || 1)) })
        break
      case "tab":
        out.push({ text: " " })
        break
      case "line-break":
        out.push({ text: "\n" })
        break
      case "note": {
        const body = child(c, "note-body")
        const label = String(ctx.notes.length + 1)
        ctx.notes.push({ label, text: collapseSpaces(descendants(body ?? c, "p").map(textOf).join(" ")).trim() })
        out.push({ text: `\u0002${label}\u0003` })
        break
      }
      case "frame": {
        const title = textOf(child(c, "title")) || textOf(child(c, "desc"))
        if (child(c, "image") !== undefined) {
          images.push(title.trim())
          const ref = odfPictureRef(child(c, "image"), ctx)
          if (ref !== undefined) ctx.pictures?.push(ref)
        }
        const box = child(c, "text-box")
        if (box !== undefined) out.push({ text: ` ${descendants(box, "p").map(textOf).join(" ")} ` })
        const object = child(c, "object")
        if (object !== undefined) ctx.after?.push(...embeddedObjectBlocks(object, ctx))
        break
      }
      case "bookmark":
      case "bookmark-start":
      case "bookmark-end":
      case "soft-page-break":
      case "annotation":
      case "annotation-end":
      case "sequence-decls":
        break
      default:
        odfRuns(c, ctx, inherited, out, images)
    }
  }
  return out
}

/** A paragraph's inline markdown (images by description appended). */
export const odfInline = (el: XmlElement, ctx: OdfContext): string => {
  const images: Array<string> = []
  const base = ctx.styles.emphasis(el.attrs["style-name"])
  const text = finishParagraph(renderRuns(odfRuns(el, ctx, base, [], images))).replace(/\u0002([^\u0003]*)\u0003/g, "[^$1]")
  const pictures = images.map(imageMarkdown)
  return [text, ...pictures].filter((s) => s.length > 0).join(" ")
}

/** Headings are bold by style already: `**Title**` -> `Title`. */
export const unbold = (text: string): string => (/^\*\*[^*]+\*\*$/.test(text) ? text.slice(2, -2) : text)

/** Block-level ODF content (text:p, text:h, text:list, table:table, sections) to blocks. */
export const odfBlocks = (container: XmlElement, ctx: OdfContext, out: Array<Block> = []): Array<Block> => {
  for (const c of container.children) {
    if (ctx.after !== undefined && ctx.after.length > 0) for (const block of ctx.after.splice(0)) out.push(block)
    if (typeof c === "string") continue
    const before = out.length
    odfBlock(c, ctx, out)
    // Pictures of a paragraph go with the first block it produced; those of a table or list item are not OCR'd.
    const refs = ctx.pictures?.splice(0) ?? []
    if (refs.length > 0 && out.length > before) out[before] = withImages(out[before], refs)
  }
  if (ctx.after !== undefined && ctx.after.length > 0) for (const block of ctx.after.splice(0)) out.push(block)
  return out
}

const odfBlock = (c: XmlElement, ctx: OdfContext, out: Array<Block>): void => {
  switch (c.name) {
    case "h": {
      const text = unbold(odfInline(c, ctx).replace(/\n/g, " "))
      if (text.length === 0) break
      const level = Math.min(6, Math.max(1, Number(c.attrs["outline-level"] ?? 1) || 1) + (ctx.hasTitle ? 1 : 0))
      out.push(structuredBlock("section_header", { heading: { level }, text }, { source: ctx.source }))
      break
    }
    case "p": {
      const text = odfInline(c, ctx)
      if (text.length === 0) break
      const names = ctx.styles.names(c.attrs["style-name"])
      if (names.includes("title")) out.push(structuredBlock("title", { heading: { level: 1 }, text: unbold(text.replace(/\n/g, " ")) }, { source: ctx.source }))
      else if (names.some((n) => n.startsWith("preformatted"))) out.push(structuredBlock("code", { code: { language: null }, text: textOf(c) }, { source: ctx.source }))
      else out.push(structuredBlock("text", { text: text.replace(/\n/g, "  \n") }, { source: ctx.source }))
      break
    }
    case "list":
      odfList(c, ctx, 0, c.attrs["style-name"], out)
      break
    case "table":
      pushTable(c, ctx, out)
      break
    case "section":
    case "index-body":
    case "table-of-content":
    case "alphabetical-index":
    case "illustration-index":
    case "text-box":
      odfBlocks(c, ctx, out)
      break
    default:
      break
  }
}

/** An embedded chart object: its title and kind as a caption, its local data table as a table. */
export const embeddedObjectBlocks = (object: XmlElement, ctx: OdfContext): Array<Block> => {
  const href = (object.attrs.href ?? "").replace(/^\.\//, "").replace(/\/$/, "")
  const xml = href.length === 0 ? undefined : ctx.embedded?.(href)
  if (xml === undefined) return []
  // office:body/office:chart/chart:chart: both are named "chart".
  const outer = firstDescendant(parseXml(xml), "chart")
  const chart = child(outer, "chart") ?? outer
  if (chart === undefined) return []
  const blocks: Array<Block> = []
  const title = textOf(child(chart, "title")).trim()
  const kind = (chart.attrs.class ?? "").replace(/^chart:/, "")
  const caption = [title, kind.length > 0 ? `${kind.charAt(0).toUpperCase()}${kind.slice(1)} chart` : ""].filter((s) => s.length > 0).join(" — ")
  if (caption.length > 0) blocks.push(structuredBlock("caption", { text: caption }, { source: ctx.source }))
  const table = firstDescendant(chart, "table")
  if (table !== undefined) {
    const block = structuredBlock("table", { table: { ...odfTable(table, { ...ctx, after: undefined }), headerRows: 1 } }, { source: ctx.source, label: "chart_data" })
    if (block.content.length > 0) blocks.push(block)
  }
  return blocks
}

const odfList = (list: XmlElement, ctx: OdfContext, depth: number, style: string | undefined, out: Array<Block>): void => {
  const listStyle = list.attrs["style-name"] ?? style
  const ordered = ctx.styles.ordered(listStyle, depth + 1)
  let n = Number(list.attrs["start-value"] ?? 0) || 0
  for (const item of list.children) {
    if (typeof item === "string" || (item.name !== "list-item" && item.name !== "list-header")) continue
    n = Number(item.attrs["start-value"] ?? 0) || n + 1
    let first = true
    for (const part of item.children) {
      if (typeof part === "string") continue
      if (part.name === "list") odfList(part, ctx, depth + 1, listStyle, out)
      else if (part.name === "p" || part.name === "h") {
        const text = odfInline(part, ctx)
        if (text.length === 0) continue
        // Three spaces per level nest under both "- " and "1. " parents; a further paragraph of the
        // item is a paragraph (kind text) that continues it, written under the item's text.
        const list = { depth, ordinal: ordered ? n : null, indent: 3 * depth }
        out.push(first
          ? structuredBlock("list_item", { list, text }, { source: ctx.source })
          : structuredBlock("text", { list: { ...list, continues: true }, text }, { source: ctx.source }))
        first = false
      } else if (part.name === "table") pushTable(part, ctx, out)
    }
  }
}

const pushTable = (table: XmlElement, ctx: OdfContext, out: Array<Block>): void => {
  const block = structuredBlock("table", { table: { ...odfTable(table, ctx), headerRows: 1 } }, { source: ctx.source })
  if (block.content.length > 0) out.push(block)
}

/**
 * Rows of a table, header-rows and row-groups unwrapped, repeats expanded up to `maxRows`.
 * `height` counts on past the limit to the last row holding text (repeated empty rows pad
 * sheets to a million rows; they are not data), so a cut can say what it dropped.
 */
export const tableRows = (table: XmlElement, maxRows: number): { readonly rows: Array<XmlElement>; readonly height: number } => {
  const rows: Array<XmlElement> = []
  let index = 0
  let height = 0
  const walk = (el: XmlElement): void => {
    for (const c of el.children) {
      if (typeof c === "string") continue
      if (c.name === "table-row") {
        const repeat = Math.max(1, Number(c.attrs["number-rows-repeated"] ?? 1) || 1)
        for (let i = 0; i < Math.min(repeat, maxRows - rows.length); i++) rows.push(c)
        index += repeat
        if (index > height && (index <= maxRows || textOf(c).trim().length > 0)) height = index
      } else if (c.name === "table-header-rows" || c.name === "table-rows" || c.name === "table-row-group") walk(c)
    }
  }
  walk(table)
  return { rows, height }
}

const odfTable = (table: XmlElement, ctx: OdfContext): CellGrid => {
  const { rows, height } = tableRows(table, maxTextTableRows)
  if (height > maxTextTableRows) {
    ctx.diagnostics?.push({
      severity: "warning",
      code: "table_truncated",
      message: `a table of ${height.toLocaleString("en-US")} rows was cut to its first ${maxTextTableRows.toLocaleString("en-US")} rows; ${(height - maxTextTableRows).toLocaleString("en-US")} rows dropped`
    })
  }
  const cells: Array<{ row: number; col: number; text: string; colSpan: number; rowSpan: number }> = []
  rows.forEach((row, r) => {
    let col = 0
    for (const cell of row.children) {
      if (typeof cell === "string") continue
      if (cell.name === "covered-table-cell") {
        col += Math.min(Number(cell.attrs["number-columns-repeated"] ?? 1) || 1, 1000)
        continue
      }
      if (cell.name !== "table-cell") continue
      const repeat = Math.min(Number(cell.attrs["number-columns-repeated"] ?? 1) || 1, 1000)
      const inner = odfBlocks(cell, ctx)
      // A lone list item in a cell (presentation tables wrap cell text in lists) is just text.
      const text = inner.length === 1 && inner[0].kind === "list_item" ? inner[0].content.replace(/^\s*(?:-|\d+\.)\s+/, "") : inner.map((b) => b.content).join("\n")
      for (let i = 0; i < repeat; i++) {
        if (text.length > 0 || i === 0) cells.push({ row: r, col, text, colSpan: Math.max(1, Number(cell.attrs["number-columns-spanned"] ?? 1) || 1), rowSpan: Math.max(1, Number(cell.attrs["number-rows-spanned"] ?? 1) || 1) })
        col++
      }
    }
  })
  return layoutCells(cells, rows.length)
}
