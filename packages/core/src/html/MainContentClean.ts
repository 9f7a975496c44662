/**
 * The pruning passes around the scorer. `prunePage` removes page chrome before scoring
 * (junk tags, hidden nodes, nav/aside/footer, boilerplate by class/id) while refusing to
 * remove a block that holds most of the page's text, the classic way such filters go wrong.
 * `cleanContent` then removes link-heavy and negatively weighted blocks from the chosen
 * content, keeping data tables, code and figures.
 */
import type { Element, Root } from "hast"
import { type Stats, type StatsTable, EMPTY_STATS, attr, classAndId, computeStats, filterTree, hasDescendant, isMainLandmark, linkDensity, walkElements } from "./MainContentNodes.ts"
import { HEADING, isRecirculationBlock } from "./MainContentHeadings.ts"
import { CHROME_CLASS, CHROME_ROLES, CHROME_TAGS, COMMENTS, FORUM_CHROME, JUNK_TAGS, UNLIKELY, classWeight, isAlwaysBoilerplate, isHidden, isMarkedHidden, isUnlikely } from "./MainContentPatterns.ts"

export interface PruneOptions {
  readonly stripUnlikely: boolean
  readonly stripHidden: boolean
  /** forum threads: comment-like containers are the content */
  readonly keepComments: boolean
  /** judge class names by the chrome subset only (paths without a retry ladder) */
  readonly chromeOnly?: boolean
}

/** Containers forum engines use for per-post furniture (never code or quotes). */
const FURNITURE_TAGS = new Set(["div", "span", "ul", "dl", "section", "footer", "aside"])

/** Signatures: the one per-post block that no reference keeps and no engine puts a name in. */
const SIGNATURE = /(?:^|[\s_-])(?:signature|sig|sig_text|sigline|postsig)(?:$|[\s_-])/

const isForumFurniture = (element: Element): boolean => {
  const ci = classAndId(element)
  return ci !== "" && SIGNATURE.test(ci)
}

/** Tags whose subtree is content by construction (never judged by class names). */
const PROTECTED = new Set(["pre", "code", "table", "tbody", "thead", "tr", "td", "th", "figure", "blockquote", "math"])

/** Containers that, in a table cell holding a good part of the page, make it a layout table's column. */
const LAYOUT_BLOCKS = new Set(["div", "section", "article", "aside", "nav", "header", "footer", "form"])

/**
 * Remove page chrome under `body`. `stats` must be the statistics of `body`'s own tree; a
 * block holding more than `maxShare` of the text is never removed as chrome.
 */
