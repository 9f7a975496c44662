/**
 * Cards of other products on a product page: "similar items", "customers also bought",
 * variant pickers and carousels. Each card is a short block with a picture and a link to
 * another page, and they come in runs of siblings of one make. The product itself is one
 * block, not a run, so a run of such cards is recirculation, whatever its heading says.
 * A card must state a price: feature tiles with a "Learn more" link are the product's own
 * story (WCXB's references keep them). Only on pages whose structured data says Product: on
 * listings and collections the cards are the content (applied to every page, WCXB dev odd
 * ids fell 0.9055 -> 0.9006). Product pages of WCXB dev, mean word F1: odd ids
 * 0.664 -> 0.712, even 0.627 -> 0.627; no page lost.
 */
import type { Element, Root } from "hast"
import { EMPTY_STATS, type StatsTable, attr, boundedText, computeStats, filterTree, hasDescendant } from "./MainContentNodes.ts"

/** Fewest cards in a run. */
const MIN_RUN = 3
/** Longest card, in characters: a card names and prices a product, it does not describe it. */
const MAX_CARD_CHARS = 300
/** Shortest card: a picture with no name is a gallery's thumbnail or a badge. */
const MIN_CARD_CHARS = 10
/** Share of a parent's element children that must be cards. */
const CARD_SHARE = 0.7

const IMAGE_FILE = /\.(?:jpe?g|png|gif|webp|avif|svg)(?:[?#]|$)/i

/** Host and path of a link's target; undefined for other schemes and unparseable links. */
const targetOf = (href: string, base: URL | undefined): string | undefined => {
  try {
    const u = new URL(href, base ?? "http://relative.invalid/")
    if (u.protocol !== "http:" && u.protocol !== "https:") return undefined
    return `${u.host}${u.pathname}`
  } catch {
    return undefined
  }
}

/** A link to another page: not a fragment, not a picture's full size, not this page. */
const linksElsewhere = (element: Element, here: string | undefined, base: URL | undefined): boolean =>
  hasDescendant(element, (el) => {
    if (el.tagName !== "a") return false
    const href = attr(el, "href")
    if (href === undefined || href.startsWith("#") || IMAGE_FILE.test(href)) return false
    const target = targetOf(href, base)
    return target !== undefined && target !== here
  })

const isCard = (element: Element, stats: StatsTable, here: string | undefined, base: URL | undefined): boolean => {
  const s = stats.get(element) ?? EMPTY_STATS
  if (s.chars < MIN_CARD_CHARS || s.chars > MAX_CARD_CHARS || s.paragraphs > 2) return false
  if (s.images === 0) return false
  return linksElsewhere(element, here, base) && statesPrice(element)
}

/** A currency sign beside a number ("$289.39", "675 €", "£ 585"), or schema.org's price property. */
const PRICE = /\p{Sc}\s?\d|\d\s?\p{Sc}/u

const statesPrice = (element: Element): boolean => {
  if (PRICE.test(boundedText(element, 4000) ?? "")) return true
  return hasDescendant(element, (el) => (attr(el, "itemProp") ?? "").toLowerCase().split(/\s+/).includes("price"))
}

const signature = (el: Element): string => {
  const cls = el.properties.className
  return `${el.tagName}.${Array.isArray(cls) ? cls.join(" ") : ""}`
}

/** What is left of a run's holder besides the cards (its heading, a "see all" link) goes with them. */
const LEFTOVER_CHARS = 100

/** `content` without runs of cards that link to other pages (product pages only). */
export const dropProductCards = (content: Root, url?: string): Root => {
  let base: URL | undefined
  try {
    base = url === undefined ? undefined : new URL(url)
  } catch {
    base = undefined
  }
  const here = base === undefined ? undefined : `${base.host}${base.pathname}`
  const stats = computeStats(content)
  const chars = (el: Element) => (stats.get(el) ?? EMPTY_STATS).chars
  const drop = new Set<Element>()
  // returns the characters of the cards dropped under `node`
  const visit = (node: Root | Element): number => {
    const children: Array<Element> = []
    for (const c of node.children) if (c.type === "element") children.push(c)
    const found = new Set(children.filter((c) => isCard(c, stats, here, base)))
    let dropped = 0
    if (found.size >= MIN_RUN && found.size >= children.length * CARD_SHARE) {
      // the run's other members of the same make go too (a card for this very product)
      const makes = new Set([...found].map(signature))
      for (const c of children) {
        if (found.has(c) || (makes.has(signature(c)) && chars(c) <= MAX_CARD_CHARS)) {
          drop.add(c)
          dropped += chars(c)
        }
      }
    } else for (const c of children) dropped += visit(c)
    if (node.type === "element" && dropped > 0 && chars(node) - dropped <= LEFTOVER_CHARS) drop.add(node)
    return dropped
  }
  visit(content)
  if (drop.size === 0) return content
  return filterTree(content, (element) => drop.has(element))
}

