/**
 * The facts a page states in machine-readable or key-value form, for the offline `json` format:
 * JSON-LD, microdata, RDFa, OpenGraph and other meta tags, two-column tables, definition lists,
 * and tables with a header row (as lists of row objects). Each fact is a key as the page names it,
 * a value, and where it came from, so a schema's keys can be matched to them by name.
 */
import { DomUtils, parseDocument } from "htmlparser2"

type ChildNode = ReturnType<typeof parseDocument>["children"][number]
type Element = Extract<ChildNode, { readonly name: string; readonly attribs: Record<string, string> }>
const { getAttributeValue, textContent } = DomUtils

export type FactSource = "json-ld" | "microdata" | "rdfa" | "meta" | "table" | "definition-list" | "text"

export interface Fact {
  /** The key path as the page names it, e.g. `offers.price`, `og:title`, `Release date`. */
  readonly key: string
  readonly value: unknown
  readonly source: FactSource
}

export interface PageFacts {
  readonly facts: ReadonlyArray<Fact>
  /** Tables with a header row: their rows as objects keyed by the header cells. */
  readonly tables: ReadonlyArray<ReadonlyArray<Record<string, string>>>
  /** The JSON-LD objects as they came (the `@graph` members flattened). */
  readonly jsonLd: ReadonlyArray<Record<string, unknown>>
}

const clean = (text: string) => text.replace(/\s+/g, " ").trim()

const isElement = (node: ChildNode): node is Element => node.type === "tag" || node.type === "script" || node.type === "style"

const walk = (nodes: ReadonlyArray<ChildNode>, visit: (element: Element) => boolean | void) => {
  const stack = [...nodes].reverse()
  while (stack.length > 0) {
    const node = stack.pop()!
    if (!isElement(node)) continue
    if (visit(node) === false) continue
    for (let i = node.children.length - 1; i >= 0; i--) stack.push(node.children[i]!)
  }
}

const childElements = (element: Element, names: ReadonlySet<string>): Array<Element> => {
  const out: Array<Element> = []
  walk(element.children, (child) => {
    if (names.has(child.name)) {
      out.push(child)
      return false
    }
    // Nested tables have rows of their own.
    return child.name !== "table"
  })
  return out
}

/** A JSON-LD value flattened into dotted keys; arrays of scalars stay arrays, objects recurse. */
const flattenJsonLd = (value: unknown, prefix: string, out: Array<Fact>, depth = 0) => {
  if (depth > 6 || value === null || value === undefined) return
  if (Array.isArray(value)) {
    if (value.every((v) => typeof v !== "object" || v === null)) {
      if (prefix !== "") out.push({ key: prefix, value, source: "json-ld" })
      return
    }
    if (prefix !== "") out.push({ key: prefix, value, source: "json-ld" })
    for (const item of value) flattenJsonLd(item, prefix, out, depth + 1)
    return
  }
  if (typeof value === "object") {
    if (prefix !== "") out.push({ key: prefix, value, source: "json-ld" })
    for (const [key, inner] of Object.entries(value as Record<string, unknown>)) {
      if (key === "@context" || key === "@id") continue
      flattenJsonLd(inner, prefix === "" ? key : `${prefix}.${key}`, out, depth + 1)
    }
    return
  }
  if (prefix !== "") out.push({ key: prefix, value, source: "json-ld" })
}

const jsonLdObjects = (parsed: unknown): Array<Record<string, unknown>> => {
  if (Array.isArray(parsed)) return parsed.flatMap(jsonLdObjects)
  if (parsed === null || typeof parsed !== "object") return []
  const record = parsed as Record<string, unknown>
  if (Array.isArray(record["@graph"])) return (record["@graph"] as Array<unknown>).flatMap(jsonLdObjects)
  return [record]
}

/** The value an element holds for microdata or RDFa: its `content`, link, time or text. */
const propertyValue = (element: Element): string => {
  const content = getAttributeValue(element, "content")
  if (content !== undefined) return clean(content)
  if (element.name === "meta") return ""
  if (element.name === "a" || element.name === "link") return getAttributeValue(element, "href") ?? clean(textContent(element))
  if (element.name === "img" || element.name === "source") return getAttributeValue(element, "src") ?? ""
  if (element.name === "time") return getAttributeValue(element, "datetime") ?? clean(textContent(element))
  if (element.name === "data" || element.name === "meter") return getAttributeValue(element, "value") ?? clean(textContent(element))
  return clean(textContent(element))
}

