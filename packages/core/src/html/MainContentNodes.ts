/**
 * Small hast helpers shared by the main-content stages: element tests, class/id strings, a
 * copy-with-filter that leaves the caller's tree untouched (the rescue ladder needs to retry
 * from the original), and per-element text statistics computed in one post-order pass so
 * that scoring never re-walks a subtree (linear time even on huge pages).
 */
import type { Element, ElementContent, Root, RootContent } from "hast"

export type AnyNode = Root | RootContent

export const isElement = (node: AnyNode | undefined): node is Element =>
  node !== undefined && node.type === "element"

/**
 * State and layout modifiers ("with_header", "has-sidebar", "is-sticky-nav") describe a wrapper,
 * not chrome; so do utility classes that size or place a box relative to the chrome
 * ("pt-header", "md:top-nav", "min-h-header", "scroll-mt-navbar", "overflow-x-scroll").
 */
const MODIFIER = /^(?:has|with|no|is)[-_]|^(?:[\w-]+:)*-?(?:[mp][tblrxyse]|top|bottom|inset(?:-[xy])?|min-[hw]|max-[hw]|scroll-[mp][tblrxy]?|translate-[xy]|gap(?:-[xy])?|space-[xy]|overflow(?:-[xy])?|overscroll(?:-[xy])?|snap)-/i

const cache = new WeakMap<Element, string>()

/**
 * Lower-cased `class` tokens and `id` joined by spaces: what the class/id weights look at.
 * Modifier classes are left out. Memoised: every pass of the cascade asks again.
 */
export const classAndId = (element: Element): string => {
  const cached = cache.get(element)
  if (cached !== undefined) return cached
  const props = element.properties
  const className = props.className
  let cls = ""
  if (Array.isArray(className)) {
    for (const token of className) {
      const t = String(token)
      if (MODIFIER.test(t)) continue
      cls = cls === "" ? t : `${cls} ${t}`
    }
  } else if (typeof className === "string") cls = className
  const rawId = typeof props.id === "string" ? props.id : ""
  const id = rawId !== "" && isHeadingSlug(element, rawId) ? "" : rawId
  const out = cls === "" && id === "" ? "" : `${cls} ${id}`.toLowerCase()
  cache.set(element, out)
  return out
}

const HEADING_TAGS = new Set(["h1", "h2", "h3", "h4", "h5", "h6"])

/** The element's heading: itself, or a heading among the first element children of it or of its first child. */
const ownHeading = (element: Element): Element | undefined => {
  if (HEADING_TAGS.has(element.tagName)) return element
  let seen = 0
  for (const child of element.children) {
    if (child.type !== "element") continue
    if (HEADING_TAGS.has(child.tagName)) return child
    if (seen === 0) for (const inner of child.children) if (inner.type === "element" && HEADING_TAGS.has(inner.tagName)) return inner
    if (++seen >= 3) break
  }
  return undefined
}

const slug = (text: string): string => text.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, "-").replace(/^-+|-+$/g, "")

/**
 * An id that spells the element's own heading (`sharing-with-multiple-developers` over "Sharing
 * with multiple developers", `related-work` on "Related work") anchors a section of the text: it
 * names what the author wrote, not a widget, so the class/id patterns do not read it.
 */
const isHeadingSlug = (element: Element, id: string): boolean => {
  if (!/[-_]/.test(id)) return false
  const heading = ownHeading(element)
  if (heading === undefined) return false
  const text = boundedText(heading, 300)
  if (text === undefined) return false
  const want = slug(id)
  const have = slug(text)
  return want !== "" && (have === want || (want.split("-").length >= 3 && have.startsWith(want)))
}

export const attr = (element: Element, name: string): string | undefined => {
  const value = element.properties[name]
  if (value === undefined || value === null || value === false) return undefined
  return Array.isArray(value) ? value.join(" ") : String(value)
}

/** `<main>` or `[role=main]`: the page's own landmark for its main region. */
export const isMainLandmark = (element: Element): boolean => element.tagName === "main" || attr(element, "role") === "main"

