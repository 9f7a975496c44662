/**
 * The content stages, shared by scrape and parse: `Routing` says which path serves the bytes, the
 * path runs (the HTML stages, JSON or text as it came, or a document reader page by page), and
 * `FormatProjection` turns what it produced into the `data` the request's formats ask for.
 */
import { Effect, Stream } from "effect"
import { STATUS_CODES } from "node:http"
import type { CommonOptions, DocumentMetadata, PageBlocks, PageMarkdown, ScrapeData } from "./contract/index.ts"
import type { Diagnostic, Page } from "./Document.ts"
import type { DocumentReaders } from "./DocumentReader.ts"
import { fromStageError, runDocumentStream, type PageEvent } from "./DocumentRun.ts"
import { decodeBody } from "./fetch/index.ts"
import { FormatProjection, type Produced, RequestDeadline, ZeroDataRetention } from "./FormatProjection.ts"
import { CosmeticFilter, processHtmlYielding } from "./html/index.ts"
import type { OutputBlockPage, OutputPage } from "./MarkdownWriter.ts"
import { mimeTypeOf } from "./MediaTypes.ts"
import { type ContentInput, route, type Route } from "./Routing.ts"
import type { ScrapeError } from "./ScrapeError.ts"
import type { Markdown } from "./stages/Markdown.ts"
import { chainRedactors, Redaction } from "./stages/Redaction.ts"
import { piiRedactor } from "./pii/PiiRedactor.ts"
import { cleanOffline } from "./clean/CleanWithModel.ts"
import type { TypeDetection } from "./TypeDetection.ts"

/** What the content stages need from the context. */
type Stages = DocumentReaders | TypeDetection | FormatProjection | Markdown

/** What a streaming client receives: one event per page, then the rest of `data`. */
export type ContentEvent =
  | { readonly type: "page"; readonly pageNumber: number; readonly chunk: string; readonly page?: OutputPage; readonly blocks?: OutputBlockPage }
  | { readonly type: "done"; readonly data: ScrapeData }

export const baseMetadata = (input: ContentInput, contentType: string | undefined): DocumentMetadata => ({
  sourceURL: input.sourceURL,
  url: input.url,
  statusCode: input.statusCode,
  contentType: input.contentTypeHeader ?? contentType ?? input.contentType ?? "application/octet-stream",
  error: input.statusCode >= 400 ? `${input.statusCode} ${STATUS_CODES[input.statusCode] ?? "Error"}` : null
})

/** An HTML page through the HTML stages, then redaction, before anything is written out. */
const htmlPage = (input: ContentInput, options: CommonOptions) =>
  Effect.gen(function*() {
    const projection = yield* FormatProjection
    const wants = projection.requested(options.formats)
    const { text } = decodeBody(input.bytes, input.contentTypeHeader)
    // blockAds (a scrape's option, decoded with its default of true): consent banners and ads go before main content is chosen.
    const blockAds = input.upload !== true && (options as { readonly blockAds?: boolean }).blockAds === true
    const cosmetic = blockAds ? yield* (yield* CosmeticFilter).matcher : undefined
    const result = yield* processHtmlYielding(text, {
      cosmetic,
      url: input.url,
      onlyMainContent: options.onlyMainContent,
      includeTags: options.includeTags,
      excludeTags: options.excludeTags,
      removeBase64Images: options.removeBase64Images,
      formats: { markdown: wants.markdown, html: wants.html, links: wants.links }
    })
    // The markdown and the HTML of the same cleaned tree are both redacted.
    const redaction = yield* Redaction
    const redact = (written: string | undefined, html = false) =>
      written === undefined
        ? Effect.succeed(undefined)
        : (html ? redaction.redactHtml ?? redaction.redactText : redaction.redactText)(written).pipe(Effect.mapError(fromStageError))
    // onlyCleanContent: boilerplate the main-content pass left is dropped (clean/), by the language
    // model when there is one, else the classifier; after redaction, so no model sees what was masked.
    const redacted = yield* redact(result.markdown)
    const cleaning = (options as { readonly onlyCleanContent?: boolean }).onlyCleanContent === true && redacted !== undefined
      ? yield* (projection.cleanContent ?? ((markdown: string) => Effect.sync(() => cleanOffline(markdown))))(redacted, {
        url: input.url,
        deadline: yield* Effect.service(RequestDeadline),
        zeroDataRetention: yield* Effect.service(ZeroDataRetention)
      })
      : undefined
    return {
      _tag: "Page",
      bytes: input.bytes,
      text,
      markdown: cleaning?.markdown ?? redacted,
      html: yield* redact(result.html, true),
      links: result.links,
      warnings: [...(result.warnings ?? []), ...(cleaning?.warnings ?? [])],
      metadata: {
        ...result.metadata,
        ...baseMetadata(input, input.contentType ?? "text/html"),
        ...cleaning?.metadata,
        creditsUsed: 1
      }
    } satisfies Produced
  })