export const prunePage = <T extends Root | Element>(body: T, stats: StatsTable, options: PruneOptions, maxShare = 0.5): T => {
  let total = 0
  for (const child of body.children) if (child.type === "element") total += (stats.get(child) ?? EMPTY_STATS).chars
  const big = (element: Element, share = maxShare) => total > 0 && (stats.get(element) ?? EMPTY_STATS).chars > total * share
  // a big block is spared as chrome only when it reads like content (mega menus are big too)
  // (the multi-block path has no retry ladder, so it also spares whatever holds nearly everything)
  const bigContent = (element: Element) =>
    (options.chromeOnly === true && big(element, 0.8)) || (big(element) && linkDensity(stats.get(element) ?? EMPTY_STATS) < 0.5)
  // a block in a table cell that holds a fifth of the page is laid out, not tabulated: it is judged
  // like any block, except on threads (forum engines put each post in a cell)
  const isLayoutColumn = (tag: string, cell: Element) =>
    !options.keepComments && LAYOUT_BLOCKS.has(tag) && (cell.tagName === "td" || cell.tagName === "th") && big(cell, 0.2)
  const protectedDepth = new Set<Element>()
  const landmarkAncestors = ancestorsOfLandmarks(body, stats, total)
  const pageFooters = footersBesideMain(body)
  const sectionHeaders = headersOfSections(body)
  let bodyWords: Map<string, number> | undefined
  let articles: ReadonlyArray<Element> | undefined
  // a sidebar is chrome however much it holds when the page's article or main region lies
  // beside it (a live feed or a comment column can outweigh a short article)
  const besideArticle = (element: Element): boolean =>
    (articles ??= proseLandmarks(body, stats, total)).some((a) => a !== element && !hasDescendant(element, (d) => d === a) && !hasDescendant(a, (d) => d === element))
  return filterTree(body, (element, parent) => {
    const tag = element.tagName
    // pages that render their content only without scripts (Discourse) keep it in <noscript>
    if (tag === "noscript") return !big(element, 0.3)
    if (JUNK_TAGS.has(tag)) return true
    // forum engines that lay posts out in tables keep signatures inside the cells
    if (options.keepComments && options.stripUnlikely && FURNITURE_TAGS.has(tag) && isForumFurniture(element) && !bigContent(element)) return true
    if (parent.type === "element" && (protectedDepth.has(parent) || PROTECTED.has(parent.tagName)) && !isLayoutColumn(tag, parent)) {
      protectedDepth.add(element)
      return false
    }
    // big prose blocks hidden in the markup are swapped in by scripts (streamed React) or tabs,
    // unless they only repeat what the page shows (a raw-markdown copy for agents, a summary)
    if (options.stripHidden && isHidden(element) && !followsExpander(element, parent)) {
      return !(big(element, 0.25) && linkDensity(stats.get(element) ?? EMPTY_STATS) < 0.4) || (bodyWords ??= wordCounts(body)) !== undefined && repeatsRest(element, bodyWords)
    }
    if (tag === "body" || tag === "html") return false
    if (options.stripUnlikely && isAlwaysBoilerplate(element)) return true
    // wrappers of the page's own main landmark are layout, whatever their class names say
    if (landmarkAncestors.has(element)) return false
    // a block its own heading calls "Related posts" or "You may also like" points elsewhere
    if (!big(element, 0.4) && isRecirculationBlock(element, stats)) return true
    if (tag === "main" || tag === "article") return false
    // a section's own header is judged by its class names only, as any block
    if (sectionHeaders.has(element)) return options.stripUnlikely && isUnlikely(element, options.chromeOnly === true ? CHROME_CLASS : UNLIKELY) && !bigContent(element)
    const role = attr(element, "role")
    if (CHROME_TAGS.has(tag)) return pageFooters.has(element) || !bigContent(element) || ((tag === "aside" || role === "complementary") && besideArticle(element))
    if (role !== undefined && CHROME_ROLES.has(role)) return !bigContent(element) || (role === "complementary" && besideArticle(element))
    if (options.stripUnlikely && !PROTECTED.has(tag)) {
      if (options.keepComments) {
        const ci = classAndId(element)
        if (ci !== "" && FORUM_CHROME.test(ci) && !bigContent(element)) return true
        if (COMMENTS.test(ci)) return false
      }
      const unlikely = options.chromeOnly === true ? isUnlikely(element, CHROME_CLASS) : isUnlikely(element, UNLIKELY)
      if (unlikely && !bigContent(element)) return true
    }
    return false
  }, unhide)
}

/**
 * A hidden panel opened by the toggle just before it: a heading wrapping a button with
 * `aria-expanded` (the ARIA accordion pattern), or a toggle whose `aria-controls` names the
 * panel. Readers open it, so it is content; a toggled menu is still judged as chrome by the
 * other rules.
 */
const followsExpander = (element: Element, parent: Root | Element): boolean => {
  const id = attr(element, "id")
  for (let j = parent.children.indexOf(element) - 1; j >= 0; j--) {
    const sibling = parent.children[j]
    if (sibling.type === "text" && sibling.value.trim() === "") continue
    if (sibling.type !== "element") return false
    return holdsExpander(sibling, 3, (toggle) => HEADING.has(sibling.tagName) || (id !== undefined && attr(toggle, "ariaControls") === id))
  }
  return false
}

