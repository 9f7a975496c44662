/**
 * `blockAds` on pages the fetch engine serves: cosmetic filter rules (the hiding selectors of
 * cookie-consent and ad lists) applied to the parsed tree before main-content extraction, so
 * that a consent banner's text never reaches the markdown. The browser engine removes the same
 * elements from the live DOM; this is the same step for a page no browser rendered.
 *
 * Core holds the contract only: the lists and their matching engine are heavy (~18,000 rules,
 * ~300 ms to build), so the package that owns them (`@strata/browser`'s `cosmeticLayer`)
 * provides the matcher. The default matches nothing.
 */
import type { Element, ElementContent, Root, RootContent } from "hast"
import { selectAll } from "hast-util-select"
import { Context, Effect } from "effect"
import { type ParsedSelector, parseSelector, selectMatching } from "./CompoundSelectors.ts"

/** What generic cosmetic rules are keyed on: the page's class names, ids and (absolute) link targets. */
export interface PageFeatures {
  readonly classes: Array<string>
  readonly ids: Array<string>
  readonly hrefs: Array<string>
}

/** The hiding selectors for a page at `url` with these features (the generic ones and its domain's). */
export type CosmeticMatcher = (url: string, features: PageFeatures) => ReadonlyArray<string>

export interface CosmeticRules {
  readonly name: string
  /** The matcher, built on first use (the lists are parsed once, then shared). */
  readonly matcher: Effect.Effect<CosmeticMatcher>
}

export const noCosmeticRules: CosmeticRules = { name: "none", matcher: Effect.succeed(() => []) }

/** The cosmetic rules in force for `blockAds`; the default hides nothing. */
export const CosmeticFilter = Context.Reference<CosmeticRules>("@strata/core/CosmeticFilter", { defaultValue: () => noCosmeticRules })

/** The same bounds the browser engine's feature probe keeps: a huge page is matched on its first few thousand. */
const MAX_ELEMENTS = 20_000
const MAX_NAMES = 5_000
const MAX_HREFS = 2_000

/** The class names, ids and absolute link targets of the tree. */
export const pageFeatures = (root: Root, url: string): PageFeatures => {
  const classes = new Set<string>()
  const ids = new Set<string>()
  const hrefs = new Set<string>()
  let seen = 0
  const visit = (parent: Root | Element) => {
    for (const child of parent.children) {
      if (child.type !== "element" || seen >= MAX_ELEMENTS) continue
      seen++
      const { id, className, href } = child.properties
      if (typeof id === "string" && id !== "") ids.add(id)
      if (Array.isArray(className)) for (const name of className) classes.add(String(name))
      if (child.tagName === "a" && typeof href === "string" && URL.canParse(href, url)) hrefs.add(new URL(href, url).href)
      visit(child)
    }
  }
  visit(root)
  return { classes: [...classes].slice(0, MAX_NAMES), ids: [...ids].slice(0, MAX_NAMES), hrefs: [...hrefs].slice(0, MAX_HREFS) }
}

/** The elements the selectors hide that hast-util-select finds (the selectors `CompoundSelectors` does not parse); one that does not parse there either is skipped. */
const selectOthers = (root: Root, selectors: ReadonlyArray<string>, found: Set<Element>): void => {
  for (const selector of selectors) {
    try {
      for (const element of selectAll(selector, root)) found.add(element)
    } catch {
      // Syntax for browsers only (`:-abp-...`): the lists are not the user's input, so no warning.
    }
  }
}

/** The tree without the elements in `drop` (copied where it changes). */
const without = <T extends Root | Element>(parent: T, drop: Set<Element>): T => {
  const children: Array<RootContent | ElementContent> = []
  for (const child of parent.children) {
    if (child.type !== "element") children.push(child)
    else if (!drop.has(child)) children.push(without(child, drop))
  }
  return { ...parent, children } as T
}

/**
 * The tree without the elements the matcher's selectors hide (copied where it changes). Most
 * list selectors are compounds matched in one walk (`CompoundSelectors.ts`, which says why);
 * the rest go through hast-util-select.
 */
export const hideCosmetic = (root: Root, url: string, matcher: CosmeticMatcher): Root => {
  const selectors = matcher(url, pageFeatures(root, url))
  if (selectors.length === 0) return root
  const parsed: Array<ParsedSelector> = []
  const others: Array<string> = []
  for (const selector of selectors) {
    const one = parseSelector(selector)
    if (one === undefined) others.push(selector)
    else parsed.push(one)
  }
  const drop = selectMatching(root, parsed)
  selectOthers(root, others, drop)
  return drop.size === 0 ? root : without(root, drop)
}
