/**
 * A fast matcher for the CSS selectors filter lists are made of: compounds of a tag, classes,
 * ids and attribute tests (`div.cookieBar`, `.fixed[data-cookiebar]`, `[data-cy="cookie-banner"]`),
 * joined by child (`>`) or descendant combinators. All the selectors a page needs are matched
 * in one walk of the tree. Anything else (pseudo-classes, sibling combinators, escapes) is not
 * parsed here: `parseSelector` answers undefined and the caller uses hast-util-select.
 *
 * Why: hast-util-select took 4-22 ms per selector on an 869-element page (one walk each, and a
 * selector list is no faster), so a page's ~22 cookie-notice selectors cost 37 ms p50.
 */
import type { Element, Root } from "hast"
import { find, html } from "property-information"

type AttributeOp = "" | "=" | "^=" | "$=" | "*=" | "~=" | "|="

interface AttributeTest {
  readonly property: string
  readonly op: AttributeOp
  readonly value: string
  readonly insensitive: boolean
}

interface Compound {
  readonly tag: string | undefined
  readonly ids: Array<string>
  readonly classes: Array<string>
  readonly attributes: Array<AttributeTest>
}

/** Compounds from left to right; `combinators[i]` joins compound i and i + 1. */
export interface ParsedSelector {
  readonly compounds: Array<Compound>
  readonly combinators: Array<">" | " ">
}

const TAG = /^(?:([a-z][a-z0-9-]*)|\*)/i
const SIMPLE_PART = /^(?:\.([\w-]+)|#([\w-]+)|\[\s*([\w-]+)\s*(?:([~|^$*]?=)\s*(?:"([^"\\]*)"|'([^'\\]*)'|([\w-]+))\s*(i)?)?\s*\])/i
const COMBINATOR = /^\s*(>)\s*|^\s+/

/** The selector in the subset above, or undefined when it uses anything else. */
export const parseSelector = (text: string): ParsedSelector | undefined => {
  let rest = text.trim()
  const compounds: Array<Compound> = []
  const combinators: Array<">" | " "> = []
  while (rest !== "") {
    const compound: Compound = { tag: undefined, ids: [], classes: [], attributes: [] }
    const tag = TAG.exec(rest)
    let parts = 0
    if (tag !== null) {
      rest = rest.slice(tag[0].length)
      if (tag[1] !== undefined) (compound as { tag: string }).tag = tag[1].toLowerCase()
      parts++
    }
    for (let part = SIMPLE_PART.exec(rest); part !== null; part = SIMPLE_PART.exec(rest)) {
      rest = rest.slice(part[0].length)
      parts++
      if (part[1] !== undefined) compound.classes.push(part[1])
      else if (part[2] !== undefined) compound.ids.push(part[2])
      else {
        compound.attributes.push({
          property: find(html, part[3].toLowerCase()).property,
          op: (part[4] ?? "") as AttributeOp,
          value: part[5] ?? part[6] ?? part[7] ?? "",
          insensitive: part[8] !== undefined
        })
      }
    }
    if (parts === 0) return undefined
    compounds.push(compound)
    if (rest === "") break
    const combinator = COMBINATOR.exec(rest)
    if (combinator === null) return undefined
    rest = rest.slice(combinator[0].length)
    if (rest === "") return undefined
    combinators.push(combinator[1] === ">" ? ">" : " ")
  }
  return compounds.length === 0 ? undefined : { compounds, combinators }
}

const attributeText = (value: unknown): string | undefined =>
  value === undefined || value === null || value === false
    ? undefined
    : Array.isArray(value) ? value.join(" ") : value === true ? "" : String(value)

const testAttribute = (element: Element, test: AttributeTest): boolean => {
  const raw = attributeText(element.properties[test.property])
  if (raw === undefined) return false
  if (test.op === "") return true
  const actual = test.insensitive ? raw.toLowerCase() : raw
  const wanted = test.insensitive ? test.value.toLowerCase() : test.value
  switch (test.op) {
    case "=": return actual === wanted
    case "^=": return wanted !== "" && actual.startsWith(wanted)
    case "$=": return wanted !== "" && actual.endsWith(wanted)
    case "*=": return wanted !== "" && actual.includes(wanted)
    case "~=": return actual.split(/\s+/).includes(wanted)
    case "|=": return actual === wanted || actual.startsWith(`${wanted}-`)
  }
}

const matchesCompound = (element: Element, compound: Compound): boolean => {
  if (compound.tag !== undefined && element.tagName !== compound.tag) return false
  for (const id of compound.ids) if (element.properties.id !== id) return false
  if (compound.classes.length > 0) {
    const names = element.properties.className
    if (!Array.isArray(names)) return false
    for (const name of compound.classes) if (!names.includes(name)) return false
  }
  for (const test of compound.attributes) if (!testAttribute(element, test)) return false
  return true
}

/** Whether the element, with these ancestors (outermost first), matches the selector: right to left, backtracking over descendant combinators. */
const matchesAt = (selector: ParsedSelector, index: number, element: Element, ancestors: Array<Element>, depth: number): boolean => {
  if (!matchesCompound(element, selector.compounds[index])) return false
  if (index === 0) return true
  if (selector.combinators[index - 1] === ">") return depth > 0 && matchesAt(selector, index - 1, ancestors[depth - 1], ancestors, depth - 1)
  for (let up = depth - 1; up >= 0; up--) if (matchesAt(selector, index - 1, ancestors[up], ancestors, up)) return true
  return false
}

/** Every element matching any of the selectors, in one walk. */
export const selectMatching = (root: Root, selectors: ReadonlyArray<ParsedSelector>): Set<Element> => {
  const found = new Set<Element>()
  if (selectors.length === 0) return found
  const ancestors: Array<Element> = []
  const visit = (parent: Root | Element) => {
    for (const child of parent.children) {
      if (child.type !== "element") continue
      for (const selector of selectors) {
        if (matchesAt(selector, selector.compounds.length - 1, child, ancestors, ancestors.length)) {
          found.add(child)
          break
        }
      }
      ancestors.push(child)
      visit(child)
      ancestors.pop()
    }
  }
  visit(root)
  return found
}
