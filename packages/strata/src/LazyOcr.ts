/**
 * The OCR engine the server ships: a pool of OCR workers (by default the cascade: our line model,
 * and tesseract for the pages it is unsure of; `STRATA_OCR_ENGINE` picks another), started on the
 * first page that needs OCR rather than at start-up, so servers and CLI runs that never OCR pay
 * nothing for it (no threads, no model, no traineddata loaded). The pool lives in the layer's
 * scope: closing the runtime stops its threads, and so does half a minute without a page (the
 * next page starts it again, in about a second).
 */
import { OcrEngine, type OcrError } from "@strata/core"
import { Config, Effect, Exit, FiberSet, Layer, Option, Scope, Semaphore } from "effect"
import { availableParallelism } from "node:os"

export type OcrEngineName = "tesseract" | "paddle" | "lines" | "cascade"

/** Seconds per page on one core (bench/ocr), until the pool has measured its own. */
const SECONDS_PER_PAGE = { tesseract: 2, paddle: 6, lines: 1, cascade: 1 } as const

/**
 * An engine name as written in `STRATA_OCR_ENGINE`: `tesseract`, `paddle`, `lines` (our own line
 * model), else `cascade` (our line model, and tesseract for the pages it is unsure of).
 */
export const ocrEngineFromEnv = (value: string | undefined): OcrEngineName => {
  const name = value?.trim().toLowerCase()
  return name === "tesseract" || name === "paddle" || name === "lines" ? name : "cascade"
}

/** `STRATA_OCR_ENGINE`, read through `Config` (the cascade when unset). */
export const ocrEngineConfig: Effect.Effect<OcrEngineName> = Config.String("STRATA_OCR_ENGINE").pipe(
  Config.withDefault("cascade"),
  Config.map(ocrEngineFromEnv),
  Effect.orElseSucceed((): OcrEngineName => "cascade")
)

/**
 * `STRATA_TESSDATA_DIR`, read through `Config`: a tessdata folder whose `eng.traineddata`
 * tesseract reads (unset: the npm package's best_int; Debian's tesseract-ocr-eng folder for tessdata_fast).
 */
export const tessdataDirConfig: Effect.Effect<string | undefined> = Config.String("STRATA_TESSDATA_DIR").pipe(
  Config.option,
  Config.map(Option.getOrUndefined),
  Effect.orElseSucceed(() => undefined)
)

/** A started pool is stopped after this long without a page (its threads' wasm heaps with it). */
export const OCR_IDLE_MS = 30_000

/**
 * A pool of `engine` workers that starts on its first `recognize` and stops again after `idleMs`
 * without work: tesseract's threads hold about 550 MB that the process otherwise keeps for good.
 */
export const makeLazyOcr = (engine: OcrEngineName, idleMs: number = OCR_IDLE_MS): Effect.Effect<OcrEngine["Service"], never, Scope.Scope> =>
  Effect.gen(function*() {
    const outer = yield* Effect.scope
    const tessdataDir = engine === "tesseract" || engine === "cascade" ? yield* tessdataDirConfig : undefined
    const lock = yield* Semaphore.make(1)
    let current: { readonly pool: OcrEngine["Service"]; readonly scope: Scope.Closeable } | undefined
    let running = 0
    let idleTimer: ReturnType<typeof setTimeout> | undefined
    /** Stops the pool (the next page starts a new one). */
    const stop = Effect.suspend(() => {
      const stopping = current
      current = undefined
      return stopping === undefined ? Effect.void : Scope.close(stopping.scope, Exit.void)
    })
    yield* Effect.addFinalizer(() => Effect.andThen(Effect.sync(() => clearTimeout(idleTimer)), stop))
    const runFork = yield* FiberSet.makeRuntime<never, void, never>()
    const start: Effect.Effect<OcrEngine["Service"], OcrError> = lock.withPermits(1)(Effect.suspend(() => {
      if (current !== undefined) return Effect.succeed(current.pool)
      return Effect.gen(function*() {
        const scope = yield* Scope.fork(outer)
        const { OcrPool } = yield* Effect.promise(() => import("@strata/ocr"))
        const choice = engine === "tesseract"
          ? { _tag: engine, tessdataDir }
          : engine === "cascade"
          ? { _tag: engine, second: { tessdataDir } }
          : { _tag: engine }
        const pool = yield* OcrPool.make({ engine: choice }).pipe(
          Scope.provide(scope),
          Effect.tapError(() => Scope.close(scope, Exit.void))
        )
        current = { pool, scope }
        return pool
      })
    }))
    const settle = Effect.sync(() => {
      running--
      if (running > 0) return
      clearTimeout(idleTimer)
      idleTimer = setTimeout(() => {
        if (running === 0) runFork(lock.withPermits(1)(Effect.suspend(() => (running === 0 ? stop : Effect.void))))
      }, idleMs)
      idleTimer.unref()
    })
    const concurrency = Math.max(1, availableParallelism())
    return OcrEngine.of({
      name: engine,
      preferredDpi: engine === "paddle" ? 200 : 300,
      concurrency,
      estimateSeconds: (pages) => current?.pool.estimateSeconds(pages) ?? (pages * SECONDS_PER_PAGE[engine]) / concurrency,
      recognize: (image, options) =>
        Effect.sync(() => {
          running++
          clearTimeout(idleTimer)
        }).pipe(
          Effect.andThen(start),
          Effect.flatMap((pool) => pool.recognize(image, options)),
          Effect.ensuring(settle)
        )
    })
  })

/** The lazy pool of the engine named by `STRATA_OCR_ENGINE`. */
export const makeLazyOcrPool: Effect.Effect<OcrEngine["Service"], never, Scope.Scope> = Effect.flatMap(ocrEngineConfig, makeLazyOcr)

/** The `OcrEngine` layer: the named engine, or the one `STRATA_OCR_ENGINE` names. */
export const lazyOcrLayer = (engine?: OcrEngineName): Layer.Layer<OcrEngine> =>
  Layer.effect(OcrEngine, engine === undefined ? makeLazyOcrPool : makeLazyOcr(engine))
