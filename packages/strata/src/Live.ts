/**
 * The pipeline with every engine this package ships, composed from layers: the fetch engine, the
 * PDF reader (Layout, Tables, ReadingOrder and OCR taken from the context) and the office readers.
 * `layer(options)` is what the HTTP server, the CLI and `createStrata` build; any stage can be
 * replaced by passing its layer in `options.stages`.
 */
import { DocumentReaders, Fetcher, type Layout, OcrEngine, Pipeline, type ReadingOrder, type Redactor, Redaction, type Tables } from "@strata/core"
import { makeOfficeReaders } from "@strata/office"
import { HeuristicLayout, HeuristicReadingOrder, HeuristicTables, makePdfReader } from "@strata/pdf"
import { Effect, Layer, Option } from "effect"
import { lazyOcrLayer, type OcrEngineName } from "./LazyOcr.ts"

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
}

export interface StrataOptions {
  /** Which OCR engine reads scans: `tesseract` (default), `paddle`, or `false` to never OCR. Default: `STRATA_OCR_ENGINE`. */
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
}

/** Every format reader, PDF (with the context's stages and OCR engine) first. */
export const ReadersLive: Layer.Layer<DocumentReaders, never, Layout | ReadingOrder> = Layer.effect(
  DocumentReaders,
  Effect.gen(function*() {
    const pdf = yield* makePdfReader
    const ocr = Option.getOrUndefined(yield* Effect.serviceOption(OcrEngine))
    return DocumentReaders.make([pdf, ...makeOfficeReaders({ ocr })])
  })
)

/** The `Pipeline` service with the given options and stages. */
export const layer = (options: StrataOptions = {}): Layer.Layer<Pipeline, unknown> => {
  const stages = options.stages ?? {}
  const tables = stages.tables ?? HeuristicTables
  const layout = (stages.layout ?? HeuristicLayout).pipe(Layer.provide(tables))
  const ocr = stages.ocr ?? (options.ocr === false ? Layer.empty : lazyOcrLayer(options.ocr))
  const readers = ReadersLive.pipe(Layer.provide(Layer.mergeAll(layout, stages.readingOrder ?? HeuristicReadingOrder, ocr)))
  const fetch = options.fetch === undefined
    ? Fetcher.layer
    : Fetcher.layerWith({ allowPrivate: options.fetch.allowPrivateUrls ?? false, allowedOrigins: options.fetch.allowedOrigins ?? [] })
  const redaction = stages.redaction === undefined ? Layer.empty : Layer.succeed(Redaction, stages.redaction)
  return Pipeline.layer.pipe(Layer.provide(Layer.mergeAll(fetch, readers, redaction)))
}

/** The `Pipeline` service with the defaults (configuration from the environment). */
export const StrataLive: Layer.Layer<Pipeline, unknown> = layer()
