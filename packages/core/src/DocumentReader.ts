/**
 * The contract between the pipeline and the format readers (pdf, office, epub, ...).
 *
 * A reader turns the bytes of one document into `DocumentInfo` plus a `Stream` of `Page`s in
 * order, so that long documents are processed in bounded memory. Readers live in their own
 * packages (`@strata/pdf`, `@strata/office`) and are registered into `DocumentReaders`; core never
 * depends on them.
 */
import { Context, Effect, Layer, Schema, type Scope, Stream } from "effect"
import type { DocumentInfo, Page } from "./Document.ts"

/** Every format the service reads. The twenty upload extensions map onto these, plus web types. */
export const DocumentFormat = Schema.Literals([
  "html",
  "pdf",
  "docx",
  "docm",
  "doc",
  "odt",
  "ods",
  "odp",
  "rtf",
  "xlsx",
  "xlsm",
  "xlsb",
  "xls",
  "pptx",
  "pptm",
  "ppt",
  "epub",
  "csv",
  "json",
  "text"
])
export type DocumentFormat = typeof DocumentFormat.Type

export const ParseMode = Schema.Literals(["fast", "auto", "ocr"])
export type ParseMode = typeof ParseMode.Type

export interface ReadOptions {
  /** Caps the pages (or slides, or sheets) produced. */
  readonly maxPages?: number | undefined
  /** `fast`: embedded text only; `auto`: OCR where needed; `ocr`: OCR every page. */
  readonly mode: ParseMode
  /** Epoch milliseconds by which the whole request must be done. */
  readonly deadline: number
}

export interface ReadRequest {
  readonly bytes: Uint8Array
  readonly format: DocumentFormat
  /** The upload's file name or the URL's last path segment, when known. */
  readonly fileName?: string | undefined
  readonly options: ReadOptions
}

export interface ReadResult {
  readonly info: DocumentInfo
  readonly pages: Stream.Stream<Page, DocumentError>
}

// ---- errors ------------------------------------------------------------------------------------

export class Encrypted extends Schema.TaggedError<Encrypted>()("Encrypted", {
  message: Schema.String
}) {}
export class Corrupt extends Schema.TaggedError<Corrupt>()("Corrupt", {
  message: Schema.String
}) {}
export class UnsupportedFormat extends Schema.TaggedError<UnsupportedFormat>()("UnsupportedFormat", {
  message: Schema.String
}) {}
export class MissingComponent extends Schema.TaggedError<MissingComponent>()("MissingComponent", {
  component: Schema.String,
  message: Schema.String
}) {}
export class LimitExceeded extends Schema.TaggedError<LimitExceeded>()("LimitExceeded", {
  message: Schema.String
}) {}
export class Timeout extends Schema.TaggedError<Timeout>()("Timeout", {
  message: Schema.String
}) {}
/** Every reader is busy and the queue of documents waiting for one is full: try again shortly. */
export class Busy extends Schema.TaggedError<Busy>()("Busy", {
  message: Schema.String,
  /** Seconds after which a retry is likely to find room. */
  retryAfterSeconds: Schema.Number
}) {}

/** The one error a reader fails with; `reason` says why, `page` where, when it applies. */
export class DocumentError extends Schema.TaggedError<DocumentError>()("DocumentError", {
  format: Schema.String,
  reason: Schema.Union([Encrypted, Corrupt, UnsupportedFormat, MissingComponent, LimitExceeded, Timeout, Busy]),
  page: Schema.optional(Schema.Number)
}) {
  override get message(): string {
    return `${this.format}: ${this.reason.message}`
  }
  get isRetryable(): boolean {
    return this.reason._tag === "Timeout" || this.reason._tag === "Busy"
  }
}

// ---- the registry ------------------------------------------------------------------------------

/** The error for a format no installed reader reads. */
export const noReaderFor = (format: DocumentFormat): DocumentError =>
  new DocumentError({ format, reason: new UnsupportedFormat({ message: `no reader for ${format} is installed on this server` }) })

/** One format reader, as a package exports it. */
export interface Reader {
  readonly name: string
  readonly formats: ReadonlyArray<DocumentFormat>
  /** Resources the document holds (an open file, a reader process) live until the scope closes. */
  readonly read: (request: ReadRequest) => Effect.Effect<ReadResult, DocumentError, Scope.Scope>
}

/** How loaded a pool of reader processes is, for metrics (ReaderPool.ts). */
export interface ReaderLoad {
  /** Processes the pool may run. */
  readonly size: number
  /** Processes reading a document now. */
  readonly busy: number
  /** Processes started and waiting for a document. */
  readonly idle: number
  /** Documents waiting for a process. */
  readonly queued: number
}

export class DocumentReaders extends Context.Service<DocumentReaders, {
  readonly supports: (format: DocumentFormat) => boolean
  /** Read in a scope that lasts as long as its pages are consumed; closing it frees the document. */
  readonly read: (request: ReadRequest) => Effect.Effect<ReadResult, DocumentError, Scope.Scope>
  /** The pool's load now, where the readers run in a pool of processes. */
  readonly load?: (() => ReaderLoad) | undefined
}>()("@strata/core/DocumentReaders") {
  /** A registry over the given readers; the first one that names a format reads it. */
  static readonly make = (readers: ReadonlyArray<Reader>) => {
    const byFormat = new Map<DocumentFormat, Reader>()
    for (const reader of readers) for (const format of reader.formats) if (!byFormat.has(format)) byFormat.set(format, reader)
    return DocumentReaders.of({
      supports: (format) => byFormat.has(format),
      read: (request) => {
        const reader = byFormat.get(request.format)
        return reader === undefined ? Effect.fail(noReaderFor(request.format)) : reader.read(request)
      }
    })
  }

  static readonly layer = (readers: ReadonlyArray<Reader>) => Layer.succeed(DocumentReaders, DocumentReaders.make(readers))
}
