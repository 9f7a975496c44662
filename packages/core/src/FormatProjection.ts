/**
 * The FormatProjection stage: which `data` fields a request's `formats` ask for, and `data` built
 * from what the stages produced. Stages ask `requested` first so that nobody writes markdown,
 * HTML or links that no client reads; `project` then picks the asked-for fields and derives the
 * ones a path does not make itself (a document's HTML and links are written from its blocks,
 * a text body's HTML is the text in a `<pre>`), and the text-derived formats (summary, answer,
 * highlights, json: `derived/DerivedFormats.ts`) from the markdown, by a `LanguageModel` when the
 * projection has one, else offline. The default layer is the contract's projection; another layer
 * can add fields or derive them differently.
 */
import { Context, Effect, Layer, Option } from "effect"
import type { DocumentMetadata, Format, PageBlocks, PageMarkdown, ScrapeData } from "./contract/index.ts"
import { deriveOffline, deriveWithModel, derivedWanted, type Derived, type DerivedInput } from "./derived/DerivedFormats.ts"
import { type CleanContext, cleanContent, type CleanOutcome } from "./clean/CleanWithModel.ts"
import { commerceFormats } from "./commerce/CommerceFormats.ts"
import { personalityWithModel } from "./branding/Personality.ts"
import type { Page } from "./Document.ts"
import { LanguageModel, type LanguageModelShape } from "./LanguageModel.ts"
import * as OpenAiCompatible from "./llm/OpenAiCompatible.ts"
import { writeHtml } from "./markdown/BlockHtml.ts"
import { escapeHtml } from "./markdown/HtmlEscape.ts"
import { markdownLinks, markdownToHtml } from "./MarkdownHtml.ts"
import { noRedaction, Redaction, type Redactor } from "./stages/Redaction.ts"
import type { StageError } from "./stages/StageError.ts"

/**
 * When the request must be answered by (epoch ms), provided by the content stage: the derived
 * formats give a language model only the time that is left, then take their offline path.
 */
export const RequestDeadline = Context.Reference<number | undefined>("@strata/core/RequestDeadline", { defaultValue: () => undefined })

/** Whether the request asked for zero data retention: then no page text goes to a language model. */
export const ZeroDataRetention = Context.Reference<boolean>("@strata/core/ZeroDataRetention", { defaultValue: () => false })

/** The `data` fields a request's formats ask for (those that a stage has to make). */
export interface Requested {
  /** Also when only a format derived from it (summary, answer, highlights, json) is asked for. */
  readonly markdown: boolean
  readonly html: boolean
  readonly rawHtml: boolean
  readonly links: boolean
  readonly rawBase64: boolean
}

interface ProducedBase {
  /** The content as it came, for `rawBase64`. */
  readonly bytes: Uint8Array
  /** Non-fatal problems, worded for the client (`page 2: ...` for a document's pages). */
  readonly warnings: ReadonlyArray<string>
  readonly metadata: DocumentMetadata
}

/** What the stages made of the content, before projection. */
export type Produced =
  /** An HTML page: its decoded text, and the markdown, cleaned HTML and links that were requested. */
  | ProducedBase & {
    readonly _tag: "Page"
    readonly text: string
    readonly markdown?: string | undefined
    readonly html?: string | undefined
    readonly links?: ReadonlyArray<string> | undefined
  }
  /** JSON or plain text: its decoded text and its markdown (JSON in a fence). */
  | ProducedBase & { readonly _tag: "Text"; readonly text: string; readonly markdown: string }
  /**
   * A document read page by page: its whole markdown (left out of `data` when the page events
   * already carried it), and `pages` and `blocks` when the parser asked to collect them.
   * `source` is the pages of blocks the markdown was written from, kept when HTML or links were
   * requested: they are written from the blocks' structure (without it, from the markdown).
   */
  | ProducedBase & {
    readonly _tag: "Document"
    readonly markdown: string
    readonly streamed: boolean
    readonly pages?: ReadonlyArray<PageMarkdown> | undefined
    readonly blocks?: ReadonlyArray<PageBlocks> | undefined
    readonly source?: DocumentSource | undefined
  }
  /** A PDF under `parsers: []`: returned as Base64 whatever the formats. */
  | ProducedBase & { readonly _tag: "Raw" }

/** A document's pages of blocks, as the Markdown stage was given them. */
export interface DocumentSource {
  readonly pages: ReadonlyArray<Page>
  /** Whether the markdown has page markers (the HTML then marks page breaks too). */
  readonly pageMarkers: boolean
}

export interface Projection {
  readonly name: string
  readonly requested: (formats: ReadonlyArray<Format>) => Requested
  readonly project: (produced: Produced, formats: ReadonlyArray<Format>) => Effect.Effect<ScrapeData, StageError>
  /**
   * `json` for one schema and prompt from a page's markdown (and HTML), as the `json` format
   * derives it: `changeTracking`'s json mode asks here. Left out, the offline path answers.
   */
  readonly deriveJson?: ((input: DerivedInput, wanted: JsonWanted) => Effect.Effect<Derived>) | undefined
  /**
   * `onlyCleanContent` for a page's markdown: through the projection's language model when it has
   * one (`clean/CleanWithModel.ts`), else by the offline classifier. Left out, the classifier.
   */
  readonly cleanContent?: ((markdown: string, context: CleanContext) => Effect.Effect<CleanOutcome>) | undefined
}

