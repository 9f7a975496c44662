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
import { InteractRequestBody } from "./InteractRequest.ts"
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

/** Interact's statuses (InteractRoute.ts): Firecrawl's flat bodies, the contract's error shapes. */
const interactErrorStatuses = (what: "run" | "stop"): ReadonlyArray<ErrorStatus> => [
  ...(what === "run"
    ? [{ status: 400, description: "Invalid body, a language other than node, or a prompt (no language model is configured).", body: "error" as const, codes: ["BAD_REQUEST"] }]
    : []),
  { status: 404, description: "No such scrape for this key, or its session ended (stopped or expired).", body: "error", codes: ["SCRAPE_NOT_FOUND"] },
  ...(what === "run"
    ? [
      { status: 409, description: "The scrape kept no data (zero data retention), or another session is saving to its profile.", body: "error" as const, codes: ["SCRAPE_NOT_RETAINED", "PROFILE_LOCKED"] },
      { status: 429, description: "As many browser sessions are open as the server allows.", body: "message" as const, codes: [] }
    ]
    : []),
  { status: 500, description: "Unexpected server error, or the replay of the scrape failed as the scrape would.", body: "error", codes: ["UNKNOWN_ERROR"] },
  { status: 501, description: "The browser engine is off on this server.", body: "error", codes: ["INTERACT_UNAVAILABLE"] }
]

const interactResult = {
  type: "object",
  required: ["success", "sessionId", "stdout", "stderr", "exitCode", "killed"],
  properties: {
    success: { type: "boolean", description: "False when the code threw or ran out of time (still HTTP 200)." },
    sessionId: { type: "string" },
    result: { type: "string", description: "The returned value: a string as it is, anything else as JSON; absent when nothing was returned." },
    stdout: { type: "string", description: "console.log, info and debug output, one line per call." },
    stderr: { type: "string", description: "console.warn and error output, then the error thrown, if any." },
    exitCode: { type: "integer", description: "0 returned, 1 threw, 124 ran out of time." },
    killed: { type: "boolean", description: "The time limit stopped the code." },
    truncated: { type: "boolean", description: "The result or the console output was cut at its limit." },
    error: { type: "string", description: "stderr, when success is false." }
  }
}

const interactStopped = {
  type: "object",
  required: ["success", "sessionDurationMs", "creditsBilled"],
  properties: {
    success: { type: "boolean" },
    sessionId: { type: "string" },
    sessionDurationMs: { type: "integer" },
    creditsBilled: { type: "integer" },
    cleanupQueued: { type: "boolean" },
    warning: { type: "string", description: "The profile could not be saved, and why." }
  }
}

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

/** The OpenAPI 3.0.0 description of /v2/scrape, its interact path, /v2/parse and /health (served at /v2/openapi.json). */
export const openApiDocument = (): Json => {
  if (cached !== undefined) return structuredClone(cached)
  const schemas: Json = {}
  const scrapeRequest = collect(ScrapeRequestBody, schemas)
  const interactRequest = collect(InteractRequestBody, schemas)
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
      "/v2/scrape/{scrapeId}/interact": {
        parameters: [{ name: "scrapeId", in: "path", required: true, description: "A scrape's `data.metadata.scrapeId`.", schema: { type: "string" } }],
        post: {
          operationId: "interact",
          summary: "Run JavaScript in a browser session that replays the scrape (opened on the first call, reused after).",
          requestBody: { required: true, content: jsonContent(interactRequest) },
          responses: {
            "200": { description: "What the code did (flat, not under `data`).", content: jsonContent(interactResult) },
            ...errorResponses(interactErrorStatuses("run"), errorBody, messageBody)
          }
        },
        delete: {
          operationId: "stopInteraction",
          summary: "Stop the scrape's browser session (saving its profile when the scrape asked to).",
          responses: {
            "200": { description: "The session stopped.", content: jsonContent(interactStopped) },
            ...errorResponses(interactErrorStatuses("stop"), errorBody, messageBody)
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
