/**
 * A product read from the page itself when it states none in structured data: the page's main
 * heading (its first `h1`), a price with a currency written near it (in the smallest ancestor of
 * the heading that has one, within a few levels and a few thousand characters), and a way to buy
 * it: an add-to-cart form or button, variant selects, or a button saying it is sold out. All
 * three are needed; a page with several add-to-cart buttons is a listing, not a product's page.
 * Beside the price: a higher struck-through one is what it cost before (`sale`), and "out of
 * stock" where no enabled buy button is makes it not in stock; a disabled option is a sold-out
 * variant; the first image near the heading is its picture. Signals are structural (form
 * actions, attribute names, currency signs, struck-through and disabled elements), with the
 * button's and the page's words as one more hint; no site rules.
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
  /** Buttons whose text says the product is sold out. */
  readonly soldOut: Array<Element>
  readonly cartForms: Array<Element>
  readonly selects: Array<Element>
}

const gather = (document: Document): Evidence => {
  const evidence: Evidence = { buttons: [], soldOut: [], cartForms: [], selects: [] }
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
        else if (node.name !== "a" && SOLD_OUT.test(said)) evidence.soldOut.push(node)
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

const STRUCK = new Set(["del", "s", "strike"])
/** Text for screen readers only (WooCommerce's "Original price was: $80.00."), not shown. */
const SCREEN_READER = /(?:^|\s)(?:screen-reader-text|sr-only|visually-hidden|visuallyhidden)(?:\s|$)/

/**
 * An element's text as shown, split: what is struck through (`del`, `s`, `strike`: an old price)
 * apart from the rest; screen-reader-only text, selects and their options left out.
 */
const shownText = (root: Element): { readonly current: string; readonly struck: string } => {
  let current = ""
  let struck = ""
  const walk = (node: Element["children"][number], inStruck: boolean) => {
    if (node.type === "text") {
      const data = (node as unknown as { data: string }).data
      if (inStruck) struck += data
      else current += data
      return
    }
    if (!isElement(node) || node.name === "script" || node.name === "style" || node.name === "select" || node.name === "option") return
    if (SCREEN_READER.test(getAttributeValue(node, "class") ?? "")) return
    const nowStruck = inStruck || STRUCK.has(node.name) || /line-through/i.test(getAttributeValue(node, "style") ?? "")
    for (const child of node.children) walk(child, nowStruck)
    // Block ends and struck runs are word breaks, so that "$80.00$59.99" is two prices.
    if (nowStruck) struck += " "
    current += " "
  }
  walk(root, false)
  return { current: current.replace(/\s+/g, " "), struck: struck.replace(/\s+/g, " ") }
}

interface Shown {
  readonly price: FoundPrice
  /** A struck-through price higher than `price` beside it: what it cost before. */
  readonly was?: FoundPrice | undefined
  /** The smallest ancestor of the heading that shows the price. */
  readonly region: Element
  readonly text: string
}

/** The price in the smallest ancestor of the heading that shows one (5 levels, 4,000 characters at most). */
const priceNear = (h1: Element): Shown | undefined => {
  let at: Element | null = h1
  for (let level = 0; level <= 5 && at !== null; level++) {
    if (textContent(at).length > 8000) return undefined
    const { current, struck } = shownText(at)
    if (current.length > 4000) return undefined
    const found = findPrice(current)
    if (found !== undefined) {
      const was = findPrice(struck)
      return { price: found, was: was !== undefined && was.currency === found.currency && was.amount > found.amount ? was : undefined, region: at, text: current }
    }
    at = at.parent !== null && isElement(at.parent as never) ? (at.parent as Element) : null
  }
  return undefined
}

/** Words a page shows when the product cannot be bought now. */
const SOLD_OUT = /(?<!\p{L})(?:sold[\s-]?out|out[\s-]of[\s-]stock|not in stock|currently unavailable|no longer available|ausverkauft|nicht verfügbar|épuisé|rupture de stock|agotado|esaurito|uitverkocht)(?!\p{L})/iu
/** An option's "(Sold out)" or "- Sold out". */
const SOLD_OUT_SUFFIX = new RegExp(`\\s*(?:[-–—:]\\s*|\\(|\\[)?${SOLD_OUT.source}[)\\]]?\\s*$`, "iu")
const IN_STOCK_TEXT = /(?<!\p{L})(?:in[\s-]stock|available now|auf lager|sofort verfügbar|en stock)(?!\p{L})/iu

/**
 * The product's picture: the first image in the smallest ancestor of the heading that has one (5
 * levels), not a data URI and not stated smaller than 100 pixels (a thumbnail, an icon).
 */
const imageNear = (h1: Element, pageUrl: string | undefined): string | undefined => {
  let at: Element | null = h1
  for (let level = 0; level <= 5 && at !== null; level++) {
    for (const img of DomUtils.getElementsByTagName("img", at, true)) {
      const src = getAttributeValue(img, "src") ?? getAttributeValue(img, "data-src")
      if (src === undefined || src.trim() === "" || src.startsWith("data:")) continue
      const small = ["width", "height"].some((a) => Number(getAttributeValue(img, a) ?? "1000") < 100)
      if (small) continue
      try {
        return new URL(src.trim(), pageUrl).href
      } catch {
        // not a URL
      }
    }
    at = at.parent !== null && isElement(at.parent as never) ? (at.parent as Element) : null
  }
  return undefined
}

/**
 * A select's variant options: their texts, the placeholder (no value, or disabled without one of
 * its own) left out. A disabled option with its own value, or one that says so, is sold out (its
 * "(Sold out)" or "- Sold out" taken off its name).
 */
const optionsOf = (select: Element): Array<{ readonly value: string; readonly soldOut: boolean }> => {
  const out: Array<{ value: string; soldOut: boolean }> = []
  const stack = [...select.children]
  while (stack.length > 0) {
    const node = stack.shift()!
    if (!isElement(node)) continue
    if (node.name === "optgroup") {
      stack.push(...node.children)
      continue
    }
    if (node.name !== "option") continue
    const value = getAttributeValue(node, "value")
    if ((value ?? "x").trim() === "") continue
    const text = textContent(node).replace(/\s+/g, " ").trim()
    const saysSoldOut = SOLD_OUT.test(text)
    if (getAttributeValue(node, "disabled") !== undefined && value === undefined && !saysSoldOut) continue
    const name = text.replace(SOLD_OUT_SUFFIX, "").trim()
    if (name !== "") out.push({ value: name, soldOut: saysSoldOut || getAttributeValue(node, "disabled") !== undefined })
  }
  return out
}

/** A select's option name: its label's text (up to a colon, "Required" and "*" off), else the name in its `name` attribute. */
const optionName = (select: Element, document: Document): string => {
  const id = getAttributeValue(select, "id")
  let label: Element | undefined
  if (id !== undefined) label = DomUtils.findOne((e) => e.name === "label" && getAttributeValue(e, "for") === id, document.children, true) ?? undefined
  for (let at = select.parent; label === undefined && at !== null && isElement(at as never); at = at.parent) if ((at as Element).name === "label") label = at as Element
  const said = label === undefined ? "" : textContent(label).replace(/\s+/g, " ").split(":")[0]!.replace(/\*|\brequired\b/gi, "").trim()
  if (said !== "" && said.length <= 40) return said
  return (getAttributeValue(select, "name") ?? id ?? "option").replace(/^.*\[|\]$/g, "")
}

/** The price written near the page's main heading, if any (for structured data that gives none). */
export const priceNearHeading = (document: Document): FoundPrice | undefined => {
  const h1 = gather(document).h1
  return h1 === undefined ? undefined : priceNear(h1)?.price
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
  const shown = priceNear(h1)
  if (shown === undefined) return undefined
  const { price, was } = shown
  const variantSelects = evidence.selects.filter((s) =>
    evidence.cartForms.some((f) => within(s, f)) || VARIANT_NAME.test(`${getAttributeValue(s, "name") ?? ""} ${getAttributeValue(s, "id") ?? ""}`)
  ).filter((s) => !/qty|quantity|country|currency|language|locale|sort/i.test(attributes(s)))
  // A sold-out button where the buy button would be (its text says so) is the product's, not buyable now.
  const soldOutButtons = evidence.soldOut.filter((b) => within(b, shown.region))
  if (evidence.buttons.length === 0 && evidence.cartForms.length === 0 && variantSelects.length === 0 && soldOutButtons.length === 0) return undefined
  const canAdd = evidence.buttons.some((b) => getAttributeValue(b, "disabled") === undefined)
  // "Sold out" beside the price says so for the product only where no enabled buy button is (with
  // one, it is about an option: "XL (sold out)").
  const addHere = evidence.buttons.some((b) => getAttributeValue(b, "disabled") === undefined && within(b, shown.region))
  const soldOutText = addHere ? undefined : shown.text.match(SOLD_OUT)?.[0]
  const outOfStock = soldOutButtons.length > 0 || soldOutText !== undefined
  const buyable = !outOfStock && (canAdd || evidence.cartForms.length > 0)
  const stockText = soldOutText ?? (outOfStock ? undefined : shown.text.match(IN_STOCK_TEXT)?.[0])
  const image = imageNear(h1, pageUrl)
  const base: Variant = {
    availability: stockText === undefined ? { inStock: buyable } : { inStock: buyable, text: stockText },
    title,
    price: { amount: price.amount, currency: price.currency, formatted: price.formatted },
    ...(was === undefined ? {} : { sale: { originalPrice: { amount: was.amount, currency: was.currency, formatted: was.formatted } } }),
    ...(image === undefined ? {} : { images: [{ url: image }] })
  }
  // One variant per option of the first variant select (the price shown is the selected one's).
  const select = variantSelects[0]
  const options = select === undefined ? [] : optionsOf(select)
  const key = select === undefined ? "" : optionName(select, document)
  const variants = options.length > 1 && options.length <= 100
    ? options.map((option): Variant => ({
      ...base,
      ...(option.soldOut ? { availability: { inStock: false, text: "Sold out" } } : {}),
      values: { [key]: option.value }
    }))
    : [base]
  return { title, url: pageUrl ?? "", variants }
}
