/**
 * `includeTags` / `excludeTags`: CSS selectors (hast-util-select) that pick or drop parts of the
 * cleaned page. Plain tag names (`article`), classes (`.price`) and ids (`#main`) are selectors
 * too, which is how Firecrawl users write them; those three simple forms are matched in one
 * shared walk (tag names case-insensitively, as browsers do), the rest through hast-util-select.
 * An invalid selector is skipped and reported as a warning rather than failing the scrape.
 */
import type { Element, ElementContent, Root, RootContent } from "hast"
import { selectAll } from "hast-util-select"

/** A bare tag name, `.class` or `#id`: matched in one shared walk instead of one select per selector. */
const SIMPLE = /^(?:([a-z][a-z0-9-]*)|\.([\w-]+)|#([\w-]+))$/i

const matchSimple = (root: Root, tags: Set<string>, classes: Set<string>, ids: Set<string>, found: Set<Element>): void => {
  const visit = (parent: Root | Element) => {
    for (const child of parent.children) {
      if (child.type !== "element") continue
      if (tags.has(child.tagName)) found.add(child)
      else if (ids.size > 0 && typeof child.properties.id === "string" && ids.has(child.properties.id)) found.add(child)
      else if (classes.size > 0 && Array.isArray(child.properties.className) && child.properties.className.some((c) => classes.has(String(c)))) {
        found.add(child)
      }
      visit(child)
    }
  }
  visit(root)
}

const matching = (root: Root, selectors: ReadonlyArray<string>, warnings: Array<string>): Set<Element> => {
  const found = new Set<Element>()
  const tags = new Set<string>()
  const classes = new Set<string>()
  const ids = new Set<string>()
  for (const selector of selectors) {
    const trimmed = selector.trim()
    if (trimmed === "") continue
    const simple = SIMPLE.exec(trimmed)
    if (simple !== null) {
      if (simple[1] !== undefined) tags.add(simple[1].toLowerCase())
      else if (simple[2] !== undefined) classes.add(simple[2])
      else if (simple[3] !== undefined) ids.add(simple[3])
      continue
    }
    try {
      for (const element of selectAll(trimmed, root)) found.add(element)
    } catch (error) {
      warnings.push(`Ignored invalid selector ${JSON.stringify(trimmed)}: ${error instanceof Error ? error.message : String(error)}`)
    }
  }
  if (tags.size + classes.size + ids.size > 0) matchSimple(root, tags, classes, ids, found)
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
