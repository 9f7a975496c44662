/**
 * WordprocessingML body to blocks: paragraphs (headings from styles and outline levels, lists
 * from numbering with nesting and counters, code and quote styles), runs (bold, italic,
 * strike, hyperlinks, fields), tables (gridSpan/vMerge spans), text boxes, images by alt text,
 * and footnote/endnote references. Headers and footers are read by the caller as furniture.
 * Blocks say what they are (heading level, list depth and number, code, display formula, table
 * grid, quote); core writes their markdown. Only inline markdown (emphasis, links, hard breaks,
 * inline images) is written here.
 */
import { structuredBlock, type Block } from "@strata/core"
import { chartBlocks } from "./Charts.ts"
import { boolAttr, DocxStyles, DocxNumbering, formatCounter } from "./DocxStyles.ts"
import { ommlToLatex } from "./OmmlLatex.ts"
import { collapseSpaces, finishParagraph, imageMarkdown, renderRuns, type Run } from "./MarkdownText.ts"
import { wordTable } from "./DocxTable.ts"
import { imagesOf, isRasterPart, withImages, type ImageRef } from "./ImageRefs.ts"
import { child, descendants, relationshipId, firstDescendant, textOf, type Relationship, type XmlElement } from "./Xml.ts"

export interface DocxContext {
  readonly styles: DocxStyles
  readonly numbering: DocxNumbering
  readonly rels: Map<string, Relationship>
  /** Note id -> its markdown label, assigned in order of first reference. */
  readonly noteLabels: Map<string, string>
  readonly noteOrder: Array<{ kind: "footnote" | "endnote"; id: string; label: string }>
  readonly hasTitle: boolean
  /** The XML of a chart part, for charts drawn in the document. */
  readonly chartXml: (part: string) => string | undefined
  /** The bytes of a stored part (pictures, for OCR); none: pictures are not referenced. */
  readonly partBytes?: ((part: string) => Uint8Array | undefined) | undefined
  /** The page area in square EMU (from the section's page size), to judge how much of it a picture covers. */
  readonly pageAreaEmu?: number | undefined
}

interface RunStyle {
  readonly bold: boolean
  readonly italic: boolean
  readonly strike: boolean
  readonly code: boolean
  readonly href: string | undefined
}

interface Field {
  instr: string
  phase: "instr" | "result"
}

interface ParagraphContent {
  runs: Array<Run>
  images: Array<string>
  boxes: Array<XmlElement>
  /** Chart parts anchored in the paragraph. */
  charts: Array<string>
}

const source = "docx"

const monoFonts = /courier|consolas|mono|menlo|monaco|inconsolata|lucida console/i

export class DocxBody {
  private readonly blocks: Array<Block> = []
  private readonly counters = new Map<string, Array<number>>()
  private listWidths: Array<number> = []
  private codeLines: Array<string> | undefined
  /** Pictures met in the paragraph being converted, attached to its block when it is pushed. */
  private pictures: Array<ImageRef> = []

  private readonly ctx: DocxContext

  constructor(ctx: DocxContext) {
    this.ctx = ctx
  }

  /** Converts the children of a body-like element (body, text box, note) and returns the blocks. */
  convert(container: XmlElement): Array<Block> {
    this.walk(container)
    this.flushCode()
    return this.blocks
  }

  private walk(container: XmlElement): void {
    for (const node of container.children) {
      if (typeof node === "string") continue
      switch (node.name) {
        case "p":
          this.paragraph(node)
          break
        case "tbl":
          this.flushCode()
          this.table(node)
          break
        case "sdt":
          this.walk(child(node, "sdtContent") ?? node)
          break
        case "customXml":
        case "ins":
        case "moveTo":
        case "smartTag":
        case "sdtContent":
          this.walk(node)
          break
        case "AlternateContent":
          this.walk(child(node, "Choice") ?? child(node, "Fallback") ?? node)
          break
        default:
          break
      }
    }
  }

  private push(block: Block): void {
    this.blocks.push(block)
  }

