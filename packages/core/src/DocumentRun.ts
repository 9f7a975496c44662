/**
 * Runs a format reader over one document and assembles the contract's document fields:
 * markdown (with page markers when asked), `data.pages`, `data.blocks`, page counts and warnings.
 *
 * Pages are consumed as a stream and written incrementally, so only the outputs the request
 * asked for are kept in memory; `runDocumentStream` exposes the same work page by page for
 * callers that stream results out (NDJSON).
 */
import { Effect, Stream } from "effect"
import type { Diagnostic, Page } from "./Document.ts"
import type { DocumentError, ReadRequest } from "./DocumentReader.ts"
import { DocumentReaders } from "./DocumentReader.ts"
import type { PushResult } from "./MarkdownWriter.ts"
import { DocumentUnreadable, Overloaded, scrapeError, StageFailed, TimedOut, type ScrapeError } from "./ScrapeError.ts"
import { Markdown } from "./stages/Markdown.ts"
import { Redaction } from "./stages/Redaction.ts"
import type { StageError } from "./stages/StageError.ts"

/** Maps a reader's error onto the pipeline's error reasons. */
export const fromDocumentError = (error: DocumentError): ScrapeError => {
  const reason = error.reason
  switch (reason._tag) {
    case "Timeout":
      return scrapeError(new TimedOut({ message: `Timed out while reading the ${error.format} document${error.page ? ` (page ${error.page})` : ""}` }))
    case "Encrypted":
      return scrapeError(new DocumentUnreadable({ kind: "encrypted", message: error.message }))
    case "Corrupt":
      return scrapeError(new DocumentUnreadable({ kind: "corrupt", message: error.message }))
    case "MissingComponent":
      return scrapeError(new DocumentUnreadable({ kind: "missing_component", message: error.message }))
    case "LimitExceeded":
      return scrapeError(new DocumentUnreadable({ kind: "limit", message: error.message }))
    case "UnsupportedFormat":
      return scrapeError(new DocumentUnreadable({ kind: "unsupported", message: error.message }))
    case "Busy":
      return scrapeError(new Overloaded({ message: reason.message, retryAfterSeconds: reason.retryAfterSeconds }))
  }
}

/** A stage that failed for the whole request. */
export const fromStageError = (error: StageError): ScrapeError =>
  scrapeError(new StageFailed({ stage: error.stage, message: error.message }))

/** One page's worth of output, for streaming consumers. */
export interface PageEvent extends PushResult {
  readonly diagnostics: ReadonlyArray<Diagnostic>
  /** The page as it reached the Markdown stage (after redaction), for the HTML writer, which writes from its blocks' structure. */
  readonly source: Page
}

const unitOf = (format: string, count: number): string => {
  const unit = ["xlsx", "xlsm", "xlsb", "xls", "ods"].includes(format) ? "sheet" : ["pptx", "pptm", "ppt", "odp"].includes(format) ? "slide" : "page"
  return count === 1 ? unit : `${unit}s`
}

/** The warning for a document cut by `maxPages`; it goes on the last page kept. */
export const pagesTruncated = (format: string, kept: number, total: number): Diagnostic => {
  const dropped = total - kept
  return {
    severity: "warning",
    code: "pages_truncated",
    message: `kept the first ${kept.toLocaleString("en-US")} of ${total.toLocaleString("en-US")} ${unitOf(format, total)}, as maxPages asks; ${dropped.toLocaleString("en-US")} ${unitOf(format, dropped)} dropped`
  }
}

/** Reads a document and yields, page by page, what the Markdown stage made of it. */
export const runDocumentStream = (
  request: ReadRequest,
  pageMarkers: boolean
) =>
  Effect.gen(function*() {
    const readers = yield* DocumentReaders
    const redaction = yield* Redaction
    const markdown = yield* Markdown
    const result = yield* readers.read(request).pipe(Effect.mapError(fromDocumentError))
    const writer = markdown.begin({ pageMarkers })
    const { numPages, totalPages } = result.info
    const cut = numPages !== undefined && totalPages !== undefined && totalPages > numPages && numPages > 0
      ? pagesTruncated(request.format, numPages, totalPages)
      : undefined
    const events = result.pages.pipe(
      Stream.mapError(fromDocumentError),
      // Redaction runs before the writer: what it masks never reaches the markdown, pages or blocks.
      Stream.mapEffect((page) =>
        redaction.redactPage(page).pipe(
          Effect.flatMap((redacted: Page) =>
            Effect.map(writer.push(redacted), (written): PageEvent => {
              const diagnostics = [...(redacted.diagnostics ?? []), ...(cut !== undefined && redacted.pageNumber === numPages ? [cut] : [])]
              return {
                ...written,
                source: redacted,
                diagnostics: diagnostics.map((d) => (d.page === undefined ? { ...d, page: redacted.pageNumber } : d))
              }
            })),
          Effect.mapError(fromStageError)
        )
      )
    )
    return { info: result.info, events, writer }
  })