const holdsExpander = (element: Element, depth: number, opens: (toggle: Element) => boolean): boolean =>
  (attr(element, "ariaExpanded") !== undefined && opens(element)) ||
  (depth > 0 && element.children.some((c) => c.type === "element" && holdsExpander(c, depth - 1, opens)))

/** Lower-cased words of the text under `node` (scripts and styles left out), with their counts. */
const wordCounts = (node: Root | Element): Map<string, number> => {
  const counts = new Map<string, number>()
  const visit = (n: Root | Element) => {
    for (const child of n.children) {
      if (child.type === "text") {
        for (const w of child.value.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []) counts.set(w, (counts.get(w) ?? 0) + 1)
      } else if (child.type === "element" && !JUNK_TAGS.has(child.tagName)) visit(child)
    }
  }
  visit(node)
  return counts
}

/** Share of a hidden block's words found again elsewhere on the page above which it is a copy. */
const COPY_SHARE = 0.6

/** Whether most words of `element` also occur in the rest of the page (`all` counts the whole page, `element` included). */
const repeatsRest = (element: Element, all: Map<string, number>): boolean => {
  const own = wordCounts(element)
  let words = 0
  let repeated = 0
  for (const [w, n] of own) {
    words += n
    repeated += Math.min(n, (all.get(w) ?? 0) - n)
  }
  return words > 0 && repeated >= words * COPY_SHARE
}

/**
 * `<footer>` elements outside the page's `<main>` landmark, when it has one: the site footer,
 * chrome however much text it holds (a newsletter form's small print outweighs an empty
 * script-rendered main).
 */
const footersBesideMain = (body: Root | Element): Set<Element> => {
  const footers: Array<Element> = []
  let hasMain = false
  walkElements(body, (el) => {
    if (isMainLandmark(el)) {
      hasMain = true
      return false
    }
    if (el.tagName === "footer") {
      footers.push(el)
      return false
    }
    return true
  })
  return hasMain ? new Set(footers) : new Set()
}

/** What a page's title header holds, and an article's byline header: not a section's heading group. */
const TITLE_OR_DATE = new Set(["h1", "time"])

/**
 * `<header>` elements inside a `<section>`: the heading group of that section (HTML gives them
 * no banner role), the title and lead of a landing page's feature blocks. One holding an `<h1>`
 * or a `<time>` is the page's title or an entry's byline, left to the chrome rules; so is a
 * header inside an `<article>`, which holds the byline more often than not. +0.0008 mean word
 * F1 on WCXB dev (even +0.0003, odd +0.0012; 6 pages gain, one listing loses teaser titles).
 */
const headersOfSections = (body: Root | Element): Set<Element> => {
  const out = new Set<Element>()
  const visit = (node: Root | Element, inSection: boolean) => {
    for (const child of node.children) {
      if (child.type !== "element") continue
      if (child.tagName === "header" && inSection && !hasDescendant(child, (e) => TITLE_OR_DATE.has(e.tagName))) out.add(child)
      visit(child, inSection || child.tagName === "section")
    }
  }
  visit(body, false)
  return out
}

/** Ancestors of `<main>` and `[role=main]` elements that hold a fifth of the text. */
/** `<article>` and main-landmark elements of prose: a sixth of the page's text or more, few links. */
const proseLandmarks = (body: Root | Element, stats: StatsTable, total: number): Array<Element> => {
  const out: Array<Element> = []
  walkElements(body, (el) => {
    if (el.tagName !== "article" && !isMainLandmark(el)) return true
    const s = stats.get(el) ?? EMPTY_STATS
    if (s.chars >= total * PROSE_LANDMARK_SHARE && linkDensity(s) < 0.3) out.push(el)
    return true
  })
  return out
}

const PROSE_LANDMARK_SHARE = 1 / 6

