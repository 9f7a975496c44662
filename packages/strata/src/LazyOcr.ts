/**
 * The OCR engine the server ships: a pool of tesseract workers (the default engine, chosen by
 * bench/ocr: same accuracy as PaddleOCR on our pages at a third of the CPU and a tenth of the
 * memory), started on the first page that needs OCR rather than at start-up, so servers and CLI
 * runs that never OCR pay nothing for it (no threads, no wasm, no traineddata loaded). The pool
 * lives in the layer's scope: closing the runtime stops its threads.
 */
import { OcrEngine, type OcrError } from "@strata/core"
import { Config, Effect, Layer, Scope } from "effect"
import { availableParallelism } from "node:os"

export type OcrEngineName = "tesseract" | "paddle"

/** Seconds per page on one core (bench/ocr), until the pool has measured its own. */
const SECONDS_PER_PAGE = { tesseract: 2, paddle: 6 } as const

/** An engine name as written in `STRATA_OCR_ENGINE`: `paddle`, else tesseract. */
export const ocrEngineFromEnv = (value: string | undefined): OcrEngineName =>
  value?.trim().toLowerCase() === "paddle" ? "paddle" : "tesseract"

/** `STRATA_OCR_ENGINE`, read through `Config` (tesseract when unset). */
export const ocrEngineConfig: Effect.Effect<OcrEngineName> = Config.String("STRATA_OCR_ENGINE").pipe(
  Config.withDefault("tesseract"),
  Config.map(ocrEngineFromEnv),
  Effect.orElseSucceed((): OcrEngineName => "tesseract")
)

/** A pool of `engine` workers that starts on its first `recognize`. */
export const makeLazyOcr = (engine: OcrEngineName): Effect.Effect<OcrEngine["Service"], never, Scope.Scope> =>
  Effect.gen(function*() {
    const scope = yield* Effect.scope
    let started: OcrEngine["Service"] | undefined
    const start: Effect.Effect<OcrEngine["Service"], OcrError> = yield* Effect.cached(
      Effect.promise(() => import("@strata/ocr")).pipe(
        Effect.flatMap(({ OcrPool }) => OcrPool.make({ engine: { _tag: engine } })),
        Scope.provide(scope),
        Effect.tap((pool) => Effect.sync(() => { started = pool }))
      )
    )
    const concurrency = Math.max(1, availableParallelism())
    return OcrEngine.of({
      name: engine,
      preferredDpi: engine === "tesseract" ? 300 : 200,
      concurrency,
      estimateSeconds: (pages) => started?.estimateSeconds(pages) ?? (pages * SECONDS_PER_PAGE[engine]) / concurrency,
      recognize: (image, options) => Effect.flatMap(start, (pool) => pool.recognize(image, options))
    })
  })

/** The lazy pool of the engine named by `STRATA_OCR_ENGINE`. */
export const makeLazyOcrPool: Effect.Effect<OcrEngine["Service"], never, Scope.Scope> = Effect.flatMap(ocrEngineConfig, makeLazyOcr)

/** The `OcrEngine` layer: the named engine, or the one `STRATA_OCR_ENGINE` names. */
export const lazyOcrLayer = (engine?: OcrEngineName): Layer.Layer<OcrEngine> =>
  Layer.effect(OcrEngine, engine === undefined ? makeLazyOcrPool : makeLazyOcr(engine))
