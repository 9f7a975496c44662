/**
 * Content routing and format projection, shared by scrape and parse: decides what the bytes are
 * (HTML, JSON, text or one of the document formats), runs the matching stages and projects the
 * result onto the formats the request asked for.
 */
import { Effect, Stream } from "effect"
import { STATUS_CODES } from "node:http"
import { DocumentReaders, type DocumentFormat } from "./DocumentReader.ts"
import type { Diagnostic } from "./Document.ts"
import { fromStageError, runDocumentStream } from "./DocumentRun.ts"
import { escapeHtml } from "./markdown/HtmlEscape.ts"
import { Redaction } from "./stages/Redaction.ts"
import type { OutputBlockPage, OutputPage } from "./MarkdownWriter.ts"
import { decodeBody } from "./fetch/index.ts"
import { processHtml } from "./html/index.ts"
import { markdownLinks, markdownToHtml } from "./MarkdownHtml.ts"
import { scrapeError, UnsupportedFileType, type ScrapeError } from "./ScrapeError.ts"
import { detectFormat } from "./TypeDetection.ts"
import { type CommonOptions, defaultPdfParser, type DocumentMetadata, type FormatType, hasFormat, type PdfParser, pdfParser, type ScrapeData } from "./contract/index.ts"
import type { Types } from "effect"

/** `data` while a stage fills it in. */
type DataBuilder = Types.Mutable<ScrapeData>

/** The decoded options of a scrape request or parse upload that shape the content (both have these). */
export type ContentOptions = CommonOptions

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

type Kind = "html" | "json" | "text" | DocumentFormat

const wants = (options: ContentOptions, type: FormatType): boolean => hasFormat(options, type)

/** The last path segment of a URL, for extension-based detection. */
const fileNameOf = (url: string): string | undefined => {
  try {
    const path = new URL(url).pathname
    const last = path.slice(path.lastIndexOf("/") + 1)
    return last.length > 0 ? decodeURIComponent(last) : undefined
  } catch {
    return undefined
  }
}

const classify = (input: ContentInput): Kind | undefined => {
  const format = detectFormat({
    bytes: input.bytes,
    fileName: input.fileName ?? fileNameOf(input.url),
    contentType: input.contentType
  })
  if (format !== undefined) return format
  if (input.upload) return undefined
  const type = input.contentType ?? ""
  if (type === "" || type === "text/html" || type === "application/xhtml+xml") return "html"
  if (type.startsWith("text/")) return "text"
  return undefined
}

const baseMetadata = (input: ContentInput, contentType: string | undefined): DocumentMetadata => ({
  sourceURL: input.sourceURL,
  url: input.url,
  statusCode: input.statusCode,
  contentType: input.contentTypeHeader ?? contentType ?? input.contentType ?? "application/octet-stream",
  error: input.statusCode >= 400 ? `${input.statusCode} ${STATUS_CODES[input.statusCode] ?? "Error"}` : null
})

/**
 * The parser settings a document is read with. A PDF takes the `pdf` parser (none for
 * `parsers: []`: it is then returned as Base64). Other documents take the same settings (mode,
 * pages per page/slide/sheet, blocks, page markers, maxPages), since `parsers` is where a client
 * says how files are handled, and fall back to the defaults when it names none.
 */
const documentParser = (kind: DocumentFormat, options: ContentOptions): PdfParser | undefined => {
  const pdf = pdfParser(options)
  return kind === "pdf" ? pdf : pdf ?? defaultPdfParser
}

