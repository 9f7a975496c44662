/**
 * A product read from the page itself when it states none in structured data: the page's main
 * heading (its first `h1`), a price with a currency written near it (in the smallest ancestor of
 * the heading that has one, within a few levels and a few thousand characters), and a way to buy
 * it: an add-to-cart form or button, or variant selects. All three are needed; a page with several
 * add-to-cart buttons is a listing, not a product's page. Signals are structural (form actions,
 * attribute names, currency signs), with the button's text as one more hint; no site rules.
 */
import { DomUtils } from "htmlparser2"
import { amount } from "./SchemaOrg.ts"
import { type Element, isElement } from "./Microdata.ts"
import type { Product } from "./Product.ts"

type Document = ReturnType<typeof import("htmlparser2").parseDocument>
type Variant = Product["variants"][number]

const { getAttributeValue, textContent } = DomUtils

const SYMBOLS: Record<string, string> = {
  "$": "USD", "US$": "USD", "C$": "CAD", "CA$": "CAD", "A$": "AUD", "AU$": "AUD", "NZ$": "NZD", "R$": "BRL", "HK$": "HKD", "S$": "SGD", "MX$": "MXN",
  "€": "EUR", "£": "GBP", "¥": "JPY", "￥": "JPY", "₹": "INR", "₩": "KRW", "₽": "RUB", "₺": "TRY", "₪": "ILS", "₫": "VND", "฿": "THB", "₱": "PHP", "zł": "PLN", "kr": "SEK", "Kč": "CZK", "Fr.": "CHF"
}
const CODES = "USD|EUR|GBP|JPY|CAD|AUD|NZD|CHF|SEK|NOK|DKK|PLN|CZK|INR|CNY|BRL|MXN|ZAR|SGD|HKD|KRW|TRY|RUB|ILS|AED|SAR"
const SIGN = "US\\$|CA?\\$|AU?\\$|NZ\\$|R\\$|HK\\$|S\\$|MX\\$|[$€£¥￥₹₩₽₺₪₫฿₱]|zł|kr|Kč|Fr\\."
const NUMBER = "\\d{1,3}(?:[.,\\s\\u00a0\\u202f']\\d{3})*(?:[.,]\\d{1,2})?|\\d+(?:[.,]\\d{1,2})?"
/** A price as pages write it: a sign or code before or after the number. */
// A number after a sign that another number follows ("4i4 $199") is not a price, nor is an
// instalment ("$83.25/mo.").
const PRICE = new RegExp(
  `(?:(${SIGN}|${CODES})\\s?(${NUMBER})(?![\\d.,]?\\d)(?!\\s?\\/\\s?mo))|(?:(?<![\\p{L}\\d.,])(${NUMBER})\\s?(${SIGN}|${CODES})(?![A-Za-z]|\\s?\\d))`,
  "u"
)

export interface FoundPrice {
  readonly amount: number
  readonly currency: string
  readonly formatted: string
}

