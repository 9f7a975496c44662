/**
 * The PowerPoint reader (.pptx, .pptm): slides in presentation order, one page per slide.
 * Shapes are read with their positions (group transforms applied, placeholder positions
 * inherited from the layout and master) and ordered top-to-bottom, left-to-right; the title
 * placeholder becomes the slide heading; footers, dates and slide numbers are furniture;
 * tables keep their merges; pictures give their alt text; speaker notes follow, marked as such.
 */
import { makeBlock, structuredBlock, type Block, type DocumentInfo, ZipArchive } from "@strata/core"
import { chartBlocks } from "./Charts.ts"
import { pptxCommentAuthors, pptxComments } from "./Comments.ts"
import { drawingTable, textBodyBlocks, textBodyInline } from "./DrawingText.ts"
import { corrupt } from "./Failure.ts"
import { imageInfo } from "./MarkdownText.ts"
import { isRasterPart, withImages } from "./ImageRefs.ts"
import { readProperties } from "./OfficeMetadata.ts"
import { page, type ParsedDocument } from "./ReaderKit.ts"
import { child, childrenNamed, descendants, firstDescendant, parseRelationships, parseXml, relationshipId, relsPartOf, type Relationship, type XmlElement } from "./Xml.ts"

const source = "pptx"

interface Box {
  readonly x: number
  readonly y: number
  readonly w: number
  readonly h: number
}

interface Item {
  readonly box: Box | undefined
  readonly order: number
  readonly kind: "title" | "furniture" | "body"
  readonly blocks: Array<Block>
}

type Transform = (box: Box) => Box
const identity: Transform = (b) => b

const xfrmBox = (xfrm: XmlElement | undefined): Box | undefined => {
  const off = child(xfrm, "off")
  const ext = child(xfrm, "ext")
  if (off === undefined) return undefined
  return { x: Number(off.attrs.x) || 0, y: Number(off.attrs.y) || 0, w: Number(ext?.attrs.cx) || 0, h: Number(ext?.attrs.cy) || 0 }
}

/** Placeholder positions by type and by idx, from a layout or master shape tree. */
const placeholderBoxes = (tree: XmlElement | undefined): Map<string, Box> => {
  const map = new Map<string, Box>()
  if (tree === undefined) return map
  for (const sp of descendants(tree, "sp")) {
    const ph = firstDescendant(child(sp, "nvSpPr"), "ph")
    const box = xfrmBox(child(child(sp, "spPr"), "xfrm"))
    if (ph === undefined || box === undefined) continue
    if (ph.attrs.idx !== undefined && !map.has(`idx:${ph.attrs.idx}`)) map.set(`idx:${ph.attrs.idx}`, box)
    const type = ph.attrs.type ?? "body"
    if (!map.has(`type:${type}`)) map.set(`type:${type}`, box)
  }
  return map
}

export const readPptx = (bytes: Uint8Array, format: string): ParsedDocument => {
  const zip = new ZipArchive(bytes, format)
  const packageRels = parseRelationships(zip.text("_rels/.rels"), "")
  const presPart = [...packageRels.values()].find((r) => r.type.endsWith("/officeDocument"))?.target ?? "ppt/presentation.xml"
  const presXml = zip.text(presPart)
  if (presXml === undefined) throw corrupt(format, "no presentation part")
  const pres = parseXml(presXml)
  const presRels = parseRelationships(zip.text(relsPartOf(presPart)), presPart)
  const slideParts = childrenNamed(child(pres, "sldIdLst"), "sldId")
    .map((s) => presRels.get(s.attrs["r:id"] ?? "")?.target)
    .filter((p): p is string => p !== undefined && zip.has(p))
  const layoutCache = new Map<string, Map<string, Box>>()
  const boxesOf = (part: string | undefined): Map<string, Box> => {
    if (part === undefined) return new Map()
    let boxes = layoutCache.get(part)
    if (boxes === undefined) {
      const xml = zip.text(part)
      boxes = xml === undefined ? new Map() : placeholderBoxes(firstDescendant(parseXml(xml), "spTree"))
      layoutCache.set(part, boxes)
    }
    return boxes
  }
  const info: DocumentInfo = { metadata: readProperties(zip.text("docProps/core.xml")) }
  const sldSz = child(pres, "sldSz")
  // 10 x 7.5 inches (the 4:3 default) when the presentation does not say.
  const slideArea = (Number(sldSz?.attrs.cx) || 9_144_000) * (Number(sldSz?.attrs.cy) || 6_858_000)
  let authors: Map<string, string> | undefined
  const pages = slideParts.map((part, index) => () => {
    const xml = zip.text(part)
    if (xml === undefined) return page(index + 1, [])
    const rels = parseRelationships(zip.text(relsPartOf(part)), part)
    const layout = [...rels.values()].find((r) => r.type.endsWith("/slideLayout"))?.target
    const master = layout === undefined ? undefined : [...parseRelationships(zip.text(relsPartOf(layout)), layout).values()].find((r) => r.type.endsWith("/slideMaster"))?.target
    const inherited = (key: string) => boxesOf(layout).get(key) ?? boxesOf(master).get(key)
    const tree = firstDescendant(parseXml(xml), "spTree")
    const items: Array<Item> = []
    if (tree !== undefined) collect(tree, identity, { zip, rels, inherited, items, slideArea })
    const blocks = orderItems(items)
    authors ??= pptxCommentAuthors(zip)
    for (const block of pptxComments(zip, rels, authors)) blocks.push(block)
    for (const block of notes(zip, rels)) blocks.push(block)
    return page(index + 1, blocks)
  })
  return { info, pages }
}

