/**
 * Node-level features for the learned main-content signal (models/main-content): the leaf
 * blocks of a main-content pick (paragraphs, headings, lists, tables, quotes, code, and
 * containers of inline text) with measurements that carry across sites: size, link density,
 * punctuation and short-word rates, tag and depth, position against the pick's prose, distance
 * from the last heading, overlap with the page's title, repeated sibling structures, and
 * markup semantics (landmark tags and generic class/id tokens of the ancestors, no site lists).
 */
import type { Element, Root } from "hast"
import { EMPTY_STATS, type StatsTable, attr, classAndId, computeStats, linkDensity } from "./MainContentNodes.ts"
import { BLOCK_TAGS, COMMENTS, CONTENT_CONTAINER, NEGATIVE, POSITIVE, UNLIKELY } from "./MainContentPatterns.ts"
import type { PageKind } from "./MainContentHints.ts"

/** Feature names, in row order (the model file records them; a change means retraining). */
export const BLOCK_FEATURES = [
  "logChars", "words", "linkDensity", "links", "stopsPerWord", "commasPerWord", "shortWordShare", "capitalShare",
  "digitShare", "meanWordLength", "endsWithStop", "headingLevel", "isList", "isTable", "isParagraph", "isQuoteOrCode",
  "depth", "charPosition", "blockPosition", "proseSide", "proseDistance", "sinceHeading", "titleOverlap", "sameSiblings",
  "inArticle", "inAside", "inNav", "inFooter", "inHeader", "inForm", "inMain", "classUnlikely", "classNegative",
  "classPositive", "classComments", "classContainer", "pageShare", "parentLinkDensity", "prevLinkDensity",
  "nextLinkDensity", "images", "path", "logPageChars", "pageBlocks", "kind", "duplicate"
] as const

/** The pick being scored: the article path, the multi-block path, or a page with no choice. */
export type PickPath = "article" | "blocks" | "other"

export interface Block {
  readonly element: Element
  /** lower-cased word tokens */
  readonly words: ReadonlyArray<string>
  readonly chars: number
  readonly row: Array<number>
}

/** Elements scored whole: what is inside them belongs together. */
const ATOMIC = new Set(["p", "h1", "h2", "h3", "h4", "h5", "h6", "pre", "blockquote", "table", "ul", "ol", "dl", "figure", "menu"])
const HEADING_LEVEL: Record<string, number> = { h1: 1, h2: 2, h3: 3, h4: 4, h5: 5, h6: 6 }
const WORD = /[\p{L}\p{N}_]+/gu
const PATHS: Record<PickPath, number> = { article: 0, blocks: 1, other: 2 }
const KINDS: Record<PageKind, number> = { unknown: 0, article: 1, product: 2, forum: 3 }

const textOf = (element: Element): string => {
  let out = ""
  const visit = (el: Element) => {
    for (const child of el.children) {
      if (child.type === "text") out += child.value
      else if (child.type === "element") {
        visit(child)
        if (BLOCK_TAGS.has(child.tagName) || child.tagName === "br") out += " "
      }
    }
  }
  visit(element)
  return out
}

const hasBlockChild = (element: Element): boolean =>
  element.children.some((c) => c.type === "element" && (BLOCK_TAGS.has(c.tagName) || ATOMIC.has(c.tagName)))

interface Context {
  readonly depth: number
  readonly flags: number
  readonly parent: Element | undefined
  readonly siblings: number
}

const FLAG = { article: 1, aside: 2, nav: 4, footer: 8, header: 16, form: 32, main: 64, unlikely: 128, negative: 256, positive: 512, comments: 1024, container: 2048 }

const flagsOf = (element: Element): number => {
  let f = 0
  const tag = element.tagName
  const role = attr(element, "role")
  if (tag === "article" || role === "article") f |= FLAG.article
  if (tag === "aside" || role === "complementary") f |= FLAG.aside
  if (tag === "nav" || role === "navigation") f |= FLAG.nav
  if (tag === "footer" || role === "contentinfo") f |= FLAG.footer
  if (tag === "header" || role === "banner") f |= FLAG.header
  if (tag === "form") f |= FLAG.form
  if (tag === "main" || role === "main") f |= FLAG.main
  const ci = classAndId(element)
  if (ci !== "") {
    if (UNLIKELY.test(ci)) f |= FLAG.unlikely
    if (NEGATIVE.test(ci)) f |= FLAG.negative
    if (POSITIVE.test(ci)) f |= FLAG.positive
    if (COMMENTS.test(ci)) f |= FLAG.comments
    if (CONTENT_CONTAINER.test(ci)) f |= FLAG.container
  }
  return f
}

const siblingKey = (el: Element): string => {
  const cls = el.properties.className
  return `${el.tagName}.${Array.isArray(cls) ? cls.join(" ") : ""}`
}

interface Raw {
  readonly element: Element
  readonly context: Context
  readonly words: Array<string>
  readonly text: string
  readonly chars: number
}

