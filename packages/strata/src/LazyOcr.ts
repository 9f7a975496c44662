/**
 * The OCR engine the server ships: a pool of tesseract workers (the default engine, chosen by
 * bench/ocr: same accuracy as PaddleOCR on our pages at a third of the CPU and a tenth of the
 * memory), started on the first page that needs OCR rather than at start-up, so servers and CLI
 * runs that never OCR pay nothing for it (no threads, no wasm, no traineddata loaded).
 * `STRATA_OCR_ENGINE=paddle` selects PaddleOCR (ONNX) instead.
 */
import { OcrEngine, type OcrError } from "@strata/core"
import { Effect, Scope } from "effect"
import { availableParallelism } from "node:os"

/** Seconds per page on one core (bench/ocr), until the pool has measured its own. */
const SECONDS_PER_PAGE = { tesseract: 2, paddle: 6 } as const

/** The engine named by `STRATA_OCR_ENGINE` (tesseract, the default, or paddle). */
export const ocrEngineFromEnv = (value = process.env.STRATA_OCR_ENGINE): "tesseract" | "paddle" =>
  value?.trim().toLowerCase() === "paddle" ? "paddle" : "tesseract"

export const makeLazyOcrPool: Effect.Effect<OcrEngine["Service"], never, Scope.Scope> = Effect.gen(function*() {
  const scope = yield* Effect.scope
  const engine = ocrEngineFromEnv()
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
