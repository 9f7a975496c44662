/**
 * Catalog tool calls (`catalog` on /v2/scrape): the CatalogCall Schema, the catalog response
 * and the DiscoveredTool shape listed by `domainTools`.
 */
import { Schema } from "effect"
import { JsonObject, StringBetween } from "./Primitives.ts"

export const CatalogCall = Schema.Struct({
  provider: StringBetween(1, 200).annotate({ description: "Catalog-registered provider; `service` for discovery." }),
  capability: StringBetween(1, 200).annotate({ description: "Provider-relative capability; `find-tools` for discovery." }),
  options: Schema.optionalKey(JsonObject.annotate({ default: {}, description: "Passed unchanged to the provider tool." }))
}).annotate({ identifier: "CatalogCall" })
export type CatalogCallInput = typeof CatalogCall.Type

/** A catalog call with its default `options` applied. */
export interface ResolvedCatalogCall {
  readonly provider: string
  readonly capability: string
  readonly options: Record<string, unknown>
}

export const CatalogInput = Schema.Union([
  CatalogCall,
  Schema.Array(CatalogCall).check(Schema.isBetweenLength(1, 10))
]).annotate({ identifier: "Catalog", message: "Expected a CatalogCall object or an array of 1 to 10 CatalogCall objects" })

/** An option of a tool: its name and type, and what else the provider says of it (`required`, `description`, `enum`). */
const ToolOption = Schema.StructWithRest(
  Schema.Struct({ name: Schema.String, type: Schema.String }),
  [Schema.Record(Schema.String, Schema.Unknown)]
)

export const DiscoveredTool = Schema.Struct({
  capability: Schema.String,
  description: Schema.String,
  provider: Schema.String,
  creditsCost: Schema.Int,
  id: Schema.String,
  matchedBy: Schema.Array(Schema.String),
  matchedUrls: Schema.Array(Schema.String),
  name: Schema.String,
  options: Schema.Array(ToolOption),
  perRecord: Schema.Boolean,
  response: Schema.Struct({ about: Schema.String, fields: Schema.Array(JsonObject), key: Schema.String })
}).annotate({ identifier: "DiscoveredTool" })
export type DiscoveredTool = typeof DiscoveredTool.Type

export const CatalogCallError = Schema.Struct({
  code: Schema.String,
  message: Schema.String,
  status: Schema.optionalKey(Schema.Int),
  chargeId: Schema.optionalKey(Schema.String)
}).annotate({ identifier: "CatalogCallError" })

/** One per-call result: the tool's data, or an error; providers may add keys. */
export const CatalogResultItem = Schema.StructWithRest(
  Schema.Struct({
    provider: Schema.optionalKey(Schema.String),
    capability: Schema.optionalKey(Schema.String),
    creditsCost: Schema.optionalKey(Schema.Int),
    data: Schema.optionalKey(Schema.Unknown),
    records: Schema.optionalKey(Schema.Int),
    upstreamStatus: Schema.optionalKey(Schema.Int),
    recordedAt: Schema.optionalKey(Schema.String),
    error: Schema.optionalKey(CatalogCallError)
  }),
  [Schema.Record(Schema.String, Schema.Unknown)]
).annotate({ identifier: "CatalogResultItem" })

export const CatalogResponse = Schema.Struct({
  success: Schema.Boolean,
  scrape_id: Schema.String,
  data: Schema.Struct({
    catalog: Schema.Array(CatalogResultItem),
    creditsCost: Schema.Int.annotate({ description: "Sum of `creditsCost` over successful items." })
  })
}).annotate({ identifier: "CatalogResponse" })
export type CatalogResponse = typeof CatalogResponse.Type
