/**
 * The `menu` format, deterministic: read from the page's schema.org data: a `Menu` (often the
 * `hasMenu` of a `Restaurant` or `FoodEstablishment`, the merchant) with its `hasMenuSection`
 * sections (nested ones flattened, named with their parent) and `hasMenuItem` items: name,
 * description, price and currency from `offers`, calories from `nutrition`, dietary labels from
 * `suitableForDiet`, images; microdata and RDFa items read the same way. Without them, a menu
 * written as headings over priced lines (MenuEvidence.ts). A page without a menu gets none.
 */
import type { ScrapeData } from "../contract/index.ts"
import type { PageFacts } from "../derived/PageFacts.ts"
import { markupItems } from "./Microdata.ts"
import { menuFromText } from "./MenuEvidence.ts"
import { all, amount, availability, hasType, isThing, text, type Thing, things, typesOf, urls } from "./SchemaOrg.ts"

export type Menu = NonNullable<ScrapeData["menu"]>
type Section = Menu["sections"][number]
type Item = Section["items"][number]

const itemOf = (item: Thing, base: string | undefined, currencies: Set<string>): Item | undefined => {
  const name = text(item.name)
  if (name === undefined) return undefined
  const offer = all(item.offers).filter(isThing)[0]
  const currency = text(offer?.priceCurrency)
  if (currency !== undefined) currencies.add(currency)
  const value = amount(offer?.price ?? item.price)
  const calories = amount(isThing(item.nutrition) ? item.nutrition.calories : undefined)
  const dietary = all(item.suitableForDiet).map((d) => text(d)?.replace(/^.*[/#:]/, "").replace(/Diet$/, "")).filter((d): d is string => d !== undefined)
  const images = urls(item.image, base).map((url) => ({ url }))
  const stock = availability(offer?.availability)
  const description = text(item.description)
  const id = typeof item["@id"] === "string" ? item["@id"] : text(item.identifier)
  return {
    name,
    ...(id === undefined ? {} : { id }),
    ...(description === undefined ? {} : { description }),
    ...(value === undefined ? {} : { price: { amount: value, ...(currency === undefined ? {} : { currency }) } }),
    ...(stock === undefined ? {} : { availability: stock }),
    ...(calories === undefined ? {} : { calories }),
    ...(dietary.length === 0 ? {} : { dietary }),
    ...(images.length === 0 ? {} : { images })
  }
}

const sectionsOf = (container: Thing, prefix: string, base: string | undefined, currencies: Set<string>, out: Array<Section>, depth = 0) => {
  if (depth > 4) return
  const items = all(container.hasMenuItem).filter(isThing).map((i) => itemOf(i, base, currencies)).filter((i): i is Item => i !== undefined)
  const name = text(container.name)
  if (items.length > 0) {
    const description = text(container.description)
    out.push({ name: [prefix, name].filter((p) => p !== undefined && p !== "").join(" / ") || "Menu", items, ...(description === undefined ? {} : { description }) })
  }
  for (const section of all(container.hasMenuSection).filter(isThing)) {
    sectionsOf(section, depth === 0 ? "" : [prefix, name].filter((p) => p !== undefined && p !== "").join(" / "), base, currencies, out, depth + 1)
  }
}

export type MenuSource = "schema.org" | "page"

/**
 * The page's menu and where it was read, or undefined when it shows none: from schema.org data
 * (JSON-LD, and microdata and RDFa items when the parsed `dom` is given), else from the page's
 * text (MenuEvidence.ts).
 */
export const readMenuFrom = (
  facts: PageFacts,
  pageUrl: string | undefined,
  dom?: Parameters<typeof markupItems>[0] | undefined
): { readonly menu: Menu; readonly source: MenuSource } | undefined => {
  const structured = fromSchemaOrg(dom === undefined ? facts.jsonLd : [...facts.jsonLd, ...markupItems(dom)], pageUrl)
  if (structured !== undefined) return { menu: structured, source: "schema.org" }
  const page = dom === undefined ? undefined : menuFromText(dom, pageUrl)
  return page === undefined ? undefined : { menu: page, source: "page" }
}

/** The page's menu, or undefined when it shows none. */
export const readMenu = (facts: PageFacts, pageUrl: string | undefined, dom?: Parameters<typeof markupItems>[0] | undefined): Menu | undefined =>
  readMenuFrom(facts, pageUrl, dom)?.menu

const fromSchemaOrg = (jsonLd: ReadonlyArray<unknown>, pageUrl: string | undefined): Menu | undefined => {
  const all_ = things(jsonLd)
  const merchant = all_.find((t) => hasType(t, "Restaurant", "FoodEstablishment", "CafeOrCoffeeShop", "Bakery", "BarOrPub", "FastFoodRestaurant") && t.hasMenu !== undefined)
  const menus = [...all(merchant?.hasMenu).filter(isThing), ...all_.filter((t) => hasType(t, "Menu"))]
  const unique = [...new Set(menus)]
  const currencies = new Set<string>()
  const sections: Array<Section> = []
  for (const menu of unique) sectionsOf(menu, "", pageUrl, currencies, sections)
  if (sections.length === 0) return undefined
  const merchantName = merchant === undefined ? undefined : text(merchant.name)
  return {
    isMenu: true,
    sections,
    // Read from the page's own structured data: as sure as the page is about itself.
    confidence: 0.9,
    currency: currencies.size === 1 ? [...currencies][0] : null,
    ...(merchantName === undefined ? {} : { merchant: { name: merchantName, type: typesOf(merchant!)[0] ?? null } }),
    ...(pageUrl === undefined ? {} : { sourceUrl: pageUrl })
  }
}
