/**
 * A menu read from the page's own text when it states none in structured data: restaurant pages
 * write a menu as headings (the sections) over lines that end in a price. The page is cut into
 * lines at block elements; each line is a heading, an item with its price at the end ("Soup of
 * the day ... 6.50"), a price alone (the item's name, and maybe its description, on the lines
 * just before), or text (an item's description when it follows the item). A price has a currency
 * sign or two decimals. At least four priced items, filling the lines they span, in one currency
 * at most, two or more a section on average, with names mostly distinct, make a menu; anything
 * less is a page that mentions prices (a product grid, price tiers, a tip chart). Item names that
 * are links (to each thing's own page) make a product grid, not a menu.
 */
import { DomUtils } from "htmlparser2"
import { isElement } from "./Microdata.ts"
import type { Menu } from "./Menu.ts"
import { amount } from "./SchemaOrg.ts"

type Document = ReturnType<typeof import("htmlparser2").parseDocument>
type Section = Menu["sections"][number]
type Item = Section["items"][number]

const { getAttributeValue } = DomUtils

const BLOCK = new Set([
  "p", "div", "li", "ul", "ol", "dl", "dt", "dd", "tr", "td", "th", "table", "section", "article", "main", "header", "footer", "aside", "nav",
  "h1", "h2", "h3", "h4", "h5", "h6", "br", "hr", "blockquote", "figure", "figcaption", "form", "address"
])
const SKIP = new Set(["script", "style", "noscript", "template", "svg", "nav", "footer", "select", "button", "head"])

interface Line {
  readonly text: string
  /** The heading level, for a heading line. */
  readonly heading?: number
  /** Whether the line is (almost) all link text: a product card's name, a navigation entry. */
  readonly linked: boolean
}

/** The page's text as lines, cut at block elements; table cells of a row stay on one line. */
export const textLines = (document: Document): Array<Line> => {
  const lines: Array<Line> = []
  let current = ""
  let linkedChars = 0
  const flush = (heading?: number) => {
    const text = current.replace(/\s+/g, " ").trim()
    const linked = text !== "" && linkedChars >= 0.8 * current.replace(/\s+/g, "").length
    if (text !== "") lines.push(heading === undefined ? { text, linked } : { text, heading, linked })
    current = ""
    linkedChars = 0
  }
  const visit = (nodes: ReadonlyArray<Document["children"][number]>, inLink: boolean) => {
    for (const node of nodes) {
      if (node.type === "text") {
        const data = (node as { data: string }).data
        current += data
        if (inLink) linkedChars += data.replace(/\s+/g, "").length
        continue
      }
      if (!isElement(node) || SKIP.has(node.name) || getAttributeValue(node, "hidden") !== undefined) continue
      const heading = /^h([1-6])$/.exec(node.name)
      // A row's cells are one line (name | price); other blocks end the line before and after.
      const cell = node.name === "td" || node.name === "th"
      if (cell) current += " "
      else if (BLOCK.has(node.name)) flush()
      visit(node.children, inLink || node.name === "a")
      if (heading !== null) flush(Number(heading[1]))
      else if (!cell && BLOCK.has(node.name)) flush()
      else current += " "
    }
  }
  visit(document.children, false)
  flush()
  return lines
}

const SIGNS: Record<string, string> = { "$": "USD", "€": "EUR", "£": "GBP", "¥": "JPY", "₹": "INR", "CHF": "CHF", "kr": "SEK", "zł": "PLN", "R$": "BRL" }
const SIGN = "R\\$|[$€£¥₹]|CHF|kr|zł"
const PRICE = `(?:(${SIGN})\\s?)?(\\d{1,4}(?:[.,]\\d{1,2})?)(?:\\s?(${SIGN}))?`
const PRICE_ONLY = new RegExp(`^${PRICE}$`)
const PRICED = new RegExp(`^(.{2,120}?)(?:\\s*[.·…_]{2,}\\s*|\\s+[-–—|/]\\s+|\\s+)${PRICE}$`)

interface Price {
  readonly amount: number
  readonly currency?: string | undefined
}

const priceOf = (before: string | undefined, number: string, after: string | undefined): Price | undefined => {
  const value = amount(number)
  if (value === undefined || value <= 0 || value >= 1000) return undefined
  const sign = before ?? after
  // Without a sign only two decimals make a price: bare counts (comments, pages, votes) do not.
  if (sign === undefined && !/[.,]\d{2}$/.test(number)) return undefined
  return { amount: value, ...(sign === undefined ? {} : { currency: SIGNS[sign] ?? sign }) }
}

type Kind =
  | { readonly kind: "heading"; readonly text: string; readonly linked: boolean }
  | { readonly kind: "priced"; readonly name: string; readonly price: Price; readonly linked: boolean }
  | { readonly kind: "price"; readonly price: Price }
  | { readonly kind: "text"; readonly text: string; readonly linked: boolean }

