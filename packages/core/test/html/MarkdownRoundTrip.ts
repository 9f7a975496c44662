/**
 * Test helper: reads markdown back with a real CommonMark + GFM parser (micromark), so tests
 * can assert what a reader of our markdown sees (text, links, tables) instead of exact bytes.
 */
import type { Nodes, Root } from "mdast"
import { fromMarkdown } from "mdast-util-from-markdown"
import { gfmFromMarkdown } from "mdast-util-gfm"
import { toString } from "mdast-util-to-string"
import { gfm } from "micromark-extension-gfm"

export const parseMarkdown = (markdown: string): Root =>
  fromMarkdown(markdown, { extensions: [gfm()], mdastExtensions: [gfmFromMarkdown()] })

/** The plain text a reader sees, whitespace collapsed. */
export const visibleText = (markdown: string): string => toString(parseMarkdown(markdown)).replace(/\s+/g, " ").trim()

/** Every node of a type, depth first. */
export const nodesOf = <T extends Nodes["type"]>(tree: Nodes, type: T): Array<Extract<Nodes, { type: T }>> => {
  const out: Array<Extract<Nodes, { type: T }>> = []
  const visit = (node: Nodes) => {
    if (node.type === type) out.push(node as Extract<Nodes, { type: T }>)
    if ("children" in node) for (const child of node.children) visit(child)
  }
  visit(tree)
  return out
}
