/**
 * Main-content extraction (`onlyMainContent`): keep what a reader came for, drop the page's
 * chrome. A cascade in the spirit of Readability and trafilatura: prune chrome, score
 * paragraphs into a best container, clean it, and when that keeps too little of the page,
 * retry with looser rules and finally fall back to the pruned page ("drop boilerplate only"),
 * which is also the mode for listings and service pages whose content is spread over many
 * blocks. Pure and synchronous; the input tree is never mutated.
 */
import type { Element, ElementContent, Root, RootContent } from "hast"
import { cleanContent, prunePage } from "./MainContentClean.ts"
import { EMPTY_STATS, type StatsTable, classAndId, computeStats, filterTree, findBody, isMainLandmark, linkDensity, walkElements } from "./MainContentNodes.ts"
import { type PageHints, readHints } from "./MainContentHints.ts"
import { scoreTree } from "./MainContentScore.ts"
import { dropAdjacentCopies, dropRepeatedBlocks } from "./MainContentRepeats.ts"
import { dropCallsToAction } from "./MainContentCalls.ts"
import { dropReferenceSections } from "./MainContentHeadings.ts"
import { REVIEWS, isMarkedHidden } from "./MainContentPatterns.ts"
import { type PathFeatures, pathFeatures, preferBlocks } from "./MainContentChoice.ts"
import { type PickPath, pageTitle } from "./MainContentBlocks.ts"
import { pruneWithModel } from "./MainContentLearned.ts"
import { dropProductCards } from "./MainContentCards.ts"
import { dropAddressFields } from "./MainContentData.ts"

export type { PageHints } from "./MainContentHints.ts"
export type { PathFeatures } from "./MainContentChoice.ts"

/** Read page hints from the raw parsed page; call before cleaning, pass as `options.hints`. */
export const readMainContentHints = (parsed: Root, url?: string): PageHints => readHints(parsed, url)

export interface MainContentOptions {
  /** the page's final URL (URL-shaped hints such as forum thread paths) */
  readonly url?: string
  /**
   * Hints read from the raw page before cleaning strips `<script type="application/ld+json">`
   * and `<head>` (see `readMainContentHints`); read from `root` itself when absent.
   */
  readonly hints?: PageHints
  /** Force the article or multi-block path where both are viable (benchmarks compare the two). */
  readonly path?: "article" | "blocks"
  /** Told the features of the article/multi-block choice when the page needed one (benchmarks). */
  readonly onChoice?: (features: PathFeatures) => void
  /**
   * Drop the pick's blocks the learned block model (models/main-content) scores as boilerplate
   * (default true; false gives the rules' pick, which the model's training data is made of).
   */
  readonly learned?: boolean
}

interface Attempt {
  readonly stripUnlikely: boolean
  readonly useClassWeights: boolean
  readonly clean: boolean
}

/** The retry ladder: each rung drops one safeguard that can over-strip. */
const LADDER: ReadonlyArray<Attempt> = [
  { stripUnlikely: true, useClassWeights: true, clean: true },
  { stripUnlikely: false, useClassWeights: true, clean: true },
  { stripUnlikely: false, useClassWeights: false, clean: true },
  { stripUnlikely: false, useClassWeights: false, clean: false }
]

/** Below this many characters the result is suspicious and the next rung is tried. */
const MIN_CHARS = 500

const rootOf = (children: Array<ElementContent>): Root => ({ type: "root", children })

const withoutDoctype = (nodes: ReadonlyArray<RootContent>): Array<ElementContent> => {
  const out: Array<ElementContent> = []
  for (const node of nodes) if (node.type !== "doctype") out.push(node)
  return out
}

const charsOf = (root: Root, base?: StatsTable): number => {
  const stats = computeStats(root, base)
  let n = 0
  for (const child of root.children) if (child.type === "element") n += (stats.get(child) ?? EMPTY_STATS).chars
  return n
}

