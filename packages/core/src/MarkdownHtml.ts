/**
 * Markdown back to HTML and to its links, for the document formats, whose primary output is
 * markdown: `html` and `links` of a PDF or office document are derived from it.
 */
import type { Root as MdastRoot } from "mdast"
import remarkGfm from "remark-gfm"
import remarkParse from "remark-parse"
import remarkRehype from "remark-rehype"
import rehypeStringify from "rehype-stringify"
import { unified } from "unified"

const toHtml = unified().use(remarkParse).use(remarkGfm).use(remarkRehype, { allowDangerousHtml: true }).use(rehypeStringify, { allowDangerousHtml: true })
const toTree = unified().use(remarkParse).use(remarkGfm)

export const markdownToHtml = (markdown: string): string => String(toHtml.processSync(markdown))

/** Absolute http(s) and mailto links of a markdown text, deduplicated, in order. */
export const markdownLinks = (markdown: string): Array<string> => {
  const tree = toTree.parse(markdown) as MdastRoot
  const seen = new Set<string>()
  const visit = (node: { type: string; url?: string; children?: Array<unknown> }) => {
    if (node.type === "link" && node.url && /^(https?:|mailto:)/i.test(node.url)) seen.add(node.url.replace(/#.*$/, ""))
    for (const child of node.children ?? []) visit(child as never)
  }
  visit(tree as never)
  return [...seen]
}