export const renderContent = (
  input: ContentInput,
  options: ContentOptions,
  deadline: number
): Effect.Effect<ScrapeData, ScrapeError, DocumentReaders> =>
  Effect.gen(function*() {
    const kind = classify(input)
    const data: DataBuilder = {}
    if (kind === undefined) {
      return yield* Effect.fail(scrapeError(new UnsupportedFileType({
        message: `Unsupported file type${input.contentType ? ` (${input.contentType})` : ""}: the service reads HTML, JSON, text and the document formats .pdf .docx .doc .docm .odt .ods .odp .rtf .xlsx .xls .xlsm .xlsb .pptx .ppt .pptm .epub .csv`
      })))
    }
    if (wants(options, "rawBase64")) data.rawBase64 = Buffer.from(input.bytes).toString("base64")

    if (kind === "html" || kind === "json" || kind === "text") {
      const { text } = decodeBody(input.bytes, input.contentTypeHeader)
      if (wants(options, "rawHtml")) data.rawHtml = text
      if (kind === "html") {
        const result = processHtml(text, {
          url: input.url,
          onlyMainContent: options.onlyMainContent,
          includeTags: options.includeTags,
          excludeTags: options.excludeTags,
          removeBase64Images: options.removeBase64Images,
          formats: { markdown: wants(options, "markdown"), html: wants(options, "html"), links: wants(options, "links") }
        })
        // Redaction runs before anything is written out: the markdown and the HTML of the same cleaned tree.
        const redaction = yield* Redaction
        if (result.markdown !== undefined) data.markdown = yield* redaction.redactText(result.markdown).pipe(Effect.mapError(fromStageError))
        if (result.html !== undefined) data.html = yield* redaction.redactText(result.html).pipe(Effect.mapError(fromStageError))
        if (result.links !== undefined) data.links = result.links
        if (result.warnings !== undefined && result.warnings.length > 0) data.warning = result.warnings.join("; ")
        data.metadata = { ...result.metadata, ...baseMetadata(input, input.contentType ?? "text/html"), creditsUsed: 1 }
        return data
      }
      let markdown = text
      if (kind === "json") {
        let pretty = text.trim()
        try {
          pretty = JSON.stringify(JSON.parse(text), null, 2)
        } catch {
          // Served as JSON but not valid JSON: keep the text as it came.
        }
        markdown = "```json\n" + pretty + "\n```"
      }
      if (wants(options, "markdown")) data.markdown = markdown
      if (wants(options, "html")) data.html = `<pre>${escapeHtml(text)}</pre>`
      if (wants(options, "links")) data.links = []
      data.metadata = { ...baseMetadata(input, input.contentType), creditsUsed: 1 }
      return data
    }

    // A document format.
    const parser = documentParser(kind, options)
    if (parser === undefined) {
      // `parsers: []`: the PDF comes back as Base64 for a flat credit.
      data.rawBase64 = Buffer.from(input.bytes).toString("base64")
      data.metadata = { ...baseMetadata(input, "application/pdf"), creditsUsed: 1 }
      return data
    }
    const stream = yield* documentEvents(input, kind, options, parser, deadline, data, false)
    const pages: Array<OutputPage> = []
    const blocks: Array<OutputBlockPage> = []
    let done: DataBuilder = data
    yield* Stream.runForEach(stream, (event) =>
      Effect.sync(() => {
        if (event.type === "page") {
          if (parser.pages && event.page !== undefined) pages.push(event.page)
          if (parser.blocks && event.blocks !== undefined) blocks.push(event.blocks)
        } else done = { ...event.data }
      }))
    if (parser.pages) done.pages = pages
    if (parser.blocks) done.blocks = blocks
    return done
  })

/** What a streaming client receives: one event per page, then the rest of `data`. */
export type ContentEvent =
  | { readonly type: "page"; readonly pageNumber: number; readonly chunk: string; readonly page?: OutputPage; readonly blocks?: OutputBlockPage }
  | { readonly type: "done"; readonly data: ScrapeData }

/**
 * The document path as a stream of page events followed by `done`. With `streaming` on, `done`
 * leaves out what the page events already carried (markdown, pages, blocks), so memory stays
 * bounded by one page plus the markdown written so far.
 */
