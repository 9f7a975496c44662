/**
 * Two OCR engines in turn, the cheap one first: every page is read by `first` (our line engine,
 * a fraction of a second a page), and a page it reads with little confidence is read again by
 * `second` (tesseract, several seconds a page), whose reading is kept. So the usual page costs the
 * cheap read, and the pages the cheap model was not trained for (hands, tiny type, unusual
 * layouts) still get the stronger reader. The issue's rule for costly models: run them only
 * where they pay.
 *
 * A page goes to `second` when the character-weighted mean of `first`'s line confidences is
 * under `below`, or when `first` found no line on a page that has ink. `second` is started on the
 * first page that needs it, not before. A blank page stays with `first`: sending it on cost 1.02 CPU
 * s a blank A4 page against the line engine's 0.25 (tesseract alone: 0.63).
 */
import { Effect, Exit, Scope, Semaphore } from "effect"
import { OcrEngine } from "@strata/core"
import type { OcrError, OcrImage, OcrResult, RecognizeOptions } from "@strata/core"
import { meanConfidence } from "./Prepare.ts"
import { makeThroughput } from "./Throughput.ts"

export interface CascadeOptions {
  /**
   * Pages whose mean character confidence from the first engine is under this (0..1) are read
   * again by the second; default 0.97. Chosen on pages the benches do not score (seeds +500 of
   * bench/ocr's dense, sparse and handwriting pages, `conv-tiny`): printed pages at 200 and 300 dpi
   * read at 0.982-0.993, clean 150-dpi pages at 0.986-0.991, a harsh 150-dpi photocopy (3.2% CER)
   * at 0.959, and handwriting fonts at 0.63-0.93 (bench/results/ocr-cascade.md).
   */
  readonly below?: number | undefined
}

export const DEFAULT_BELOW = 0.97

/** The character-weighted mean of a reading's line confidences (0 with no text): Prepare's `meanConfidence`, which the turned-page retry judges by too. */
export const pageConfidence = (result: OcrResult): number => meanConfidence(result.lines)

/**
 * Whether a page has any ink: a sample of its pixels (every 13th, first channel) with at least
 * 1 in 20,000 darker than 160, about one printed word on a 300-dpi A4 page (a dust speck is
 * less). A raw page with less is blank; an encoded one is not decoded here and counts as inked.
 */
export const hasInk = (image: OcrImage): boolean => {
  if (image._tag !== "Raw") return true
  const step = 13 * image.channels
  let dark = 0
  let n = 0
  for (let i = 0; i < image.data.length; i += step) {
    if (image.data[i] < 160) dark++
    n++
  }
  return dark * 20_000 >= n && dark > 0
}

export const make = Effect.fn("CascadeEngine.make")(function*(
  first: OcrEngine["Service"],
  second: Effect.Effect<OcrEngine["Service"], OcrError, Scope.Scope>,
  options: CascadeOptions = {}
) {
  const below = options.below ?? DEFAULT_BELOW
  const scope = yield* Effect.scope
  // The second engine lives in the cascade's scope; a failed start is retried on the next page.
  let secondEngine: OcrEngine["Service"] | undefined
  // One start at a time: two unsure pages at once must not start two engines.
  const starting = Semaphore.makeUnsafe(1)
  const ensureSecond = starting.withPermits(1)(Effect.suspend(() => {
    if (secondEngine !== undefined) return Effect.succeed(secondEngine)
    return Effect.gen(function*() {
      const child = yield* Scope.fork(scope)
      const engine = yield* second.pipe(Scope.provide(child), Effect.tapError(() => Scope.close(child, Exit.void)))
      secondEngine = engine
      return engine
    })
  }))
  const throughput = makeThroughput(1)

  const recognize = Effect.fn("CascadeEngine.recognize")(function*(image: OcrImage, recognizeOptions?: RecognizeOptions) {
    const t0 = Date.now()
    const cheap = yield* first.recognize(image, recognizeOptions)
    const confidence = pageConfidence(cheap)
    let out = cheap
    if (cheap.lines.length === 0 ? hasInk(image) : confidence < below) {
      // The second reading is kept when it succeeds; if it fails (its deadline, its engine), the first one stands.
      out = yield* ensureSecond.pipe(
        Effect.flatMap((engine) => engine.recognize(image, recognizeOptions)),
        Effect.map((strong) => (strong.lines.length === 0 && cheap.lines.length > 0 ? cheap : strong)),
        Effect.orElseSucceed(() => cheap)
      )
    }
    throughput.record((Date.now() - t0) / 1000)
    return out
  })

  return OcrEngine.of({
    name: "cascade",
    preferredDpi: first.preferredDpi,
    concurrency: 1,
    estimateSeconds: (n) => throughput.estimate(n, 1),
    recognize
  })
})
