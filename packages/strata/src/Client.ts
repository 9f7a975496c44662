/**
 * `createStrata(options)`: the library as a Node developer uses it. One handle owns one runtime
 * (the fetch engine, the readers, the OCR pool); `scrape`, `parse` and `parseStream` run the
 * same pipeline as the HTTP server, in-process, take the contract's options (typed from its
 * Schemas, and validated once here as the server validates a request body) plus an
 * `AbortSignal`, and resolve to the response's `data`. `close()` (or
 * `await using`) stops the pools. Errors reject as `ScrapeError`, whose `reason._tag` says why.
 *
 * Screenshots and PDFs come back as signed links by default, as from the server; `artifacts:
 * "inline"` makes them `data:` URLs, and `getArtifact(link)` reads a link's bytes in-process.
 * `cache` gives the handle the server's page cache (off by default; see `CacheOption`).
 */
import {
  type ArtifactBytes,
  type ArtifactError,
  ArtifactStore,
  type ContentEvent,
  fileStoreConfig,
  type ParseOptionsBody,
  Pipeline,
  type ScrapeData,
  type ScrapeError,
  type ScrapeRequestBody,
  type Store,
  validateParseOptions,
  validateScrapeRequest
} from "@strata/core"
import { layerConfig } from "@strata/store"
import { Effect, Layer, ManagedRuntime, Stream } from "effect"
import { layer, type StrataOptions } from "./Live.ts"

/** The response's `data` object (markdown, html, links, metadata, pages, blocks, ...). */
export type { ScrapeData }

/** What every call accepts besides the contract's options. */
export interface CallOptions {
  /** Aborting rejects the call with an `AbortError` and stops its work (fetch, reading, queued OCR). */
  readonly signal?: AbortSignal | undefined
}

/** The contract's scrape options (`formats`, `onlyMainContent`, `parsers`, `timeout`, ...). */
export type ScrapeOptions = Omit<typeof ScrapeRequestBody.Encoded, "url" | "catalog" | "alexandria"> & CallOptions

/** The contract's parse options (`formats`, `parsers`, `timeout`, ...). */
export type ParseOptions = typeof ParseOptionsBody.Encoded & CallOptions

/** A document to parse: its bytes and its file name (the extension is a hint; the bytes are sniffed first). */
export interface DocumentInput {
  readonly bytes: Uint8Array
  readonly fileName: string
  readonly contentType?: string | undefined
}

/** One event of `parseStream`: a page as soon as it is read, then the rest of `data`. */
export type ParseEvent =
  | {
    readonly type: "page"
    readonly pageNumber: number
    /** What the page appended to the document markdown (page marker included). */
    readonly chunk: string
    /** The page's own markdown and its `data.blocks` entry. */
    readonly page?: { readonly pageNumber: number; readonly markdown: string } | undefined
    readonly blocks?: NonNullable<ScrapeData["blocks"]>[number] | undefined
  }
  | { readonly type: "done"; readonly data: ScrapeData }

/**
 * What screenshots and PDFs (the `screenshot` format, the screenshot and pdf actions) come back as.
 * - `"url"` (default): files under `STRATA_DATA_DIR/artifacts` (default `./data`, created on the
 *   first screenshot), answered as signed links that expire after 24 h. The links point at
 *   `STRATA_PUBLIC_URL` (default `http://HOST:PORT`, where `strata serve` listens), so a server
 *   on the same data folder and secret (`STRATA_ARTIFACT_SECRET`, or the generated one kept in
 *   the folder) serves them; `getArtifact(link)` reads them without one.
 * - `"inline"`: `data:` URLs carrying the bytes; nothing is written to disk.
 * - an `ArtifactStore` layer of your own (`ArtifactStore.layer({ dataDir, publicUrl, ... })`, or
 *   one that uploads to object storage).
 */
export type ArtifactsOption = "url" | "inline" | Layer.Layer<ArtifactStore, unknown>

/**
 * Whether scrapes go through the page cache (`maxAge`, `minAge`, `lockdown`, `storeInCache`,
 * `metadata.cacheState`), as on the server. The same store keeps `changeTracking`'s history (the
 * default team's).
 * - `false` (default): no cache. Every scrape fetches; `lockdown`, `minAge` and the
 *   `changeTracking` format are refused (400).
 *   A library call does not write a database into the working folder unasked, nor answer a page
 *   that changed with a copy up to two days old (the contract's default `maxAge`).
 * - `true`: the store the environment names, the server's own: Postgres when
 *   STRATA_DATABASE_URL is set, else SQLite in `STRATA_DATA_DIR/strata.db` (default `./data`),
 *   bounded by STRATA_CACHE_MAX_BYTES. A handle and a `strata serve` on the same data folder or
 *   database share the cache.
 * - a `Store` layer of your own (`layerSqlite({ filename, cacheMaxBytes })` or `layerPg(...)` from
 *   `@strata/store`).
 */
export type CacheOption = boolean | Layer.Layer<Store, unknown>

export interface CreateStrataOptions extends StrataOptions {
  readonly artifacts?: ArtifactsOption | undefined
  readonly cache?: CacheOption | undefined
}