const documentEvents = (
  input: ContentInput,
  kind: DocumentFormat,
  options: ContentOptions,
  parser: PdfParser,
  deadline: number,
  data: DataBuilder,
  streaming: boolean
) =>
  Effect.gen(function*() {
    const { info, events, writer } = yield* runDocumentStream(
      {
        bytes: input.bytes,
        format: kind,
        fileName: input.fileName ?? fileNameOf(input.url),
        options: { deadline, mode: parser.mode, maxPages: parser.maxPages }
      },
      parser.pageMarkers
    )
    const diagnostics: Array<Diagnostic> = []
    let count = 0
    const pageEvents = events.pipe(Stream.map((event): ContentEvent => {
      count++
      diagnostics.push(...event.diagnostics)
      return {
        type: "page",
        pageNumber: event.page.pageNumber,
        chunk: event.chunk,
        ...(streaming || parser.pages ? { page: event.page } : {}),
        ...(streaming || parser.blocks ? { blocks: event.blockPage } : {})
      }
    }))
    const finish = Effect.sync((): ContentEvent => {
      const markdown = writer.markdown
      if (wants(options, "markdown") && !streaming) data.markdown = markdown
      if (wants(options, "html")) data.html = markdownToHtml(markdown)
      if (wants(options, "links")) data.links = markdownLinks(markdown)
      const warnings = diagnostics.filter((d) => d.severity === "warning")
      if (warnings.length > 0) {
        data.warning = warnings.map((d) => (d.page !== undefined ? `page ${d.page}: ${d.message}` : d.message)).join("; ")
      }
      const numPages = info.numPages ?? count
      data.metadata = {
        ...info.metadata,
        ...baseMetadata(input, input.contentType ?? mimeOf(kind)),
        numPages,
        ...(info.totalPages !== undefined ? { totalPages: info.totalPages } : {}),
        creditsUsed: kind === "pdf" ? Math.max(1, numPages) : 1
      }
      return { type: "done", data }
    })
    return Stream.concat(pageEvents, Stream.fromEffect(finish))
  })

/** `renderContent` as a stream: documents page by page, everything else as a single `done`. */
export const renderContentStream = (
  input: ContentInput,
  options: ContentOptions,
  deadline: number
): Stream.Stream<ContentEvent, ScrapeError, DocumentReaders> =>
  Stream.unwrap(Effect.gen(function*() {
    const kind = classify(input)
    const parser = kind === undefined ? undefined : documentParser(kind, options)
    if (kind !== undefined && kind !== "html" && kind !== "json" && kind !== "text" && parser !== undefined) {
      const data: DataBuilder = {}
      if (wants(options, "rawBase64")) data.rawBase64 = Buffer.from(input.bytes).toString("base64")
      return yield* documentEvents(input, kind, options, parser, deadline, data, true)
    }
    const data = yield* renderContent(input, options, deadline)
    return Stream.succeed<ContentEvent>({ type: "done", data })
  }))

const mimeOf = (format: DocumentFormat): string => MIME[format] ?? "application/octet-stream"

const MIME: Partial<Record<DocumentFormat, string>> = {
  pdf: "application/pdf",
  docx: "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
  docm: "application/vnd.ms-word.document.macroEnabled.12",
  doc: "application/msword",
  odt: "application/vnd.oasis.opendocument.text",
  ods: "application/vnd.oasis.opendocument.spreadsheet",
  odp: "application/vnd.oasis.opendocument.presentation",
  rtf: "application/rtf",
  xlsx: "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
  xlsm: "application/vnd.ms-excel.sheet.macroEnabled.12",
  xlsb: "application/vnd.ms-excel.sheet.binary.macroEnabled.12",
  xls: "application/vnd.ms-excel",
  pptx: "application/vnd.openxmlformats-officedocument.presentationml.presentation",
  pptm: "application/vnd.ms-powerpoint.presentation.macroEnabled.12",
  ppt: "application/vnd.ms-powerpoint",
  epub: "application/epub+zip",
  csv: "text/csv",
  html: "text/html",
  json: "application/json",
  text: "text/plain"
}