const containsElement = (node: Root | Element, target: Element): boolean => {
  for (const child of node.children) {
    if (child === target) return true
    if (child.type === "element" && containsElement(child, target)) return true
  }
  return false
}

interface Page {
  readonly body: Root | Element
  readonly stats: StatsTable
  readonly chars: number
  /** false on streamed pages, whose content waits hidden for a script to reveal it */
  readonly stripHidden: boolean
}

/**
 * Under this share of the text visible, the page is a streamed render (content sent in hidden
 * chunks that a script swaps in): hidden blocks are then the content, not what the page hides.
 */
const STREAMED_VISIBLE_SHARE = 0.05

const hiddenChars = (body: Root | Element, stats: StatsTable): number => {
  let hidden = 0
  walkElements(body, (el) => {
    if (!isMarkedHidden(el)) return true
    hidden += (stats.get(el) ?? EMPTY_STATS).chars
    return false
  })
  return hidden
}

const analysePage = (root: Root, noscript?: Element): Page => {
  let body = findBody(root)
  // cleaning dropped the page's script-less rendering: put it back where the page had it
  if (noscript !== undefined && !containsElement(body, noscript)) {
    body = { ...body, children: [...body.children, { ...noscript, tagName: "div" }] } as Root | Element
  }
  const stats = computeStats(body)
  let chars = 0
  for (const child of body.children) if (child.type === "element") chars += (stats.get(child) ?? EMPTY_STATS).chars
  const stripHidden = chars === 0 || chars - hiddenChars(body, stats) >= chars * STREAMED_VISIBLE_SHARE
  return { body, stats, chars, stripHidden }
}

/** The article path: the best-scoring container, walked down the retry ladder when short. */
const singleNodeContent = (page: Page, keepComments = false): Root | undefined => {
  let best: { root: Root; chars: number } | undefined
  for (const attempt of LADDER) {
    const pruned = prunePage(page.body, page.stats, { stripUnlikely: attempt.stripUnlikely, stripHidden: page.stripHidden, keepComments })
    const stats = computeStats(pruned, page.stats)
    const scored = scoreTree(pruned, stats, { useClassWeights: attempt.useClassWeights })
    if (scored.nodes.length === 0) continue
    let content = rootOf(scored.nodes.map((n): Element => n))
    if (attempt.clean) content = cleanContent(content, { useClassWeights: attempt.useClassWeights }, stats)
    const chars = charsOf(content, stats)
    if (best === undefined || chars > best.chars) best = { root: content, chars }
    if (chars >= Math.min(MIN_CHARS, page.chars * 0.5)) break
  }
  return best?.root
}

/** The multi-block path: the page minus its chrome and boilerplate blocks. */
const boilerplateOnlyContent = (page: Page, keepComments: boolean, thread = false): Root => {
  const pruned = prunePage(page.body, page.stats, { stripUnlikely: true, stripHidden: page.stripHidden, keepComments, chromeOnly: true })
  const stats = computeStats(pruned, page.stats)
  let total = 0
  for (const child of pruned.children) if (child.type === "element") total += (stats.get(child) ?? EMPTY_STATS).chars
  // the page's own landmark for its main region, when it holds a fair share of the text
  let region: Element | undefined
  walkElements(pruned, (el) => {
    if (region !== undefined) return false
    if (isMainLandmark(el)) {
      if ((stats.get(el) ?? EMPTY_STATS).chars >= total * 0.4) region = el
      return false
    }
    return true
  })
  // otherwise the smallest block that holds nearly all of the prose: what lies outside it is
  // leftover chrome without telling class names
  if (region === undefined) region = proseRegion(pruned, stats, 0.9)
  const kept = rootOf(region !== undefined ? [region] : withoutDoctype(pruned.children))
  // in a thread, link blocks are navigation; on other pages they may be the listing itself
  const keptChars = region !== undefined ? (stats.get(region) ?? EMPTY_STATS).chars : total
  return thread ? dropLinkFarms(kept, stats, keptChars) : dropLinkTrees(kept, stats, keptChars)
}

const LISTS = new Set(["ul", "ol"])

