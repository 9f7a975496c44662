/**
 * What a catalog provider declares: for each tool (one capability of the provider) an options
 * Schema that a call's `options` are decoded with before anything runs, a response Schema that
 * describes its `data`, what a successful call costs (`creditsCost`, per record when `perRecord`),
 * and, for a site-bound tool, the URL patterns (WHATWG URLPattern) of the pages it applies to.
 * A provider whose data comes with terms of its own names their version and where to read them;
 * an administrator accepts them (`strata catalog accept-terms`) before the team may call it.
 *
 * `toolContract` turns a declaration into the contract's DiscoveredTool shape, the same for
 * `find-tools` and for `domainTools`: options and response fields are read from the Schemas'
 * JSON Schema, so what is listed is what is enforced.
 */
import { type Effect, JsonSchema, Schema } from "effect"
import { URLPattern, type URLPatternInit } from "./UrlPattern.ts"
import { httpUrlProblem } from "../contract/Primitives.ts"

/** Why a tool's call failed while it ran; the adapter turns the kind into a status and code. */
export class ToolFailed extends Schema.TaggedError<ToolFailed>()("ToolFailed", {
  kind: Schema.Literals(["invalid_input", "not_found", "blocked", "upstream", "timeout", "unsupported"]),
  message: Schema.String
}) {}

/** What a tool produced: its `data`, and how many records (what a `perRecord` tool costs by). */
export interface ToolOutput {
  readonly data: unknown
  readonly records?: number | undefined
}

/** What a running tool is given besides its options. */
export interface ToolContext {
  /** Milliseconds the call may take. */
  readonly timeoutMs: number
}

export interface CatalogTool<O = any> {
  readonly capability: string
  readonly name: string
  readonly description: string
  /** A grouping `find-tools` filters on (`categories`). */
  readonly category: string
  /** Decodes the call's `options`; unknown keys are refused. */
  readonly options: Schema.Codec<O, unknown>
  /** Describes `data`: what it is about, its main key and its Schema. */
  readonly response: { readonly about: string; readonly key: string; readonly schema: Schema.Top }
  /** Credits a successful call costs, or each record of it when `perRecord`. */
  readonly creditsCost: number
  readonly perRecord: boolean
  /** Site-bound tools: the pages they apply to (`domainTools`, `find-tools` with `urls`). */
  readonly urlPatterns?: ReadonlyArray<string | URLPatternInit> | undefined
  readonly run: (options: O, context: ToolContext) => Effect.Effect<ToolOutput, ToolFailed>
}

/** Terms a provider's data comes with: the version an administrator accepts, and where to read them. */
export interface ProviderTerms {
  readonly version: string
  readonly url: string
  readonly summary: string
}

export interface CatalogProvider {
  readonly name: string
  readonly description: string
  /** Other names calls may use for it (`firecrawl` for the built-in `service`, as the official SDK sends). */
  readonly aliases?: ReadonlyArray<string> | undefined
  readonly terms?: ProviderTerms | undefined
  readonly tools: ReadonlyArray<CatalogTool>
}

/** An http(s) URL option (the scrape's `url` rule), described in the tool's own words. */
export const urlOption = (description: string) =>
  Schema.String.annotate({ format: "uri", description }).check(Schema.makeFilter(httpUrlProblem))

/** A declared tool with its options type checked where it is written. */
export const tool = <O>(definition: CatalogTool<O>): CatalogTool => definition as CatalogTool

/** One option or response field as the contract lists it. */
export interface FieldInfo {
  readonly name: string
  readonly type: string
  readonly required: boolean
  readonly description?: string
  readonly [key: string]: unknown
}

type JsonNode = Record<string, unknown>

const typeOf = (node: JsonNode, definitions: Record<string, JsonNode>): string => {
  const ref = node.$ref
  if (typeof ref === "string") {
    const target = definitions[ref.split("/").pop() ?? ""]
    return target === undefined ? "object" : typeOf(target, definitions)
  }
  if (typeof node.type === "string") {
    if (node.type === "array" && typeof node.items === "object" && node.items !== null) {
      return `array<${typeOf(node.items as JsonNode, definitions)}>`
    }
    return node.type
  }
  if (Array.isArray(node.type)) return node.type.join(" | ")
  const union = (node.anyOf ?? node.oneOf) as Array<JsonNode> | undefined
  if (Array.isArray(union)) return [...new Set(union.map((member) => typeOf(member, definitions)))].join(" | ")
  if (Array.isArray(node.enum)) return "string"
  return "unknown"
}

