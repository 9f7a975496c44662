/**
 * The success bodies of /v2/scrape and /v2/parse: `{ success, data }` with every `data` field
 * of the contract (pages, blocks, metadata, change tracking, branding, menu, product, tools).
 * Used to document the API (OpenAPI) and to check in tests that what we return is the shape
 * SDK clients expect.
 */
import { Schema } from "effect"
import { DiscoveredTool } from "./Catalog.ts"
import { BlockTypes } from "../Document.ts"

const Unit = Schema.Finite.check(Schema.isBetween({ minimum: 0, maximum: 1 }))
const PageNumber = Schema.Int.check(Schema.isGreaterThanOrEqualTo(1)).annotate({ description: "1-based physical page number." })

export const PageMarkdown = Schema.Struct({
  pageNumber: PageNumber,
  markdown: Schema.String
}).annotate({ identifier: "PageMarkdown" })
export type PageMarkdown = typeof PageMarkdown.Type

export const BlockConfidence = Schema.Struct({
  layout: Schema.NullOr(Unit),
  ocr: Schema.NullOr(Schema.Finite)
}).annotate({ identifier: "BlockConfidence" })


export const BlockItem = Schema.Struct({
  id: Schema.String.annotate({ description: "`p<page>.b<index in reading order>`, unique in the response." }),
  // New block types may be added: clients must tolerate unknown values, so this stays a string.
  type: Schema.String.annotate({ description: `One of ${BlockTypes.join(", ")}; new types may be added.` }),
  label: Schema.NullOr(Schema.String).annotate({ description: "Raw layout-model label." }),
  content: Schema.String.annotate({ description: "The markdown fragment this block added." }),
  bbox: Schema.NullOr(Schema.Tuple([Unit, Unit, Unit, Unit])).annotate({
    description: "[x0, y0, x1, y1] normalised to 0..1 against the page size."
  }),
  markdownSpan: Schema.NullOr(Schema.Tuple([Schema.Int, Schema.Int])).annotate({
    description: "[start, end) character offsets into the document markdown."
  }),
  readingOrder: Schema.Int,
  source: Schema.NullOr(Schema.String).annotate({ description: "Pipeline path, e.g. native_text, layout_ocr, tsr." }),
  confidence: BlockConfidence
}).annotate({ identifier: "BlockItem" })
export type BlockItem = typeof BlockItem.Type

export const PageBlocks = Schema.Struct({
  pageNumber: PageNumber,
  status: Schema.Literals(["ok", "partial", "failed"]),
  width: Schema.NullOr(Schema.Finite).annotate({ description: "Rendered pixels; null if never rendered." }),
  height: Schema.NullOr(Schema.Finite),
  items: Schema.Array(BlockItem)
}).annotate({ identifier: "PageBlocks" })
export type PageBlocks = typeof PageBlocks.Type

export const ActionsResult = Schema.Struct({
  javascriptReturns: Schema.Array(Schema.Struct({ type: Schema.String, value: Schema.Unknown })),
  pdfs: Schema.Array(Schema.String),
  scrapes: Schema.Array(Schema.Struct({ html: Schema.String, url: Schema.String })),
  screenshots: Schema.Array(Schema.String)
}).annotate({ identifier: "ActionsResult" })

const StringOrList = Schema.Union([Schema.String, Schema.Array(Schema.String)])

/** Every metadata value; the extra HTML meta tags are strings or string lists. */
const MetadataValue = Schema.Union([Schema.String, Schema.Array(Schema.String), Schema.Finite, Schema.Boolean, Schema.Null])

export const DocumentMetadata = Schema.StructWithRest(
  Schema.Struct({
    title: Schema.optionalKey(StringOrList),
    description: Schema.optionalKey(StringOrList),
    keywords: Schema.optionalKey(StringOrList),
    language: Schema.optionalKey(Schema.NullOr(StringOrList)),
    sourceURL: Schema.optionalKey(Schema.String.annotate({ format: "uri", description: "The URL requested." })),
    url: Schema.optionalKey(Schema.String.annotate({ format: "uri", description: "Final URL after redirects." })),
    statusCode: Schema.optionalKey(Schema.Int),
    contentType: Schema.optionalKey(Schema.String),
    error: Schema.optionalKey(Schema.NullOr(Schema.String)),
    ogLocaleAlternate: Schema.optionalKey(Schema.Array(Schema.String)),
    numPages: Schema.optionalKey(Schema.Int.annotate({ description: "PDF pages parsed (capped by maxPages)." })),
    totalPages: Schema.optionalKey(Schema.Int.annotate({ description: "PDF pages before the cap; omitted when unknown." })),
    concurrencyLimited: Schema.optionalKey(Schema.Boolean),
    concurrencyQueueDurationMs: Schema.optionalKey(Schema.Finite),
    creditsUsed: Schema.optionalKey(Schema.Finite),
    cacheState: Schema.optionalKey(Schema.Literals(["hit", "miss"]).annotate({ description: "Whether the page came from the cache; present when the cache was consulted." })),
    cachedAt: Schema.optionalKey(Schema.String.annotate({ format: "date-time", description: "When the cached copy was fetched (on a hit)." })),
    scrapeId: Schema.optionalKey(Schema.String)
  }),
  [Schema.Record(Schema.String, MetadataValue)]
).annotate({ identifier: "DocumentMetadata" })
export type DocumentMetadata = typeof DocumentMetadata.Type