interface Collector {
  readonly zip: ZipArchive
  readonly rels: Map<string, Relationship>
  readonly inherited: (key: string) => Box | undefined
  readonly items: Array<Item>
  /** Slide area in square EMU, to judge how much of the slide a picture covers. */
  readonly slideArea: number
}

const collect = (tree: XmlElement, transform: Transform, ctx: Collector): void => {
  for (const node of tree.children) {
    if (typeof node === "string") continue
    switch (node.name) {
      case "sp":
        shape(node, transform, ctx)
        break
      case "grpSp": {
        const xfrm = child(child(node, "grpSpPr"), "xfrm")
        const off = xfrmBox(xfrm)
        const chOff = child(xfrm, "chOff")
        const chExt = child(xfrm, "chExt")
        let inner = transform
        if (off !== undefined && chOff !== undefined && chExt !== undefined) {
          const sx = (Number(chExt.attrs.cx) || 0) > 0 ? off.w / Number(chExt.attrs.cx) : 1
          const sy = (Number(chExt.attrs.cy) || 0) > 0 ? off.h / Number(chExt.attrs.cy) : 1
          const cx = Number(chOff.attrs.x) || 0
          const cy = Number(chOff.attrs.y) || 0
          inner = (b) => transform({ x: off.x + (b.x - cx) * sx, y: off.y + (b.y - cy) * sy, w: b.w * sx, h: b.h * sy })
        }
        collect(node, inner, ctx)
        break
      }
      case "graphicFrame": {
        const box = xfrmBox(child(node, "xfrm"))
        const tbl = firstDescendant(node, "tbl")
        const block = tbl === undefined ? undefined : drawingTable(tbl, ctx.rels, source)
        if (block !== undefined) ctx.items.push({ box: box && transform(box), order: ctx.items.length, kind: "body", blocks: [block] })
        const chartRef = relationshipId(firstDescendant(node, "chart"))
        const chartPart = chartRef === undefined ? undefined : ctx.rels.get(chartRef)?.target
        const chartXml = chartPart === undefined ? undefined : ctx.zip.text(chartPart)
        if (chartXml !== undefined) ctx.items.push({ box: box && transform(box), order: ctx.items.length, kind: "body", blocks: chartBlocks(chartXml, source) })
        break
      }
      case "pic": {
        const nv = child(child(node, "nvPicPr"), "cNvPr")
        const alt = (nv?.attrs.descr ?? "").trim()
        const box = xfrmBox(child(child(node, "spPr"), "xfrm"))
        const placed = box && transform(box)
        const blip = firstDescendant(child(node, "blipFill"), "blip")
        const embed = blip?.attrs["r:embed"] ?? blip?.attrs.embed
        const rel = embed === undefined ? undefined : ctx.rels.get(embed)
        let block = structuredBlock("figure", { image: imageInfo(alt) }, { source })
        if (rel !== undefined && !rel.external && isRasterPart(rel.target)) {
          const zip = ctx.zip
          const coverage = placed === undefined || ctx.slideArea <= 0 ? undefined : Math.min(1, (placed.w * placed.h) / ctx.slideArea)
          block = withImages(block, [{ part: rel.target, load: () => zip.read(rel.target), coverage }])
        }
        ctx.items.push({ box: placed, order: ctx.items.length, kind: "body", blocks: [block] })
        break
      }
      case "AlternateContent":
        collect(child(node, "Choice") ?? child(node, "Fallback") ?? node, transform, ctx)
        break
      default:
        break
    }
  }
}

