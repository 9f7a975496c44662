/**
 * Page-level hints for main-content extraction: what kind of page this is (forum thread,
 * product, article, ...) from schema.org JSON-LD, microdata, the generator, URL shape and
 * the markup of repeated posts; and texts the page states about itself (JSON-LD
 * `articleBody`, product `description`) that rescue extraction when the markup hides them.
 * Forums matter most: there the "comments" that articles drop are the content.
 */
import type { Element, Root } from "hast"
import { attr, classAndId, computeStats, findBody, rawText, walkElements } from "./MainContentNodes.ts"

export type PageKind = "forum" | "product" | "article" | "unknown"

export interface PageHints {
  readonly kind: PageKind
  /** schema.org @type values found in JSON-LD and microdata, lower-cased */
  readonly types: ReadonlySet<string>
  /** longest JSON-LD `articleBody` / `text` of an article-like entity */
  readonly articleBody: string | undefined
  /** JSON-LD product description */
  readonly productDescription: string | undefined
  /**
   * A `<noscript>` holding much of the page's text (engines such as Discourse serve the whole
   * thread there for clients without scripts); cleaning drops noscript, so it is kept here.
   */
  readonly noscript: Element | undefined
}

const FORUM_TYPES = new Set(["discussionforumposting", "qapage"])
const PRODUCT_TYPES = new Set(["product", "productgroup", "individualproduct"])
const ARTICLE_TYPES = new Set(["article", "newsarticle", "blogposting", "techarticle", "reportagenewsarticle", "scholarlyarticle", "analysisnewsarticle", "opinionnewsarticle", "recipe", "howto"])

const FORUM_GENERATORS = /discourse|xenforo|phpbb|vbulletin|flarum|nodebb|invision|mybb|vanilla|simple machines|smf|discuz|bbpress|khoros|lithium/i
const FORUM_URL = /\/(?:t|threads?|topic|topics|forums?|discussions?|d|questions|comments|showthread\.php|viewtopic\.php|boards?|community)(?:\/|\?|$)|showtopic|viewthread/i
/** Containers of single posts in common forum engines and Q&A sites. */
const POST_CLASS = /(?:^|\s)(?:crawler-post|topic-post|post-stream|message--post|messagelist|postbit|postcontainer|post-container|postbody|post_body|forum-post|forumpost|cpost|discussion-post|comment-body|answer|answercell|postcell|reply|replies|js-post|threadpost|bbwrapper|message-content|messagecontent|ipscomment|cpost|lia-message-body)(?:\s|$)/

const collectTypes = (value: unknown, types: Set<string>, onEntity: (entity: Record<string, unknown>, type: Array<string>) => void, depth = 0): void => {
  if (depth > 6 || value === null || typeof value !== "object") return
  if (Array.isArray(value)) {
    for (const item of value) collectTypes(item, types, onEntity, depth + 1)
    return
  }
  const entity = value as Record<string, unknown>
  const raw = entity["@type"]
  const type = (Array.isArray(raw) ? raw : [raw]).filter((t): t is string => typeof t === "string").map((t) => t.toLowerCase())
  for (const t of type) types.add(t)
  if (type.length > 0) onEntity(entity, type)
  for (const key of ["@graph", "mainEntity", "mainEntityOfPage", "itemListElement", "hasPart"]) {
    if (key in entity) collectTypes(entity[key], types, onEntity, depth + 1)
  }
}

const parseJsonLd = (text: string): unknown => {
  try {
    return JSON.parse(text)
  } catch {
    // CMSs emit trailing commas and raw newlines inside strings; one lenient retry
    try {
      return JSON.parse(text.replace(/,\s*([}\]])/g, "$1").replace(/[\n\r\t]/g, " "))
    } catch {
      return undefined
    }
  }
}

const stringOf = (value: unknown): string | undefined => (typeof value === "string" ? value : undefined)

export const readHints = (root: Root, url: string | undefined): PageHints => {
  const types = new Set<string>()
  let articleBody: string | undefined
  let productDescription: string | undefined
  let generator = ""
  let postBlocks = 0
  const noscripts: Array<Element> = []
  const onEntity = (entity: Record<string, unknown>, type: Array<string>) => {
    if (type.some((t) => ARTICLE_TYPES.has(t) || FORUM_TYPES.has(t))) {
      const body = stringOf(entity.articleBody) ?? stringOf(entity.text)
      if (body !== undefined && body.length > (articleBody?.length ?? 0)) articleBody = body
    }
    if (type.some((t) => PRODUCT_TYPES.has(t))) {
      const description = stringOf(entity.description)
      if (description !== undefined && description.length > (productDescription?.length ?? 0)) productDescription = description
    }
  }
  walkElements(root, (el: Element) => {
    const tag = el.tagName
    if (tag === "script") {
      if ((attr(el, "type") ?? "").toLowerCase() === "application/ld+json") collectTypes(parseJsonLd(rawText(el)), types, onEntity)
      return false
    }
    if (tag === "meta") {
      if ((attr(el, "name") ?? "").toLowerCase() === "generator") generator += ` ${attr(el, "content") ?? ""}`
      return false
    }
    if (tag === "noscript") {
      noscripts.push(el)
      return false
    }
    const itemtype = attr(el, "itemType")
    if (itemtype !== undefined) for (const t of itemtype.split(/\s+/)) types.add((t.split("/").pop() ?? "").toLowerCase())
    const ci = classAndId(el)
    if (ci !== "" && POST_CLASS.test(ci)) postBlocks++
    return true
  })
  const has = (set: ReadonlySet<string>) => [...types].some((t) => set.has(t))
  let kind: PageKind = "unknown"
  if (has(FORUM_TYPES)) kind = "forum"
  else if (FORUM_GENERATORS.test(generator) && (url === undefined || FORUM_URL.test(safePath(url)))) kind = "forum"
  else if (postBlocks >= 3 && url !== undefined && FORUM_URL.test(safePath(url))) kind = "forum"
  else if (has(PRODUCT_TYPES)) kind = "product"
  else if (has(ARTICLE_TYPES)) kind = "article"
  return { kind, types, articleBody, productDescription, noscript: bigNoscript(root, noscripts) }
}

const bigNoscript = (root: Root, noscripts: ReadonlyArray<Element>): Element | undefined => {
  let best: Element | undefined
  let bestChars = 200
  for (const el of noscripts) {
    const chars = computeStats({ type: "root", children: [el] }).get(el)?.chars ?? 0
    if (chars > bestChars) {
      best = el
      bestChars = chars
    }
  }
  if (best === undefined) return undefined
  const body = findBody(root)
  const stats = computeStats(body)
  let total = 0
  for (const child of body.children) if (child.type === "element") total += stats.get(child)?.chars ?? 0
  return bestChars >= total * 0.3 ? best : undefined
}

const safePath = (url: string): string => {
  try {
    const u = new URL(url)
    return u.pathname + u.search
  } catch {
    return url
  }
}
