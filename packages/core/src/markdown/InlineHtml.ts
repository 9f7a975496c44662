/**
 * A block's inline text (inline markdown: emphasis, links, code spans, hard breaks) as HTML, and
 * the links it holds. The block writer (`BlockHtml.ts`) decides the element around it; this
 * module only reads the inline markup, with the same GFM parser the markdown path used, so a
 * phrase renders the same whichever path wrote it.
 *
 * Most text has no markup at all: it is escaped and returned without a parse (counted: all 46,000
 * texts of the 2,000-page generated PDF, 85% of those of the docling office and PDF samples).
 */
import type { Html, Link, Nodes as MdastNodes, PhrasingContent, Root as MdastRoot } from "mdast"
import rehypeStringify from "rehype-stringify"
import remarkGfm from "remark-gfm"
import remarkParse from "remark-parse"
import remarkRehype from "remark-rehype"
import { unified } from "unified"
import { escapeHtml, escapeHtmlAttribute } from "./HtmlEscape.ts"

const processor = unified()
  .use(remarkParse)
  .use(remarkGfm)
  .use(remarkRehype, { allowDangerousHtml: true })
  .use(rehypeStringify, { allowDangerousHtml: true })

/** Characters (and GFM autolink starts) that may begin inline markup; text without any is plain. */
const MARKUP = /[\\*_[\]<>&`~!\n]|www\.|:\/\/|@/

/** Where a note reference points: the id of the note's definition. */
export const noteId = (label: string): string => `fn-${label.replace(/[^\p{L}\p{N}_-]/gu, "-")}`

export interface InlineContext {
  /** Labels of the document's notes: `[^label]` in text becomes a reference to the note. */
  readonly notes: ReadonlySet<string>
  /** The document's links, in order; a link found here is added. */
  readonly links: Set<string>
}

const noteReference = (label: string): Html => ({
  type: "html",
  value: `<sup><a href="#${escapeHtmlAttribute(noteId(label))}">${escapeHtml(label)}</a></sup>`
})

/** Note calls as links to the notes, written in place (GFM's own would gather the notes at the end). */
const withNoteReferences = (nodes: Array<PhrasingContent>): Array<PhrasingContent> =>
  nodes.map((node) => {
    if (node.type === "footnoteReference") return noteReference(node.label ?? node.identifier)
    if ("children" in node) (node as { children: Array<PhrasingContent> }).children = withNoteReferences(node.children as Array<PhrasingContent>)
    return node
  })

/** Absolute http(s) and mailto links, without their fragment, as the markdown path collected them. */
const collectLinks = (node: MdastNodes, links: Set<string>): void => {
  if (node.type === "link") {
    const url = (node as Link).url
    if (url && /^(https?:|mailto:)/i.test(url)) links.add(url.replace(/#.*$/, ""))
  }
  if ("children" in node) for (const child of node.children) collectLinks(child, links)
}

/** The labels of the document's notes that a text calls (`[^label]`). */
const calledNotes = (text: string, notes: ReadonlySet<string>): Array<string> => {
  if (notes.size === 0 || !text.includes("[^")) return []
  const called = new Set<string>()
  for (const m of text.matchAll(/\[\^([^\]\s]+)\]/g)) if (notes.has(m[1])) called.add(m[1])
  return [...called]
}

/**
 * The phrasing content of inline markdown. The text is read as a paragraph's content even where
 * it starts like a block (`1. Scope` as a heading's title): a no-break space in front keeps the
 * parser in the paragraph (it is neither indentation nor a marker, and it flanks emphasis as a
 * line start does), and is taken off again. The notes it calls are defined after it, as the
 * document defines them, so that `[^1]` reads as a call (GFM reads one only when it is defined).
 */
const phrasing = (text: string, notes: ReadonlyArray<string> = []): Array<PhrasingContent> | undefined => {
  const definitions = notes.map((label) => `\n\n[^${label}]: -`).join("")
  const tree = processor.parse(`\u00a0${text}${definitions}`) as MdastRoot
  if (tree.children.length !== 1 + notes.length) return undefined
  const only = tree.children[0]
  if (only.type !== "paragraph" && only.type !== "heading") return undefined
  const children = only.children
  const first = children[0]
  if (first?.type === "text") {
    first.value = first.value.slice(1)
    if (first.value.length === 0) children.shift()
  }
  return children
}

/** Phrasing content as HTML: converted inside a paragraph (a root would put line breaks between its children), written without it. */
const parsedHtml = (children: Array<PhrasingContent>): string => {
  const hast = processor.runSync({ type: "root", children: [{ type: "paragraph", children }] } as MdastRoot)
  const paragraph = hast.children[0]
  return paragraph?.type === "element" ? processor.stringify({ type: "root", children: paragraph.children }) : ""
}

/** Inline markdown as HTML (no wrapping element), recording its links in `context.links`. */
export const inlineHtml = (text: string, context: InlineContext): string => {
  const trimmed = text.trim()
  if (!MARKUP.test(trimmed)) return escapeHtml(trimmed)
  const notes = calledNotes(trimmed, context.notes)
  const children = phrasing(trimmed, notes)
  // Text the parser reads as more than one block (a setext underline, a blank line): shown as written.
  if (children === undefined) return escapeHtml(trimmed)
  for (const child of children) collectLinks(child, context.links)
  return parsedHtml(notes.length > 0 ? withNoteReferences(children) : children)
}

/** Inline markdown as the plain text it shows (an image's alt attribute). */
export const inlinePlain = (text: string): string => {
  const trimmed = text.trim()
  if (!MARKUP.test(trimmed)) return trimmed
  const children = phrasing(trimmed)
  if (children === undefined) return trimmed
  const plain = (node: MdastNodes): string =>
    "value" in node && typeof node.value === "string" && node.type !== "html"
      ? node.value
      : node.type === "break"
      ? " "
      : "alt" in node && typeof node.alt === "string"
      ? node.alt
      : "children" in node
      ? node.children.map(plain).join("")
      : ""
  return children.map(plain).join("")
}
