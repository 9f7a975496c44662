/**
 * The pipeline with every engine this package ships, composed from layers: the fetch engine, the
 * PDF reader (Layout, Tables, ReadingOrder and OCR taken from the context), the office readers,
 * and the Markdown stage that writes what they read.
 * `layer(options)` is what the HTTP server, the CLI and `createStrata` build; any stage can be
 * replaced by passing its layer in `options.stages`.
 */
import {
  type DocumentFormat,
  type DocumentReaders,
  Fetcher,
  contractProjection,
  FormatProjection,
  type LanguageModel,
  type Layout,
  type Markdown,
  OpenAiCompatible,
  type OcrEngine,
  Pipeline,
  ReaderPool,
  type ReadingOrder,
  type Redactor,
  Redaction,
  type Tables
} from "@strata/core"
import * as Browser from "@strata/browser"
import { HeuristicLayout, HeuristicReadingOrder, HeuristicTables } from "@strata/pdf"
import { Config, Effect, Layer, Option } from "effect"
import { availableParallelism, totalmem } from "node:os"
import { lazyOcrLayer, type OcrEngineName } from "./LazyOcr.ts"
import { DefaultPageStages, defaultFormats, ReaderResources, ReadersLive } from "./Readers.ts"

export { ReaderResources, ReadersLive } from "./Readers.ts"

/** Layers that replace the default page stages. Each is optional; what is left out keeps its default. */
export interface StageLayers {
  /** Page elements to typed blocks; default the heuristic layout (it may use the `Tables` stage). */
  readonly layout?: Layer.Layer<Layout, unknown, Tables> | undefined
  readonly tables?: Layer.Layer<Tables, unknown> | undefined
  readonly readingOrder?: Layer.Layer<ReadingOrder, unknown> | undefined
  /** An OCR engine of your own (any `OcrEngine` layer). */
  readonly ocr?: Layer.Layer<OcrEngine, unknown> | undefined
  /** A redaction step run on every page and web page before anything is written out. */
  readonly redaction?: Redactor | undefined
  /** How blocks are written as markdown (`Markdown`, e.g. `Layer.succeed(Markdown, rewriting(...))`); runs in this process. */
  readonly markdown?: Layer.Layer<Markdown, unknown> | undefined
}

export interface StrataOptions {
  /**
   * Which OCR engine reads scans: `cascade` (the default: our line model, and tesseract for the
   * pages it reads with little confidence), `tesseract`, `paddle`, `lines` (our line model alone),
   * or `false` to never OCR. Default: `STRATA_OCR_ENGINE`, else `cascade`.
   */
  readonly ocr?: OcrEngineName | false | undefined
  /**
   * The fetch engine's address policy. Default: `STRATA_ALLOW_PRIVATE_URLS` and
   * `STRATA_ALLOWED_ORIGINS`; when given, the environment is not read.
   */
  readonly fetch?: {
    /** Let scrapes reach loopback and private addresses (local use, tests). Default false. */
    readonly allowPrivateUrls?: boolean | undefined
    /** Origins exempt from the private-address rule. */
    readonly allowedOrigins?: ReadonlyArray<string> | undefined
  } | undefined
  readonly stages?: StageLayers | undefined
  /**
   * The browser engine, for pages that need JavaScript and for actions, screenshots, `branding`,
   * `waitFor`, `mobile`, `location` and `profile`. Default: on, with `STRATA_CHROMIUM_PATH` and
   * `STRATA_BROWSER_CONCURRENCY`, unless `STRATA_BROWSER` is `off`; it follows the fetch
   * engine's address policy. `false`: no browser (those options are refused with a 400).
   */
  readonly browser?: Omit<Browser.BrowserOptions, "policy"> | false | undefined
  /**
   * Where documents are read. Default: in reader processes (`STRATA_WORKERS`,
   * `STRATA_WORKER_QUEUE`, `STRATA_WORKER_MEMORY_MB`), so that no document can crash or freeze
   * the calling process. `false`: in this process. Documents are read in this process whenever
   * `stages` replaces `layout`, `tables` or `readingOrder` (a layer cannot cross into another
   * process); a custom OCR engine, redaction step or markdown writer still runs here, with reading isolated.
   */
  readonly isolation?: IsolationOptions | false | undefined
  /**
   * The language model the derived formats (summary, answer, highlights, json) ask. Default: an
   * OpenAI-compatible endpoint from `STRATA_LLM_BASE_URL`, `STRATA_LLM_API_KEY` and
   * `STRATA_LLM_MODEL` when the base URL is set, else none. A `LanguageModel` layer of your own
   * (e.g. `OpenAiCompatible.layer({...})`), or `false`: none. Without one, each format takes its
   * offline path. A `FormatProjection` layer provided to `layer(options)` takes precedence.
   */
  readonly languageModel?: Layer.Layer<LanguageModel, unknown> | false | undefined
}

