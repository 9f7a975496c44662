/**
 * Routing: which path serves a piece of content. The `TypeDetection` stage says what the bytes
 * are; a web type goes to the HTML stages or is shown as JSON or text, a document format goes to
 * its reader with the parser settings the request gave, and a PDF under `parsers: []` comes back
 * as Base64. Content nobody reads is refused here, before any stage runs.
 */
import { Effect } from "effect"
import { type CommonOptions, defaultPdfParser, type PdfParser, pdfParser } from "./contract/index.ts"
import type { DocumentFormat } from "./DocumentReader.ts"
import { fromStageError } from "./DocumentRun.ts"
import { documentExtensions, formatOfMimeType } from "./MediaTypes.ts"
import { scrapeError, UnsupportedFileType, type ScrapeError } from "./ScrapeError.ts"
import { TypeDetection } from "./TypeDetection.ts"

export interface ContentInput {
  readonly bytes: Uint8Array
  /** Lower-case MIME essence, when declared. */
  readonly contentType: string | undefined
  /** The whole declared Content-Type (with its charset), when declared. */
  readonly contentTypeHeader: string | undefined
  /** The final URL (or the upload's file name). */
  readonly url: string
  /** The URL (or file name) as the client gave it. */
  readonly sourceURL: string
  readonly statusCode: number
  readonly fileName?: string | undefined
  /** True for /v2/parse uploads: web types (JSON, plain text) are not accepted there. */
  readonly upload?: boolean | undefined
}

/** The path that serves the content. */
export type Route =
  | { readonly _tag: "Html" }
  | { readonly _tag: "Text"; readonly json: boolean }
  | {
    readonly _tag: "Document"
    readonly format: DocumentFormat
    readonly parser: PdfParser
    /** The upload's name or the URL's last path segment, for the reader. */
    readonly fileName: string | undefined
  }
  /** A PDF under `parsers: []`. */
  | { readonly _tag: "Raw" }
  /** The URL is itself audio or video (or an HLS/DASH manifest) and the request asks for `audio` or `video` (`media/`). */
  | { readonly _tag: "Media" }

/** The last path segment of a URL, for extension-based detection (and the name a reader is given). */
export const fileNameOf = (url: string): string | undefined => {
  try {
    const path = new URL(url).pathname
    const last = path.slice(path.lastIndexOf("/") + 1)
    return last.length > 0 ? decodeURIComponent(last) : undefined
  } catch {
    return undefined
  }
}

/** What a web response's declared type makes it when its bytes say nothing (fetched content only). */
const byDeclaredType = (input: ContentInput): "html" | "text" | undefined => {
  if (input.upload) return undefined
  const type = input.contentType ?? ""
  if (type === "" || formatOfMimeType(type) === "html") return "html"
  if (type.startsWith("text/")) return "text"
  return undefined
}

/**
 * The parser settings a document is read with. A PDF takes the `pdf` parser (none for
 * `parsers: []`: it is then returned as Base64). Other documents take the same settings (mode,
 * pages per page/slide/sheet, blocks, page markers, maxPages), since `parsers` is where a client
 * says how files are handled, and the contract's defaults when it names none.
 */
const documentParser = (format: DocumentFormat, options: CommonOptions): PdfParser | undefined => {
  const pdf = pdfParser(options)
  return format === "pdf" ? pdf : pdf ?? defaultPdfParser
}

/** Audio, video and streaming manifests: what the `audio` and `video` formats read from the URL itself. */
export const isMediaType = (contentType: string | undefined): boolean =>
  contentType !== undefined &&
  (/^(audio|video)\//.test(contentType) || ["application/x-mpegurl", "application/vnd.apple.mpegurl", "application/dash+xml"].includes(contentType))

const unsupported = (input: ContentInput): ScrapeError =>
  scrapeError(new UnsupportedFileType({
    message: `Unsupported file type${input.contentType ? ` (${input.contentType})` : ""}: the service reads HTML, JSON, text and the document formats ${
      documentExtensions.map((ext) => `.${ext}`).join(" ")
    }`
  }))

/** Decides the path for the content, or refuses it as an unsupported type. */
export const route = (input: ContentInput, options: CommonOptions): Effect.Effect<Route, ScrapeError, TypeDetection> =>
  Effect.gen(function*() {
    const detection = yield* TypeDetection
    const fileName = input.fileName ?? fileNameOf(input.url)
    const detected = yield* detection.detect({ bytes: input.bytes, fileName, contentType: input.contentType }).pipe(
      Effect.mapError(fromStageError)
    )
    const format = detected ?? byDeclaredType(input)
    if (format === undefined && !input.upload && isMediaType(input.contentType) && options.formats.some((f) => f.type === "audio" || f.type === "video")) {
      return { _tag: "Media" } as const
    }
    if (format === undefined) return yield* Effect.fail(unsupported(input))
    if (format === "html") return { _tag: "Html" } as const
    if (format === "json" || format === "text") return { _tag: "Text", json: format === "json" } as const
    const parser = documentParser(format, options)
    return parser === undefined ? { _tag: "Raw" } as const : { _tag: "Document", format, parser, fileName } as const
  })