  private flushCode(): void {
    if (this.codeLines === undefined) return
    this.push(structuredBlock("code", { code: { language: null }, text: this.codeLines.join("\n") }, { source }))
    this.codeLines = undefined
  }

  private paragraph(p: XmlElement): void {
    const before = this.blocks.length
    const outer = this.pictures
    this.pictures = []
    this.paragraphBlocks(p)
    const refs = this.pictures
    this.pictures = outer
    if (refs.length === 0) return
    // The paragraph's own block is the first one it pushed (text boxes and charts follow it).
    if (this.blocks.length > before) this.blocks[before] = withImages(this.blocks[before], refs)
    else this.push(withImages(structuredBlock("figure", { image: { src: "", alt: "" } }, { source }), refs))
  }

  private paragraphBlocks(p: XmlElement): void {
    const pPr = child(p, "pPr")
    const styleId = child(pPr, "pStyle")?.attrs.val
    const role = this.ctx.styles.role(styleId)
    const content: ParagraphContent = { runs: [], images: [], boxes: [], charts: [] }
    const base = this.ctx.styles.emphasis(styleId)
    this.inline(p, { bold: base.bold, italic: base.italic, strike: false, code: false, href: undefined }, content, [])
    const outline = child(pPr, "outlineLvl")?.attrs.val
    let heading = role.heading
    if (heading === undefined && outline !== undefined && Number(outline) < 9) heading = Number(outline) + 1

    if (role.code || (content.runs.length > 0 && content.runs.every((r) => r.code || r.text.trim() === ""))) {
      const text = content.runs.map((r) => r.text).join("")
      if (role.code || text.trim().length > 0) {
        this.codeLines ??= []
        this.codeLines.push(text.replace(/\s+$/, ""))
        this.afterParagraph(content)
        return
      }
    }
    this.flushCode()

    const plainRuns = heading !== undefined ? content.runs.map((r) => ({ ...r, bold: false })) : content.runs
    const rendered = restoreNoteMarkers(finishParagraph(renderRuns(plainRuns.map((r) => ({ ...r, text: r.code ? r.text : collapseSpaces(r.text).replace(/\u0001/g, "\n") })))))
    // Display equations (m:oMathPara) are formula blocks of their own, between the paragraph's text parts.
    const parts = rendered.split(/\u0004([^\u0005]*)\u0005/)
    const inline = parts[0].trim()
    const formulas: Array<Block> = []
    for (let k = 1; k < parts.length; k += 2) {
      formulas.push(structuredBlock("formula", { formula: { source: parts[k], notation: "latex", display: true } }, { source }))
      const after = finishParagraph(parts[k + 1] ?? "")
      if (after.length > 0) formulas.push(structuredBlock("text", { text: after }, { source }))
    }
    const images = content.images.map(imageMarkdown).join(" ")
    const text = [inline, images].filter((s) => s.length > 0).join(" ")

    const numPr = child(pPr, "numPr")
    let num: { numId: string; level: number } | undefined
    if (numPr !== undefined) {
      const numId = child(numPr, "numId")?.attrs.val
      const ilvl = Number(child(numPr, "ilvl")?.attrs.val ?? 0)
      num = numId === undefined || numId === "0" ? undefined : { numId, level: Number.isFinite(ilvl) ? Math.min(Math.max(ilvl, 0), 8) : 0 }
      if (numId === undefined) num = this.ctx.styles.numbering(styleId) === undefined ? undefined : { ...this.ctx.styles.numbering(styleId)!, level: ilvl }
    } else num = this.ctx.styles.numbering(styleId)

    if (text.length === 0) {
      for (const block of formulas) this.push(block)
      this.afterParagraph(content)
      return
    }
    if (heading !== undefined) {
      this.listWidths = []
      const level = heading === 0 ? 1 : Math.min(6, heading + (this.ctx.hasTitle ? 1 : 0))
      // Numbered headings ("1.2 Scope") keep the number Word shows.
      const label = num === undefined ? "" : this.numberLabel(num.numId, num.level)
      this.push(structuredBlock(heading === 0 ? "title" : "section_header", { heading: { level }, text: `${label.length > 0 ? `${label} ` : ""}${text}` }, { source }))
    } else if (/^[\u2610\u2611\u2612]\s/.test(text)) {
      // A checkbox content control at the start of a paragraph: a GFM task list item.
      this.push(structuredBlock("list_item", { list: { depth: 0, ordinal: null, checked: !text.startsWith("\u2610"), indent: 0 }, text: text.slice(1).trim() }, { source }))
    } else if (num !== undefined) {
      this.listItem(num.numId, num.level, text)
    } else {
      this.listWidths = []
      this.push(structuredBlock("text", role.quote ? { text, quote: true } : { text: text.replace(/\n/g, "  \n") }, { source }))
    }
    for (const block of formulas) this.push(block)
    this.afterParagraph(content)
  }

