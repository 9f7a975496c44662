/**
 * The scrape and parse pipelines, composed per request from its options.
 *
 * scrape: fetch (SSRF-checked), or render in the browser when an option needs it or the page
 * needs JavaScript (`EngineChoice.ts`) -> detect the content's type -> HTML stages, or JSON/text,
 * or a document reader -> project the requested formats. parse: the same stages on uploaded
 * bytes. The whole request runs under its `timeout` budget, navigation, waits and actions included.
 *
 * With a `Store` in the context the pipeline is built in, scrapes go through the page cache
 * (`store/PageCache.ts`): a fitting stored page is served without fetching, its formats computed
 * again (or taken from `store/RenderedCopies.ts` when the same page was rendered the same way);
 * without one there is no cache, and `lockdown` and `minAge` are refused. The store also keeps
 * `changeTracking`'s history (`store/ChangeHistory.ts`); without one that format is refused too.
 *
 * The pipeline takes requests already decoded: the edge that receives untrusted input (the HTTP
 * routes, `createStrata`) runs `validateScrapeRequest` / `validateParseOptions` once, which
 * decode the contract's JSON with its defaults and refuse the options this server does not
 * implement, before anything streams.
 */
import { Context, Effect, Layer, Option, Stream } from "effect"
import { randomUUID } from "node:crypto"
import { decodeParseOptions, decodeScrapeRequest, type ParseOptions, type ScrapeData, type ScrapeRequest } from "./contract/index.ts"
import { DocumentReaders } from "./DocumentReader.ts"
import { BrowserEngine, decodeBody, Fetcher, type FetchResponse, needsJavaScript } from "./fetch/index.ts"
import { browserOptions, browserRequestOf, engineOutputs, noBrowser, pageInput, wantsBrowser, withEngine } from "./EngineChoice.ts"
import { renderContent, renderContentStream, type ContentEvent } from "./ContentStage.ts"
import type { ContentInput } from "./Routing.ts"
import { checkParseSupported, checkScrapeSupported } from "./Support.ts"
import { NotSupported, scrapeError, TimedOut, type ScrapeError } from "./ScrapeError.ts"
import { cacheOnly } from "./store/CacheRules.ts"
import { makeChangeHistory, trackingFormat } from "./store/ChangeHistory.ts"
import { type Fetched, makePageCache, type Served } from "./store/PageCache.ts"
import { makeRenderedCopies, renderedKey, reusable } from "./store/RenderedCopies.ts"
import { Store } from "./store/Store.ts"
import { queuedDocument } from "./queue/QueuedDocument.ts"
import { FormatProjection, contractProjection, deriveJsonOffline } from "./FormatProjection.ts"
import { CosmeticFilter } from "./html/CosmeticFilter.ts"
import { Markdown, defaultMarkdown } from "./stages/Markdown.ts"
import { Redaction } from "./stages/Redaction.ts"
import { contentSniffing, TypeDetection } from "./TypeDetection.ts"

export interface UploadedFile {
  readonly bytes: Uint8Array
  readonly fileName: string
  readonly contentType?: string | undefined
}