export interface IsolationOptions {
  /** Reader processes reading at once; 0 reads in this process. Default: cores − 1, at least 1. */
  readonly workers?: number | undefined
  /** Documents that may wait for a reader; one more gets a `Busy`/503. Default 64. */
  readonly queue?: number | undefined
  /** Memory one reader process may use, in MB. Default: total memory / (2 × workers), 1,024 to 2,048. */
  readonly memoryMb?: number | undefined
  /** Stop a reader process idle this long (ms). Default 60,000. */
  readonly idleMs?: number | undefined
}

const defaultWorkers = () => Math.max(1, availableParallelism() - 1)
const defaultMemoryMb = (workers: number) =>
  Math.min(2048, Math.max(1024, Math.floor(totalmem() / 2 ** 20 / (2 * Math.max(1, workers)))))

/** `STRATA_WORKERS`, `STRATA_WORKER_QUEUE` and `STRATA_WORKER_MEMORY_MB`, with their defaults. */
export const isolationConfig: Effect.Effect<Required<Omit<IsolationOptions, "idleMs">>> = Effect.gen(function*() {
  const workers = yield* Config.Int("STRATA_WORKERS").pipe(Config.withDefault(defaultWorkers()))
  const queue = yield* Config.Int("STRATA_WORKER_QUEUE").pipe(Config.withDefault(64))
  const memoryMb = yield* Config.Int("STRATA_WORKER_MEMORY_MB").pipe(Config.withDefault(defaultMemoryMb(workers)))
  return { workers: Math.max(0, workers), queue: Math.max(0, queue), memoryMb: Math.max(256, memoryMb) }
}).pipe(Effect.orElseSucceed(() => ({ workers: defaultWorkers(), queue: 64, memoryMb: defaultMemoryMb(defaultWorkers()) })))

/** The module reader processes run: `.ts` from source, `.js` in the built package. */
const readerEntry = new URL(import.meta.url.endsWith(".ts") ? "./ReaderProcess.ts" : "./ReaderProcess.js", import.meta.url)

/** Documents read in a pool of reader processes, sized from the options or the environment. */
const isolatedReaders = (options: IsolationOptions): Layer.Layer<DocumentReaders> =>
  Layer.unwrap(Effect.map(isolationConfig, (config) => {
    const workers = options.workers ?? config.workers
    // No reader processes: the default readers in this process.
    if (workers === 0) return ReadersLive.pipe(Layer.provide(Layer.mergeAll(DefaultPageStages, ReaderResources)))
    return ReaderPool.layer({
      entry: readerEntry,
      supports: (format: DocumentFormat) => defaultFormats.has(format),
      size: workers,
      queue: options.queue ?? config.queue,
      memoryMb: options.memoryMb ?? (options.workers !== undefined ? defaultMemoryMb(workers) : config.memoryMb),
      idleMs: options.idleMs
    })
  }))

