/**
 * The choice between the article path (one best container) and the multi-block path (the page
 * minus chrome) of main-content extraction. The features are cheap counts over the two
 * candidates; the bench (`bench/html/run.ts --paths`) records them with the score of each
 * path so the rule can be fitted on one half of the corpus and checked on the other.
 */
import type { Element, Root } from "hast"
import { EMPTY_STATS, type Stats, type StatsTable, attr, classAndId, computeStats, linkDensity, walkElements } from "./MainContentNodes.ts"
import type { PageKind } from "./MainContentHints.ts"
import { CONTENT_CONTAINER } from "./MainContentPatterns.ts"

export interface PathFeatures {
  /** text of the article pick over text of the multi-block pick */
  readonly ratio: number
  readonly articleChars: number
  readonly blocksChars: number
  readonly articleLinkDensity: number
  readonly blocksLinkDensity: number
  /** paragraphs of at least 80 characters (Latin-equivalent, see `proseLength`) inside the article pick, and in the rest of the blocks */
  readonly longParasIn: number
  readonly longParasOut: number
  /** characters of those paragraphs, inside and outside */
  readonly longParaCharsIn: number
  readonly longParaCharsOut: number
  /** h2-h6 inside the article pick, and in the rest of the blocks */
  readonly headingsIn: number
  readonly headingsOut: number
  /** `<article>` elements in the multi-block pick */
  readonly articleTags: number
  /** the largest run of siblings sharing tag and class (cards of a listing) */
  readonly cards: number
  readonly kind: PageKind
  /** the article pick is an `<article>`, an `itemprop="articleBody"` or has a CMS body class */
  readonly markedBody: boolean
}

const HEADINGS = new Set(["h2", "h3", "h4", "h5", "h6"])

interface Counts {
  chars: number
  linkChars: number
  longParas: number
  longParaChars: number
  headings: number
  articles: number
  cards: number
}

const count = (root: Root, base: StatsTable): Counts => {
  const stats = computeStats(root, base)
  const out: Counts = { chars: 0, linkChars: 0, longParas: 0, longParaChars: 0, headings: 0, articles: 0, cards: 0 }
  for (const child of root.children) {
    if (child.type !== "element") continue
    const s = stats.get(child) ?? EMPTY_STATS
    out.chars += s.chars
    out.linkChars += s.linkChars
  }
  const visit = (el: Root | Element) => {
    const runs = new Map<string, number>()
    for (const child of el.children) {
      if (child.type !== "element") continue
      const cls = child.properties.className
      const key = `${child.tagName}.${Array.isArray(cls) ? cls.join(" ") : ""}`
      const s = stats.get(child) ?? EMPTY_STATS
      if (s.chars >= 40) {
        const n = (runs.get(key) ?? 0) + 1
        runs.set(key, n)
        if (n > out.cards && child.tagName !== "p" && child.tagName !== "li") out.cards = n
      }
    }
  }
  visit(root)
  walkElements(root, (el) => {
    visit(el)
    if (el.tagName === "article") out.articles++
    if (HEADINGS.has(el.tagName)) out.headings++
    const chars = el.tagName === "p" ? proseLength(el, stats) : 0
    if (chars >= LONG_PARAGRAPH) {
      out.longParas++
      out.longParaChars += chars
    }
    return true
  })
  return out
}

/** A long paragraph: 80 characters of Latin-script prose, or as much said in fewer characters. */
const LONG_PARAGRAPH = 80

/** Han, kana and Hangul characters: each says about what three Latin letters say. */
const DENSE_SCRIPT = /[\u1100-\u11ff\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]/g
const DENSE_WEIGHT = 3

/** A paragraph's length in Latin-equivalent characters (dense scripts weighted). */
const proseLength = (el: Element, stats: StatsTable): number => {
  const chars = (stats.get(el) ?? EMPTY_STATS).chars
  if (chars >= LONG_PARAGRAPH || chars * DENSE_WEIGHT < LONG_PARAGRAPH) return chars
  let dense = 0
  const visit = (node: Element) => {
    for (const child of node.children) {
      if (child.type === "text") dense += child.value.match(DENSE_SCRIPT)?.length ?? 0
      else if (child.type === "element") visit(child)
    }
  }
  visit(el)
  return chars + (DENSE_WEIGHT - 1) * dense
}

const density = (c: Counts): number => linkDensity({ ...EMPTY_STATS, chars: c.chars, linkChars: c.linkChars } as Stats)

/** The article pick is a marked body: an `<article>`, `itemprop="articleBody"` or a CMS body class. */
const isMarkedBody = (article: Root): boolean =>
  article.children.some((c) => {
    if (c.type !== "element") return false
    if (c.tagName === "article") return true
    if ((attr(c, "itemProp") ?? "").toLowerCase().split(/\s+/).includes("articlebody")) return true
    return CONTENT_CONTAINER.test(classAndId(c))
  })

export const pathFeatures = (article: Root, blocks: Root, base: StatsTable, kind: PageKind): PathFeatures => {
  const a = count(article, base)
  const b = count(blocks, base)
  return {
    ratio: b.chars === 0 ? 1 : a.chars / b.chars,
    articleChars: a.chars,
    blocksChars: b.chars,
    articleLinkDensity: density(a),
    blocksLinkDensity: density(b),
    longParasIn: a.longParas,
    longParasOut: Math.max(0, b.longParas - a.longParas),
    longParaCharsIn: a.longParaChars,
    longParaCharsOut: Math.max(0, b.longParaChars - a.longParaChars),
    headingsIn: a.headings,
    headingsOut: Math.max(0, b.headings - a.headings),
    articleTags: b.articles,
    cards: b.cards,
    kind,
    markedBody: isMarkedBody(article)
  }
}

/**
 * The article pick must hold this share of the page's long paragraphs (80+ characters) to win.
 * Fitted on the even ids of WCXB dev (bench/html/paths.ts) and checked on the odd ones: it
 * beats the earlier rule (article text under half of the blocks' text) on both halves
 * (+0.003 / +0.001 mean word F1) and is flat between 0.8 and 0.95. Text share alone misjudges
 * long articles beside long comment or related-post sections, and listings whose best card
 * happens to be long; where the prose is says more than where the characters are.
 */
export const LONG_PARAGRAPH_SHARE = 0.88

/**
 * The share for pages whose structured data says they are an article (schema.org Article,
 * NewsArticle, BlogPosting...) or whose article pick is a marked body: one body is what they
 * declare, so the blocks must hold well over half of the long paragraphs to win. +0.002 mean
 * word F1 on WCXB dev from structured data (the same between 0.25 and 0.4; 12 pages gain:
 * author boxes, related stories and comment prose beside the body; one documentation page
 * loses), +0.0004 more from marked bodies (3 pages gain, none lose). `og:type` article and
 * `article:published_time` are set on too many other pages to tell (-0.0015 and -0.0002).
 */
export const LONG_PARAGRAPH_SHARE_DECLARED_ARTICLE = 0.4

/**
 * true: keep the multi-block pick. Prose spread beyond the best container means the content
 * is many blocks; a page with no long paragraph at all is a listing, a product or a service
 * page, where keeping every block loses less than keeping one.
 */
export const preferBlocks = (f: PathFeatures): boolean => {
  if (f.blocksChars === 0) return false
  const total = f.longParasIn + f.longParasOut
  const declared = f.kind === "article" || f.markedBody
  return total === 0 || f.longParasIn < total * (declared ? LONG_PARAGRAPH_SHARE_DECLARED_ARTICLE : LONG_PARAGRAPH_SHARE)
}
