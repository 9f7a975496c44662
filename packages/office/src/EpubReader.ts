/**
 * The EPUB reader: the OPF package named by META-INF/container.xml gives the book metadata
 * (title, authors, language, publisher, date, description) and the spine; each spine document
 * is one page, converted by the shared HTML stages (`htmlToBlocks` from @strata/core) with
 * the chapter's own path as base for relative links. Scripts in the book are never run.
 */
import { htmlToBlocks, type Block, type DocumentInfo, ZipArchive } from "@strata/core"
import { corrupt } from "./Failure.ts"
import { writtenToBlocks } from "./MarkdownBlocks.ts"
import { page, type ParsedDocument } from "./ReaderKit.ts"
import { child, childrenNamed, descendants, elements, parseXml, resolvePart, textOf } from "./Xml.ts"
import { isRasterPart, withImages, type ImageRef } from "./ImageRefs.ts"

/** The pictures a chapter block shows (`![alt](src)` with a src inside the book), as OCR references. */
const chapterPictures = (block: Block, chapter: string, zip: ZipArchive): Block => {
  const refs: Array<ImageRef> = []
  for (const m of block.content.matchAll(/!\[[^\]]*\]\(<?([^)\s>]+)>?(?:\s+"[^"]*")?\)/g)) {
    const src = m[1]
    if (/^[a-z][a-z0-9+.-]*:/i.test(src) || !isRasterPart(src.replace(/[?#].*$/, ""))) continue
    const part = resolvePart(chapter, src.replace(/[?#].*$/, ""))
    if (zip.has(part)) refs.push({ part, load: () => zip.read(part) })
  }
  return withImages(block, refs)
}

export const readEpub = (bytes: Uint8Array, format: string): ParsedDocument => {
  const zip = new ZipArchive(bytes, format)
  const container = zip.text("META-INF/container.xml")
  const rootfile = container === undefined ? undefined : descendants(parseXml(container), "rootfile")[0]?.attrs["full-path"]
  const opfPath = rootfile ?? zip.names.find((n) => n.toLowerCase().endsWith(".opf"))
  const opfXml = opfPath === undefined ? undefined : zip.text(opfPath)
  if (opfPath === undefined || opfXml === undefined) throw corrupt(format, "no OPF package document")
  const opf = parseXml(opfXml)
  const meta = child(opf, "metadata")
  const metadata: Record<string, string> = {}
  const authors: Array<string> = []
  for (const el of meta === undefined ? [] : elements(meta)) {
    const value = textOf(el).replace(/\s+/g, " ").trim()
    if (value.length === 0) continue
    const key = { title: "title", language: "language", publisher: "publisher", date: "date", description: "description", subject: "keywords", identifier: "identifier" }[el.name]
    if (el.name === "creator") authors.push(value)
    else if (key !== undefined) metadata[key] = metadata[key] === undefined || key !== "keywords" ? (metadata[key] ?? value) : `${metadata[key]}, ${value}`
  }
  if (authors.length > 0) metadata.author = authors.join(", ")
  const manifest = new Map<string, { href: string; type: string }>()
  for (const item of childrenNamed(child(opf, "manifest"), "item")) {
    manifest.set(item.attrs.id ?? "", { href: resolvePart(opfPath, item.attrs.href ?? ""), type: item.attrs["media-type"] ?? "" })
  }
  const spine = childrenNamed(child(opf, "spine"), "itemref")
    .map((ref) => manifest.get(ref.attrs.idref ?? ""))
    .filter((item): item is { href: string; type: string } => item !== undefined && /html|xml/.test(item.type) && zip.has(item.href))
  const info: DocumentInfo = { metadata }
  return {
    info,
    pages: spine.map((item, index) => () => {
      const html = zip.text(item.href) ?? ""
      // No base URL: relative image and chapter links stay relative to the book.
      return page(index + 1, writtenToBlocks(htmlToBlocks(html), "epub").map((block) => chapterPictures(block, item.href, zip)))
    })
  }
}
