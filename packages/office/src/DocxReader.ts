/**
 * The Word reader (.docx, .docm): finds the main document part through the package
 * relationships, reads styles, numbering, notes and core properties, and turns the body into
 * one page of blocks. Headers and footers become furniture blocks (kept out of the markdown);
 * footnotes and endnotes follow the body as `[^n]: ...` definitions. Macros are never touched.
 */
import { makeBlock, structuredBlock, type Block, type DocumentInfo, ZipArchive } from "@strata/core"
import { DocxBody, restoreNoteMarkers, type DocxContext } from "./DocxBody.ts"
import { DocxNumbering, DocxStyles } from "./DocxStyles.ts"
import { corrupt } from "./Failure.ts"
import { readProperties } from "./OfficeMetadata.ts"
import { child, childrenNamed, descendants, parseRelationships, parseXml, relationshipId, relsPartOf, type Relationship, type XmlElement } from "./Xml.ts"

export interface WordDocument {
  readonly info: DocumentInfo
  readonly blocks: Array<Block>
}

const relOfType = (rels: Map<string, Relationship>, suffix: string): Relationship | undefined => {
  for (const rel of rels.values()) if (rel.type.endsWith(suffix)) return rel
  return undefined
}

const parsePart = (zip: ZipArchive, part: string | undefined): XmlElement | undefined => {
  if (part === undefined) return undefined
  const text = zip.text(part)
  return text === undefined ? undefined : parseXml(text)
}

export const readWord = (bytes: Uint8Array, format: string): WordDocument => {
  const zip = new ZipArchive(bytes, format)
  const packageRels = parseRelationships(zip.text("_rels/.rels"), "")
  const main = relOfType(packageRels, "/officeDocument")?.target ?? "word/document.xml"
  const documentXml = zip.text(main)
  if (documentXml === undefined) throw corrupt(format, "no main document part (word/document.xml)")
  const root = parseXml(documentXml)
  const body = child(root, "body")
  if (body === undefined) throw corrupt(format, "the main document part has no body")
  const rels = parseRelationships(zip.text(relsPartOf(main)), main)
  const styles = new DocxStyles(parsePart(zip, relOfType(rels, "/styles")?.target))
  const numbering = new DocxNumbering(parsePart(zip, relOfType(rels, "/numbering")?.target))
  const hasTitle = descendants(body, "pStyle").some((s) => styles.role(s.attrs.val).heading === 0)
  const pgSz = child(child(body, "sectPr"), "pgSz")
  // Twips to EMU: 635 EMU a twip; US Letter when the section does not say.
  const pageAreaEmu = (Number(pgSz?.attrs.w) || 12240) * 635 * (Number(pgSz?.attrs.h) || 15840) * 635
  const ctx: DocxContext = {
    styles,
    numbering,
    rels,
    noteLabels: new Map(),
    noteOrder: [],
    hasTitle,
    chartXml: (part) => zip.text(part),
    partBytes: (part) => zip.read(part),
    pageAreaEmu
  }

  const furniture = (kind: "page_header" | "page_footer", type: "headerReference" | "footerReference"): Array<Block> => {
    const sectPr = child(body, "sectPr")
    const refs = childrenNamed(sectPr, type)
    const ref = refs.find((r) => r.attrs.type === "default") ?? refs[0]
    const refId = relationshipId(ref)
    const part = refId === undefined ? undefined : rels.get(refId)?.target
    const xml = parsePart(zip, part)
    if (xml === undefined || part === undefined) return []
    const partCtx = { ...ctx, rels: parseRelationships(zip.text(relsPartOf(part)), part), noteLabels: new Map(), noteOrder: [] }
    const text = new DocxBody(partCtx).convert(xml).map((b) => b.content).join(" ").trim()
    return text.length === 0 ? [] : [makeBlock(kind, text, { source: "docx" })]
  }

  // Concatenated, not push(...): a body of 200,000 paragraphs spread as arguments overflows the stack.
  const blocks: Array<Block> = [
    ...furniture("page_header", "headerReference"),
    ...new DocxBody(ctx).convert(body),
    ...notes(zip, ctx, rels),
    ...furniture("page_footer", "footerReference")
  ]

  const metadata = readProperties(zip.text(relOfType(packageRels, "/core-properties")?.target ?? "docProps/core.xml"))
  return { info: { numPages: 1, totalPages: 1, metadata }, blocks }
}

/** Note definitions in order of first reference; notes that reference further notes are followed too. */
const notes = (zip: ZipArchive, ctx: DocxContext, rels: Map<string, Relationship>): Array<Block> => {
  if (ctx.noteOrder.length === 0) return []
  const parts = new Map<string, Map<string, XmlElement>>()
  for (const kind of ["footnote", "endnote"] as const) {
    const part = relOfType(rels, `/${kind}s`)?.target
    const root = parsePart(zip, part)
    const byId = new Map<string, XmlElement>()
    if (root !== undefined) for (const note of childrenNamed(root, kind)) byId.set(note.attrs.id ?? "", note)
    parts.set(kind, byId)
  }
  const out: Array<Block> = []
  for (let i = 0; i < ctx.noteOrder.length; i++) {
    const { kind, id, label } = ctx.noteOrder[i]
    const note = parts.get(kind)?.get(id)
    if (note === undefined) continue
    const text = new DocxBody(ctx).convert(note).map((b) => b.content).join(" ").replace(/\s+/g, " ").trim()
    out.push(structuredBlock("footnote", { note: { label }, text: restoreNoteMarkers(text) }, { source: "docx" }))
  }
  return out
}