/** The browser engine the options ask for, with the same address policy as the fetch engine. */
const browserLayer = (options: StrataOptions) => {
  if (options.browser === false) return Layer.empty
  const policy = options.fetch === undefined
    ? undefined
    : { allowPrivate: options.fetch.allowPrivateUrls ?? false, allowedOrigins: options.fetch.allowedOrigins ?? [] }
  const engine = Browser.layer({ ...options.browser, policy })
  if (options.browser !== undefined) return engine
  return Layer.unwrap(Effect.map(
    Config.String("STRATA_BROWSER").pipe(Config.withDefault("on"), Effect.orElseSucceed(() => "on")),
    (setting) => (/^(off|0|false|no)$/i.test(setting.trim()) ? Layer.empty : engine)
  ))
}

/**
 * The derived formats' projection with the model the options name, unless the caller provides a
 * `FormatProjection`. The model stays in the output, as the browser does: the HTTP server's
 * interact route says whether one is configured when it refuses a `prompt`.
 */
const projectionLayer = (languageModel: StrataOptions["languageModel"]): Layer.Layer<never, unknown> =>
  Layer.unwrap(Effect.gen(function*() {
    if (Option.isSome(yield* Effect.serviceOption(FormatProjection)) || languageModel === false) return Layer.empty
    if (languageModel !== undefined) return FormatProjection.layer.pipe(Layer.provideMerge(languageModel))
    const configured = yield* OpenAiCompatible.optionsFromConfig
    return Option.isNone(configured)
      ? Layer.succeed(FormatProjection, contractProjection)
      : FormatProjection.layer.pipe(Layer.provideMerge(OpenAiCompatible.layer(configured.value)))
  })) as Layer.Layer<never, unknown>

/**
 * The `Pipeline` service with the given options and stages; with the browser on, its
 * `BrowserEngine` and `Interactions` (interact sessions) come in the layer's output too, and so
 * do the `DocumentReaders` and the `LanguageModel` when one is configured.
 */
export const layer = (options: StrataOptions = {}): Layer.Layer<Pipeline, unknown> => {
  const stages = options.stages ?? {}
  const tables = stages.tables ?? HeuristicTables
  const layout = (stages.layout ?? HeuristicLayout).pipe(Layer.provide(tables))
  const ocr = stages.ocr ?? (options.ocr === false ? Layer.empty : lazyOcrLayer(options.ocr))
  const customPageStages = stages.layout !== undefined || stages.tables !== undefined || stages.readingOrder !== undefined
  const readers = options.isolation === false || customPageStages
    ? ReadersLive.pipe(Layer.provide(Layer.mergeAll(layout, stages.readingOrder ?? HeuristicReadingOrder, ocr, ReaderResources)))
    : isolatedReaders(options.isolation ?? {}).pipe(Layer.provide(ocr))
  const fetch = options.fetch === undefined
    ? Fetcher.layer
    : Fetcher.layerWith({ allowPrivate: options.fetch.allowPrivateUrls ?? false, allowedOrigins: options.fetch.allowedOrigins ?? [] })
  const redaction = stages.redaction === undefined ? Layer.empty : Layer.succeed(Redaction, stages.redaction)
  const markdown = stages.markdown ?? Layer.empty
  const projection = projectionLayer(options.languageModel)
  // blockAds' filter lists, built once on first use, for the browser and for fetched pages' cosmetic rules.
  const lists = Browser.AdBlockLists.layer
  const cosmetic = Browser.cosmeticLayer.pipe(Layer.provide(lists))
  // The browser's layer stays in the output: with it come the interact sessions (`Interactions`) the
  // HTTP server serves. So does the language model, when one is configured, and the readers (the
  // server's /metrics reads their pool's load).
  return Pipeline.layer.pipe(
    Layer.provide(Layer.mergeAll(fetch, redaction, markdown, cosmetic)),
    Layer.provideMerge(readers),
    Layer.provideMerge(projection),
    Layer.provideMerge(browserLayer(options).pipe(Layer.provide(lists)))
  )
}

/** The `Pipeline` service with the defaults (configuration from the environment). */
export const StrataLive: Layer.Layer<Pipeline, unknown> = layer()