export interface StrataClient extends AsyncDisposable {
  scrape(url: string, options?: ScrapeOptions): Promise<ScrapeData>
  parse(document: DocumentInput, options?: ParseOptions): Promise<ScrapeData>
  /** `parse`, page by page: a 2,000-page PDF never sits whole in memory. */
  parseStream(document: DocumentInput, options?: ParseOptions): AsyncIterable<ParseEvent>
  /**
   * The bytes and content type behind a screenshot or PDF link this handle returned (signature
   * and expiry checked, no server needed), or behind a `data:` URL. Rejects with an
   * `ArtifactError` (`reason._tag`: `BadSignature`, `LinkExpired`, `ArtifactMissing`, `MalformedLink`).
   */
  getArtifact(url: string, options?: CallOptions): Promise<ArtifactBytes>
  /** Stops the pools and workers; calls after it reject. */
  close(): Promise<void>
}

const withoutSignal = <T extends CallOptions>(options: T | undefined): Omit<T, "signal"> => {
  if (options === undefined) return {} as Omit<T, "signal">
  const { signal: _signal, ...rest } = options
  return rest
}

const toEvent = (event: ContentEvent): ParseEvent =>
  event.type === "page"
    ? { type: "page", pageNumber: event.pageNumber, chunk: event.chunk, page: event.page, blocks: event.blocks }
    : { type: "done", data: event.data }

const artifactsLayer = (option: ArtifactsOption | undefined): Layer.Layer<ArtifactStore, unknown> => {
  if (option === "inline") return ArtifactStore.layerInline
  if (option === undefined || option === "url") {
    return Layer.unwrap(Effect.map(fileStoreConfig, (config) => ArtifactStore.layer({ ...config, lazy: true })))
  }
  return option
}

const cacheLayer = (option: CacheOption | undefined): Layer.Layer<never, unknown> | Layer.Layer<Store, unknown> => {
  if (option === undefined || option === false) return Layer.empty
  return option === true ? layerConfig : option
}

/** Creates a Strata handle. Options: OCR engine, fetch policy, layers that replace stages, what artifacts come back as, and the cache. */
export const createStrata = (options: CreateStrataOptions = {}): StrataClient => {
  // The pipeline and this handle share one store: the links `scrape` returns are the ones `getArtifact` reads.
  const runtime = ManagedRuntime.make(
    Layer.provideMerge(layer(options), Layer.merge(artifactsLayer(options.artifacts), cacheLayer(options.cache)))
  )
  let closed = false
  const ensureOpen = () => {
    if (closed) throw new Error("this Strata handle is closed")
  }
  const run = async <A>(
    effect: Effect.Effect<A, ScrapeError | ArtifactError, Pipeline | ArtifactStore>,
    signal: AbortSignal | undefined
  ): Promise<A> => {
    ensureOpen()
    try {
      return await runtime.runPromise(effect, signal === undefined ? undefined : { signal })
    } catch (error) {
      // The runtime rejects an interrupted run with a generic error: an abort says it was one.
      throw signal?.aborted === true ? abortError(signal) : error
    }
  }
  const close = async () => {
    if (closed) return
    closed = true
    await runtime.dispose()
  }
  return {
    scrape: (url, callOptions) =>
      run(
        Effect.flatMap(validateScrapeRequest({ ...withoutSignal(callOptions), url }), (request) => Pipeline.use((pipeline) => pipeline.scrape(request))),
        callOptions?.signal
      ),
    parse: (document, callOptions) =>
      run(
        Effect.flatMap(validateParseOptions(withoutSignal(callOptions)), (options) => Pipeline.use((pipeline) => pipeline.parse(document, options))),
        callOptions?.signal
      ),
    parseStream: (document, callOptions) => ({
      [Symbol.asyncIterator]: () => {
        ensureOpen()
        const signal = callOptions?.signal
        let stream = Stream.unwrap(Effect.flatMap(
          validateParseOptions(withoutSignal(callOptions)),
          (options) => Pipeline.useSync((pipeline) => pipeline.parseStream(document, options))
        ))
        if (signal !== undefined) {
          const aborted = Effect.callback<never, Error>((resume) => {
            const abort = () => resume(Effect.fail(abortError(signal)))
            if (signal.aborted) abort()
            else signal.addEventListener("abort", abort, { once: true })
            return Effect.sync(() => signal.removeEventListener("abort", abort))
          })
          stream = stream.pipe(Stream.interruptWhen(aborted)) as typeof stream
        }
        const events = Stream.map(stream, toEvent)
        const ready = runtime.context().then((context) => Stream.toAsyncIterableWith(events, context)[Symbol.asyncIterator]())
        return {
          next: () => ready.then((it) => it.next()),
          return: (value?: unknown) =>
            ready.then((it) => (it.return !== undefined ? it.return(value) : { done: true as const, value: undefined }))
        }
      }
    }),
    getArtifact: (url, callOptions) => run(ArtifactStore.use((store) => store.read(url)), callOptions?.signal),
    close,
    [Symbol.asyncDispose]: close
  }
}

const abortError = (signal: AbortSignal): Error => {
  const reason: unknown = signal.reason
  if (reason instanceof Error) return reason
  const error = new Error("The operation was aborted")
  error.name = "AbortError"
  return error
}
