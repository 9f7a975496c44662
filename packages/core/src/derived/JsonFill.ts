/**
 * The offline `json` format: a schema's keys filled from the page's facts (`PageFacts.ts`),
 * matched by name (the key itself, its last path segment, a few synonyms, then shared words),
 * coerced to the schema's type and checked against it. Keys with nothing to fill them are left
 * out and named in the result, as are values the schema refuses: the caller turns both into the
 * contract's `warning`. Nothing is guessed from prose.
 */
import { checkSchema, isRecord, type JsonSchema, resolveRef } from "./JsonSchemaCheck.ts"
import type { Fact, FactSource, PageFacts } from "./PageFacts.ts"
import { stem } from "./Sentences.ts"

export interface JsonFill {
  readonly value: Record<string, unknown> | Array<unknown>
  /** Key paths the page gave no value for. */
  readonly empty: ReadonlyArray<string>
  /** Where the value breaks the schema (`path: problem`). */
  readonly invalid: ReadonlyArray<string>
}

/** Words of a key: `datePublished`, `date_published`, `og:published_time` all give their words. */
const keyWordsCache = new Map<string, Array<string>>()

const keyWords = (key: string): Array<string> => {
  const cached = keyWordsCache.get(key)
  if (cached !== undefined) return cached
  const words = splitKey(key)
  // Bounded: keys are page-specific, a long-running server must not keep them all.
  if (keyWordsCache.size > 5000) keyWordsCache.clear()
  keyWordsCache.set(key, words)
  return words
}

const splitKey = (key: string): Array<string> =>
  key
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((w) => w !== "" && w !== "og" && w !== "twitter" && w !== "schema" && w !== "http" && w !== "https")
    .map(stem)

