/**
 * The `product` format, deterministic: read from the page's schema.org data (a `Product`, or a
 * `ProductGroup` with its `hasVariant` products), else its OpenGraph product tags. Variants come
 * from the group's variants, else from the product's offers; each has its availability, price,
 * the list price as `sale.originalPrice` when it is higher, images and option values (the
 * properties the group `variesBy`, or `additionalProperty`). schema.org items written as microdata
 * or RDFa (Microdata.ts) are read like JSON-LD. Without any of these, the page's own evidence may
 * still show a product (ProductEvidence.ts).
 */
import type { ScrapeData } from "../contract/index.ts"
import type { PageFacts } from "../derived/PageFacts.ts"
import { markupItems } from "./Microdata.ts"
import { priceNearHeading, productFromDom } from "./ProductEvidence.ts"
import { all, amount, availability, hasType, isThing, text, type Thing, things, urls } from "./SchemaOrg.ts"

export type Product = NonNullable<ScrapeData["product"]>
type Variant = Product["variants"][number]
type Price = NonNullable<Variant["price"]>

const priceOf = (value: unknown, currency: string | undefined): Price | undefined => {
  const n = amount(value)
  if (n === undefined) return undefined
  return { amount: n, ...(currency === undefined ? {} : { currency }), ...(typeof value === "string" ? { formatted: value.trim() } : {}) }
}

/** An offer's price, currency and list price (a `priceSpecification` of type ListPrice/StrikethroughPrice). */
const offerPrices = (offer: Thing) => {
  const specs = all(offer.priceSpecification).filter(isThing)
  const currency = text(offer.priceCurrency) ?? specs.map((s) => text(s.priceCurrency)).find((c) => c !== undefined)
  const selling = specs.find((s) => !/ListPrice|StrikethroughPrice|MSRP/i.test(text(s.priceType) ?? ""))
  const listed = specs.find((s) => /ListPrice|StrikethroughPrice|MSRP/i.test(text(s.priceType) ?? ""))
  const price = priceOf(offer.price ?? offer.lowPrice ?? selling?.price, currency)
  const original = listed === undefined ? undefined : priceOf(listed.price, text(listed.priceCurrency) ?? currency)
  return { price, original }
}

const variantOf = (item: Thing, offer: Thing | undefined, base: string | undefined, values?: Record<string, string>): Variant => {
  const { price, original } = offer === undefined ? { price: undefined, original: undefined } : offerPrices(offer)
  const stock = availability(offer?.availability ?? item.availability) ?? { inStock: price !== undefined, text: undefined }
  const images = urls(item.image, base).map((url) => ({ url }))
  const sku = text(offer?.sku) ?? text(item.sku)
  const id = text(item.productID) ?? text(item.gtin13) ?? text(item.gtin) ?? sku
  return {
    availability: stock.text === undefined ? { inStock: stock.inStock } : { inStock: stock.inStock, text: stock.text },
    ...(id === undefined ? {} : { id }),
    ...(sku === undefined ? {} : { sku }),
    ...(text(item.name) === undefined ? {} : { title: text(item.name) }),
    ...(price === undefined ? {} : { price }),
    ...(price !== undefined && original !== undefined && original.amount > price.amount ? { sale: { originalPrice: original } } : {}),
    ...(images.length === 0 ? {} : { images }),
    ...(values === undefined || Object.keys(values).length === 0 ? {} : { values })
  }
}