  /** Notes the stored raster picture of a drawing (DrawingML blip or VML imagedata) for OCR. */
  private pictureRef(drawing: XmlElement): void {
    const bytes = this.ctx.partBytes
    if (bytes === undefined) return
    const blip = firstDescendant(drawing, "blip") ?? firstDescendant(drawing, "imagedata")
    const id = blip?.attrs["r:embed"] ?? blip?.attrs.embed ?? relationshipId(blip)
    const rel = id === undefined ? undefined : this.ctx.rels.get(id)
    if (rel === undefined || rel.external || !isRasterPart(rel.target)) return
    const extent = firstDescendant(drawing, "extent")
    const area = (Number(extent?.attrs.cx) || 0) * (Number(extent?.attrs.cy) || 0)
    const page = this.ctx.pageAreaEmu
    const coverage = area > 0 && page !== undefined && page > 0 ? Math.min(1, area / page) : undefined
    this.pictures.push({ part: rel.target, load: () => bytes(rel.target), coverage })
  }

  /** Text boxes anchored in a paragraph follow it, in order. */
  private afterParagraph(content: ParagraphContent): void {
    for (const box of content.boxes) this.walk(box)
    for (const part of content.charts) {
      const xml = this.ctx.chartXml(part)
      if (xml !== undefined) for (const block of chartBlocks(xml, source)) this.push(block)
    }
  }

  /** Advances the counters of a numbering at a level and returns them (a new item restarts every deeper level). */
  private advance(numId: string, level: number): Array<number> {
    const def = this.ctx.numbering.level(numId, level)
    const key = this.ctx.numbering.counterKey(numId)
    const counts = this.counters.get(key) ?? []
    this.counters.set(key, counts)
    counts.length = Math.min(counts.length, level + 1)
    for (let l = 0; l <= level; l++) counts[l] ??= l === level ? (def?.start ?? 1) - 1 : this.ctx.numbering.level(numId, l)?.start ?? 1
    counts[level] += 1
    return counts
  }

  /** The label Word shows for a numbered paragraph: the level's text with `%n` replaced ("1.2", "A)"); "" for bullets. */
  private numberLabel(numId: string, level: number): string {
    const def = this.ctx.numbering.level(numId, level)
    if (def === undefined || !def.ordered) return ""
    const counts = this.advance(numId, level)
    return def.text.replace(/%([1-9])/g, (_, n: string) => formatCounter(counts[Number(n) - 1] ?? 1, this.ctx.numbering.level(numId, Number(n) - 1)?.format ?? "decimal")).trim()
  }

  private listItem(numId: string, level: number, text: string): void {
    const ordered = this.ctx.numbering.level(numId, level)?.ordered ?? false
    const counts = this.advance(numId, level)
    const ordinal = ordered ? counts[level] : null
    // An item nests under its parent's text: its indent is the width of the parents' markers ("1. " is 3, "- " is 2).
    this.listWidths.length = Math.min(this.listWidths.length, level)
    while (this.listWidths.length < level) this.listWidths.push(2)
    const indent = this.listWidths.reduce((a, b) => a + b, 0)
    this.listWidths.push(ordinal === null ? 2 : `${ordinal}.`.length + 1)
    this.push(structuredBlock("list_item", { list: { depth: level, ordinal, indent }, text }, { source }))
  }