/** Text statistics of one element and its subtree. */
export interface Stats {
  /** characters of text, whitespace runs counted as one */
  chars: number
  /** characters inside `<a href>` (fragment-only links count at 0.3) */
  linkChars: number
  /** comma-like separators, a cheap proxy for running prose */
  commas: number
  /** number of `<a>` elements */
  links: number
  /** characters of prose: inside paragraphs, list items, headings, cells, quotes, code, or long bare text runs */
  proseChars: number
  /** descendant counts by kind, for the conditional cleaning rules */
  paragraphs: number
  images: number
  listItems: number
  code: number
  headerCells: number
  rows: number
  cells: number
}

const PROSE_TAGS = new Set(["p", "pre", "blockquote", "h1", "h2", "h3", "h4", "h5", "h6", "dd", "td", "figcaption", "li", "dt", "th"])

const RAW_TEXT_TAGS = new Set(["script", "style", "template", "textarea", "title", "head"])

/** Comma-like separators of several scripts (Latin, Arabic, CJK, full width). */
const isComma = (c: number): boolean =>
  c === 44 || c === 0x060c || c === 0xff0c || c === 0x3001 || c === 0xfe50 || c === 0xfe10 || c === 0xfe11 || c === 0x2e41 || c === 0x2e34 || c === 0x2e32

/** Characters (whitespace runs count once) and commas of a text, in one pass. */
let lastCommas = 0
const textChars = (value: string): number => {
  let count = 0
  let commas = 0
  let inSpace = true
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i)
    if (c === 32 || c === 10 || c === 9 || c === 13 || c === 12 || c === 160) {
      if (!inSpace) count++
      inSpace = true
    } else {
      count++
      inSpace = false
      if (c === 44 || (c > 0x600 && isComma(c))) commas++
    }
  }
  lastCommas = commas
  return count
}

/**
 * Element statistics by identity. A table built over a filtered copy of a tree falls back to
 * the original's table for the subtrees the copy shares, so re-scoring after pruning costs
 * only what pruning changed.
 */
export class StatsTable {
  readonly own = new Map<Element, Stats>()
  readonly base: StatsTable | undefined
  constructor(base?: StatsTable) {
    this.base = base
  }
  get(element: Element): Stats | undefined {
    return this.own.get(element) ?? this.base?.get(element)
  }
}

/** Stats for every element under `root`, keyed by identity. */
export const computeStats = (root: Root | Element, base?: StatsTable): StatsTable => {
  const table = new StatsTable(base)
  const stats = table.own
  const visit = (node: Element, inLink: boolean, inProse: boolean): Stats => {
    const shared = base?.get(node)
    if (shared !== undefined) return shared
    const own: Stats = emptyStats()
    const isLink = node.tagName === "a"
    const linkHere = inLink || isLink
    const proseHere = inProse || PROSE_TAGS.has(node.tagName)
    for (const child of node.children) {
      if (child.type === "text") {
        const n = textChars(child.value)
        own.chars += n
        own.commas += lastCommas
        // long bare text runs in divs are prose too (div-soup pages without <p>)
        if (proseHere || n >= 40) own.proseChars += n
      } else if (child.type === "element") {
        // raw-text containers are not reader-visible text (the cleaner removes them anyway)
        if (RAW_TEXT_TAGS.has(child.tagName)) continue
        const s = visit(child, linkHere, proseHere)
        own.chars += s.chars
        own.linkChars += s.linkChars
        own.commas += s.commas
        own.links += s.links
        own.proseChars += s.proseChars
        own.paragraphs += s.paragraphs
        own.images += s.images
        own.listItems += s.listItems
        own.code += s.code
        own.headerCells += s.headerCells
        own.rows += s.rows
        own.cells += s.cells
        switch (child.tagName) {
          case "p":
            own.paragraphs++
            break
          case "img":
          case "picture":
            own.images++
            break
          case "li":
            own.listItems++
            break
          case "pre":
          case "code":
            own.code++
            break
          case "th":
          case "thead":
          case "caption":
            own.headerCells++
            break
          case "tr":
            own.rows++
            break
          case "td":
            own.cells++
            break
        }
      }
    }
    if (isLink) {
      own.links += 1
      if (!inLink) {
        const href = attr(node, "href")
        own.linkChars = href !== undefined && href.startsWith("#") ? own.chars * 0.3 : own.chars
      }
    }
    stats.set(node, own)
    return own
  }
  for (const child of root.children) if (child.type === "element" && !RAW_TEXT_TAGS.has(child.tagName)) visit(child, false, false)
  return table
}

