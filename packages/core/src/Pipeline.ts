/**
 * The scrape and parse pipelines, composed per request from its options.
 *
 * scrape: validate -> gate unsupported options -> fetch (SSRF-checked) -> detect the content's
 * type -> HTML stages, or JSON/text, or a document reader -> project the requested formats.
 * parse: validate -> detect the upload's type -> the same stages on the uploaded bytes.
 * The whole request runs under its `timeout` budget.
 */
import { Context, Effect, Layer } from "effect"
import { randomUUID } from "node:crypto"
import { decodeParseOptions, decodeScrapeRequest, type ParseOptions, type ScrapeRequest } from "./contract/index.ts"
import { DocumentReaders } from "./DocumentReader.ts"
import { Fetcher } from "./fetch/index.ts"
import { renderContent, type ContentInput } from "./ContentStage.ts"
import { checkParseSupported, checkScrapeSupported } from "./Support.ts"
import { scrapeError, TimedOut, type ScrapeError } from "./ScrapeError.ts"

/** The response's `data` object, as the pipeline builds it (the contract's `ScrapeData` Schema describes it). */
export type ResponseData = Record<string, unknown>

export interface UploadedFile {
  readonly bytes: Uint8Array
  readonly fileName: string
  readonly contentType?: string | undefined
}

export class Pipeline extends Context.Service<Pipeline, {
  readonly scrape: (request: unknown) => Effect.Effect<ResponseData, ScrapeError>
  readonly parse: (file: UploadedFile, options: unknown) => Effect.Effect<ResponseData, ScrapeError>
}>()("@strata/core/Pipeline") {
  static readonly layer = Layer.effect(
    Pipeline,
    Effect.gen(function*() {
      const fetcher = yield* Fetcher
      const readers = yield* DocumentReaders

      const withBudget = <A>(timeoutMs: number, work: Effect.Effect<A, ScrapeError>) =>
        Effect.timeoutOrElse(work, {
          duration: timeoutMs,
          orElse: () => Effect.fail(scrapeError(new TimedOut({ message: `The request did not finish within its timeout of ${timeoutMs} ms` })))
        })

      const scrapeUrl = Effect.fnUntraced(function*(request: ScrapeRequest, deadline: number) {
        const response = yield* fetcher.fetch(request.url, {
          headers: request.headers,
          deadline,
          skipTlsVerification: request.skipTlsVerification
        })
        const input: ContentInput = {
          bytes: response.body,
          contentType: response.contentType,
          contentTypeHeader: response.headers["content-type"],
          url: response.url,
          sourceURL: request.url,
          statusCode: response.status
        }
        return yield* renderContent(input, request, deadline)
      })

      const scrape = Effect.fn("Pipeline.scrape")(function*(raw: unknown) {
        const request = yield* decodeScrapeRequest(raw)
        yield* checkScrapeSupported(request)
        const deadline = Date.now() + request.timeout
        const data = yield* withBudget(request.timeout, scrapeUrl(request, deadline).pipe(Effect.provideService(DocumentReaders, readers)))
        return finish(data)
      })

      const parse = Effect.fn("Pipeline.parse")(function*(file: UploadedFile, rawOptions: unknown) {
        const options: ParseOptions = yield* decodeParseOptions(rawOptions ?? {})
        yield* checkParseSupported(options)
        const timeout = options.timeout
        const deadline = Date.now() + timeout
        const input: ContentInput = {
          bytes: file.bytes,
          contentType: file.contentType,
          contentTypeHeader: file.contentType,
          url: file.fileName,
          sourceURL: file.fileName,
          statusCode: 200,
          fileName: file.fileName,
          upload: true
        }
        const data = yield* withBudget(timeout, renderContent(input, options, deadline).pipe(Effect.provideService(DocumentReaders, readers)))
        return finish(data)
      })

      return Pipeline.of({ scrape, parse })
    })
  )
}

/** Stamps what every response's metadata carries. */
const finish = (data: ResponseData): ResponseData => {
  const metadata = (data.metadata ?? {}) as Record<string, unknown>
  return { ...data, metadata: { ...metadata, scrapeId: randomUUID() } }
}