/** What `deriveJson` extracts: the json format's schema and prompt. */
export interface JsonWanted {
  readonly schema?: Record<string, unknown> | undefined
  readonly prompt?: string | undefined
}

/** `deriveJson` on the offline path (deterministic, no model). */
export const deriveJsonOffline = (input: DerivedInput, wanted: JsonWanted): Derived =>
  deriveOffline([{ type: "json", ...jsonFields(wanted) }], input)

const jsonFields = (wanted: JsonWanted) => ({
  ...(wanted.schema === undefined ? {} : { schema: wanted.schema }),
  ...(wanted.prompt === undefined ? {} : { prompt: wanted.prompt })
})

const requested = (formats: ReadonlyArray<Format>): Requested => {
  const has = (type: Format["type"]) => formats.some((format) => format.type === type)
  return {
    markdown: has("markdown") || derivedWanted(formats).length > 0,
    html: has("html"),
    rawHtml: has("rawHtml"),
    links: has("links"),
    rawBase64: has("rawBase64")
  }
}

/** The HTML and links a path makes, or derives when they are asked for. */
const derived = (produced: Produced, wants: Requested): Pick<ScrapeData, "html" | "links"> => {
  switch (produced._tag) {
    case "Page":
      return { html: produced.html, links: produced.links }
    case "Text":
      return { html: wants.html ? `<pre>${escapeHtml(produced.text)}</pre>` : undefined, links: wants.links ? [] : undefined }
    case "Document": {
      if (!wants.html && !wants.links) return {}
      if (produced.source !== undefined) {
        // From the blocks: 0.15-0.3 s on the 2,000-page generated PDF, where parsing its markdown back took 45-64 s.
        const written = writeHtml(produced.source.pages, { pageMarkers: produced.source.pageMarkers })
        return { html: wants.html ? written.html : undefined, links: wants.links ? written.links : undefined }
      }
      return {
        html: wants.html ? markdownToHtml(produced.markdown) : undefined,
        links: wants.links ? markdownLinks(produced.markdown) : undefined
      }
    }
    case "Raw":
      return {}
  }
}

/** Keeps the keys whose value is set, in the order the contract's responses list them. */
const defined = (data: ScrapeData): ScrapeData =>
  Object.fromEntries(Object.entries(data).filter(([, value]) => value !== undefined)) as ScrapeData

const project = (produced: Produced, formats: ReadonlyArray<Format>, derivedFormats: Derived): ScrapeData => {
  const wants = { ...requested(formats), markdown: formats.some((format) => format.type === "markdown") }
  const warnings = [...produced.warnings, ...derivedFormats.warnings]
  const text = produced._tag === "Page" || produced._tag === "Text" ? produced.text : undefined
  const markdown = produced._tag === "Page" || produced._tag === "Text" || (produced._tag === "Document" && !produced.streamed)
    ? produced.markdown
    : undefined
  const { html, links } = derived(produced, wants)
  const commerce = commerceFormats(formats, produced._tag === "Page" ? produced.text : undefined, typeof produced.metadata.url === "string" ? produced.metadata.url : undefined)
  warnings.push(...commerce.warnings)
  return defined({
    rawBase64: wants.rawBase64 || produced._tag === "Raw" ? Buffer.from(produced.bytes).toString("base64") : undefined,
    rawHtml: wants.rawHtml ? text : undefined,
    markdown: wants.markdown ? markdown : undefined,
    html,
    links,
    ...derivedFormats.fields,
    ...commerce.fields,
    warning: warnings.length > 0 ? warnings.join("; ") : undefined,
    metadata: { ...produced.metadata, ...derivedFormats.metadata, ...commerce.metadata },
    pages: produced._tag === "Document" ? produced.pages : undefined,
    blocks: produced._tag === "Document" ? produced.blocks : undefined
  })
}

/** What the derived formats work from: the markdown the path wrote (none for a raw PDF) and a page's HTML. */
const derivedInput = (produced: Produced) => ({
  markdown: produced._tag === "Raw" ? undefined : produced.markdown,
  html: produced._tag === "Page" ? produced.text : undefined,
  url: typeof produced.metadata.url === "string" ? produced.metadata.url : undefined
})

/** The contract's projection, the derived formats made by `model` when given, else offline. */
export const makeProjection = (model: LanguageModelShape | undefined): Projection => {
  const base = derivedProjection(model)
  if (model === undefined) return base
  return {
    ...base,
    // With a model, branding's personality is read from the page's markdown.
    requested: (formats) => {
      const wants = base.requested(formats)
      return formats.some((format) => format.type === "branding") ? { ...wants, markdown: true } : wants
    },
    project: (produced, formats) => Effect.flatMap(base.project(produced, formats), withPersonality(model, produced, formats))
  }
}

