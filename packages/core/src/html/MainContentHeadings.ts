/**
 * Blocks announced by their own heading as recirculation: "Related articles", "You may also
 * like", "Customers who viewed this item also viewed", "Most popular". Class names often say
 * nothing (utility CSS, hashed names), but the heading a reader sees does, in any markup. A
 * container whose leading heading reads like that is page furniture pointing elsewhere.
 */
import type { Element, Root } from "hast"
import { EMPTY_STATS, type StatsTable, attr, boundedText, filterTree, hasDescendant, linkDensity } from "./MainContentNodes.ts"
import { hasBlockChild } from "./MainContentRepeats.ts"

/** Whole-heading phrases of recommendation, promotion and sharing widgets (several languages). */
const RECIRCULATION = new RegExp(
  "^(?:" +
    [
      "(?:you|we think you) (?:may|might|will|could) (?:also )?(?:like|love|enjoy|be interested in)(?: these| this)?",
      "(?:people|customers|shoppers|readers)(?: who [a-z ]{3,40})? also (?:viewed|bought|liked|read|searched|watched|like)(?: [a-z ]{0,30})?",
      "(?:frequently )?bought together",
      "(?:more |other )?related(?: [a-z]+){0,2}",
      "recommended(?: [a-z]+){0,3}",
      "(?:more|other) (?:stories|articles|posts|news|products|items|videos|guides|reads)(?: [a-z]+){0,4}",
      "(?:most|top) (?:popular|read|viewed|shared|commented)(?: [a-z]+){0,2}",
      "popular (?:posts|articles|stories|products|now|right now|topics|searches)",
      "trending(?: [a-z]+){0,2}",
      "similar (?:products|items|articles|posts|stories|threads|topics|questions|listings)",
      "(?:read|watch|up) next",
      "(?:don.t miss|also read|also on [a-z0-9 .]+|read also|see also|you may have missed|more to explore|explore more|keep reading)",
      "(?:latest|recent) (?:posts|articles|news|stories)",
      "(?:share|follow us|share this(?: [a-z]+)?|follow)(?: on [a-z ]+)?",
      "(?:subscribe|sign up)(?: to| for)?(?: our)? newsletter",
      "sponsored(?: [a-z]+){0,2}",
      "(?:ähnliche|verwandte) [a-zäöü]+|das könnte (?:sie|dich) auch interessieren|weitere artikel",
      "(?:articles? (?:similaires|liés)|vous aimerez aussi|à lire aussi|lire aussi|sur le même sujet)",
      "(?:artículos relacionados|te puede interesar|también te puede interesar|noticias relacionadas)",
      "(?:articoli correlati|potrebbe interessarti|leggi anche)"
    ].join("|") +
    ")[.:!…]*$"
)

export const HEADING = new Set(["h1", "h2", "h3", "h4", "h5", "h6"])

/** Text of a heading, whitespace collapsed, lower-cased; undefined when long (not a widget title). */
const headingText = (heading: Element): string | undefined => boundedText(heading, 120)

/** The heading that opens `element`: down its first children that hold text, a few levels deep. */
const leadingHeading = (element: Element, stats: StatsTable): Element | undefined => {
  let node = element
  for (let depth = 0; depth < 4; depth++) {
    let first: Element | undefined
    for (const child of node.children) {
      if (child.type === "text" && child.value.trim() !== "") return undefined
      if (child.type === "element" && (stats.get(child) ?? EMPTY_STATS).chars > 0) {
        first = child
        break
      }
    }
    if (first === undefined) return undefined
    if (HEADING.has(first.tagName) || attr(first, "role") === "heading") return first
    node = first
  }
  return undefined
}

/** Least share of a recirculation block's text inside links. */
const LINKED = 0.35

const CONTAINERS = new Set(["div", "section", "aside", "ul", "ol", "nav", "footer", "header", "article"])

/** True when `element` is a block opened by a recirculation heading ("Related posts", ...). */
export const isRecirculationBlock = (element: Element, stats: StatsTable): boolean => {
  if (!CONTAINERS.has(element.tagName)) return false
  // such widgets are teasers linking away; a thread or a list of excerpts titled
  // "Recommended posts" is mostly text of its own
  const s = stats.get(element) ?? EMPTY_STATS
  if (s.links < 2 || linkDensity(s) < LINKED) return false
  const heading = leadingHeading(element, stats)
  if (heading === undefined) return false
  const text = headingText(heading)
  return text !== undefined && text !== "" && RECIRCULATION.test(text)
}

/**
 * Whole titles of a bibliography: the works an article cites, not what it says. WCXB's dev
 * references leave such sections out on 7 of the 9 pages that have one (+0.0003 mean word F1,
 * both halves). "Reference" alone is an API reference in documentation, "Notes" as often the
 * article's own asides, and "References & Sources" was kept the one time it appears, so none
 * of them is here.
 */
const REFERENCES_TITLE =
  /^(?:references|sources|sources cited|citations|bibliography|works cited|literature cited|quellen|einzelnachweise|literaturverzeichnis|références|bibliographie|referencias|bibliografía|riferimenti bibliografici)[.:]?$/

/** Paragraph-like blocks that can stand as a section title when their whole text is one. */
const TITLE_BLOCKS = new Set(["p", "div"])

/** The outline level of a heading (1-6), 7 for a block that is only a bold or bare title, else undefined. */
const titleLevel = (element: Element): number | undefined => {
  if (HEADING.has(element.tagName)) return Number(element.tagName[1])
  if (attr(element, "role") === "heading") return Number(attr(element, "ariaLevel") ?? 2) || 2
  return TITLE_BLOCKS.has(element.tagName) ? 7 : undefined
}

/** Whether `element` holds a heading of level `level` or above (one that would close a section). */
const holdsHeading = (element: Element, level: number): boolean =>
  hasDescendant(element, (e) => HEADING.has(e.tagName) && Number(e.tagName[1]) <= level)

/**
 * Drop the sections titled as a bibliography ("References", "Sources", "Works cited"): the
 * title and what follows it in reading order, up to the next heading of the same or a higher
 * level. Only heading text decides, so the markup of the list does not matter.
 */
export const dropReferenceSections = (content: Root): Root => {
  let open: number | undefined
  return filterTree(content, (element) => {
    const level = titleLevel(element)
    if (level !== undefined && level < 7 && open !== undefined && level <= open) open = undefined
    if (open !== undefined) return !holdsHeading(element, open)
    if (level === undefined) return false
    const text = headingText(element)
    if (text === undefined || !REFERENCES_TITLE.test(text) || (level === 7 && hasBlockChild(element))) return false
    open = level
    return true
  })
}
