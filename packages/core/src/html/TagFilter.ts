/**
 * `includeTags` / `excludeTags`: CSS selectors (hast-util-select) that pick or drop parts of the
 * cleaned page. Plain tag names (`article`), classes (`.price`) and ids (`#main`) are selectors
 * too, which is how Firecrawl users write them. An invalid selector is skipped and reported as a
 * warning rather than failing the scrape.
 */
import type { Element, ElementContent, Root, RootContent } from "hast"
import { selectAll } from "hast-util-select"

const matching = (root: Root, selectors: ReadonlyArray<string>, warnings: Array<string>): Set<Element> => {
  const found = new Set<Element>()
  for (const selector of selectors) {
    const trimmed = selector.trim()
    if (trimmed === "") continue
    try {
      for (const element of selectAll(trimmed, root)) found.add(element)
    } catch (error) {
      warnings.push(`Ignored invalid selector ${JSON.stringify(trimmed)}: ${error instanceof Error ? error.message : String(error)}`)
    }
  }
  return found
}

/** The tree without the elements matching any of `selectors` (copied where it changes). */
export const excludeTags = (root: Root, selectors: ReadonlyArray<string>, warnings: Array<string>): Root => {
  const drop = matching(root, selectors, warnings)
  if (drop.size === 0) return root
  const filter = <T extends Root | Element>(parent: T): T => {
    const children: Array<RootContent | ElementContent> = []
    for (const child of parent.children) {
      if (child.type === "element") {
        if (drop.has(child)) continue
        children.push(filter(child))
      } else children.push(child)
    }
    return { ...parent, children } as T
  }
  return filter(root)
}

/**
 * A root holding only the elements matching any of `selectors`, outermost matches only, in
 * document order. Nothing matching gives an empty root: the user asked for those parts only.
 */
export const includeTags = (root: Root, selectors: ReadonlyArray<string>, warnings: Array<string>): Root => {
  const keep = matching(root, selectors, warnings)
  const children: Array<Element> = []
  if (keep.size === 0) return { type: "root", children }
  const visit = (parent: Root | Element) => {
    for (const child of parent.children) {
      if (child.type !== "element") continue
      if (keep.has(child)) children.push(child)
      else visit(child)
    }
  }
  visit(root)
  return { type: "root", children }
}