const hasNestedList = (list: Element): boolean => {
  for (const item of list.children) {
    if (item.type !== "element") continue
    for (const child of item.children) if (child.type === "element" && LISTS.has(child.tagName)) return true
  }
  return false
}

/**
 * Nested lists made of links are menus and site maps (a listing is a flat run of cards): gone
 * from the multi-block path unless they are most of what it keeps.
 */
export const dropLinkTrees = (content: Root, stats: StatsTable, total: number): Root =>
  filterTree(content, (element) => {
    if (!LISTS.has(element.tagName)) return false
    const s = stats.get(element)
    if (s === undefined || s.links < 8 || s.chars >= total * 0.5) return false
    return linkDensity(s) > 0.8 && hasNestedList(element)
  })

const proseRegion = (root: Root | Element, stats: StatsTable, share: number): Element | undefined => {
  let prose = 0
  for (const child of root.children) if (child.type === "element") prose += (stats.get(child) ?? EMPTY_STATS).proseChars
  if (prose === 0) return undefined
  let node: Root | Element = root
  let found: Element | undefined
  // descend while one child still holds the required share of the prose
  for (;;) {
    let next: Element | undefined
    for (const child of node.children) {
      if (child.type === "element" && (stats.get(child) ?? EMPTY_STATS).proseChars >= prose * share) {
        next = child
        break
      }
    }
    if (next === undefined) return found
    found = next
    node = next
  }
}

const FARM_TAGS = new Set(["div", "section", "ul", "ol", "nav", "table", "aside", "dl", "footer", "header", "p", "span"])

/** Blocks of several links that are a small part of the thread (category lists, pagers, similar topics). */
const dropLinkFarms = (content: Root, stats: StatsTable, total: number): Root =>
  filterTree(content, (element) => {
    if (!FARM_TAGS.has(element.tagName)) return false
    const s = stats.get(element)
    if (s === undefined || s.links < 3) return false
    return linkDensity(s) > 0.6 && s.chars < total * 0.3
  })

export const extractMainContent = (root: Root, options?: MainContentOptions): Root => {
  const hints = options?.hints ?? readHints(root, options?.url)
  const page = analysePage(root, hints.noscript)
  let path: PickPath = "other"
  const picked = pickContent(page, hints, options, (p) => (path = p))
  const content = neverEmpty(dropReferenceSections(dropCallsToAction(dropRepeatedBlocks(dropAdjacentCopies(dropAddressFields(hints.kind === "product" ? dropProductCards(dropReviews(picked), options?.url) : picked))))), page)
  if (options?.learned === false) return content
  const pruned = pruneWithModel(content, { title: pageTitle(page.body), path, kind: hints.kind, stats: page.stats })
  if (pruned === content) return content
  // a prune that leaves (almost) nothing is the model's mistake, not the page's
  return hasSubstance(pruned, page.stats, Math.min(TINY_CHARS, page.chars * TINY_SHARE)) ? pruned : content
}

/**
 * A pick this short on a page with text is an accident (a widget that outscored the article,
 * a filter that took the rest), not a page whose content is short: a one-line product blurb
 * still clears it, a lone "Share" button does not.
 */
const TINY_CHARS = 100
const TINY_SHARE = 0.1

/**
 * Never empty by accident: when the page has visible text and the pick kept (almost) none,
 * a fallback ladder runs: the article path, the multi-block path, then the whole body with
 * only its chrome and hidden blocks removed. The first rung that keeps more than a tiny amount
 * of text outside links wins. When none does, the page's text is all navigation (an app shell
 * whose content scripts fill in: WCXB's references for such pages are empty too), and the pick
 * stays empty; the pipeline says why in `warning`.
 */
