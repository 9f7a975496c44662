/**
 * What every engine does before recognition: decode to grey, undo rotation and skew, and
 * helpers shared by the engines (deadline checks, error wrapping, line confidence).
 */
import { Effect } from "effect"
import { OcrEngineFailed, OcrError, OcrInvalidImage, OcrTimeout } from "@strata/core"
import type { OcrImage, OcrWord, RecognizeOptions } from "@strata/core"
import { applyOrientation, estimateOrientation, toGray } from "./ImageOps.ts"
import type { Gray, Orientation } from "./ImageOps.ts"

export interface Prepared {
  readonly gray: Gray
  readonly orientation: Orientation
}

export const prepare = (engine: string, image: OcrImage, options: RecognizeOptions | undefined): Effect.Effect<Prepared, OcrError> =>
  Effect.tryPromise({
    try: async () => {
      const gray = await toGray(image)
      if (gray.width < 8 || gray.height < 8) throw new RangeError(`image too small (${gray.width}x${gray.height})`)
      if (options?.autoRotate === false) return { gray, orientation: { rotation: 0, skew: 0 } as Orientation }
      const orientation = await estimateOrientation(gray)
      return { gray: await applyOrientation(gray, orientation), orientation }
    },
    catch: (cause) =>
      new OcrError({ engine, reason: new OcrInvalidImage({ message: `the image could not be decoded: ${String(cause)}` }) })
  })

/**
 * Prepares the image and reads it with `read`. A wrong quarter-turn guess (a page of tables or
 * figures) ruins a page, so when the turned page reads poorly (mean confidence under 0.75) it is
 * read as given too, and whichever reads better is kept.
 */
export const readUpright = <R extends { readonly lines: ReadonlyArray<{ readonly text: string; readonly confidence: number }> }, E>(
  engine: string,
  image: OcrImage,
  options: RecognizeOptions | undefined,
  read: (gray: Gray) => Effect.Effect<R, E>
): Effect.Effect<Prepared & { readonly read: R }, OcrError | E> =>
  Effect.gen(function*() {
    const turned = yield* prepare(engine, image, options)
    const first = yield* read(turned.gray)
    if (turned.orientation.rotation === 0 || meanConfidence(first.lines) >= 0.75) return { ...turned, read: first }
    const plain = yield* prepare(engine, image, { ...options, autoRotate: false })
    const second = yield* read(plain.gray)
    return meanConfidence(second.lines) > meanConfidence(first.lines) ? { ...plain, read: second } : { ...turned, read: first }
  })

/** Fails now if the deadline has passed; otherwise bounds `effect` by the time left. */
export const withinDeadline = <A>(
  engine: string,
  effect: Effect.Effect<A, OcrError>,
  deadline: number | undefined,
  onTimeout?: () => void
): Effect.Effect<A, OcrError> => {
  if (deadline === undefined) return effect
  const left = deadline - Date.now()
  const timeout = (what: string) => new OcrError({ engine, reason: new OcrTimeout({ message: what }) })
  if (left <= 0) return Effect.fail(timeout("the time budget ran out before OCR started"))
  return effect.pipe(
    Effect.timeoutOrElse({
      duration: left,
      orElse: () => {
        onTimeout?.()
        return Effect.fail(timeout("the time budget ran out during OCR"))
      }
    })
  )
}

export const engineFailed = (engine: string) => (cause: unknown): OcrError =>
  new OcrError({ engine, reason: new OcrEngineFailed({ message: cause instanceof Error ? cause.message : String(cause) }) })

/** Length-weighted mean of the words' confidences. */
export const lineConfidence = (words: ReadonlyArray<OcrWord>): number => {
  let sum = 0
  let n = 0
  for (const w of words) {
    sum += w.confidence * w.text.length
    n += w.text.length
  }
  return n === 0 ? 0 : sum / n
}

/** Character-weighted mean confidence of a page's lines (0 for an empty page). */
export const meanConfidence = (lines: ReadonlyArray<{ readonly text: string; readonly confidence: number }>): number => {
  let sum = 0
  let n = 0
  for (const l of lines) {
    sum += l.confidence * l.text.length
    n += l.text.length
  }
  return n === 0 ? 0 : sum / n
}

/** A binary PGM (P5): leptonica reads it directly, and it costs nothing to encode. */
export const encodePgm = (gray: Gray): Uint8Array => {
  const header = new TextEncoder().encode(`P5\n${gray.width} ${gray.height}\n255\n`)
  const out = new Uint8Array(header.length + gray.data.length)
  out.set(header, 0)
  out.set(gray.data, header.length)
  return out
}
