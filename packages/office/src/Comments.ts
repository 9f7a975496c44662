/**
 * Reviewer comments of presentations and workbooks, as marked blocks after the content they
 * annotate: `> **Comment (Author):** text`. Legacy PowerPoint comments (p:cmLst with
 * commentAuthors.xml) and Excel cell comments (comments part with its author list) are read;
 * threaded-comment placeholders ("[Threaded comment]" boilerplate) are left out.
 */
import { structuredBlock, type Block, type ZipArchive } from "@strata/core"
import { escapeInline } from "./MarkdownText.ts"
import { descendants, parseXml, textOf, type Relationship } from "./Xml.ts"

const commentBlock = (author: string | undefined, where: string | undefined, text: string, source: string): Block => {
  const who = [author, where].filter((s): s is string => s !== undefined && s.length > 0).join(", ")
  const body = escapeInline(text.replace(/\s+/g, " ").trim())
  return structuredBlock("text", { text: `**Comment${who.length > 0 ? ` (${escapeInline(who)})` : ""}:** ${body}`, quote: true }, { source, label: "comment" })
}

const commentParts = (rels: Map<string, Relationship>): Array<string> =>
  [...rels.values()].filter((r) => !r.external && r.type.endsWith("/comments")).map((r) => r.target)

/** Authors of legacy PowerPoint comments, by id. */
export const pptxCommentAuthors = (zip: ZipArchive): Map<string, string> => {
  const map = new Map<string, string>()
  const xml = zip.text("ppt/commentAuthors.xml")
  if (xml === undefined) return map
  for (const author of descendants(parseXml(xml), "cmAuthor")) map.set(author.attrs.id ?? "", author.attrs.name ?? "")
  return map
}

export const pptxComments = (zip: ZipArchive, slideRels: Map<string, Relationship>, authors: Map<string, string>): Array<Block> => {
  const blocks: Array<Block> = []
  for (const part of commentParts(slideRels)) {
    const xml = zip.text(part)
    if (xml === undefined) continue
    for (const cm of descendants(parseXml(xml), "cm")) {
      const text = textOf(descendants(cm, "text")[0] ?? cm).trim()
      if (text.length > 0) blocks.push(commentBlock(authors.get(cm.attrs.authorId ?? ""), undefined, text, "pptx"))
    }
  }
  return blocks
}

export const xlsxComments = (zip: ZipArchive, sheetRels: Map<string, Relationship>): Array<Block> => {
  const blocks: Array<Block> = []
  for (const part of commentParts(sheetRels)) {
    const xml = zip.text(part)
    if (xml === undefined) continue
    const root = parseXml(xml)
    const authors = descendants(root, "author").map(textOf)
    for (const comment of descendants(root, "comment")) {
      const text = descendants(comment, "t").map(textOf).join("").trim()
      const author = authors[Number(comment.attrs.authorId ?? -1)]
      if (text.length === 0 || text.startsWith("[Threaded comment]")) continue
      blocks.push(commentBlock(author?.startsWith("tc=") ? undefined : author, comment.attrs.ref, text, "xlsx"))
    }
  }
  return blocks
}
