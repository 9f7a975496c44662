/**
 * Output formats (`formats`): the wire Schema (strings or objects, as the official SDK sends
 * them) and the normalised `Format` objects the pipeline consumes. Scrape and parse accept
 * different sets, so the Schema is built from a list of allowed format types.
 */
import { Schema } from "effect"
import { Viewport } from "./Actions.ts"
import { IntBetween, JsonObject } from "./Primitives.ts"

/** Formats that carry no options: the string form and `{ type }` mean the same. */
export const SimpleFormatTypes = [
  "markdown",
  "html",
  "rawHtml",
  "rawBase64",
  "links",
  "images",
  "summary",
  "branding",
  "product",
  "menu",
  "audio",
  "video"
] as const
export type SimpleFormatType = (typeof SimpleFormatTypes)[number]

export const FormatTypes = [
  ...SimpleFormatTypes,
  "screenshot",
  "changeTracking",
  "json",
  "attributes",
  "question",
  "highlights",
  "query"
] as const
export type FormatType = (typeof FormatTypes)[number]

/** What /v2/parse can produce: no browser, no history. */
export const ParseFormatTypes: ReadonlyArray<FormatType> = FormatTypes.filter(
  (t) => t !== "screenshot" && t !== "changeTracking" && t !== "branding" && t !== "audio" && t !== "video"
)

export const ScreenshotFormat = Schema.Struct({
  type: Schema.Literal("screenshot"),
  fullPage: Schema.optionalKey(Schema.Boolean.annotate({ default: false })),
  quality: Schema.optionalKey(IntBetween(1, 100)),
  viewport: Schema.optionalKey(Viewport)
}).annotate({ identifier: "ScreenshotFormat" })

export const JsonFormat = Schema.Struct({
  type: Schema.Literal("json"),
  schema: Schema.optionalKey(JsonObject.annotate({ description: "JSON Schema of the data to extract." })),
  prompt: Schema.optionalKey(Schema.String.check(Schema.isMaxLength(10000))),
  checkPromptInjection: Schema.optionalKey(Schema.Boolean)
}).annotate({ description: "Structured extraction; needs `schema`, `prompt`, or both." }).check(
  Schema.makeFilter((f: { readonly schema?: unknown; readonly prompt?: string }) =>
    f.schema === undefined && f.prompt === undefined ? "the json format needs a `schema`, a `prompt`, or both" : undefined,
    { toJsonSchema: () => ({ anyOf: [{ required: ["schema"] }, { required: ["prompt"] }] }) }
  )
).annotate({ identifier: "JsonFormat" })

export const ChangeTrackingFormat = Schema.Struct({
  type: Schema.Literal("changeTracking"),
  modes: Schema.optionalKey(Schema.Array(Schema.Literals(["git-diff", "json"])).annotate({ default: [] })),
  schema: Schema.optionalKey(JsonObject),
  prompt: Schema.optionalKey(Schema.String),
  tag: Schema.optionalKey(Schema.String)
}).annotate({ identifier: "ChangeTrackingFormat" })

export const AttributesFormat = Schema.Struct({
  type: Schema.Literal("attributes"),
  selectors: Schema.Array(Schema.Struct({ selector: Schema.String, attribute: Schema.String }))
}).annotate({ identifier: "AttributesFormat" })

/** Firecrawl caps question, query and prompt at 10,000 characters. */
const nonBlank = (what: string) =>
  Schema.String.check(
    Schema.makeFilter((s: string) => (s.trim() === "" ? `${what} must not be empty` : undefined), {
      toJsonSchema: () => ({ pattern: "\\S" })
    }),
    Schema.isMaxLength(10000)
  )

export const QuestionFormat = Schema.Struct({
  type: Schema.Literal("question"),
  question: nonBlank("`question`")
}).annotate({ identifier: "QuestionFormat", description: "A question answered in `data.answer`." })

export const HighlightsFormat = Schema.Struct({
  type: Schema.Literal("highlights"),
  query: nonBlank("`query`")
}).annotate({ identifier: "HighlightsFormat", description: "Relevant source text for `query`, returned in `data.highlights`." })

/** Deprecated by the SDK in favour of question/highlights; still sendable, so still accepted. */
export const QueryFormat = Schema.Struct({
  type: Schema.Literal("query"),
  prompt: nonBlank("`prompt`"),
  mode: Schema.optionalKey(Schema.Literals(["freeform", "directQuote"]).annotate({ default: "freeform" }))
}).annotate({ identifier: "QueryFormat" })

