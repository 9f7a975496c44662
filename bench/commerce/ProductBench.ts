/**
 * `product` field accuracy on fixture pages written from the structures shops use: JSON-LD
 * (Shopify's offers, Google's ProductGroup with variants, Yoast's @graph, a strikethrough list
 * price, WooCommerce's AggregateOffer range), microdata (Magento), RDFa (Drupal Commerce),
 * OpenGraph product tags, and pages with none of these (a heading, a price and a way to buy; a
 * variant select, out-of-stock text, a WooCommerce sale price); one category listing that is no
 * product. Each `<case>.html` has `<case>.expected.json`: the page's URL and its `product` in
 * the contract's shape (or null), written before the extractor was run on it.
 *
 * Scored per field, only where the expected product states it: title, url, brand, category,
 * description; per expected variant (matched by sku, else option values, else order): found,
 * price amount, currency, inStock, sku, title, sale (the original price's amount), images (the
 * same set of URLs), values (the same options, case aside). Also variants given beyond the
 * expected ones and sales stated where none is. `availability.text` and `formatted` are free text
 * and not scored.
 */
import { readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { commerceFormats } from "../../packages/core/src/commerce/CommerceFormats.ts"
import type { Product } from "../../packages/core/src/commerce/Product.ts"

type Variant = Product["variants"][number]
interface Expected { readonly pageUrl: string; readonly product: Product | null }

const norm = (s: string | undefined) => (s ?? "").toLowerCase().replace(/\s+/g, " ").trim()
const normValues = (v: Record<string, string> | undefined) =>
  JSON.stringify(Object.entries(v ?? {}).map(([k, x]) => [norm(k), norm(x)]).sort())
const imageSet = (v: Variant | undefined) => JSON.stringify([...new Set((v?.images ?? []).map((i) => i.url))].sort())

export const PRODUCT_FIELDS = [
  "is a product",
  "title",
  "url",
  "brand",
  "category",
  "description",
  "variant found",
  "price",
  "currency",
  "inStock",
  "sku",
  "variant title",
  "sale",
  "images",
  "values"
] as const
type Field = (typeof PRODUCT_FIELDS)[number]
type Tally = Record<Field, { right: number; of: number }>

const empty = (): Tally => Object.fromEntries(PRODUCT_FIELDS.map((f) => [f, { right: 0, of: 0 }])) as Tally

/** Matches each expected variant to one given: by sku, else by option values, else in order. */
const matchVariants = (want: ReadonlyArray<Variant>, got: ReadonlyArray<Variant>) => {
  const used = new Set<number>()
  const pairs: Array<[Variant, Variant | undefined]> = []
  const take = (pred: (g: Variant) => boolean) => {
    const at = got.findIndex((g, i) => !used.has(i) && pred(g))
    if (at === -1) return undefined
    used.add(at)
    return got[at]
  }
  const pending: Array<Variant> = []
  for (const w of want) {
    const hit = w.sku !== undefined ? take((g) => g.sku === w.sku) : w.values !== undefined ? take((g) => normValues(g.values) === normValues(w.values)) : undefined
    if (hit === undefined) pending.push(w)
    else pairs.push([w, hit])
  }
  // Those not matched by a key take the unused variants in order (a variant without a sku or values is still the page's one offer).
  for (const w of pending) pairs.push([w, w.sku !== undefined || w.values !== undefined ? undefined : take(() => true)])
  return { pairs, extra: got.length - used.size }
}

export interface ProductCase { readonly name: string; readonly tally: Tally; readonly extra: number; readonly falseSales: number; readonly given: boolean; readonly wanted: boolean }

export const scoreProducts = (dir: string): { readonly cases: ReadonlyArray<ProductCase>; readonly total: Tally } => {
  const total = empty()
  const cases: Array<ProductCase> = []
  for (const file of readdirSync(dir).filter((f) => f.endsWith(".html")).sort()) {
    const name = file.replace(/\.html$/, "")
    const expected = JSON.parse(readFileSync(join(dir, `${name}.expected.json`), "utf8")) as Expected
    const html = readFileSync(join(dir, file), "utf8")
    const got = commerceFormats([{ type: "product" }], html, expected.pageUrl).fields.product ?? null
    const tally = empty()
    const count = (field: Field, right: boolean) => {
      for (const t of [tally, total]) {
        t[field].of++
        if (right) t[field].right++
      }
    }
    count("is a product", (got !== null) === (expected.product !== null))
    let extra = 0
    let falseSales = 0
    const want = expected.product
    if (want !== null) {
      count("title", norm(got?.title) === norm(want.title))
      count("url", got?.url === want.url)
      for (const key of ["brand", "category", "description"] as const) if (want[key] !== undefined) count(key, norm(got?.[key]) === norm(want[key]))
      const { pairs, extra: more } = matchVariants(want.variants, got?.variants ?? [])
      extra = more
      for (const [w, g] of pairs) {
        count("variant found", g !== undefined)
        if (w.price !== undefined) {
          count("price", g?.price?.amount === w.price.amount)
          if (w.price.currency !== undefined) count("currency", g?.price?.currency === w.price.currency)
        }
        count("inStock", g?.availability.inStock === w.availability.inStock)
        if (w.sku !== undefined) count("sku", g?.sku === w.sku)
        if (w.title !== undefined) count("variant title", norm(g?.title) === norm(w.title))
        if (w.sale !== undefined) count("sale", g?.sale?.originalPrice.amount === w.sale.originalPrice.amount)
        else if (g?.sale !== undefined) falseSales++
        if (w.images !== undefined) count("images", imageSet(g) === imageSet(w))
        if (w.values !== undefined) count("values", normValues(g?.values) === normValues(w.values))
      }
    } else if (got !== null) extra = got.variants.length
    cases.push({ name, tally, extra, falseSales, given: got !== null, wanted: want !== null })
  }
  return { cases, total }
}

const cell = (t: { right: number; of: number }) => (t.of === 0 ? "-" : `${t.right}/${t.of}`)
const pct = (t: { right: number; of: number } | undefined) => (t === undefined || t.of === 0 ? "-" : `${((100 * t.right) / t.of).toFixed(1)}% (${t.right}/${t.of})`)

/** The report: per field, first run (a saved score) against now, and per case now. */
export const productBench = (dir: string, firstRun: Tally | undefined, note: string) => {
  const { cases, total } = scoreProducts(dir)
  const lines = [
    "## product: field accuracy on fixture pages",
    "",
    `${cases.length} fixture pages in \`bench/commerce/fixtures/product\` (\`bench/commerce/ProductBench.ts\`). ${note}`,
    "",
    "| field | first run | now |",
    "| --- | ---: | ---: |",
    ...PRODUCT_FIELDS.map((f) => `| ${f} | ${pct(firstRun?.[f])} | ${pct(total[f])} |`),
    "",
    `Variants given beyond the expected ones: ${cases.reduce((n, c) => n + c.extra, 0)}; sales stated where the page shows none: ${cases.reduce((n, c) => n + c.falseSales, 0)}.`,
    "",
    `| case | is a product | given | ${PRODUCT_FIELDS.slice(1).join(" | ")} | extra variants |`,
    `| --- | --- | --- | ${PRODUCT_FIELDS.slice(1).map(() => "---:").join(" | ")} | ---: |`,
    ...cases.map((c) => `| ${c.name} | ${c.wanted ? "yes" : "no"} | ${c.given ? "yes" : "no"} | ${PRODUCT_FIELDS.slice(1).map((f) => cell(c.tally[f])).join(" | ")} | ${c.extra} |`)
  ]
  return { lines, json: { total, firstRun, cases } }
}
