/**
 * The readers this package ships, in-process: PDF first (with the context's page stages and OCR
 * engine), then the office formats. `ReadersLive` is the layer; `buildDefaultReaders` builds the
 * same readers with the default stages, for a reader process.
 */
import { DocumentReaders, type Layout, OcrEngine, type ReadingOrder } from "@strata/core"
import { makeOfficeReaders } from "@strata/office"
import { HeuristicLayout, HeuristicReadingOrder, HeuristicTables, makePdfReader } from "@strata/pdf"
import { Effect, Layer, Option } from "effect"

/** Every format reader, PDF (with the context's stages and OCR engine) first. */
export const ReadersLive: Layer.Layer<DocumentReaders, never, Layout | ReadingOrder> = Layer.effect(
  DocumentReaders,
  Effect.gen(function*() {
    const pdf = yield* makePdfReader
    const ocr = Option.getOrUndefined(yield* Effect.serviceOption(OcrEngine))
    return DocumentReaders.make([pdf, ...makeOfficeReaders({ ocr })])
  })
)

/** The default page stages: heuristic layout (with its tables) and reading order. */
export const DefaultPageStages: Layer.Layer<Layout | ReadingOrder> = Layer.mergeAll(
  HeuristicLayout.pipe(Layer.provide(HeuristicTables)),
  HeuristicReadingOrder
)

/** The readers with the default stages and the given OCR engine (absent: pages are never OCR'd). */
export const buildDefaultReaders = (ocr: OcrEngine["Service"] | undefined): Effect.Effect<DocumentReaders["Service"]> => {
  const readers = Effect.gen(function*() {
    return yield* DocumentReaders
  }).pipe(Effect.provide(ReadersLive.pipe(Layer.provide(DefaultPageStages))))
  return ocr === undefined ? readers : readers.pipe(Effect.provideService(OcrEngine, ocr))
}

/** The formats the default readers read (for the reader pool, which must answer `supports` without a process). */
export const defaultFormats: ReadonlySet<string> = new Set(["pdf", ...makeOfficeReaders().flatMap((reader) => reader.formats)])