export class Pipeline extends Context.Service<Pipeline, {
  /** Scrapes a request from `validateScrapeRequest`. */
  readonly scrape: (request: ScrapeRequest) => Effect.Effect<ScrapeData, ScrapeError>
  /**
   * Refuses a request this pipeline cannot serve whatever its page: options that need a browser
   * it lacks, and the cache-only options and `changeTracking` without a store. `scrape` and
   * `scrapeStream` refuse the same; a caller that must answer before a stream starts (the HTTP
   * adapter's NDJSON, whose status is sent with the first line) asks here first.
   */
  readonly admit: (request: ScrapeRequest) => Effect.Effect<void, ScrapeError>
  /** Parses an upload with options from `validateParseOptions`. */
  readonly parse: (file: UploadedFile, options: ParseOptions) => Effect.Effect<ScrapeData, ScrapeError>
  /** `scrape` as a stream: documents page by page, then the rest of `data` (see `ContentEvent`). */
  readonly scrapeStream: (request: ScrapeRequest) => Stream.Stream<ContentEvent, ScrapeError>
  /** `parse` as a stream: documents page by page, then the rest of `data`. */
  readonly parseStream: (file: UploadedFile, options: ParseOptions) => Stream.Stream<ContentEvent, ScrapeError>
}>()("@strata/core/Pipeline") {
  static readonly layer = Layer.effect(
    Pipeline,
    Effect.gen(function*() {
      const fetcher = yield* Fetcher
      const browser = yield* Effect.serviceOption(BrowserEngine)
      const artifacts = yield* engineOutputs
      const store = yield* Effect.serviceOption(Store)
      const cache = Option.isSome(store) ? Option.some(yield* makePageCache(store.value)) : Option.none()
      const copies = makeRenderedCopies()
      const readers = yield* DocumentReaders
      const redaction = yield* Redaction
      const cosmetic = yield* CosmeticFilter
      // Stages with a default: the one in the context the pipeline is built in, else the default.
      const detection = Option.getOrElse(yield* Effect.serviceOption(TypeDetection), () => contentSniffing)
      const projection = Option.getOrElse(yield* Effect.serviceOption(FormatProjection), () => contractProjection)
      const markdown = Option.getOrElse(yield* Effect.serviceOption(Markdown), () => defaultMarkdown)
      const history = Option.map(store, (store) =>
        makeChangeHistory(store, projection.deriveJson ?? ((input, wanted) => Effect.sync(() => deriveJsonOffline(input, wanted)))))
      const context = Context.make(DocumentReaders, readers).pipe(
        Context.add(Redaction, redaction),
        Context.add(CosmeticFilter, cosmetic),
        Context.add(TypeDetection, detection),
        Context.add(FormatProjection, projection),
        Context.add(Markdown, markdown)
      )
      /** The stages a request's content runs with, taken from the context the pipeline was built in. */
      const stages = <A, E>(effect: Effect.Effect<A, E, DocumentReaders | TypeDetection | FormatProjection | Markdown>) =>
        Effect.provideContext(effect, context)
      const streamStages = <A, E>(stream: Stream.Stream<A, E, DocumentReaders | TypeDetection | FormatProjection | Markdown>) =>
        Stream.provideContext(stream, context)

      const withBudget = <A>(timeoutMs: number, work: Effect.Effect<A, ScrapeError>) =>
        Effect.timeoutOrElse(work, {
          duration: timeoutMs,
          orElse: () => Effect.fail(timedOut(timeoutMs))
        })

      /** Fetches the request's URL (SSRF-checked, under the deadline) as content for the content stage. */
      const fetchContent = (request: ScrapeRequest, deadline: number): Effect.Effect<Fetched, ScrapeError> =>
        fetcher.fetch(request.url, { headers: request.headers, location: request.location, deadline, skipTlsVerification: request.skipTlsVerification }).pipe(
          Effect.map((response): Fetched => ({ input: fetchedInput(request.url, response), headers: response.headers, engine: "fetch", keep: true }))
        )

      /**
       * The page's content and the engine that served it: the browser when an option needs it,
       * else the fetch engine, then the browser when the fetched HTML needs JavaScript (if the
       * browser then fails other than by the deadline, the page as fetched is still an answer,
       * with a warning, and is not cached).
       */
      const fetchPage = (request: ScrapeRequest, deadline: number): Effect.Effect<Fetched, ScrapeError> =>
        Effect.gen(function*() {
          // Options that need a browser this pipeline lacks were refused by `admit`.
          if (Option.isNone(browser)) return yield* fetchContent(request, deadline)
          // A document (PDF, JSON, an image...) is not a page. The browser hands back its bytes as they
          // came when it has them (an attachment it downloaded, a PDF it showed in its viewer): those
          // are read, not fetched a second time. Otherwise the fetch engine reads the bytes themselves.
          const render = Effect.flatMap(browser.value.render(browserRequestOf(request), deadline), (page): Effect.Effect<Fetched, ScrapeError> =>
            isHtmlType(page.contentType) || page.downloaded === true
              ? Effect.succeed({ input: pageInput(request.url, page), headers: page.headers, engine: "browser", page, keep: true })
              : fetchContent(request, deadline))
          if (wantsBrowser(request)) return yield* render
          const fetched = yield* fetchContent(request, deadline)
          const input = fetched.input
          if (!isHtmlPage(input) || needsJavaScript(decodeBody(input.bytes, input.contentTypeHeader).text) === undefined) {
            return fetched
          }
          return yield* Effect.catch(render, (error) =>
            error.reason._tag === "TimedOut"
              ? Effect.fail(error)
              : Effect.succeed<Fetched>({ ...fetched, keep: false, warning: browserFailedWarning(error) }))
        })

      /** Why this pipeline cannot serve the request, whatever the page (before the cache: a stored page does not make up for a missing browser). */
      const refusal = (request: ScrapeRequest): ScrapeError | undefined => {
        if (Option.isNone(cache) && cacheOnly(request)) return noCache(request)
        if (Option.isNone(cache) && trackingFormat(request.formats) !== undefined) return noHistory
        const needed = browserOptions(request)
        return Option.isNone(browser) && needed.length > 0 ? noBrowser(needed) : undefined
      }

      const admit = (request: ScrapeRequest): Effect.Effect<void, ScrapeError> => {
        const refused = refusal(request)
        return refused === undefined ? Effect.void : Effect.fail(refused)
      }

      /** The page from the cache when there is one and it may serve the request, else fetched (then cached). */
      const acquire = (request: ScrapeRequest, deadline: number): Effect.Effect<Served, ScrapeError> =>
        Effect.andThen(admit(request), () => Option.isSome(cache) ? cache.value.serve(request, fetchPage(request, deadline)) : fetchPage(request, deadline))

      /** `data` with `changeTracking` when the request asks for it (`markdown`: the page's, when `data` lacks it). */
      const tracked = (data: ScrapeData, served: Served, request: ScrapeRequest, deadline: number, markdown?: string) => {
        if (Option.isNone(history) || trackingFormat(request.formats) === undefined) return Effect.succeed(data)
        // Only json mode reads the HTML (its structured data, offline).
        const json = trackingFormat(request.formats)?.modes.includes("json") === true
        const html = json && isHtmlPage(served.input) ? decodeBody(served.input.bytes, served.input.contentTypeHeader).text : undefined
        return history.value.track({ request, data, markdown: data.markdown ?? markdown ?? "", html, deadline })
      }

      /** A stream under the request's whole budget (not a per-element timeout). */
      const streamWithBudget = <A>(timeoutMs: number, stream: Stream.Stream<A, ScrapeError>) =>
        stream.pipe(Stream.interruptWhen(Effect.sleep(timeoutMs).pipe(Effect.andThen(Effect.fail(timedOut(timeoutMs))))))

      const scrapeStream = (request: ScrapeRequest): Stream.Stream<ContentEvent, ScrapeError> =>
        Stream.unwrap(Effect.sync(() => {
          const deadline = Date.now() + request.timeout
          const events = Stream.unwrap(Effect.map(acquire(request, deadline), (acquired) => {
            // A document's markdown streams page by page: changeTracking compares all of it.
            const chunks: Array<string> = []
            return contentStream(acquired.input, request, deadline).pipe(
              Stream.mapEffect((event) =>
                event.type === "done"
                  ? Effect.flatMap(
                    withEngine(event.data, acquired, request, artifacts),
                    (data) => Effect.map(tracked(withServed(data, acquired), acquired, request, deadline, chunks.join("")), (data): ContentEvent => ({ type: "done", data }))
                  )
                  : Effect.sync(() => {
                    chunks.push(event.chunk)
                    return event
                  })
              )
            )
          }))
          return streamWithBudget(request.timeout, streamStages(events).pipe(Stream.map(finishEvent)))
        }))

      const parseStream = (file: UploadedFile, options: ParseOptions): Stream.Stream<ContentEvent, ScrapeError> =>
        Stream.unwrap(Effect.sync(() => {
          const deadline = Date.now() + options.timeout
          return streamWithBudget(
            options.timeout,
            streamStages(renderContentStream(uploadInput(file), options, deadline)).pipe(Stream.map(finishEvent))
          )
        }))

      const scrape = Effect.fn("Pipeline.scrape")(function*(request: ScrapeRequest) {
        const deadline = Date.now() + request.timeout
        const work = Effect.flatMap(acquire(request, deadline), (acquired) =>
          Effect.flatMap(rendered(acquired, request, deadline), (data) =>
            Effect.flatMap(withEngine(data, acquired, request, artifacts), (data) => tracked(withServed(data, acquired), acquired, request, deadline))))
        const data = yield* withBudget(request.timeout, stages(work))
        return finish(data)
      })

      /** The content stages' `data`: read by a fleet's worker (a long document on a replica, QueuedDocument.ts), or here. */
      const content = (input: ContentInput, request: ScrapeRequest, deadline: number) =>
        Effect.flatMap(queuedDocument(input, request, deadline), (queued) =>
          Option.isSome(queued) ? Effect.succeed(queued.value) : renderContent(input, request, deadline))

      /** The content stages' `data` for a page: kept from an earlier hit on the same stored page and options, or computed. */
      const rendered = (served: Served, request: ScrapeRequest, deadline: number) => {
        if (served.entry === undefined || !reusable(request)) return content(served.input, request, deadline)
        const key = renderedKey(served.entry, request)
        const kept = copies.get(key)
        if (kept !== undefined) return Effect.succeed(kept)
        return Effect.tap(content(served.input, request, deadline), (data) => Effect.sync(() => copies.set(key, data)))
      }

      /** `content` as a stream: a worker's answer comes whole, as one `done`; a document read here, page by page. */
      const contentStream = (input: ContentInput, request: ScrapeRequest, deadline: number) =>
        Stream.unwrap(Effect.map(queuedDocument(input, request, deadline), (queued) =>
          Option.isSome(queued)
            ? Stream.succeed<ContentEvent>({ type: "done", data: queued.value })
            : renderContentStream(input, request, deadline)))

      const parse = Effect.fn("Pipeline.parse")(function*(file: UploadedFile, options: ParseOptions) {
        const deadline = Date.now() + options.timeout
        const data = yield* withBudget(options.timeout, stages(renderContent(uploadInput(file), options, deadline)))
        return finish(data)
      })

      return Pipeline.of({ scrape, admit, parse, scrapeStream, parseStream })
    })
  )
}

