/**
 * The OpenAPI 3.0.0 document of the service (/v2/scrape, /v2/parse, /health), generated from
 * the contract's Schemas so the published description cannot drift from what we validate.
 * effect emits JSON Schema 2020-12; `toOpenApi30` lowers it to the OpenAPI 3.0 dialect
 * (nullable instead of null types, single-schema `items`, components refs).
 */
import { JsonSchema, Schema } from "effect"
import { CatalogResponse } from "./Catalog.ts"
import { ErrorBody, type ErrorStatus, MessageOnlyErrorBody, parseErrorStatuses, scrapeErrorStatuses } from "./ErrorBodies.ts"
import { objectOnlyFormatTypes } from "./Formats.ts"
import { ParseOptionsBody, ScrapeRequestBody } from "./RequestBodies.ts"
import { ScrapeResponse } from "./Responses.ts"

type Json = Record<string, unknown>

const isObject = (u: unknown): u is Json => typeof u === "object" && u !== null && !Array.isArray(u)
const MAX_SAFE = Number.MAX_SAFE_INTEGER

/** The OpenAPI 3.0 spelling of "exactly null". */
const NULL_ONLY = { type: "object", nullable: true, enum: [null] }

/** Lowers one draft-04 schema node (from effect's converter) to an OpenAPI 3.0 Schema Object. */
const toOpenApi30 = (node: unknown): unknown => {
  if (Array.isArray(node)) return node.map(toOpenApi30)
  if (!isObject(node)) return node
  const out: Json = {}
  for (const [key, value] of Object.entries(node)) {
    if (key === "$schema" || key === "$id" || key === "additionalItems") continue
    if (key === "$ref" && typeof value === "string") {
      out.$ref = value.replace(/^#\/definitions\//, "#/components/schemas/")
    } else if (key === "examples" && Array.isArray(value)) {
      if (value.length > 0) out.example = value[0]
    } else if (key === "items" && Array.isArray(value)) {
      // 3.0 has no tuple form: one schema for every item (minItems/maxItems keep the length).
      const items = value.map(toOpenApi30)
      const distinct = [...new Map(items.map((i) => [JSON.stringify(i), i])).values()]
      out.items = distinct.length === 1 ? distinct[0] : { anyOf: distinct }
    } else {
      out[key] = toOpenApi30(value)
    }
  }
  if (isObject(out.additionalProperties) && isObject(out.additionalProperties.not) &&
    Object.keys(out.additionalProperties.not).length === 0) out.additionalProperties = false
  // Int's implicit safe-integer bounds are noise in a published description.
  if (out.minimum === -MAX_SAFE) delete out.minimum
  if (out.maximum === MAX_SAFE) delete out.maximum
  if (Array.isArray(out.type)) {
    const types = out.type.filter((t) => t !== "null")
    if (types.length < out.type.length) out.nullable = true
    out.type = types.length === 1 ? types[0] : types[0]
  }
  for (const combinator of ["anyOf", "oneOf"] as const) {
    const members = out[combinator]
    if (!Array.isArray(members)) continue
    const rest = members.filter((m) => !(isObject(m) && m.type === "null" && Object.keys(m).length === 1))
    if (rest.length === members.length) continue
    delete out[combinator]
    const only = rest.length === 1 && isObject(rest[0]) ? rest[0] : undefined
    if (only !== undefined && typeof only.type === "string" && only.$ref === undefined) {
      Object.assign(out, only, { nullable: true })
    } else {
      // 3.0.3 honours `nullable` only beside `type`: null gets a member of its own.
      out[combinator] = [...rest, NULL_ONLY]
    }
  }
  // In 3.0 keys beside $ref are ignored: keep them by moving the ref into allOf.
  if (typeof out.$ref === "string" && Object.keys(out).length > 1) {
    const { $ref, ...siblings } = out
    return { allOf: [{ $ref }], ...siblings }
  }
  return out
}

/** Collects the OpenAPI 3.0 form of `schema` (a $ref when it has an identifier) and its definitions. */
const collect = (schema: Schema.Top, definitions: Json): unknown => {
  const document = Schema.toJsonSchemaDocument(schema, { onExcessProperty: "error" })
  const draft04 = JsonSchema.toDocumentDraft04(document)
  for (const [name, definition] of Object.entries(draft04.definitions)) {
    definitions[name] = toOpenApi30(definition)
  }
  return toOpenApi30(draft04.schema)
}

const jsonContent = (schema: unknown) => ({ "application/json": { schema } })

const errorResponses = (statuses: ReadonlyArray<ErrorStatus>, errorBody: unknown, messageBody: unknown) =>
  Object.fromEntries(statuses.map((s) => [
    String(s.status),
    {
      description: s.codes.length > 0 ? `${s.description} Codes: ${s.codes.join(", ")}.` : s.description,
      content: jsonContent(s.body === "error" ? errorBody : messageBody)
    }
  ]))

/**
 * The format unions carry the object-only names as strings only to reject them with a useful
 * message; the published string enum lists the names a client may actually send.
 */
const dropObjectOnlyNames = (schemas: Json) => {
  for (const name of ["FormatOption", "ParseFormatOption"]) {
    const union = schemas[name]
    if (!isObject(union) || !Array.isArray(union.anyOf)) continue
    for (const member of union.anyOf) {
      if (isObject(member) && member.type === "string" && Array.isArray(member.enum)) {
        member.enum = member.enum.filter((v) => !objectOnlyFormatTypes.includes(v as never))
      }
    }
  }
}

let cached: Json | undefined

/** The OpenAPI 3.0.0 description of /v2/scrape, /v2/parse and /health (served at /v2/openapi.json). */
export const openApiDocument = (): Json => {
  if (cached !== undefined) return structuredClone(cached)
  const schemas: Json = {}
  const scrapeRequest = collect(ScrapeRequestBody, schemas)
  const parseOptions = collect(ParseOptionsBody, schemas)
  const scrapeResponse = collect(ScrapeResponse, schemas)
  const catalogResponse = collect(CatalogResponse, schemas)
  const errorBody = collect(ErrorBody, schemas)
  const messageBody = collect(MessageOnlyErrorBody, schemas)
  dropObjectOnlyNames(schemas)
  const health = { type: "object", properties: { status: { type: "string", enum: ["ok"] }, success: { type: "boolean" } } }

  cached = {
    openapi: "3.0.0",
    info: {
      title: "Strata web scrape and file parse API",
      version: "v2",
      description: "Turns web pages and documents into clean markdown and structured data (Firecrawl v2 compatible)."
    },
    servers: [{ url: "/" }],
    security: [{ bearerAuth: [] }],
    paths: {
      "/v2/scrape": {
        post: {
          operationId: "scrape",
          summary: "Scrape one URL (or run catalog tools) and return the requested formats.",
          parameters: [{
            name: "x-request-id",
            in: "header",
            required: false,
            description: "Client-chosen idempotency key for catalog requests; echoed back.",
            schema: { type: "string", minLength: 1, maxLength: 128, pattern: "^[A-Za-z0-9._:-]+$" }
          }],
          requestBody: { required: true, content: jsonContent(scrapeRequest) },
          responses: {
            "200": {
              description: "The scrape response, or the catalog response for a catalog request.",
              content: jsonContent({ oneOf: [scrapeResponse, catalogResponse] })
            },
            ...errorResponses(scrapeErrorStatuses, errorBody, messageBody)
          }
        }
      },
      "/v2/parse": {
        post: {
          operationId: "parse",
          summary: "Parse an uploaded file (HTML, PDF, office documents, EPUB, CSV) into the scrape data shape.",
          requestBody: {
            required: true,
            content: {
              "multipart/form-data": {
                schema: {
                  type: "object",
                  required: ["file"],
                  properties: {
                    file: { type: "string", format: "binary", description: "The file bytes (at most 50 MB)." },
                    options: parseOptions
                  }
                },
                encoding: { options: { contentType: "application/json" } }
              }
            }
          },
          responses: {
            "200": { description: "The parsed document.", content: jsonContent(scrapeResponse) },
            ...errorResponses(parseErrorStatuses, errorBody, messageBody)
          }
        }
      },
      "/health": {
        get: {
          operationId: "health",
          security: [],
          responses: { "200": { description: "The service is up.", content: jsonContent(health) } }
        }
      },
      "/v2/openapi.json": {
        get: {
          operationId: "openApi",
          security: [],
          responses: { "200": { description: "This document.", content: jsonContent({ type: "object" }) } }
        }
      }
    },
    components: {
      securitySchemes: { bearerAuth: { type: "http", scheme: "bearer" } },
      schemas
    }
  }
  return structuredClone(cached)
}