const lastSegment = (key: string) => key.split(/[.:/#]/).filter((s) => s !== "").pop() ?? key

/** Names pages use for what a schema calls otherwise (left: the schema key's words joined). */
const SYNONYMS: Record<string, ReadonlyArray<string>> = {
  name: ["name", "title", "headline"],
  title: ["title", "headline", "name"],
  headline: ["headline", "title"],
  description: ["description", "summary", "abstract"],
  summary: ["description", "abstract"],
  author: ["authorname", "author", "creator", "byline"],
  authorname: ["authorname", "author"],
  publishdate: ["datepublished", "publishedtime", "articlepublishedtime", "pubdate", "date"],
  publisheddate: ["datepublished", "publishedtime", "pubdate", "date"],
  datepublished: ["datepublished", "publishedtime", "pubdate", "date"],
  date: ["datepublished", "date", "publishedtime", "datecreated"],
  price: ["offerprice", "price", "priceamount", "productpriceamount", "lowprice"],
  currency: ["offerpricecurrency", "pricecurrency", "productpricecurrency"],
  image: ["image", "imageurl", "thumbnailurl", "image0"],
  url: ["url", "canonical"],
  brand: ["brandname", "brand"],
  rating: ["aggregateratingratingvalue", "ratingvalue", "rating"],
  phone: ["telephone", "phone"],
  telephone: ["telephone", "phone"],
  email: ["email"],
  address: ["addressstreetaddress", "address", "streetaddress"],
  company: ["publishername", "organization", "sitename", "brandname"],
  sitename: ["sitename", "publishername"],
  language: ["inlanguage", "language", "locale"],
  color: ["colour", "color"],
  colour: ["color", "colour"],
  instock: ["offeravailability", "availability", "stock"],
  availability: ["offeravailability", "availability", "stock"],
  keyword: ["keyword", "tag"],
  keywords: ["keyword", "keywords", "tag"]
}

const SOURCE_RANK: Record<FactSource, number> = { "json-ld": 6, microdata: 5, rdfa: 4, meta: 3, table: 2, "definition-list": 2, text: 1 }

/** How well a fact's key names a schema key: 1 for the same words, less for synonyms and overlap. */
const matchScore = (schemaKey: string, factKey: string): number => {
  const want = keyWords(schemaKey).join("")
  const whole = keyWords(factKey).join("")
  const last = keyWords(lastSegment(factKey)).join("")
  if (want === "" || whole === "") return 0
  if (want === whole) return 1
  if (want === last) return 0.95
  const synonyms = SYNONYMS[want]
  if (synonyms !== undefined) {
    const at = synonyms.findIndex((s) => s === whole || s === last)
    if (at >= 0) return 0.9 - at * 0.05
  }
  const a = new Set(keyWords(schemaKey))
  const b = new Set(keyWords(factKey))
  const shared = [...a].filter((w) => b.has(w)).length
  const jaccard = shared / (a.size + b.size - shared)
  return jaccard >= 0.5 ? 0.5 + jaccard * 0.3 : 0
}

const toNumber = (value: unknown): number | undefined => {
  if (typeof value === "number") return Number.isFinite(value) ? value : undefined
  if (typeof value !== "string") return undefined
  const match = /-?\d[\d,\s]*(?:\.\d+)?|-?\.\d+/.exec(value.replace(/\u00a0/g, " "))
  if (match === null) return undefined
  const number = Number(match[0].replace(/[,\s]/g, ""))
  return Number.isFinite(number) ? number : undefined
}

/** A fact's value as the schema's type asks, or `undefined` when it cannot be. */
const coerce = (value: unknown, schema: JsonSchema, root: JsonSchema, facts: PageFacts, depth: number): unknown => {
  const s = resolveRef(schema, root)
  const types = typeof s.type === "string" ? [s.type] : Array.isArray(s.type) ? (s.type as Array<string>) : []
  const type = types.find((t) => t !== "null") ?? (s.properties !== undefined ? "object" : s.items !== undefined ? "array" : undefined)
  const scalar = (v: unknown): unknown => {
    if (Array.isArray(v)) return scalar(v.find((x) => x !== null && x !== undefined))
    if (v !== null && typeof v === "object") {
      const record = v as Record<string, unknown>
      return record.name ?? record.url ?? record["@value"] ?? record.value ?? undefined
    }
    return v
  }
  switch (type) {
    case "string": {
      const v = scalar(value)
      return typeof v === "string" ? v : typeof v === "number" || typeof v === "boolean" ? String(v) : undefined
    }
    case "number":
    case "integer": {
      const n = toNumber(scalar(value))
      if (n === undefined) return undefined
      return type === "integer" ? (Number.isInteger(n) ? n : Math.round(n)) : n
    }
    case "boolean": {
      const v = scalar(value)
      if (typeof v === "boolean") return v
      if (typeof v !== "string") return undefined
      if (/^(true|yes|1|in ?stock|available)$|instock$/i.test(v.trim())) return true
      if (/^(false|no|0|out ?of ?stock|unavailable)$|outofstock$/i.test(v.trim())) return false
      return undefined
    }
    case "array": {
      const items = (s.items ?? {}) as JsonSchema
      const list = Array.isArray(value) ? value : [value]
      const out = list.map((item) => coerce(item, items, root, facts, depth + 1)).filter((item) => item !== undefined)
      return out.length > 0 ? out : undefined
    }
    case "object": {
      if (value === null || typeof value !== "object" || Array.isArray(value)) return undefined
      const filled = fillObject(s, root, { ...facts, facts: flatten(value as Record<string, unknown>) }, "", depth + 1)
      return Object.keys(filled.value).length > 0 ? filled.value : undefined
    }
    default:
      return scalar(value)
  }
}

const flatten = (record: Record<string, unknown>, prefix = "", out: Array<Fact> = [], depth = 0): Array<Fact> => {
  if (depth > 4) return out
  for (const [key, value] of Object.entries(record)) {
    const path = prefix === "" ? key : `${prefix}.${key}`
    out.push({ key: path, value, source: "json-ld" })
    if (value !== null && typeof value === "object" && !Array.isArray(value)) flatten(value as Record<string, unknown>, path, out, depth + 1)
  }
  return out
}

/** Rows of a header table as the array of objects a schema asks for, when its headers name the items' keys. */
const fromTables = (items: JsonSchema, root: JsonSchema, facts: PageFacts, depth: number): Array<unknown> | undefined => {
  const itemProperties = resolveRef(items, root).properties
  const properties = isRecord(itemProperties) ? Object.keys(itemProperties) : []
  if (properties.length === 0) return undefined
  let best: { rows: ReadonlyArray<Record<string, string>>; score: number } | undefined
  for (const rows of facts.tables) {
    const headers = Object.keys(rows[0] ?? {})
    const score = properties.filter((p) => headers.some((h) => matchScore(p, h) >= 0.5)).length
    if (score > 0 && (best === undefined || score > best.score)) best = { rows, score }
  }
  if (best === undefined) return undefined
  return best.rows
    .map((row) => coerce(row, items, root, { ...facts, tables: [] }, depth + 1))
    .filter((row) => row !== undefined)
}

const fillObject = (schema: JsonSchema, root: JsonSchema, facts: PageFacts, path: string, depth: number): { value: Record<string, unknown>; empty: Array<string> } => {
  const own = resolveRef(schema, root).properties
  const properties = (isRecord(own) ? own : {}) as Record<string, JsonSchema>
  const value: Record<string, unknown> = {}
  const empty: Array<string> = []
  for (const [key, propertySchema] of Object.entries(properties)) {
    const keyPath = path === "" ? key : `${path}.${key}`
    const resolved = resolveRef(propertySchema, root)
    const candidates = facts.facts
      .map((fact) => ({ fact, score: matchScore(key, fact.key) }))
      .filter((c) => c.score > 0)
      .sort((a, b) => b.score - a.score || SOURCE_RANK[b.fact.source] - SOURCE_RANK[a.fact.source])
    let found: unknown
    const isArrayOfObjects = resolved.type === "array" && isRecord(resolveRef(resolved.items as JsonSchema, root).properties)
    for (const candidate of candidates) {
      if (depth > 6) break
      found = coerce(candidate.fact.value, propertySchema, root, facts, depth)
      if (found !== undefined) break
    }
    if (found === undefined && isArrayOfObjects) found = fromTables((resolved.items ?? {}) as JsonSchema, root, facts, depth)
    if (found === undefined && resolved.type === "object" && isRecord(resolved.properties) && depth < 6) {
      const inner = fillObject(resolved, root, facts, keyPath, depth + 1)
      if (Object.keys(inner.value).length > 0) found = inner.value
    }
    if (found === undefined) empty.push(keyPath)
    else value[key] = found
  }
  return { value, empty }
}

/** A schema as the json format sends it: a properties map without `type` is an object's properties. */
const normalise = (schema: JsonSchema): JsonSchema =>
  schema.type === undefined && schema.properties === undefined && schema.$ref === undefined && schema.items === undefined && Object.keys(schema).length > 0
    ? { type: "object", properties: schema }
    : schema

export const fillSchema = (rawSchema: JsonSchema, facts: PageFacts): JsonFill => {
  const schema = normalise(rawSchema)
  const root = resolveRef(schema, schema)
  if (root.type === "array") {
    const items = (root.items ?? {}) as JsonSchema
    const fromRows = fromTables(items, schema, facts, 0)
    const value = fromRows ?? []
    return { value, empty: value.length === 0 ? ["$"] : [], invalid: checkSchema(value, schema) }
  }
  const { value, empty } = fillObject(root, schema, facts, "", 0)
  return { value, empty, invalid: checkSchema(value, schema).filter((e) => !e.endsWith(": required")) }
}

/** With a prompt and no schema: the page's facts as found, one value per key, the first source kept. */
export const factsObject = (facts: PageFacts): Record<string, unknown> => {
  const out: Record<string, unknown> = {}
  for (const fact of facts.facts) {
    if (fact.source === "json-ld" && fact.key.includes(".")) continue
    if (!(fact.key in out) && (typeof fact.value !== "object" || fact.value === null || Array.isArray(fact.value))) out[fact.key] = fact.value
  }
  return out
}