const rowCells = (row: Element) => childElements(row, new Set(["td", "th"])).map((cell) => ({ header: cell.name === "th", text: clean(textContent(cell)) }))

/** Reads the page's HTML for facts; a page without HTML (a document, text) has none. */
export const pageFacts = (html: string): PageFacts => {
  const facts: Array<Fact> = []
  const tables: Array<Array<Record<string, string>>> = []
  const jsonLd: Array<Record<string, unknown>> = []
  const document = parseDocument(html, { lowerCaseTags: true, lowerCaseAttributeNames: true })
  // The <title> often carries the site's name too: og:title and the page's own data come first.
  const titles: Array<Fact> = []
  walk(document.children, (element) => {
    const name = element.name
    if (name === "script") {
      const type = (getAttributeValue(element, "type") ?? "").toLowerCase()
      if (type.includes("ld+json")) {
        try {
          const objects = jsonLdObjects(JSON.parse(textContent(element)))
          jsonLd.push(...objects)
          for (const object of objects) flattenJsonLd(object, "", facts)
        } catch {
          // Broken JSON-LD is common; the page's other facts still count.
        }
      }
      return false
    }
    if (name === "style") return false
    const itemprop = getAttributeValue(element, "itemprop")
    if (itemprop !== undefined && getAttributeValue(element, "itemscope") === undefined) {
      const value = propertyValue(element)
      if (value !== "") for (const key of itemprop.split(/\s+/)) facts.push({ key, value, source: "microdata" })
    }
    const property = getAttributeValue(element, "property")
    if (property !== undefined && name !== "meta") {
      const value = propertyValue(element)
      if (value !== "") for (const key of property.split(/\s+/)) facts.push({ key, value, source: "rdfa" })
    }
    if (name === "meta") {
      const key = getAttributeValue(element, "property") ?? getAttributeValue(element, "name") ?? getAttributeValue(element, "itemprop")
      const content = getAttributeValue(element, "content")
      if (key !== undefined && content !== undefined && clean(content) !== "") facts.push({ key, value: clean(content), source: "meta" })
      return false
    }
    if (name === "title") {
      titles.push({ key: "title", value: clean(textContent(element)), source: "meta" })
      return false
    }
    if (name === "table") {
      const rows = childElements(element, new Set(["tr"])).map(rowCells).filter((cells) => cells.length > 0)
      const first = rows[0]
      if (first !== undefined && rows.length > 1 && first.length > 1 && first.every((c) => c.header || rows.length > 2)) {
        const headers = first.map((c) => c.text)
        const objects = rows.slice(1).filter((cells) => cells.length === headers.length).map((cells) =>
          Object.fromEntries(cells.map((c, i) => [headers[i] ?? `column${i + 1}`, c.text]))
        )
        if (objects.length > 0 && first.every((c) => c.header)) tables.push(objects)
      }
      for (const cells of rows) {
        if (cells.length === 2 && cells[0]!.text !== "" && cells[1]!.text !== "") {
          facts.push({ key: cells[0]!.text.replace(/:$/, ""), value: cells[1]!.text, source: "table" })
        }
      }
      return true
    }
    if (name === "dl") {
      let term: string | undefined
      for (const child of childElements(element, new Set(["dt", "dd"]))) {
        if (child.name === "dt") term = clean(textContent(child)).replace(/:$/, "")
        else if (term !== undefined && term !== "") facts.push({ key: term, value: clean(textContent(child)), source: "definition-list" })
      }
      return true
    }
    return true
  })
  return { facts: [...facts, ...titles], tables, jsonLd }
}

/** A JSON body's facts (a scraped API answer): its keys flattened as JSON-LD's are. */
export const jsonFacts = (value: unknown): Array<Fact> => {
  const out: Array<Fact> = []
  flattenJsonLd(value, "", out)
  return out
}

/** `Key: value` lines of a text (a document's markdown): the facts a page without HTML states. */
export const textFacts = (plainLines: ReadonlyArray<string>): Array<Fact> => {
  const out: Array<Fact> = []
  for (const line of plainLines) {
    const match = /^([^:|]{1,50}):\s+(.{1,300})$/.exec(line)
    if (match !== null) out.push({ key: match[1]!.trim(), value: match[2]!.trim(), source: "text" })
  }
  return out
}
