/**
 * schema.org items written in a page's markup rather than in JSON-LD: microdata (`itemscope`,
 * `itemtype`, `itemprop`) and RDFa (`typeof`, `property`, `vocab`/prefixes). Each item becomes a
 * JSON-LD-shaped object (`@type` plus its properties, nested items nested), so that Product.ts and
 * Menu.ts read the three syntaxes the same way. A property's value is what the syntax says it is:
 * `content`, else a link's `href`, a media `src`, a `time`'s `datetime`, a `data`'s `value`, else
 * the element's text.
 */
import { DomUtils } from "htmlparser2"
import type { Thing } from "./SchemaOrg.ts"

type Document = ReturnType<typeof import("htmlparser2").parseDocument>
type ChildNode = Document["children"][number]
export type Element = Extract<ChildNode, { readonly name: string; readonly attribs: Record<string, string> }>

const { getAttributeValue, textContent } = DomUtils

export const isElement = (node: ChildNode): node is Element => node.type === "tag" || node.type === "script" || node.type === "style"

/** The local names in a space-separated list of types or properties (`schema:price`, `http://schema.org/Offer`). */
const localNames = (value: string | undefined): Array<string> =>
  value === undefined ? [] : value.split(/\s+/).filter((v) => v !== "").map((v) => v.replace(/^.*[/#:]/, ""))

const URL_VALUED: Record<string, string> = { a: "href", area: "href", link: "href", img: "src", audio: "src", video: "src", source: "src", iframe: "src", embed: "src", object: "data" }

/** The value of a property element that is not itself an item. */
const valueOf = (element: Element): string => {
  const content = getAttributeValue(element, "content")
  if (content !== undefined) return content.trim()
  const urlAttribute = URL_VALUED[element.name]
  if (urlAttribute !== undefined) {
    const url = getAttributeValue(element, urlAttribute)
    if (url !== undefined) return url.trim()
  }
  if (element.name === "time") return (getAttributeValue(element, "datetime") ?? textContent(element)).trim()
  if (element.name === "data" || element.name === "meter") return (getAttributeValue(element, "value") ?? textContent(element)).trim()
  return textContent(element).replace(/\s+/g, " ").trim()
}

interface Syntax {
  /** Whether the element starts an item, and its types. */
  readonly item: (element: Element) => Array<string> | undefined
  readonly props: (element: Element) => Array<string>
}

const MICRODATA: Syntax = {
  item: (element) => (getAttributeValue(element, "itemscope") === undefined ? undefined : localNames(getAttributeValue(element, "itemtype"))),
  props: (element) => localNames(getAttributeValue(element, "itemprop"))
}

const RDFA: Syntax = {
  item: (element) => {
    const type = getAttributeValue(element, "typeof")
    return type === undefined ? undefined : localNames(type)
  },
  // `og:` and other meta properties outside any item are not items' properties: only those inside one count.
  props: (element) => localNames(getAttributeValue(element, "property"))
}

const add = (thing: Thing, key: string, value: unknown) => {
  const had = thing[key]
  thing[key] = had === undefined ? value : Array.isArray(had) ? [...had, value] : [had, value]
}

/** The items of one syntax: top-level items, each with its properties, nested items inside. */
const itemsOf = (roots: ReadonlyArray<ChildNode>, syntax: Syntax, limit: number): Array<Thing> => {
  const top: Array<Thing> = []
  let count = 0
  // Each frame: the node, and the item its properties belong to (undefined outside any item).
  const stack: Array<{ node: ChildNode; owner: Thing | undefined }> = roots.map((node) => ({ node, owner: undefined })).reverse()
  while (stack.length > 0 && count < limit) {
    const { node, owner } = stack.pop()!
    if (!isElement(node) || node.name === "script" || node.name === "style") continue
    const types = syntax.item(node)
    const props = owner === undefined ? [] : syntax.props(node)
    let inner = owner
    if (types !== undefined) {
      const thing: Thing = types.length === 0 ? {} : { "@type": types.length === 1 ? types[0] : types }
      count++
      if (props.length > 0) for (const prop of props) add(owner!, prop, thing)
      else top.push(thing)
      inner = thing
    } else if (props.length > 0) {
      const value = valueOf(node)
      if (value !== "") for (const prop of props) add(owner!, prop, value)
      // A property element's text is its value; its children may still hold properties (microdata allows it).
    }
    for (let i = node.children.length - 1; i >= 0; i--) stack.push({ node: node.children[i]!, owner: inner })
  }
  return top
}

/** The page's microdata and RDFa items, top-level ones first (their nested items inside them). */
export const markupItems = (document: Document, limit = 2000): Array<Thing> => [
  ...itemsOf(document.children, MICRODATA, limit),
  ...itemsOf(document.children, RDFA, limit)
]