  // ---- runs ------------------------------------------------------------------------------------

  private inline(node: XmlElement, style: RunStyle, out: ParagraphContent, fields: Array<Field>): void {
    for (const c of node.children) {
      if (typeof c === "string") continue
      switch (c.name) {
        case "r":
          this.run(c, style, out, fields)
          break
        case "hyperlink": {
          const id = relationshipId(c)
          const rel = id !== undefined ? this.ctx.rels.get(id) : undefined
          const href = rel?.target ?? (c.attrs.anchor !== undefined ? `#${c.attrs.anchor}` : undefined)
          this.inline(c, { ...style, href }, out, fields)
          break
        }
        case "fldSimple": {
          const href = hyperlinkOf(c.attrs.instr ?? "")
          this.inline(c, href === undefined ? style : { ...style, href }, out, fields)
          break
        }
        case "ins":
        case "moveTo":
        case "smartTag":
        case "customXml":
        case "dir":
        case "bdo":
        case "sdtContent":
          this.inline(c, style, out, fields)
          break
        case "sdt":
          this.inline(child(c, "sdtContent") ?? c, style, out, fields)
          break
        case "oMath":
        case "oMathPara": {
          // Kept away from escaping with sentinels, like note markers; a display equation is marked for its own block.
          const latex = ommlToLatex(c)
          if (latex.length > 0) out.runs.push({ text: c.name === "oMathPara" ? `\u0004${latex}\u0005` : `$${latex}$`, raw: true })
          break
        }
        case "AlternateContent":
          this.inline(child(c, "Choice") ?? child(c, "Fallback") ?? c, style, out, fields)
          break
        default:
          break
      }
    }
  }

  private run(r: XmlElement, outer: RunStyle, out: ParagraphContent, fields: Array<Field>): void {
    const rPr = child(r, "rPr")
    const charStyle = this.ctx.styles.emphasis(child(rPr, "rStyle")?.attrs.val)
    const bold = boolAttr(child(rPr, "b")) ?? (charStyle.bold || outer.bold)
    const italic = boolAttr(child(rPr, "i")) ?? (charStyle.italic || outer.italic)
    const strike = boolAttr(child(rPr, "strike")) ?? boolAttr(child(rPr, "dstrike")) ?? outer.strike
    const font = child(rPr, "rFonts")?.attrs.ascii ?? ""
    const vanish = boolAttr(child(rPr, "vanish")) ?? false
    if (vanish) return
    const field = fields[fields.length - 1]
    const inResult = field?.phase === "result"
    const href = outer.href ?? (inResult ? hyperlinkOf(fields.map((f) => f.instr).join(" ")) : undefined)
    const style: Run = { text: "", bold, italic, strike, code: monoFonts.test(font) || outer.code, href }
    for (const c of r.children) {
      if (typeof c === "string") continue
      switch (c.name) {
        case "fldChar": {
          const type = c.attrs.fldCharType
          if (type === "begin") fields.push({ instr: "", phase: "instr" })
          else if (type === "separate" && fields.length > 0) fields[fields.length - 1].phase = "result"
          else if (type === "end") fields.pop()
          break
        }
        case "instrText":
          if (fields.length > 0) fields[fields.length - 1].instr += textOf(c)
          break
        default:
          if (fields.length > 0 && fields[fields.length - 1].phase === "instr") break
          this.runChild(c, style, out)
      }
    }
  }