/** Decodes a scrape request (the contract's JSON) and refuses the options this server does not implement. */
export const validateScrapeRequest = (raw: unknown): Effect.Effect<ScrapeRequest, ScrapeError> =>
  Effect.tap(decodeScrapeRequest(raw), checkScrapeSupported)

/** Decodes parse options (absent: every default) and refuses the ones this server does not implement. */
export const validateParseOptions = (raw: unknown): Effect.Effect<ParseOptions, ScrapeError> =>
  Effect.tap(decodeParseOptions(raw ?? {}), checkParseSupported)

const timedOut = (timeoutMs: number) =>
  scrapeError(new TimedOut({ message: `The request did not finish within its timeout of ${timeoutMs} ms` }))

const uploadInput = (file: UploadedFile): ContentInput => ({
  bytes: file.bytes,
  contentType: file.contentType,
  contentTypeHeader: file.contentType,
  url: file.fileName,
  sourceURL: file.fileName,
  statusCode: 200,
  fileName: file.fileName,
  upload: true
})

/** The 400 for a cache-only request on a pipeline without a store. */
const noCache = (request: ScrapeRequest): ScrapeError => {
  const option = request.lockdown ? "lockdown" : "minAge"
  return scrapeError(new NotSupported({
    option,
    message: `The option \`${option}\` is not supported by this server: it answers from the cache, and this server keeps none (no state store)`
  }))
}