const ancestorsOfLandmarks = (body: Root | Element, stats: StatsTable, total: number): Set<Element> => {
  const out = new Set<Element>()
  const path: Array<Element> = []
  const visit = (node: Root | Element) => {
    for (const child of node.children) {
      if (child.type !== "element") continue
      const landmark = isMainLandmark(child)
      if (landmark && (stats.get(child) ?? EMPTY_STATS).chars >= total * 0.2) {
        for (const a of path) out.add(a)
        continue
      }
      path.push(child)
      visit(child)
      path.pop()
    }
  }
  visit(body)
  return out
}

/**
 * Kept blocks must render: `<noscript>` becomes a `<div>`, and hidden markers come off the
 * hidden blocks that were kept as content (renderers and text conversion skip them).
 */
const unhide = (element: Element): Element | undefined => {
  const tagName = element.tagName === "noscript" ? "div" : element.tagName
  if (tagName === element.tagName && !isMarkedHidden(element)) return undefined
  const properties = { ...element.properties }
  delete properties.hidden
  if (properties.ariaHidden !== undefined) delete properties.ariaHidden
  if (typeof properties.style === "string") properties.style = properties.style.replace(/(?:display\s*:\s*none|visibility\s*:\s*hidden)\s*;?/gi, "")
  return { ...element, tagName, properties }
}

export interface CleanOptions {
  readonly useClassWeights: boolean
}

/** Average characters per link from which a list of links reads as titles, not menu labels. */
const DESCRIPTIVE_LINK = 40

const CONDITIONAL = new Set(["div", "section", "ul", "ol", "dl", "table", "form", "aside", "header", "footer"])

const isDataTable = (table: Element, s: Stats): boolean => {
  if (attr(table, "role") === "presentation") return false
  return s.headerCells > 0 || s.rows >= 10 || s.cells > 10
}

/** Share of an element's text inside its data tables. */
const tableShare = (element: Element, stats: StatsTable): number => {
  const total = (stats.get(element) ?? EMPTY_STATS).chars
  if (total === 0) return 0
  let inTables = 0
  walkElements(element, (el) => {
    if (el.tagName !== "table") return true
    const s = stats.get(el) ?? EMPTY_STATS
    if (isDataTable(el, s)) inTables += s.chars
    return false
  })
  return inTables / total
}

/** Conditional cleaning of the chosen content (the article path). */
export const cleanContent = (content: Root, options: CleanOptions, base?: StatsTable): Root => {
  const stats = computeStats(content, base)
  let total = 0
  for (const child of content.children) if (child.type === "element") total += (stats.get(child) ?? EMPTY_STATS).chars
  // what a data table holds is data, whatever its cells' classes say (cells of links are still judged)
  const inDataTable = new Set<Element>()
  return filterTree(content, (element, parent) => {
    const tag = element.tagName
    const s = stats.get(element) ?? EMPTY_STATS
    if (parent.type === "element" && inDataTable.has(parent) && linkDensity(s) <= 0.5) {
      inDataTable.add(element)
      return false
    }
    if (tag === "table" && isDataTable(element, s)) {
      inDataTable.add(element)
      return false
    }
    if (!CONDITIONAL.has(tag)) return false
    if (s.chars > total * 0.6) return false
    const ld = linkDensity(s)
    if (s.code > 0 && ld < 0.5) return false
    const weight = options.useClassWeights ? classWeight(element) : 0
    // a wrapper made of a data table (a scroll box, a figure frame) is the table
    if (tag !== "table" && s.rows >= 2 && s.cells >= 6 && ld < 0.3 && tableShare(element, stats) >= 0.8) return false
    if (weight < 0) return true
    if (s.commas >= 10) return false
    const isList = tag === "ul" || tag === "ol" || tag === "dl"
    if (!isList && s.chars < 25 && s.links > 0 && s.images === 0) return true
    // a list of descriptive link titles inside the article is a curated reading list, not navigation
    if (isList && weight >= 0 && s.links >= 3 && s.linkChars / s.links >= DESCRIPTIVE_LINK) return false
    if (weight < 25 && ld > (isList ? 0.5 : 0.2)) return true
    if (weight >= 25 && ld > 0.5) return true
    return false
  })
}
