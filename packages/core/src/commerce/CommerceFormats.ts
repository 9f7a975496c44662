/**
 * The `product` and `menu` formats of a page: read from its HTML's structured data (see
 * Product.ts, Menu.ts); `null` with a warning when the page states none, or is not a web page.
 */
import type { Format, ScrapeData } from "../contract/index.ts"
import { pageFacts, type PageFacts } from "../derived/PageFacts.ts"
import { readMenuFrom } from "./Menu.ts"
import { parseDocument } from "htmlparser2"
import { readProductFrom } from "./Product.ts"

export interface CommerceFields {
  readonly fields: Pick<ScrapeData, "product" | "menu">
  readonly warnings: ReadonlyArray<string>
  /** Where each format was read (`productBy`: schema.org, opengraph or page; `menuBy`: schema.org or page). */
  readonly metadata: Record<string, string>
}

export const commerceFormats = (formats: ReadonlyArray<Format>, html: string | undefined, url: string | undefined): CommerceFields => {
  const wantsProduct = formats.some((f) => f.type === "product")
  const wantsMenu = formats.some((f) => f.type === "menu")
  if (!wantsProduct && !wantsMenu) return { fields: {}, warnings: [], metadata: {} }
  let facts: PageFacts | undefined
  const read = () => (facts ??= pageFacts(html ?? ""))
  let parsed: ReturnType<typeof parseDocument> | undefined
  const dom = () => (parsed ??= parseDocument(html ?? ""))
  const fields: { product?: ScrapeData["product"]; menu?: ScrapeData["menu"] } = {}
  const warnings: Array<string> = []
  const metadata: Record<string, string> = {}
  if (wantsProduct) {
    const found = html === undefined ? undefined : readProductFrom(read(), url, dom())
    fields.product = found?.product ?? null
    if (found !== undefined) metadata.productBy = found.source
    if (fields.product === null) {
      warnings.push("product: the page shows no product (no schema.org Product in JSON-LD, microdata or RDFa, no OpenGraph product tags, no heading with a price and a way to buy)")
    }
  }
  if (wantsMenu) {
    const found = html === undefined ? undefined : readMenuFrom(read(), url, dom())
    fields.menu = found?.menu ?? null
    if (found !== undefined) metadata.menuBy = found.source
    if (fields.menu === null) warnings.push("menu: the page shows no menu (no schema.org Menu in JSON-LD, microdata or RDFa, no headings over priced lines)")
  }
  return { fields, warnings, metadata }
}