const neverEmpty = (picked: Root, page: Page): Root => {
  if (page.chars === 0) return picked
  const enough = Math.min(TINY_CHARS, page.chars * TINY_SHARE)
  if (charsOf(picked, page.stats) >= enough) return picked
  const rungs: Array<() => Root | undefined> = [
    () => singleNodeContent(page),
    () => boilerplateOnlyContent(page, true),
    () => {
      const pruned = prunePage(page.body, page.stats, { stripUnlikely: false, stripHidden: page.stripHidden, keepComments: true, chromeOnly: true })
      return pruned.type === "root" ? pruned : rootOf([pruned])
    }
  ]
  for (const rung of rungs) {
    const content = rung()
    if (content !== undefined && hasSubstance(content, page.stats, enough)) return content
  }
  return picked
}

/** The ladder of `neverEmpty` run on a given pick of the cleaned page `root` (tests and benchmarks). */
export const rescueEmptyPick = (picked: Root, root: Root, hints?: PageHints): Root => neverEmpty(picked, analysePage(root, hints?.noscript))

/** Text outside links of at least `enough` characters, and links under half of the text. */
const hasSubstance = (content: Root, base: StatsTable, enough: number): boolean => {
  const stats = computeStats(content, base)
  let chars = 0
  let linkChars = 0
  for (const child of content.children) {
    if (child.type !== "element") continue
    const s = stats.get(child) ?? EMPTY_STATS
    chars += s.chars
    linkChars += s.linkChars
  }
  return chars - linkChars >= enough && linkChars < chars * 0.5
}

/**
 * On a product page, customer reviews are what comments are to an article: voices about the
 * product, not the page's description and specifications. WCXB's product references leave
 * them out (about 2,970 words of review widgets kept before, against 300 in the references).
 * A review block that holds most of what was picked is left alone: then it is the page.
 */
const dropReviews = (content: Root): Root => {
  const stats = computeStats(content)
  let total = 0
  for (const child of content.children) if (child.type === "element") total += (stats.get(child) ?? EMPTY_STATS).chars
  return filterTree(content, (element) => {
    const ci = classAndId(element)
    return ci !== "" && REVIEWS.test(ci) && (stats.get(element) ?? EMPTY_STATS).chars < total * 0.5
  })
}

const pickContent = (page: Page, hints: PageHints, options: MainContentOptions | undefined, onPath: (path: PickPath) => void): Root => {
  // forum threads: every post is content, so keep the page minus chrome, comments included
  if (hints.kind === "forum") return boilerplateOnlyContent(page, true, true)
  const article = singleNodeContent(page)
  const articleChars = article === undefined ? 0 : charsOf(article, page.stats)
  if (article !== undefined && articleChars >= 250) {
    const blocks = boilerplateOnlyContent(page, false)
    // the best node holds under half of the de-chromed page: the content is spread over many
    // blocks (listings, service pages, card grids), so keep them all
    const features = pathFeatures(article, blocks, page.stats, hints.kind)
    options?.onChoice?.(features)
    const path = options?.path ?? (preferBlocks(features) ? "blocks" : "article")
    onPath(path)
    return path === "blocks" ? blocks : article
  }
  // too little survived: keep the page minus its chrome rather than (almost) nothing
  const fallback = boilerplateOnlyContent(page, true)
  const best = article === undefined || charsOf(fallback, page.stats) > articleChars ? fallback : article
  return rescueFromStructuredData(best, hints, page.stats)
}

/**
 * Script-rendered pages can leave almost nothing in the markup while their JSON-LD states the
 * article body or product description: use that text when it says much more.
 */
const rescueFromStructuredData = (content: Root, hints: PageHints, stats: StatsTable): Root => {
  const stated = [hints.articleBody, hints.productDescription].reduce<string>((a, b) => (b !== undefined && b.length > a.length ? b : a), "")
  const chars = charsOf(content, stats)
  if (chars >= 250 || stated.trim().length < Math.max(200, chars * 2)) return content
  const paragraphs = stated.split(/\n\s*\n|\r?\n/).map((p) => p.trim()).filter((p) => p !== "")
  return rootOf(paragraphs.map((p): Element => ({ type: "element", tagName: "p", properties: {}, children: [{ type: "text", value: p }] })))
}