/** The first price with a currency in `text`. */
export const findPrice = (text: string): FoundPrice | undefined => {
  const m = PRICE.exec(text)
  if (m === null) return undefined
  const sign = m[1] ?? m[4]!
  const number = m[2] ?? m[3]!
  const value = amount(number.replace(/[\s\u00a0\u202f']/g, ""))
  if (value === undefined || value <= 0) return undefined
  return { amount: value, currency: SYMBOLS[sign] ?? sign, formatted: m[0].trim() }
}

const attributes = (element: Element): string =>
  ["name", "id", "class", "value", "data-action", "data-testid", "aria-label", "title"].map((a) => getAttributeValue(element, a) ?? "").join(" ")

const BUY = /add[\s_-]?to[\s_-]?(?:cart|bag|basket|trolley)|addtocart|add-cart|buy[\s_-]?now|buy[\s_-]?button|product-form__submit|\bcart[\s_-]?add/i
const CART_ACTION = /cart|basket|checkout/i
const VARIANT_NAME = /option|variant|size|colou?r|attribute|style|model|capacity|flavou?r/i

const visible = (element: Element) => getAttributeValue(element, "hidden") === undefined && !/display:\s*none/i.test(getAttributeValue(element, "style") ?? "")

interface Evidence {
  h1?: Element
  readonly buttons: Array<Element>
  readonly cartForms: Array<Element>
  readonly selects: Array<Element>
}

const gather = (document: Document): Evidence => {
  const evidence: Evidence = { buttons: [], cartForms: [], selects: [] }
  const stack = [...document.children].reverse()
  while (stack.length > 0) {
    const node = stack.pop()!
    if (!isElement(node) || node.name === "script" || node.name === "style" || node.name === "template" || node.name === "noscript") continue
    if (!visible(node)) continue
    switch (node.name) {
      case "h1":
        if (evidence.h1 === undefined && textContent(node).trim() !== "") evidence.h1 = node
        break
      case "form":
        if (CART_ACTION.test(getAttributeValue(node, "action") ?? "")) evidence.cartForms.push(node)
        break
      case "button":
      case "input":
      case "a": {
        if (node.name === "input" && !/submit|button|image/i.test(getAttributeValue(node, "type") ?? "")) break
        const said = `${attributes(node)} ${node.name === "input" ? "" : textContent(node).slice(0, 80)}`
        if (BUY.test(said)) evidence.buttons.push(node)
        break
      }
      case "select":
        evidence.selects.push(node)
        break
    }
    for (let i = node.children.length - 1; i >= 0; i--) stack.push(node.children[i]!)
  }
  return evidence
}

const within = (element: Element, ancestor: Element): boolean => {
  for (let at: Element | null = element; at !== null; at = at.parent as Element | null) if (at === ancestor) return true
  return false
}

/** The price in the smallest ancestor of the heading that shows one (5 levels, 4,000 characters at most). */
const priceNear = (h1: Element): FoundPrice | undefined => {
  let at: Element | null = h1
  for (let level = 0; level <= 5 && at !== null; level++) {
    const text = textContent(at).replace(/\s+/g, " ")
    if (text.length > 4000) return undefined
    const found = findPrice(text)
    if (found !== undefined) return found
    at = at.parent !== null && isElement(at.parent as never) ? (at.parent as Element) : null
  }
  return undefined
}

/** A select's variant options: their texts, the placeholder (no value or disabled) left out. */
const optionsOf = (select: Element): Array<string> => {
  const out: Array<string> = []
  const stack = [...select.children]
  while (stack.length > 0) {
    const node = stack.shift()!
    if (!isElement(node)) continue
    if (node.name === "optgroup") {
      stack.push(...node.children)
      continue
    }
    if (node.name !== "option" || getAttributeValue(node, "disabled") !== undefined || (getAttributeValue(node, "value") ?? "x").trim() === "") continue
    const text = textContent(node).replace(/\s+/g, " ").trim()
    if (text !== "") out.push(text)
  }
  return out
}

/** The price written near the page's main heading, if any (for structured data that gives none). */
export const priceNearHeading = (document: Document): FoundPrice | undefined => {
  const h1 = gather(document).h1
  return h1 === undefined ? undefined : priceNear(h1)
}

/** The product the page's markup shows, or undefined when it lacks a heading, a price or a way to buy. */
export const productFromDom = (document: Document, pageUrl: string | undefined): Product | undefined => {
  const evidence = gather(document)
  const h1 = evidence.h1
  if (h1 === undefined) return undefined
  // Several buy buttons: a listing or a collection of products.
  if (evidence.buttons.length >= 3) return undefined
  const title = textContent(h1).replace(/\s+/g, " ").trim()
  if (title.length > 200) return undefined
  const price = priceNear(h1)
  if (price === undefined) return undefined
  const variantSelects = evidence.selects.filter((s) =>
    evidence.cartForms.some((f) => within(s, f)) || VARIANT_NAME.test(`${getAttributeValue(s, "name") ?? ""} ${getAttributeValue(s, "id") ?? ""}`)
  ).filter((s) => !/qty|quantity|country|currency|language|locale|sort/i.test(attributes(s)))
  if (evidence.buttons.length === 0 && evidence.cartForms.length === 0 && variantSelects.length === 0) return undefined
  const buyable = evidence.buttons.some((b) => getAttributeValue(b, "disabled") === undefined) || evidence.cartForms.length > 0
  const base: Variant = {
    availability: { inStock: buyable },
    title,
    price: { amount: price.amount, currency: price.currency, formatted: price.formatted }
  }
  // One variant per option of the first variant select (the price shown is the selected one's).
  const select = variantSelects[0]
  const options = select === undefined ? [] : optionsOf(select)
  const key = select === undefined ? "" : (getAttributeValue(select, "name") ?? getAttributeValue(select, "id") ?? "option").replace(/^.*\[|\]$/g, "")
  const variants = options.length > 1 && options.length <= 100 ? options.map((option): Variant => ({ ...base, values: { [key]: option } })) : [base]
  return { title, url: pageUrl ?? "", variants }
}
