/**
 * The readers this package ships, in-process: PDF first (with the context's page stages, OCR
 * engine and page workers), then the office formats (with the context's LibreOffice).
 * `ReadersLive` is the layer; `ReaderResources` the pools it reads with (page worker threads,
 * LibreOffice slots), configured through `Config` and released with their layer;
 * `buildDefaultReaders` builds the same readers with the default stages, for a reader process.
 */
import { DocumentReaders, type Layout, OcrEngine, type ReadingOrder } from "@strata/core"
import { LibreOffice, makeOfficeReaders } from "@strata/office"
import { HeuristicLayout, HeuristicReadingOrder, HeuristicTables, LearnedLayout, makePdfReader, PageWorkers } from "@strata/pdf"
import { Config, Effect, Layer, Option } from "effect"

/** Every format reader, PDF (with the context's stages, OCR engine and page workers) first. */
export const ReadersLive: Layer.Layer<DocumentReaders, never, Layout | ReadingOrder | LibreOffice> = Layer.effect(
  DocumentReaders,
  Effect.gen(function*() {
    const pdf = yield* makePdfReader
    const ocr = Option.getOrUndefined(yield* Effect.serviceOption(OcrEngine))
    const libreOffice = yield* LibreOffice
    return DocumentReaders.make([pdf, ...makeOfficeReaders({ ocr, libreOffice })])
  })
)

/**
 * What the readers read with: PDF page worker threads (`STRATA_PDF_WORKERS`) and LibreOffice
 * (`STRATA_SOFFICE`, `STRATA_SOFFICE_CONCURRENCY`). Workers are stopped and LibreOffice's
 * profiles removed when the layer is released.
 */
export const ReaderResources: Layer.Layer<PageWorkers | LibreOffice> = Layer.mergeAll(PageWorkers.layer, LibreOffice.layer)

/**
 * `STRATA_PDF_LAYOUT`: `heuristic` (the default) or `learned` (the heuristic, then models/layout's
 * block classifier over its blocks with onnxruntime-node: packages/pdf LearnedLayout.ts). Off by
 * default until it is at least as good as the heuristic on real documents (bench/results/layout.md).
 */
export const pdfLayoutConfig: Effect.Effect<"heuristic" | "learned"> = Config.Literals(["heuristic", "learned"], "STRATA_PDF_LAYOUT").pipe(
  Config.withDefault("heuristic" as const),
  Effect.orElseSucceed(() => "heuristic" as const)
)

/** The default page stages: the layout `STRATA_PDF_LAYOUT` names (with the heuristic tables) and heuristic reading order. */
export const DefaultPageStages: Layer.Layer<Layout | ReadingOrder> = Layer.mergeAll(
  Layer.unwrap(Effect.map(pdfLayoutConfig, (choice) => (choice === "learned" ? Layer.orDie(LearnedLayout) : HeuristicLayout))).pipe(
    Layer.provide(HeuristicTables)
  ),
  HeuristicReadingOrder
)

/**
 * The readers with the default stages and the given OCR engine (absent: pages are never OCR'd),
 * reading with the context's `ReaderResources` (a reader process builds them once, for its life).
 */
export const buildDefaultReaders = (ocr: OcrEngine["Service"] | undefined): Effect.Effect<DocumentReaders["Service"], never, PageWorkers | LibreOffice> => {
  const readers = Effect.gen(function*() {
    return yield* DocumentReaders
  }).pipe(Effect.provide(ReadersLive.pipe(Layer.provide(DefaultPageStages))))
  return ocr === undefined ? readers : readers.pipe(Effect.provideService(OcrEngine, ocr))
}

/** The formats the default readers read (for the reader pool, which must answer `supports` without a process). */
export const defaultFormats: ReadonlySet<string> = new Set(["pdf", ...makeOfficeReaders().flatMap((reader) => reader.formats)])
