/**
 * Repeated blocks: responsive pages send the same text twice (a desktop and a mobile layout,
 * one hidden by a stylesheet we do not evaluate), carousels clone their slides, and forum
 * replies quote earlier posts in full. A reader sees each passage once, so a text block whose
 * words already appeared in an earlier block of the content is dropped. Only blocks long
 * enough to be a passage count: short labels ("Reply", "$20.00") legitimately repeat. A
 * paragraph that repeats one of its own siblings stays: within one run of prose the repeat is
 * the author's (a refrain, a restated warning), not another layout's copy.
 */
import type { Element, Root } from "hast"
import { BLOCK_TAGS } from "./MainContentPatterns.ts"
import { filterTree } from "./MainContentNodes.ts"

/** Shortest normalised text, in characters, that counts as a passage. */
const MIN_PASSAGE = 40

/** Blocks compared as a whole; a container of other blocks is compared through its children. */
/** Code and table cells are left alone: commands and cell values repeat on purpose. */
const TEXT_BLOCKS = new Set(["p", "li", "h1", "h2", "h3", "h4", "h5", "h6", "dd", "dt", "figcaption", "blockquote", "div", "section", "span"])

export const hasBlockChild = (element: Element): boolean => {
  for (const child of element.children) if (child.type === "element" && BLOCK_TAGS.has(child.tagName)) return true
  return false
}

const textOf = (element: Element): string => {
  let out = ""
  const visit = (el: Element): void => {
    for (const child of el.children) {
      if (child.type === "text") out += child.value
      else if (child.type === "element") {
        if (child.tagName === "br") out += " "
        visit(child)
      }
    }
  }
  visit(element)
  return out.replace(/\s+/g, " ").trim().toLowerCase()
}

/** Drop text blocks whose whole text repeats an earlier block of `content`. */
export const dropRepeatedBlocks = (content: Root): Root => {
  // each passage's first copy's parent: a paragraph repeated within one run of prose is the
  // author's (a refrain, a test page), not a clone of another layout's block
  const seen = new Map<string, Root | Element>()
  // the inside of a block already compared whole (a span holding all of its div's text)
  const compared = new Set<Element>()
  return filterTree(content, (element, parent) => {
    if (parent.type === "element" && compared.has(parent)) {
      compared.add(element)
      return false
    }
    if (!TEXT_BLOCKS.has(element.tagName) || hasBlockChild(element)) return false
    const text = textOf(element)
    if (text.length < MIN_PASSAGE) return false
    const first = seen.get(text)
    if (first !== undefined) return !(element.tagName === "p" && first === parent)
    seen.set(text, parent)
    compared.add(element)
    return false
  })
}