export const ChangeTrackingResult = Schema.Struct({
  changeStatus: Schema.Literals(["new", "same", "changed", "removed"]),
  previousScrapeAt: Schema.NullOr(Schema.String.annotate({ format: "date-time" })),
  visibility: Schema.Literals(["visible", "hidden"]),
  diff: Schema.optionalKey(Schema.String.annotate({ description: "Git-style diff; git-diff mode only." })),
  json: Schema.optionalKey(Schema.Record(Schema.String, Schema.Unknown))
}).annotate({ identifier: "ChangeTrackingResult" })

const Open = Schema.Record(Schema.String, Schema.Unknown)
const openStruct = <F extends Schema.Struct.Fields>(fields: F) => Schema.StructWithRest(Schema.Struct(fields), [Open])
const opt = Schema.optionalKey
const OptString = opt(Schema.String)

export const BrandingProfile = openStruct({
  colorScheme: opt(Schema.Literals(["light", "dark"])),
  colors: opt(Schema.Record(Schema.String, Schema.String)),
  fonts: opt(Schema.Array(openStruct({ family: Schema.String }))),
  typography: opt(openStruct({
    fontFamilies: opt(Schema.Record(Schema.String, Schema.String)),
    fontSizes: opt(Schema.Record(Schema.String, Schema.String)),
    fontWeights: opt(Schema.Record(Schema.String, Schema.Int)),
    lineHeights: opt(Schema.Record(Schema.String, Schema.Union([Schema.String, Schema.Finite])))
  })),
  spacing: opt(openStruct({ baseUnit: opt(Schema.Int), borderRadius: OptString, margins: opt(Open), padding: opt(Open) })),
  components: opt(Open),
  images: opt(Schema.Record(Schema.String, Schema.NullOr(Schema.String))),
  logo: opt(Schema.NullOr(Schema.String)),
  animations: opt(Open),
  layout: opt(Open),
  personality: opt(Open),
  icons: opt(Open)
}).annotate({ identifier: "BrandingProfile" })

export const Price = Schema.Struct({ amount: Schema.Finite, currency: OptString, formatted: OptString }).annotate({ identifier: "Price" })
const Image = Schema.Struct({ url: Schema.String, alt: OptString })
const Availability = Schema.Struct({ inStock: Schema.Boolean, text: OptString })

export const MenuItem = Schema.Struct({
  name: Schema.String,
  id: OptString,
  description: OptString,
  price: opt(Price),
  availability: opt(Availability),
  calories: opt(Schema.Finite),
  dietary: opt(Schema.Array(Schema.String)),
  identifiers: opt(Schema.Struct({ merchantItemId: OptString })),
  images: opt(Schema.Array(Image)),
  optionGroups: opt(Schema.Array(Open)),
  sourceUrl: OptString,
  url: OptString
}).annotate({ identifier: "MenuItem" })

export const MenuProfile = Schema.Struct({
  isMenu: Schema.Boolean,
  sections: Schema.Array(Schema.Struct({ name: Schema.String, items: Schema.Array(MenuItem), id: OptString, description: OptString })),
  confidence: opt(Unit),
  currency: opt(Schema.NullOr(Schema.String)),
  merchant: opt(Schema.Struct({ name: Schema.String, type: opt(Schema.NullOr(Schema.String)) })),
  sourceUrl: OptString
}).annotate({ identifier: "MenuProfile" })

export const ProductVariant = Schema.Struct({
  availability: Availability,
  id: OptString,
  sku: OptString,
  title: OptString,
  price: opt(Price),
  sale: opt(Schema.Struct({ originalPrice: Price })),
  images: opt(Schema.Array(Image)),
  values: opt(Schema.Record(Schema.String, Schema.String))
}).annotate({ identifier: "ProductVariant" })

export const ProductProfile = Schema.Struct({
  title: Schema.String,
  url: Schema.String,
  variants: Schema.Array(ProductVariant),
  brand: OptString,
  category: OptString,
  description: OptString
}).annotate({ identifier: "ProductProfile" })

const nullable = <S extends Schema.Top>(schema: S) => opt(Schema.NullOr(schema))

/** The `data` of a scrape or parse response; each field present only when requested. */
export const ScrapeData = Schema.Struct({
  markdown: nullable(Schema.String),
  html: nullable(Schema.String),
  rawHtml: nullable(Schema.String),
  rawBase64: nullable(Schema.String.annotate({ description: "Base64 of the original body (not a data URI)." })),
  links: opt(Schema.Array(Schema.String)),
  images: opt(Schema.Array(Schema.String)),
  summary: nullable(Schema.String),
  answer: nullable(Schema.String),
  highlights: nullable(Schema.String),
  json: opt(Schema.Unknown),
  attributes: opt(Schema.Array(Schema.Struct({ selector: Schema.String, attribute: Schema.String, values: Schema.Array(Schema.String) }))),
  screenshot: nullable(Schema.String.annotate({ format: "uri" })),
  audio: nullable(Schema.String.annotate({ format: "uri" })),
  video: nullable(Schema.String.annotate({ format: "uri" })),
  warning: nullable(Schema.String),
  actions: nullable(ActionsResult),
  pages: opt(Schema.Array(PageMarkdown)),
  blocks: opt(Schema.Array(PageBlocks)),
  metadata: opt(DocumentMetadata),
  changeTracking: nullable(ChangeTrackingResult),
  branding: nullable(BrandingProfile),
  menu: nullable(MenuProfile),
  product: nullable(ProductProfile),
  tools: opt(Schema.Array(DiscoveredTool))
}).annotate({ identifier: "ScrapeData" })
export type ScrapeData = typeof ScrapeData.Type

export const ScrapeResponse = Schema.Struct({
  success: Schema.Boolean,
  data: ScrapeData
}).annotate({ identifier: "ScrapeResponse" })
export type ScrapeResponse = typeof ScrapeResponse.Type