const classify = (line: Line): Kind => {
  const only = PRICE_ONLY.exec(line.text)
  if (only !== null) {
    const price = priceOf(only[1], only[2]!, only[3])
    if (price !== undefined) return { kind: "price", price }
  }
  if (line.heading !== undefined) return { kind: "heading", text: line.text, linked: line.linked }
  const priced = PRICED.exec(line.text)
  // A name holding a price of its own is a range ("$1 - $2"), not an item.
  if (priced !== null && /\p{L}/u.test(priced[1]!) && !new RegExp(`(?:${SIGN})\\s?\\d`).test(priced[1]!)) {
    const price = priceOf(priced[2], priced[3]!, priced[4])
    if (price !== undefined) return { kind: "priced", name: priced[1]!.replace(/[\s.·…_:-]+$/, ""), price, linked: line.linked }
  }
  return { kind: "text", text: line.text, linked: line.linked }
}

/** The menu the page's text shows, or undefined when it has fewer than four priced items. */
export const menuFromText = (document: Document, pageUrl: string | undefined): Menu | undefined => {
  const kinds = textLines(document).map(classify)
  const sections: Array<{ name: string; items: Array<Item> }> = []
  let section: { name: string; items: Array<Item> } | undefined
  let heading = "Menu"
  const currencies = new Set<string>()
  let last: Item | undefined
  // The lines the items span, to tell a menu (mostly items) from a page with a few prices in it.
  let first = -1
  let end = -1
  let at = 0
  let linkedNames = 0
  const push = (item: Item, price: Price, linked: boolean) => {
    if (linked) linkedNames++
    if (first === -1) first = at
    end = at
    if (section === undefined) {
      section = { name: heading, items: [] }
      sections.push(section)
    }
    if (price.currency !== undefined) currencies.add(price.currency)
    section.items.push(item)
    last = item
  }
  const itemOf = (name: string, price: Price, description?: string): Item => ({
    name,
    price: { amount: price.amount, ...(price.currency === undefined ? {} : { currency: price.currency }) },
    ...(description === undefined ? {} : { description })
  })
  for (let i = 0; i < kinds.length; i++) {
    at = i
    const k = kinds[i]!
    const next = kinds[i + 1]
    const after = kinds[i + 2]
    switch (k.kind) {
      case "heading":
        // A heading with a price right after it is an item's name (templates write item names as h3/h4).
        if (next?.kind === "price") {
          push(itemOf(k.text, next.price), next.price, k.linked)
          i++
          break
        }
        heading = k.text
        section = undefined
        last = undefined
        break
      case "priced":
        push(itemOf(k.name, k.price), k.price, k.linked)
        break
      case "price":
        last = undefined
        break
      case "text":
        // Name, then price: an item. Name, description, then price: an item with its description.
        if (next?.kind === "price" && /\p{L}/u.test(k.text)) {
          push(itemOf(k.text, next.price), next.price, k.linked)
          i++
        } else if (next?.kind === "text" && after?.kind === "price" && k.text.length <= 80 && /\p{L}/u.test(k.text)) {
          push(itemOf(k.text, after.price, next.text), after.price, k.linked)
          i += 2
        } else if (last !== undefined && last.description === undefined) {
          const described: Item = { ...last, description: k.text }
          section!.items[section!.items.length - 1] = described
          last = undefined
        } else {
          last = undefined
        }
        break
    }
  }
  const count = sections.reduce((n, s) => n + s.items.length, 0)
  if (count < 4) return undefined
  // An item is one to three lines (name, description, price) and a section adds a heading.
  const lines = end - first + 1
  if (count * 3 + sections.length < lines) return undefined
  // Names that are links lead to each thing's own page: a product grid or a listing, not a menu.
  if (linkedNames * 2 > count) return undefined
  // One currency at most: prices in several are a shop or a comparison, not a menu.
  if (currencies.size > 1) return undefined
  // A heading over each single priced thing is a grid of product cards; a menu's sections hold several.
  const kept = sections.filter((s) => s.items.length > 0)
  if (count < kept.length * 2) return undefined
  // Items are different dishes: the same names again and again are price tiers or sellers.
  const names = new Set(kept.flatMap((s) => s.items.map((item) => item.name.toLowerCase())))
  if (names.size < count * 0.8) return undefined
  return {
    isMenu: true,
    sections: kept,
    // Read from the page's text, not from data it states about itself.
    confidence: 0.6,
    currency: currencies.size === 1 ? [...currencies][0]! : null,
    ...(pageUrl === undefined ? {} : { sourceUrl: pageUrl })
  }
}
