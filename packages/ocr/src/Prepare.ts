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

/**
 * `darkPages`: what to do with a page that is mostly dark (light text on a dark ground): `invert`
 * it, for engines that only read dark ink (the line engine), or `keep` it (tesseract inverts
 * lines itself).
 */
export const prepare = (
  engine: string,
  image: OcrImage,
  options: RecognizeOptions | undefined,
  darkPages: "keep" | "invert" = "keep"
): Effect.Effect<Prepared, OcrError> =>
  Effect.tryPromise({
    try: async () => {
      const decoded = await toGray(image)
      if (decoded.width < 8 || decoded.height < 8) throw new RangeError(`image too small (${decoded.width}x${decoded.height})`)
      const gray = darkPages === "invert" && mostlyDark(decoded) ? inverted(decoded) : decoded
      if (options?.autoRotate === false) return { gray, orientation: { rotation: 0, skew: 0 } as Orientation }
      const orientation = await estimateOrientation(gray)
      return { gray: await applyOrientation(gray, orientation), orientation }
    },
    catch: (cause) =>
      new OcrError({ engine, reason: new OcrInvalidImage({ message: `the image could not be decoded: ${String(cause)}` }) })
  })

/**
 * Prepares the image and reads it with `read`. A wrong quarter-turn guess (a page of tables or
 * figures, or all-capital handwriting, which has no ascenders or descenders to tell up from down)
 * ruins a page, so when the turned page reads poorly (mean confidence under `retryBelow`) it is
 * read as given too, and whichever reads better is kept. Tesseract's confidence in nonsense is
 * low (0.75 serves it); the line engine's is not (0.8-0.9 on an upside-down page), so it
 * passes 1: a turned page is always read both ways, which costs it 0.3 s on turned pages only.
 */
export const readUpright = <R extends { readonly lines: ReadonlyArray<{ readonly text: string; readonly confidence: number }> }, E>(
  engine: string,
  image: OcrImage,
  options: RecognizeOptions | undefined,
  read: (gray: Gray) => Effect.Effect<R, E>,
  darkPages: "keep" | "invert" = "keep",
  retryBelow = 0.75
): Effect.Effect<Prepared & { readonly read: R }, OcrError | E> =>
  Effect.gen(function*() {
    const turned = yield* prepare(engine, image, options, darkPages)
    const first = yield* read(turned.gray)
    if (turned.orientation.rotation === 0 || meanConfidence(first.lines) >= retryBelow) return { ...turned, read: first }
    const plain = yield* prepare(engine, image, { ...options, autoRotate: false }, darkPages)
    const second = yield* read(plain.gray)
    return meanConfidence(second.lines) > meanConfidence(first.lines) ? { ...plain, read: second } : { ...turned, read: first }
  })

/**
 * Whether most of the page is darker than mid-grey (sampled every 7th pixel): light text on a
 * dark ground. A page of dark ink on paper is mostly paper, even when dense (about 10-20% ink).
 */
export const mostlyDark = (gray: Gray): boolean => {
  let dark = 0
  let n = 0
  for (let i = 0; i < gray.data.length; i += 7) {
    if (gray.data[i] < 128) dark++
    n++
  }
  return dark > n * 0.6
}

const inverted = (gray: Gray): Gray => {
  const data = new Uint8Array(gray.data.length)
  for (let i = 0; i < data.length; i++) data[i] = 255 - gray.data[i]
  return { ...gray, data }
}

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