  private runChild(c: XmlElement, style: Run, out: ParagraphContent): void {
    switch (c.name) {
      case "t":
        out.runs.push({ ...style, text: textOf(c) })
        break
      case "tab":
      case "ptab":
        out.runs.push({ ...style, text: " " })
        break
      case "br":
      case "cr":
        if (c.attrs.type !== "page" && c.attrs.type !== "column") out.runs.push({ ...style, text: "\u0001" })
        break
      case "noBreakHyphen":
        out.runs.push({ ...style, text: "-" })
        break
      case "sym": {
        const code = parseInt(c.attrs.char ?? "", 16)
        // Symbol-font glyphs live in the private use area (F0xx); only real characters are kept.
        if (Number.isFinite(code) && code < 0xe000) out.runs.push({ ...style, text: String.fromCodePoint(code) })
        break
      }
      case "footnoteReference":
      case "endnoteReference": {
        const kind = c.name === "footnoteReference" ? "footnote" : "endnote"
        const id = c.attrs.id ?? ""
        const key = `${kind}:${id}`
        let label = this.ctx.noteLabels.get(key)
        if (label === undefined) {
          label = String(this.ctx.noteOrder.length + 1)
          this.ctx.noteLabels.set(key, label)
          this.ctx.noteOrder.push({ kind, id, label })
        }
        // Sentinels keep the marker away from escaping; restoreNoteMarkers writes `[^label]`.
        out.runs.push({ text: `\u0002${label}\u0003` })
        break
      }
      case "drawing":
      case "pict":
      case "object": {
        const doc = firstDescendant(c, "docPr")
        const alt = doc?.attrs.descr || doc?.attrs.title || firstDescendant(c, "imagedata")?.attrs.title || ""
        const hasPicture = firstDescendant(c, "blip") !== undefined || firstDescendant(c, "imagedata") !== undefined
        for (const box of descendants(c, "txbxContent")) out.boxes.push(box)
        if (hasPicture) {
          out.images.push(alt.trim())
          this.pictureRef(c)
        }
        const chart = relationshipId(firstDescendant(c, "chart"))
        if (chart !== undefined && this.ctx.rels.get(chart) !== undefined) out.charts.push(this.ctx.rels.get(chart)!.target)
        break
      }
      case "AlternateContent":
        this.runChild(child(c, "Choice") ?? child(c, "Fallback") ?? c, style, out)
        break
      case "Choice":
      case "Fallback":
        for (const g of c.children) if (typeof g !== "string") this.runChild(g, style, out)
        break
      default:
        break
    }
  }

  // ---- tables ----------------------------------------------------------------------------------

  private table(tbl: XmlElement): void {
    // Pictures in cells go with the table: their text, if read, follows it.
    const pictures: Array<ImageRef> = []
    const block = structuredBlock("table", { table: { ...wordTable(tbl, (tc) => this.cellText(tc, pictures)), headerRows: 1 } }, { source })
    if (block.content.length > 0) this.push(withImages(block, pictures))
  }

  /** A cell's content as one inline string: paragraphs on lines, nested tables flattened, headings as text. */
  private cellText(tc: XmlElement, pictures: Array<ImageRef>): string {
    const inner = new DocxBody(this.ctx).convert(tc)
    for (const b of inner) pictures.push(...imagesOf(b))
    return inner
      .map((b) =>
        b.kind === "table" ? b.content.replace(/<[^>]+>/g, " ").replace(/\|/g, " ")
        : b.formula !== undefined ? `$${b.formula.source}$`
        : b.heading !== undefined ? (b.text ?? "").replace(/\n/g, " ")
        : b.content.replace(/^#+ /, ""))
      .join("\n")
  }
}

const hyperlinkOf = (instr: string): string | undefined => {
  const m = /HYPERLINK\s+(?:\\l\s+)?"([^"]+)"/.exec(instr) ?? /HYPERLINK\s+(\S+)/.exec(instr)
  if (m === null) return undefined
  return /\\l\s+"/.test(instr) ? `#${m[1]}` : m[1]
}

/** Footnote markers were kept out of escaping with private sentinels; this restores them. */
export const restoreNoteMarkers = (markdown: string): string =>
  markdown.replace(/\u0002([^\u0003]*)\u0003/g, (_, inner: string) => (inner.startsWith("$") ? inner : `[^${inner}]`))
