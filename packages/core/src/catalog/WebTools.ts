/**
 * The built-in `web` provider: tools that do their work on this machine through the scrape
 * pipeline (fetch or browser, cache, HTML stages, document readers), so a catalog call gets what
 * the same scrape would. `scrape` (the markdown of a page), `links`, `metadata`, and `parse` (a
 * document at a URL, charged per page as a scrape of it is). A call's options are decoded into
 * an ordinary scrape request, so its defaults and rules are the scrape's.
 */
import { Effect, Schema } from "effect"
import type { ScrapeData } from "../contract/index.ts"
import { decodeScrapeRequest } from "../contract/Request.ts"
import { IntBetween } from "../contract/Primitives.ts"
import { Pipeline } from "../Pipeline.ts"
import type { ScrapeError } from "../ScrapeError.ts"
import { CatalogRegistry } from "./CatalogRegistry.ts"
import { type CatalogProvider, tool, ToolFailed, type ToolContext, urlOption } from "./CatalogTool.ts"

/** A pipeline failure as a failed call: what kind of failure, in the pipeline's own words. */
export const toolFailure = (error: ScrapeError): ToolFailed => {
  const reason = error.reason
  const kind = ((): ToolFailed["kind"] => {
    switch (reason._tag) {
      case "InvalidRequest":
      case "NotSupported":
        return "invalid_input"
      case "UrlBlocked":
        return "blocked"
      case "TimedOut":
        return "timeout"
      case "UnsupportedFileType":
      case "DocumentUnreadable":
        return "unsupported"
      case "NoCachedData":
        return "not_found"
      default:
        return "upstream"
    }
  })()
  return new ToolFailed({ kind, message: error.message })
}

/** The request timeout a call's budget allows, within the contract's 1 to 300 s. */
const timeoutFor = (context: ToolContext) => Math.max(1000, Math.min(300_000, context.timeoutMs))

/** Runs an ordinary scrape with these (contract JSON) options. */
export const scrapeWith = (pipeline: Pipeline["Service"], body: Record<string, unknown>, context: ToolContext) =>
  decodeScrapeRequest({ ...body, timeout: timeoutFor(context) }).pipe(
    Effect.flatMap(pipeline.scrape),
    Effect.mapError(toolFailure)
  )

const Url = urlOption("The page's URL.")
const PageOptions = {
  url: Url,
  onlyMainContent: Schema.optionalKey(Schema.Boolean.annotate({ description: "Drop header, navigation and footer (default true)." }))
}

const titleOf = (data: ScrapeData): string | undefined => {
  const title = data.metadata?.title
  return typeof title === "string" ? title : Array.isArray(title) ? title[0] : undefined
}

const pageOf = (data: ScrapeData) => ({
  url: String(data.metadata?.url ?? data.metadata?.sourceURL ?? ""),
  statusCode: typeof data.metadata?.statusCode === "number" ? data.metadata.statusCode : undefined
})

const ScrapedPage = Schema.Struct({
  url: Schema.String.annotate({ description: "Where the page ended up." }),
  statusCode: Schema.optionalKey(Schema.Int),
  title: Schema.optionalKey(Schema.String),
  markdown: Schema.String,
  warning: Schema.optionalKey(Schema.String)
})

const PageLinks = Schema.Struct({ url: Schema.String, links: Schema.Array(Schema.String) })
const PageMetadata = Schema.Struct({ url: Schema.String, metadata: Schema.Record(Schema.String, Schema.Unknown) })
const ParsedDocument = Schema.Struct({
  url: Schema.String,
  contentType: Schema.optionalKey(Schema.String),
  numPages: Schema.optionalKey(Schema.Int),
  markdown: Schema.String,
  warning: Schema.optionalKey(Schema.String)
})

const withoutUndefined = <A extends object>(value: A): A =>
  Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as A

/** The `web` provider over a pipeline. */
export const makeWebProvider = (pipeline: Pipeline["Service"]): CatalogProvider => ({
  name: "web",
  description: "Pages and documents read on this server: markdown, links, metadata, documents at a URL.",
  tools: [
    tool({
      capability: "scrape",
      name: "Scrape a page",
      description: "The page's content as markdown, through the same pipeline as POST /v2/scrape (cache included).",
      category: "web",
      options: Schema.Struct(PageOptions),
      response: { about: "The page's markdown and where it ended up.", key: "markdown", schema: ScrapedPage },
      creditsCost: 1,
      perRecord: false,
      run: (options: { readonly url: string; readonly onlyMainContent?: boolean }, context) =>
        Effect.map(scrapeWith(pipeline, { ...options, formats: ["markdown"] }, context), (data) => ({
          data: withoutUndefined({ ...pageOf(data), title: titleOf(data), markdown: data.markdown ?? "", warning: data.warning ?? undefined })
        }))
    }),
    tool({
      capability: "links",
      name: "Links of a page",
      description: "Every link on the page, absolute.",
      category: "web",
      options: Schema.Struct({ url: Url }),
      response: { about: "The page's links.", key: "links", schema: PageLinks },
      creditsCost: 1,
      perRecord: false,
      run: (options: { readonly url: string }, context) =>
        Effect.map(scrapeWith(pipeline, { url: options.url, formats: ["links"] }, context), (data) => ({
          data: { url: pageOf(data).url, links: data.links ?? [] },
          records: (data.links ?? []).length
        }))
    }),
    tool({
      capability: "metadata",
      name: "Metadata of a page",
      description: "The page's metadata: title, description, language, Open Graph and other meta tags, status and content type.",
      category: "web",
      options: Schema.Struct({ url: Url }),
      response: { about: "The page's metadata, as a scrape's `metadata`.", key: "metadata", schema: PageMetadata },
      creditsCost: 1,
      perRecord: false,
      run: (options: { readonly url: string }, context) =>
        Effect.map(scrapeWith(pipeline, { url: options.url, formats: ["links"] }, context), (data) => ({
          data: { url: pageOf(data).url, metadata: { ...data.metadata } }
        }))
    }),
    tool({
      capability: "parse",
      name: "Parse a document at a URL",
      description: "A PDF, office document, spreadsheet or e-book at a URL, as markdown in reading order. Costs 1 credit per page.",
      category: "documents",
      options: Schema.Struct({
        url: urlOption("The document's URL."),
        maxPages: Schema.optionalKey(IntBetween(1, 10_000).annotate({ description: "Read at most this many pages of a PDF." }))
      }),
      response: { about: "The document's markdown and its page count.", key: "markdown", schema: ParsedDocument },
      creditsCost: 1,
      perRecord: true,
      run: (options: { readonly url: string; readonly maxPages?: number }, context) =>
        Effect.map(
          scrapeWith(pipeline, {
            url: options.url,
            formats: ["markdown"],
            ...(options.maxPages === undefined ? {} : { parsers: [{ type: "pdf", maxPages: options.maxPages }] })
          }, context),
          (data) => {
            const pages = typeof data.metadata?.numPages === "number" ? data.metadata.numPages : undefined
            return {
              data: withoutUndefined({
                url: pageOf(data).url,
                contentType: typeof data.metadata?.contentType === "string" ? data.metadata.contentType : undefined,
                numPages: pages,
                markdown: data.markdown ?? "",
                warning: data.warning ?? undefined
              }),
              records: Math.max(1, pages ?? 1)
            }
          }
        )
    })
  ]
})

/** Registers the `web` provider over the pipeline in context. */
export const layerWebProvider = CatalogRegistry.providerEffect(Effect.map(Pipeline, makeWebProvider))