/**
 * `data` with `branding.personality` from `model`, for a page whose request asks for branding
 * (the browser's profile, made after the projection in EngineChoice.ts, takes it from there).
 */
const withPersonality = (model: LanguageModelShape, produced: Produced, formats: ReadonlyArray<Format>) =>
(data: ScrapeData): Effect.Effect<ScrapeData> => {
  if (produced._tag !== "Page" || !formats.some((format) => format.type === "branding")) return Effect.succeed(data)
  return Effect.gen(function*() {
    if (yield* Effect.service(ZeroDataRetention)) return data
    const url = typeof produced.metadata.url === "string" ? produced.metadata.url : undefined
    const result = yield* personalityWithModel(model, { markdown: produced.markdown ?? "", url }, yield* Effect.service(RequestDeadline))
    const warning = [data.warning, result.warning].filter((w): w is string => typeof w === "string" && w !== "").join("; ")
    // (The markdown made for the model is in `data` only when the request asked for it: `project` decides.)
    return {
      ...data,
      ...(result.personality === undefined ? {} : { branding: { personality: result.personality } }),
      ...(warning === "" ? {} : { warning }),
      metadata: { ...data.metadata, ...(result.personality === undefined ? {} : { brandingPersonalityBy: "model" }) }
    }
  })
}

const derivedProjection = (model: LanguageModelShape | undefined): Projection => ({
  name: model === undefined ? "contract" : `contract+${model.model}`,
  requested,
  cleanContent: (markdown, context) => cleanContent(model, markdown, context),
  deriveJson: (input, wanted) =>
    model === undefined
      ? Effect.sync(() => deriveJsonOffline(input, wanted))
      : Effect.flatMap(Effect.service(RequestDeadline), (deadline) => deriveWithModel(model, [{ type: "json", ...jsonFields(wanted) }], input, deadline)),
  project: (produced, formats) => {
    if (derivedWanted(formats).length === 0) return Effect.sync(() => project(produced, formats, { fields: {}, warnings: [], metadata: {} }))
    const offline = Effect.sync(() => deriveOffline(formats, derivedInput(produced)))
    const derive = model === undefined ? offline : Effect.gen(function*() {
      // Zero data retention: the page stays here, so the offline paths answer (Firecrawl answers with warnings only).
      if (yield* Effect.service(ZeroDataRetention)) {
        const derived = yield* offline
        return { ...derived, warnings: ["zero data retention: the page was not sent to the language model; the derived formats come from the offline paths", ...derived.warnings] }
      }
      return yield* deriveWithModel(model, formats, derivedInput(produced), yield* Effect.service(RequestDeadline))
    })
    return Effect.gen(function*() {
      const derivedFormats = yield* derive
      // The markdown was redacted before any format saw it; the json read from a page's HTML
      // (JSON-LD, meta, tables) was not: its values go through the request's redaction here.
      const redactor = yield* Redaction
      if (derivedFormats.fields.json === undefined || produced._tag !== "Page" || redactor === noRedaction) {
        return project(produced, formats, derivedFormats)
      }
      const json = yield* redactStrings(derivedFormats.fields.json, redactor)
      return project(produced, formats, { ...derivedFormats, fields: { ...derivedFormats.fields, json } })
    })
  }
})

/** Every string in a JSON value through the redactor's text step. */
const redactStrings = (value: unknown, redactor: Redactor, depth = 0): Effect.Effect<unknown, StageError> => {
  if (typeof value === "string") return redactor.redactText(value)
  if (depth > 32 || value === null || typeof value !== "object") return Effect.succeed(value)
  if (Array.isArray(value)) return Effect.forEach(value, (item) => redactStrings(item, redactor, depth + 1))
  return Effect.map(
    Effect.forEach(Object.entries(value), ([key, inner]) => Effect.map(redactStrings(inner, redactor, depth + 1), (v) => [key, v] as const)),
    (entries) => Object.fromEntries(entries)
  )
}

/** The contract's projection: the requested fields, nothing more; derived formats offline. */
export const contractProjection: Projection = makeProjection(undefined)

export class FormatProjection extends Context.Service<FormatProjection, Projection>()("@strata/core/FormatProjection") {
  /** The contract's projection, with the `LanguageModel` in the context when there is one. */
  static readonly layer = Layer.effect(
    FormatProjection,
    Effect.map(Effect.serviceOption(LanguageModel), (model) => makeProjection(Option.getOrUndefined(model)))
  )
  /** The contract's projection, with an OpenAI-compatible model when `STRATA_LLM_BASE_URL` is set. */
  static readonly layerConfig = Layer.unwrap(Effect.map(
    OpenAiCompatible.optionsFromConfig,
    (options) =>
      Option.isNone(options)
        ? Layer.succeed(FormatProjection, contractProjection)
        : FormatProjection.layer.pipe(Layer.provide(OpenAiCompatible.layer(options.value)))
  ))
}