const shape = (sp: XmlElement, transform: Transform, ctx: Collector): void => {
  const ph = firstDescendant(child(sp, "nvSpPr"), "ph")
  const type = ph === undefined ? undefined : (ph.attrs.type ?? "body")
  let box = xfrmBox(child(child(sp, "spPr"), "xfrm"))
  if (box === undefined && ph !== undefined) box = (ph.attrs.idx !== undefined ? ctx.inherited(`idx:${ph.attrs.idx}`) : undefined) ?? ctx.inherited(`type:${type}`)
  const body = child(sp, "txBody")
  if (body === undefined) return
  if (type === "title" || type === "ctrTitle") {
    const text = textBodyInline(body, ctx.rels).replace(/\n+/g, " ").trim()
    if (text.length > 0) {
      const heading = structuredBlock(type === "ctrTitle" ? "title" : "section_header", { heading: { level: type === "ctrTitle" ? 1 : 2 }, text }, { source })
      ctx.items.push({ box: box && transform(box), order: ctx.items.length, kind: "title", blocks: [heading] })
    }
    return
  }
  if (type === "dt" || type === "ftr" || type === "sldNum" || type === "hdr") {
    const text = textBodyInline(body, ctx.rels).replace(/\n+/g, " ").trim()
    if (text.length > 0) {
      const kind = type === "sldNum" ? "page_number" : type === "hdr" ? "page_header" : "page_footer"
      ctx.items.push({ box: box && transform(box), order: ctx.items.length, kind: "furniture", blocks: [makeBlock(kind, text, { source })] })
    }
    return
  }
  const bulletByDefault = type === "body" || type === "obj"
  const blocks = textBodyBlocks(body, { bulletByDefault, rels: ctx.rels, source })
  if (blocks.length > 0) ctx.items.push({ box: box && transform(box), order: ctx.items.length, kind: "body", blocks })
}

/**
 * Reading order: titles first, then shapes by rows (a shape starts a new row when its top is
 * below the previous row's band), left to right within a row; shapes without a position keep
 * their document order at the end; furniture last.
 */
const orderItems = (items: ReadonlyArray<Item>): Array<Block> => {
  const titles = items.filter((i) => i.kind === "title")
  const furniture = items.filter((i) => i.kind === "furniture")
  const placed = items.filter((i) => i.kind === "body" && i.box !== undefined).sort((a, b) => a.box!.y - b.box!.y || a.box!.x - b.box!.x)
  const unplaced = items.filter((i) => i.kind === "body" && i.box === undefined)
  const rows: Array<Array<Item>> = []
  let bandBottom = -Infinity
  for (const item of placed) {
    const box = item.box!
    // Overlapping vertically with the current row by more than half its own height: same row.
    if (rows.length > 0 && box.y < bandBottom - Math.min(box.h, 1) * 0.5 && box.h > 0) {
      rows[rows.length - 1].push(item)
      bandBottom = Math.max(bandBottom, box.y + box.h)
    } else {
      rows.push([item])
      bandBottom = box.y + Math.max(box.h, 1)
    }
  }
  const ordered = [...titles, ...rows.flatMap((row) => row.sort((a, b) => a.box!.x - b.box!.x)), ...unplaced, ...furniture]
  return ordered.flatMap((i) => i.blocks)
}

const notes = (zip: ZipArchive, rels: Map<string, Relationship>): Array<Block> => {
  const part = [...rels.values()].find((r) => r.type.endsWith("/notesSlide"))?.target
  const xml = part === undefined ? undefined : zip.text(part)
  if (xml === undefined || part === undefined) return []
  const notesRels = parseRelationships(zip.text(relsPartOf(part)), part)
  const texts: Array<string> = []
  for (const sp of descendants(parseXml(xml), "sp")) {
    const ph = firstDescendant(child(sp, "nvSpPr"), "ph")
    if (ph?.attrs.type !== "body") continue
    const text = textBodyInline(child(sp, "txBody"), notesRels)
    if (text.length > 0) texts.push(text)
  }
  if (texts.length === 0) return []
  return [structuredBlock("text", { text: `**Notes:**\n${texts.join("\n")}`, quote: true }, { source, label: "speaker_notes" })]
}