/** JSON (pretty-printed in a fence) or plain text, shown as it came. */
const textBody = (input: ContentInput, json: boolean): Produced => {
  const { text } = decodeBody(input.bytes, input.contentTypeHeader)
  let markdown = text
  if (json) {
    let pretty = text.trim()
    try {
      pretty = JSON.stringify(JSON.parse(text), null, 2)
    } catch {
      // Served as JSON but not valid JSON: keep the text as it came.
    }
    markdown = "```json\n" + pretty + "\n```"
  }
  return { _tag: "Text", bytes: input.bytes, text, markdown, warnings: [], metadata: { ...baseMetadata(input, input.contentType), creditsUsed: 1 } }
}

/**
 * A document read page by page: its page events, and what it produced once they have all gone
 * by (markdown, warnings, metadata). Only the page being written is held in memory, unless
 * HTML or links were asked for: those are written from the blocks, so the pages are kept.
 */
const readDocument = (input: ContentInput, document: Extract<Route, { _tag: "Document" }>, options: CommonOptions, deadline: number) =>
  Effect.gen(function*() {
    const { format, parser, fileName } = document
    const wants = (yield* FormatProjection).requested(options.formats)
    const { info, events, writer } = yield* runDocumentStream(
      { bytes: input.bytes, format, fileName, options: { deadline, mode: parser.mode, maxPages: parser.maxPages } },
      parser.pageMarkers
    )
    const diagnostics: Array<Diagnostic> = []
    const sources: Array<Page> | undefined = wants.html || wants.links ? [] : undefined
    let count = 0
    const pages = events.pipe(Stream.tap((event) =>
      Effect.sync(() => {
        count++
        diagnostics.push(...event.diagnostics)
        sources?.push(event.source)
      })
    ))
    const produced = (streamed: boolean): Extract<Produced, { readonly _tag: "Document" }> => {
      const numPages = info.numPages ?? count
      return {
        _tag: "Document",
        bytes: input.bytes,
        markdown: writer.markdown(),
        streamed,
        source: sources === undefined ? undefined : { pages: sources, pageMarkers: parser.pageMarkers },
        warnings: diagnostics
          .filter((d) => d.severity === "warning")
          .map((d) => (d.page !== undefined ? `page ${d.page}: ${d.message}` : d.message)),
        metadata: {
          ...info.metadata,
          ...baseMetadata(input, input.contentType ?? mimeTypeOf(format)),
          numPages,
          ...(info.totalPages !== undefined ? { totalPages: info.totalPages } : {}),
          creditsUsed: format === "pdf" ? Math.max(1, numPages) : 1
        }
      }
    }
    return { pages, produced }
  })

const project = (produced: Produced, options: CommonOptions) =>
  Effect.flatMap(FormatProjection, (projection) => projection.project(produced, options.formats).pipe(Effect.mapError(fromStageError)))

