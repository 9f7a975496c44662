/**
 * Field dumps: name–value lists (`<dt>`/`<dd>`) that print a record's raw fields (a shop
 * template listing every custom field of its catalogue entry: "cat_thumb_Navy:
 * https://cdn.../NAVY_THUMB.jpg", "tab_Details: TRUE"). A pair is a raw field when its value
 * is a web address printed as text, not a link (nobody can click it: it is data for the
 * page's scripts), or its name is a machine name joined by underscores and not set as code
 * (reference docs set parameter names in `<code>`). A run of such pairs goes, name and value;
 * one "Website: https://..." pair stays (it may be the content). Tuned on WCXB dev's even
 * ids: 0.8541 -> 0.8558 (address values 0.8548, machine names +0.0010; one product page
 * 0.090 -> 0.560), odd ids 0.9055 unchanged, Readability's test pages 0.9335 unchanged.
 */
import type { Element, Root } from "hast"
import { boundedText, filterTree, hasDescendant, walkElements } from "./MainContentNodes.ts"

/** Fewest address-valued pairs under one parent to call it a dump. */
const MIN_PAIRS = 3

/** A value's whole text is one web address. */
const BARE_URL = /^(?:https?:)?\/\/\S+$/

/** A field's machine name: words joined by underscores ("cat_thumb_Navy:", "retail_price_tier1"). */
const MACHINE_NAME = /^[\p{L}\p{N}]+(?:_[\p{L}\p{N} -]*)+:?$/u
const CODE = new Set(["code", "kbd", "samp", "var", "pre"])

/** A name set as prose, not as code (reference docs set their parameter names in `<code>`). */
const isMachineName = (dt: Element): boolean => {
  if (dt.tagName !== "dt" || hasDescendant(dt, (el) => CODE.has(el.tagName))) return false
  const text = boundedText(dt, 200)
  return text !== undefined && MACHINE_NAME.test(text)
}

const isAddressValue = (dd: Element): boolean => {
  if (dd.tagName !== "dd" || hasDescendant(dd, (el) => el.tagName === "a")) return false
  const text = boundedText(dd, 2000)
  return text !== undefined && BARE_URL.test(text)
}

/** `content` without runs of name–value pairs whose values are unlinked web addresses. */
export const dropAddressFields = (content: Root): Root => {
  const drop = new Set<Element>()
  const visit = (parent: Root | Element) => {
    const children: Array<Element> = []
    for (const c of parent.children) if (c.type === "element") children.push(c)
    const pairs: Array<Element> = []
    children.forEach((child, i) => {
      if (child.tagName !== "dd") return
      const name = children[i - 1]
      const named = name?.tagName === "dt" && isMachineName(name)
      if (!named && !isAddressValue(child)) return
      pairs.push(child)
      if (name?.tagName === "dt") pairs.push(name)
    })
    if (pairs.filter((el) => el.tagName === "dd").length >= MIN_PAIRS) for (const el of pairs) drop.add(el)
  }
  visit(content)
  walkElements(content, (el) => {
    visit(el)
    return true
  })
  return drop.size === 0 ? content : filterTree(content, (el) => drop.has(el))
}