/** Option values of a variant: the properties its group varies by, then `additionalProperty`. */
const valuesOf = (variant: Thing, variesBy: ReadonlyArray<string>): Record<string, string> => {
  const values: Record<string, string> = {}
  for (const property of variesBy) {
    const key = property.replace(/^.*[/#:]/, "")
    const value = text(variant[key])
    if (value !== undefined) values[key] = value
  }
  for (const extra of all(variant.additionalProperty).filter(isThing)) {
    const name = text(extra.name)
    const value = text(extra.value)
    if (name !== undefined && value !== undefined) values[name] = value
  }
  return values
}

/**
 * A graph's node written as a reference (`{"@id": "...#primaryimage"}`, as Yoast writes a
 * product's image and brand) replaced by the node it names, one level deep.
 */
const dereference = (thing: Thing, byId: ReadonlyMap<string, Thing>): Thing => {
  let out: Thing | undefined
  for (const [key, value] of Object.entries(thing)) {
    if (key === "@id") continue
    const values = all(value)
    if (!values.some((v) => isThing(v) && typeof v["@id"] === "string" && Object.keys(v).length === 1 && byId.has(v["@id"]))) continue
    const resolved = values.map((v) => (isThing(v) && typeof v["@id"] === "string" && Object.keys(v).length === 1 ? byId.get(v["@id"]) ?? v : v))
    out ??= { ...thing }
    out[key] = Array.isArray(value) ? resolved : resolved[0]
  }
  return out ?? thing
}

const fromSchemaOrg = (jsonLd: ReadonlyArray<unknown>, pageUrl: string | undefined): Product | undefined => {
  const found = things(jsonLd)
  const byId = new Map<string, Thing>()
  for (const t of found) if (typeof t["@id"] === "string" && Object.keys(t).length > 1 && !byId.has(t["@id"])) byId.set(t["@id"], t)
  const all_ = byId.size === 0 ? found : found.map((t) => dereference(t, byId))
  const group = all_.find((t) => hasType(t, "ProductGroup"))
  const products = all_.filter((t) => hasType(t, "Product", "IndividualProduct", "ProductModel", "Car", "Vehicle"))
  // Several products that are not one group's variants: a listing or a category page, not a product's page.
  const variantsOfGroup = new Set(group === undefined ? [] : all(group.hasVariant))
  if (group === undefined && products.filter((p) => !variantsOfGroup.has(p)).length >= 3) return undefined
  const product = group ?? products[0]
  if (product === undefined) return undefined
  const title = text(product.name)
  if (title === undefined) return undefined
  const url = urls(product.url, pageUrl)[0] ?? pageUrl ?? ""
  let variants: Array<Variant> = []
  const members = all(product.hasVariant).filter(isThing)
  if (members.length > 0) {
    const variesBy = all(product.variesBy).map((v) => text(v)).filter((v): v is string => v !== undefined)
    variants = members.map((member) => variantOf(member, all(member.offers).filter(isThing)[0], pageUrl, valuesOf(member, variesBy)))
  } else {
    const offers = all(product.offers).filter(isThing).flatMap((offer) => {
      const inner = all(offer.offers).filter(isThing)
      return hasType(offer, "AggregateOffer") && inner.length > 0 ? inner : [offer]
    })
    variants = offers.length === 0 ? [variantOf(product, undefined, pageUrl)] : offers.map((offer) => variantOf({ ...product, name: offer.name ?? product.name }, offer, pageUrl, valuesOf(offer, [])))
  }
  // Variants without their own pictures show the product's.
  const productImages = urls(product.image, pageUrl).map((u) => ({ url: u }))
  if (productImages.length > 0) variants = variants.map((v) => (v.images === undefined ? { ...v, images: productImages } : v))
  const brand = text(product.brand) ?? text(product.manufacturer)
  const category = text(product.category)
  const description = text(product.description)
  return {
    title,
    url,
    variants,
    ...(brand === undefined ? {} : { brand }),
    ...(category === undefined ? {} : { category }),
    ...(description === undefined ? {} : { description })
  }
}

/** The page's meta tags by name or property, the first of each. */
const metaTags = (facts: PageFacts): Map<string, string> => {
  const meta = new Map<string, string>()
  for (const fact of facts.facts) if (fact.source === "meta" && typeof fact.value === "string" && !meta.has(fact.key)) meta.set(fact.key, fact.value)
  return meta
}

/** OpenGraph's product tags (`og:type` product, `product:price:amount`, ...). */
const fromOpenGraph = (facts: PageFacts, pageUrl: string | undefined): Product | undefined => {
  const meta = metaTags(facts)
  const type = meta.get("og:type") ?? ""
  const priceText = meta.get("product:price:amount") ?? meta.get("og:price:amount")
  if (!/product/i.test(type) && priceText === undefined) return undefined
  const title = meta.get("og:title")
  if (title === undefined) return undefined
  const currency = meta.get("product:price:currency") ?? meta.get("og:price:currency")
  const price = priceText === undefined ? undefined : priceOf(priceText, currency)
  const stock = availability(meta.get("product:availability") ?? meta.get("og:availability")) ?? { inStock: price !== undefined, text: undefined }
  const image = meta.get("og:image")
  const brand = meta.get("product:brand")
  const description = meta.get("og:description")
  // Meta's catalog tags name the shop's own id for the item (its SKU) `product:retailer_item_id`.
  const sku = meta.get("product:retailer_item_id")
  return {
    title,
    url: meta.get("og:url") ?? pageUrl ?? "",
    variants: [{
      availability: stock.text === undefined ? { inStock: stock.inStock } : { inStock: stock.inStock, text: stock.text },
      ...(sku === undefined ? {} : { id: sku, sku }),
      ...(price === undefined ? {} : { price }),
      ...(image === undefined ? {} : { images: [{ url: image }] })
    }],
    ...(brand === undefined ? {} : { brand }),
    ...(description === undefined ? {} : { description })
  }
}

export type ProductSource = "schema.org" | "opengraph" | "page"

/**
 * The page's product and where it was read, or undefined when the page shows none: schema.org
 * data (JSON-LD, and microdata and RDFa items when the parsed `dom` is given), else OpenGraph's
 * product tags, else the page's own evidence (heading, price, a way to buy: ProductEvidence.ts).
 */
export const readProductFrom = (
  facts: PageFacts,
  pageUrl: string | undefined,
  dom?: Parameters<typeof markupItems>[0] | undefined
): { readonly product: Product; readonly source: ProductSource } | undefined => {
  const stated = fromSchemaOrg(dom === undefined ? facts.jsonLd : [...facts.jsonLd, ...markupItems(dom)], pageUrl)
  // A product stated without pictures (Magento's microdata has none): the page's og:image.
  const ogImage = stated === undefined || stated.variants.some((v) => v.images !== undefined) ? undefined : urls(metaTags(facts).get("og:image"), pageUrl)[0]
  const structured = ogImage === undefined || stated === undefined ? stated : { ...stated, variants: stated.variants.map((v) => ({ ...v, images: [{ url: ogImage }] })) }
  if (structured !== undefined) {
    // A Product stated without its offer: the price shown by the page's heading, for a single variant.
    const variant = structured.variants.length === 1 ? structured.variants[0]! : undefined
    const shown = variant !== undefined && variant.price === undefined && dom !== undefined ? priceNearHeading(dom) : undefined
    if (shown === undefined) return { product: structured, source: "schema.org" }
    return { product: { ...structured, variants: [{ ...variant!, price: { amount: shown.amount, currency: shown.currency, formatted: shown.formatted } }] }, source: "schema.org" }
  }
  const og = fromOpenGraph(facts, pageUrl)
  if (og !== undefined) return { product: og, source: "opengraph" }
  const page = dom === undefined ? undefined : productFromDom(dom, pageUrl)
  return page === undefined ? undefined : { product: page, source: "page" }
}

/** The page's product, or undefined when the page shows none. */
export const readProduct = (facts: PageFacts, pageUrl: string | undefined, dom?: Parameters<typeof markupItems>[0] | undefined): Product | undefined =>
  readProductFrom(facts, pageUrl, dom)?.product