/** Runs the content through the path routing chose and projects it onto the requested formats. */
const runPath = (input: ContentInput, path: Route, options: CommonOptions, deadline: number) =>
  Effect.gen(function*() {
    switch (path._tag) {
      case "Html":
        return yield* project(yield* htmlPage(input, options), options)
      case "Text":
        return yield* project(textBody(input, path.json), options)
      case "Raw":
        // `parsers: []`: the PDF comes back as Base64 for a flat credit.
        return yield* project({
          _tag: "Raw",
          bytes: input.bytes,
          warnings: [],
          metadata: { ...baseMetadata(input, "application/pdf"), creditsUsed: 1 }
        }, options)
      case "Media":
        // The URL is the media itself: no text to write; the `audio` and `video` formats take it from here (EngineChoice.ts).
        return yield* project({
          _tag: "Text",
          bytes: input.bytes,
          text: "",
          markdown: "",
          warnings: [],
          metadata: { ...baseMetadata(input, input.contentType), creditsUsed: 1 }
        }, options)
      case "Document": {
        // The document's resources (an open file, a reader process) live until its pages are read.
        return yield* Effect.scoped(Effect.gen(function*() {
        const { pages, produced } = yield* readDocument(input, path, options, deadline)
        const collected: Array<PageMarkdown> = []
        const blocks: Array<PageBlocks> = []
        yield* Stream.runForEach(pages, (event: PageEvent) =>
          Effect.sync(() => {
            if (path.parser.pages) collected.push(event.page)
            if (path.parser.blocks) blocks.push(event.blockPage)
          }))
        return yield* project({
          ...produced(false),
          pages: path.parser.pages ? collected : undefined,
          blocks: path.parser.blocks ? blocks : undefined
        }, options)
        }))
      }
    }
  })

/** Runs the content through its path and projects it onto the requested formats. */
export const renderContent = (input: ContentInput, options: CommonOptions, deadline: number): Effect.Effect<ScrapeData, ScrapeError, Stages> =>
  Effect.flatMap(requestRedaction(options), (redactor) =>
    Effect.flatMap(route(input, options), (path) => runPath(input, path, options, deadline)).pipe(
      Effect.provideService(Redaction, redactor),
      Effect.provideService(RequestDeadline, deadline),
      Effect.provideService(ZeroDataRetention, options.zeroDataRetention)
    ))

/** The Redaction stage in force, then the request's `redactPII`, when it asks for it. */
const requestRedaction = (options: CommonOptions) =>
  Effect.map(Effect.service(Redaction), (current) => (options.redactPII === undefined ? current : chainRedactors(current, piiRedactor(options.redactPII))))

/**
 * `renderContent` as a stream: a document page by page, then `done` with the rest of `data`
 * (without what the page events carried: markdown, pages, blocks), so memory stays bounded by
 * one page plus the markdown written so far. Everything else is a single `done`.
 */
export const renderContentStream = (input: ContentInput, options: CommonOptions, deadline: number): Stream.Stream<ContentEvent, ScrapeError, Stages> =>
  Stream.unwrap(Effect.map(requestRedaction(options), (redactor) => contentStream(input, options, deadline).pipe(
    Stream.provideService(Redaction, redactor),
    Stream.provideService(RequestDeadline, deadline),
    Stream.provideService(ZeroDataRetention, options.zeroDataRetention)
  )))

const contentStream = (input: ContentInput, options: CommonOptions, deadline: number): Stream.Stream<ContentEvent, ScrapeError, Stages> =>
  Stream.unwrap(Effect.gen(function*() {
    const path = yield* route(input, options)
    if (path._tag !== "Document") {
      return Stream.fromEffect(Effect.map(runPath(input, path, options, deadline), (data): ContentEvent => ({ type: "done", data })))
    }
    const { pages, produced } = yield* readDocument(input, path, options, deadline)
    const pageEvents = Stream.map(pages, (event): ContentEvent => ({
      type: "page",
      pageNumber: event.page.pageNumber,
      chunk: event.chunk,
      page: event.page,
      blocks: event.blockPage
    }))
    const done = Effect.suspend(() => project(produced(true), options)).pipe(Effect.map((data): ContentEvent => ({ type: "done", data })))
    return Stream.concat(pageEvents, Stream.fromEffect(done))
  }))