/** Object formats keyed by type, so a format set can pick its members. */
const objectFormats = {
  screenshot: ScreenshotFormat,
  changeTracking: ChangeTrackingFormat,
  json: JsonFormat,
  attributes: AttributesFormat,
  question: QuestionFormat,
  highlights: HighlightsFormat,
  query: QueryFormat
} as const

/** Formats that need options: their bare string is an error with a message saying what to send. */
const needsOptions: Record<string, string> = {
  json: "the json format must be an object: { type: \"json\", schema?, prompt? }",
  attributes: "the attributes format must be an object: { type: \"attributes\", selectors: [{ selector, attribute }] }",
  question: "the question format must be an object: { type: \"question\", question }",
  highlights: "the highlights format must be an object: { type: \"highlights\", query }",
  query: "the query format must be an object: { type: \"query\", prompt }"
}

/** Format types that have no string form (their bare name is rejected). */
export const objectOnlyFormatTypes: ReadonlyArray<FormatType> = FormatTypes.filter((t) => t in needsOptions)

/** The wire Schema of one `formats` entry, limited to `allowed` types. */
export const makeFormatOption = (allowed: ReadonlyArray<FormatType>, identifier: string) => {
  const simple = SimpleFormatTypes.filter((t) => allowed.includes(t))
  const stringForms = allowed.filter((t) => !(t in needsOptions))
  const bareNeedingOptions = allowed.filter((t) => t in needsOptions)
  const names = [...stringForms, ...bareNeedingOptions] as [string, ...Array<string>]
  const members: Array<Schema.Codec<unknown, unknown>> = [
    // One string member, so a bad name gets one message; object-only types name their object form.
    Schema.Literals(names).annotate({ message: `Unknown format name: expected one of ${stringForms.join(", ")}` }).check(
      Schema.makeFilter((s: string) => needsOptions[s])
    ),
    // One struct per type: a literal `type` lets the union pick the one member to report on.
    ...simple.map((t) => Schema.Struct({ type: Schema.Literal(t) }))
  ]
  for (const t of allowed) if (t in objectFormats) members.push(objectFormats[t as keyof typeof objectFormats])
  return Schema.Union(members).annotate({
    identifier,
    message: `Expected a format: one of ${stringForms.map((t) => `"${t}"`).join(", ")}, or an object with \`type\` one of ${allowed.join(", ")}`
  })
}

export const FormatOption = makeFormatOption(FormatTypes, "FormatOption")
export const ParseFormatOption = makeFormatOption(ParseFormatTypes, "ParseFormatOption")

/** A format entry normalised to an object with its defaults applied. */
export type Format =
  | { readonly type: SimpleFormatType }
  | { readonly type: "screenshot"; readonly fullPage: boolean; readonly quality?: number; readonly viewport?: Viewport }
  | {
    readonly type: "json"
    readonly schema?: Record<string, unknown>
    readonly prompt?: string
    readonly checkPromptInjection?: boolean
  }
  | {
    readonly type: "changeTracking"
    readonly modes: ReadonlyArray<"git-diff" | "json">
    readonly schema?: Record<string, unknown>
    readonly prompt?: string
    readonly tag?: string
  }
  | { readonly type: "attributes"; readonly selectors: ReadonlyArray<{ readonly selector: string; readonly attribute: string }> }
  | { readonly type: "question"; readonly question: string }
  | { readonly type: "highlights"; readonly query: string }
  | { readonly type: "query"; readonly prompt: string; readonly mode: "freeform" | "directQuote" }

/** The `Format` of a given type. */
export type FormatOf<T extends FormatType> = Extract<Format, { readonly type: T }> extends never ? { readonly type: T }
  : Extract<Format, { readonly type: T }>

/** Turns a decoded wire entry (string or object) into a `Format` object with defaults. */
export const normalizeFormat = (entry: string | { readonly type: string }): Format => {
  const f = (typeof entry === "string" ? { type: entry } : entry) as Record<string, unknown> & { type: string }
  switch (f.type) {
    case "screenshot":
      return { ...f, type: "screenshot", fullPage: (f.fullPage as boolean | undefined) ?? false }
    case "changeTracking":
      return { ...f, type: "changeTracking", modes: (f.modes as ReadonlyArray<"git-diff" | "json"> | undefined) ?? [] }
    case "query":
      return { ...f, type: "query", prompt: f.prompt as string, mode: (f.mode as "freeform" | "directQuote" | undefined) ?? "freeform" }
    default:
      return f as Format
  }
}

/** The default `formats`: markdown only. */
export const defaultFormats: ReadonlyArray<Format> = [{ type: "markdown" }]