/** The 400 for `changeTracking` on a pipeline without a store: there is nowhere to keep the history. */
const noHistory: ScrapeError = scrapeError(new NotSupported({
  option: "formats: changeTracking",
  message: "The changeTracking format is not supported by this pipeline: it compares with the page's last scrape, and this pipeline keeps none (no state store; createStrata needs `cache`)"
}))

/** The warning for a page that looked like it needs JavaScript and that the browser then failed to render. */
const browserFailedWarning = (error: ScrapeError): string =>
  `This page may need JavaScript to show its content, and the browser engine failed to render it (${error.message}); the content is the page as fetched, without its scripts run.`

/** `data` with what serving the page added: the cache's `cacheState` and `cachedAt`, and a warning. */
const withServed = (data: ScrapeData, served: Served): ScrapeData => {
  const warning = served.warning === undefined ? data.warning : [data.warning, served.warning].filter((w) => w !== undefined && w !== null && w !== "").join("; ")
  const cache = served.cache === undefined
    ? {}
    : { cacheState: served.cache.state, ...(served.cache.cachedAt === undefined ? {} : { cachedAt: served.cache.cachedAt }) }
  return { ...data, ...(warning === undefined || warning === null ? {} : { warning }), metadata: { ...data.metadata, ...cache } }
}

/** HTML by its declared type (or none declared). */
const isHtmlType = (contentType: string | undefined): boolean =>
  contentType === undefined || contentType === "text/html" || contentType === "application/xhtml+xml"

/** What the "needs JavaScript" rules read. */
const isHtmlPage = (input: ContentInput): boolean => isHtmlType(input.contentType)

/** The content of a fetched page, for the content stage. */
const fetchedInput = (sourceURL: string, response: FetchResponse): ContentInput => ({
  bytes: response.body,
  contentType: response.contentType,
  contentTypeHeader: response.headers["content-type"],
  url: response.url,
  sourceURL,
  statusCode: response.status
})

const finishEvent = (event: ContentEvent): ContentEvent => (event.type === "done" ? { type: "done", data: finish(event.data) } : event)

/** Stamps what every response's metadata carries. */
const finish = (data: ScrapeData): ScrapeData => ({ ...data, metadata: { ...data.metadata, scrapeId: randomUUID() } })