const emptyStats = (): Stats => ({
  chars: 0, linkChars: 0, commas: 0, links: 0, proseChars: 0, paragraphs: 0, images: 0, listItems: 0, code: 0, headerCells: 0, rows: 0, cells: 0
})

export const EMPTY_STATS: Stats = emptyStats()

export const linkDensity = (s: Stats): number => (s.chars === 0 ? 0 : Math.min(1, s.linkChars / s.chars))

/**
 * A copy of `node` without the elements `drop` rejects. Untouched subtrees are shared, not
 * copied, so a filter that removes little costs little.
 */
export const filterTree = <T extends Root | Element>(
  node: T,
  drop: (element: Element, parent: Root | Element) => boolean,
  /** a replacement for a kept element (its children are filtered afterwards) */
  replace?: (element: Element) => Element | undefined
): T => {
  const go = <N extends Root | Element>(parent: N): N => {
    let changed = false
    const next: Array<ElementContent | RootContent> = []
    for (const child of parent.children) {
      if (child.type === "element") {
        if (drop(child, parent)) {
          changed = true
          continue
        }
        let copy = go(child)
        const replacement = replace?.(copy)
        if (replacement !== undefined) copy = replacement
        if (copy !== child) changed = true
        next.push(copy)
      } else {
        next.push(child)
      }
    }
    return changed ? ({ ...parent, children: next } as N) : parent
  }
  return go(node)
}

/** Depth-first pre-order walk over elements; return false from `visit` to skip a subtree. */
export const walkElements = (node: Root | Element, visit: (element: Element, parent: Root | Element) => boolean | void): void => {
  for (const child of node.children) {
    if (child.type !== "element") continue
    if (visit(child, node) === false) continue
    walkElements(child, visit)
  }
}

/** Whether some element below `element` passes `test`. */
export const hasDescendant = (element: Element, test: (descendant: Element) => boolean): boolean =>
  element.children.some((c) => c.type === "element" && (test(c) || hasDescendant(c, test)))

/**
 * Text of a small element, whitespace collapsed and lower-cased; undefined as soon as the raw
 * text grows past `maxRaw` characters, so that judging big blocks costs nothing.
 */
export const boundedText = (element: Element, maxRaw: number): string | undefined => {
  let out = ""
  const visit = (el: Element): boolean => {
    for (const child of el.children) {
      if (child.type === "text") out += child.value
      else if (child.type === "element" && !visit(child)) return false
      if (out.length > maxRaw) return false
    }
    return true
  }
  if (!visit(element)) return undefined
  return out.replace(/\s+/g, " ").trim().toLowerCase()
}

/** The `<body>` element (or the root when the tree is a fragment or a forgiving parser left it out). */
export const findBody = (root: Root): Root | Element => {
  let found: Element | undefined
  const search = (node: Root | Element, depth: number) => {
    for (const child of node.children) {
      if (found !== undefined || child.type !== "element") continue
      if (child.tagName === "body") found = child
      else if (depth < 3 && (child.tagName === "html" || depth === 0)) search(child, depth + 1)
    }
  }
  search(root, 0)
  return found ?? root
}

/** Concatenated raw text of a subtree (no layout rules; for JSON-LD and short labels). */
export const rawText = (node: AnyNode): string => {
  if (node.type === "text") return node.value
  if (node.type === "element" || node.type === "root") {
    let out = ""
    for (const child of node.children) out += rawText(child)
    return out
  }
  return ""
}