/** Leaf blocks of `content` in document order, with their features. */
export const pickBlocks = (content: Root, options: { readonly title: string; readonly path: PickPath; readonly kind: PageKind; readonly stats?: StatsTable }): Array<Block> => {
  const stats = computeStats(content, options.stats)
  const raws: Array<Raw> = []
  const visit = (parent: Root | Element, context: Context) => {
    const counts = new Map<string, number>()
    for (const child of parent.children) if (child.type === "element") counts.set(siblingKey(child), (counts.get(siblingKey(child)) ?? 0) + 1)
    for (const child of parent.children) {
      if (child.type !== "element") continue
      const own: Context = {
        depth: context.depth + 1,
        flags: context.flags | flagsOf(child),
        parent: parent.type === "element" ? parent : undefined,
        siblings: Math.max(context.siblings, counts.get(siblingKey(child)) ?? 1)
      }
      if (ATOMIC.has(child.tagName) || !hasBlockChild(child)) {
        const text = textOf(child)
        const words = text.toLowerCase().match(WORD) ?? []
        if (words.length === 0 && (stats.get(child) ?? EMPTY_STATS).images === 0) continue
        raws.push({ element: child, context: own, words, text, chars: (stats.get(child) ?? EMPTY_STATS).chars })
      } else visit(child, own)
    }
  }
  visit(content, { depth: 0, flags: 0, parent: undefined, siblings: 1 })

  const total = raws.reduce((s, r) => s + r.chars, 0) || 1
  const density = raws.map((r) => linkDensity(stats.get(r.element) ?? EMPTY_STATS))
  const prose = raws.map((r, i) => r.chars >= 80 && density[i] < 0.3 && (r.element.tagName === "p" || r.text.includes(". ")))
  const first = prose.indexOf(true)
  const last = prose.lastIndexOf(true)
  const titleWords = new Set(options.title.toLowerCase().match(WORD) ?? [])
  const seen = new Map<string, number>()
  for (const r of raws) if (r.words.length > 0) seen.set(r.words.join(" "), (seen.get(r.words.join(" ")) ?? 0) + 1)
  let before = 0
  let sinceHeading = 50
  let nearestProse = -1
  const nextProse: Array<number> = raws.map(() => -1)
  for (let i = raws.length - 1, next = -1; i >= 0; i--) {
    if (prose[i]) next = i
    nextProse[i] = next
  }
  return raws.map((r, i): Block => {
    const s = stats.get(r.element) ?? EMPTY_STATS
    const tag = r.element.tagName
    const wordCount = r.words.length
    let stops = 0
    let capitals = 0
    let digits = 0
    let letters = 0
    for (let k = 0; k < r.text.length; k++) {
      const c = r.text.charCodeAt(k)
      if (c === 46 || c === 33 || c === 63 || c === 0x3002) stops++
      else if (c >= 48 && c <= 57) digits++
      if (c > 32) letters++
    }
    let short = 0
    let wordChars = 0
    for (const w of r.words) {
      if (w.length <= 3) short++
      wordChars += w.length
    }
    for (const m of r.text.match(/(?:^|\s)\p{Lu}/gu) ?? []) if (m !== "") capitals++
    const trimmed = r.text.trimEnd()
    const endsWithStop = /[.!?。:]$/.test(trimmed) ? 1 : 0
    if (prose[i]) nearestProse = i
    const distBack = nearestProse < 0 ? 99 : i - nearestProse
    const distFwd = nextProse[i] < 0 ? 99 : nextProse[i] - i
    const side = first < 0 ? 0 : i < first ? -1 : i > last ? 1 : 0
    const parentStats = r.context.parent === undefined ? undefined : stats.get(r.context.parent)
    let titleHits = 0
    for (const w of r.words) if (titleWords.has(w)) titleHits++
    const flags = r.context.flags
    const bit = (b: number) => ((flags & b) !== 0 ? 1 : 0)
    const row = [
      Math.log1p(r.chars), wordCount, density[i], s.links, wordCount === 0 ? 0 : stops / wordCount,
      wordCount === 0 ? 0 : s.commas / wordCount, wordCount === 0 ? 0 : short / wordCount, wordCount === 0 ? 0 : capitals / wordCount,
      letters === 0 ? 0 : digits / letters, wordCount === 0 ? 0 : wordChars / wordCount, endsWithStop, HEADING_LEVEL[tag] ?? 0,
      tag === "ul" || tag === "ol" || tag === "dl" || tag === "menu" ? 1 : 0, tag === "table" ? 1 : 0, tag === "p" ? 1 : 0,
      tag === "pre" || tag === "blockquote" ? 1 : 0, r.context.depth, before / total, raws.length <= 1 ? 0 : i / (raws.length - 1), side,
      Math.min(distBack, distFwd), sinceHeading, wordCount === 0 ? 0 : titleHits / wordCount, r.context.siblings,
      bit(FLAG.article), bit(FLAG.aside), bit(FLAG.nav), bit(FLAG.footer), bit(FLAG.header), bit(FLAG.form), bit(FLAG.main),
      bit(FLAG.unlikely), bit(FLAG.negative), bit(FLAG.positive), bit(FLAG.comments), bit(FLAG.container), r.chars / total,
      parentStats === undefined ? density[i] : linkDensity(parentStats), i > 0 ? density[i - 1] : -1, i + 1 < raws.length ? density[i + 1] : -1,
      s.images, PATHS[options.path], Math.log1p(total), raws.length, KINDS[options.kind],
      r.words.length > 0 && (seen.get(r.words.join(" ")) ?? 0) > 1 ? 1 : 0
    ]
    before += r.chars
    sinceHeading = HEADING_LEVEL[tag] !== undefined ? 0 : Math.min(50, sinceHeading + 1)
    return { element: r.element, words: r.words, chars: r.chars, row }
  })
}

/** The page's headline for the title-overlap feature: its first `<h1>` (cleaning drops `<title>`). */
export const pageTitle = (body: Root | Element): string => {
  let title: string | undefined
  const visit = (node: Root | Element) => {
    for (const child of node.children) {
      if (title !== undefined) return
      if (child.type !== "element") continue
      if (child.tagName === "h1") title = textOf(child)
      else visit(child)
    }
  }
  visit(body)
  return title ?? ""
}