/** The top-level fields of a struct Schema, from its JSON Schema. */
export const fieldsOf = (schema: Schema.Top): ReadonlyArray<FieldInfo> => {
  const document = JsonSchema.toDocumentDraft04(Schema.toJsonSchemaDocument(schema))
  const definitions = document.definitions as Record<string, JsonNode>
  let root = document.schema as JsonNode
  if (typeof root.$ref === "string") root = definitions[root.$ref.split("/").pop() ?? ""] ?? root
  const properties = (root.properties ?? {}) as Record<string, JsonNode>
  const required = new Set((root.required ?? []) as Array<string>)
  return Object.entries(properties).map(([name, node]) => ({
    name,
    type: typeOf(node, definitions),
    required: required.has(name),
    ...(typeof node.description === "string" ? { description: node.description } : {}),
    ...(Array.isArray(node.enum) ? { enum: node.enum } : {})
  }))
}

const patternsOf = new WeakMap<CatalogTool, ReadonlyArray<URLPattern>>()

const compiled = (entry: CatalogTool): ReadonlyArray<URLPattern> => {
  let patterns = patternsOf.get(entry)
  if (patterns === undefined) {
    patterns = (entry.urlPatterns ?? []).map((pattern) =>
      typeof pattern === "string" ? new URLPattern(pattern) : new URLPattern(pattern)
    )
    patternsOf.set(entry, patterns)
  }
  return patterns
}

/** Compiles a tool's URL patterns now: a pattern that is not one is an error in the provider's declaration. */
export const checkPatterns = (entry: CatalogTool): string | undefined => {
  try {
    compiled(entry)
    return undefined
  } catch (error) {
    return `Tool "${entry.capability}" declares a URL pattern that does not compile: ${(error as Error).message}`
  }
}

/** Whether a site-bound tool applies to this URL (never for a tool without patterns, or a URL that is not one). */
export const matchesUrl = (entry: CatalogTool, url: string): boolean => {
  if (!URL.canParse(url)) return false
  return compiled(entry).some((pattern) => pattern.test(url))
}

/** The contract's id of a tool. */
export const toolId = (provider: string, capability: string): string => `${provider}/${capability}`

export interface ContractParts {
  /** Adds `options` and `response` (the full contract); `find-tools` leaves them out unless expanded. */
  readonly options: boolean
  readonly response: boolean
  readonly matchedBy?: ReadonlyArray<string>
  readonly matchedUrls?: ReadonlyArray<string>
}

/** A tool's contract in the DiscoveredTool shape (plus `category`, `urlPatterns`, `terms`, `execute`). */
export const toolContract = (provider: CatalogProvider, entry: CatalogTool, parts: ContractParts) => ({
  id: toolId(provider.name, entry.capability),
  provider: provider.name,
  capability: entry.capability,
  name: entry.name,
  description: entry.description,
  category: entry.category,
  creditsCost: entry.creditsCost,
  perRecord: entry.perRecord,
  matchedBy: [...(parts.matchedBy ?? [])],
  matchedUrls: [...(parts.matchedUrls ?? [])],
  ...(entry.urlPatterns === undefined
    ? {}
    : { urlPatterns: entry.urlPatterns.map((pattern) => (typeof pattern === "string" ? pattern : { ...pattern })) }),
  ...(provider.terms === undefined ? {} : { terms: { version: provider.terms.version, url: provider.terms.url } }),
  ...(parts.options ? { options: fieldsOf(entry.options) } : {}),
  ...(parts.response ? { response: { about: entry.response.about, key: entry.response.key, fields: fieldsOf(entry.response.schema) } } : {}),
  execute: { provider: provider.name, capability: entry.capability }
})
