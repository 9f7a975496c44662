/**
 * The OCR contract: an image in, words and lines with pixel boxes and confidences out.
 *
 * Engines (tesseract.js, PaddleOCR on onnxruntime) live in `@strata/ocr` and provide
 * `OcrEngine` through `layer(options)`, the way effect's AI providers provide `LanguageModel`.
 * Core stays free of native dependencies: it only names the shapes and the error.
 */
import { Context, Effect, Schema } from "effect"

/** An encoded image (PNG, JPEG, ... as sharp reads them) or raw 8-bit pixels with their size. */
export type OcrImage =
  | { readonly _tag: "Encoded"; readonly data: Uint8Array }
  | {
    readonly _tag: "Raw"
    readonly data: Uint8Array
    readonly width: number
    readonly height: number
    /** 1 = grey, 3 = RGB, 4 = RGBA, row-major without padding. */
    readonly channels: 1 | 3 | 4
  }

export const encodedImage = (data: Uint8Array): OcrImage => ({ _tag: "Encoded", data })
export const rawImage = (data: Uint8Array, width: number, height: number, channels: 1 | 3 | 4): OcrImage => ({
  _tag: "Raw",
  data,
  width,
  height,
  channels
})

/** [x0, y0, x1, y1] in pixels of the image as given (top-left origin). */
export const PixelBox = Schema.Tuple([Schema.Number, Schema.Number, Schema.Number, Schema.Number])
export type PixelBox = typeof PixelBox.Type

export const OcrWord = Schema.Struct({
  text: Schema.String,
  bbox: PixelBox,
  /** 0..1 */
  confidence: Schema.Number
})
export type OcrWord = typeof OcrWord.Type

export const OcrLine = Schema.Struct({
  text: Schema.String,
  bbox: PixelBox,
  /** 0..1, the mean of the words' confidences weighted by their length. */
  confidence: Schema.Number,
  words: Schema.Array(OcrWord)
})
export type OcrLine = typeof OcrLine.Type

export const OcrResult = Schema.Struct({
  /** The engine's name (`tesseract`, `paddle`). */
  engine: Schema.String,
  /** The weights that read it, where an engine has a choice (tesseract: `fast`, `best_int`, ...). */
  model: Schema.optional(Schema.String),
  /** Size of the image the boxes refer to (the input's, after any rotation undone by the engine is mapped back). */
  width: Schema.Number,
  height: Schema.Number,
  /** Lines in top-to-bottom, left-to-right order. */
  lines: Schema.Array(OcrLine),
  /** Clockwise rotation (0, 90, 180, 270) that was applied to make the text upright; boxes are in the upright frame. */
  rotation: Schema.optional(Schema.Number),
  /** Skew in degrees that was corrected before recognition. */
  skew: Schema.optional(Schema.Number)
})
export type OcrResult = typeof OcrResult.Type

export interface RecognizeOptions {
  /** Epoch milliseconds; engines fail with `OcrTimeout` rather than overrun it. */
  readonly deadline?: number | undefined
  /** Detect and undo 90/180/270 rotation and small skew first (on unless false; costs ~20-50 ms a page). */
  readonly autoRotate?: boolean | undefined
  /** Resolution of the image, when known (renders): spares the engine a guess. */
  readonly dpi?: number | undefined
}

// ---- errors ------------------------------------------------------------------------------------

/** The engine's weights or runtime could not be loaded (missing package, bad model file). */
export class OcrEngineUnavailable extends Schema.TaggedError<OcrEngineUnavailable>()("OcrEngineUnavailable", {
  message: Schema.String
}) {}
/** The image could not be decoded or is empty. */
export class OcrInvalidImage extends Schema.TaggedError<OcrInvalidImage>()("OcrInvalidImage", {
  message: Schema.String
}) {}
/** The engine crashed or returned something unusable. */
export class OcrEngineFailed extends Schema.TaggedError<OcrEngineFailed>()("OcrEngineFailed", {
  message: Schema.String
}) {}
/** The deadline passed, or the pages left cannot fit in the time left. */
export class OcrTimeout extends Schema.TaggedError<OcrTimeout>()("OcrTimeout", {
  message: Schema.String
}) {}

export class OcrError extends Schema.TaggedError<OcrError>()("OcrError", {
  engine: Schema.String,
  reason: Schema.Union([OcrEngineUnavailable, OcrInvalidImage, OcrEngineFailed, OcrTimeout]),
  page: Schema.optional(Schema.Number)
}) {
  override get message(): string {
    return `ocr (${this.engine}): ${this.reason.message}`
  }
  get isRetryable(): boolean {
    return this.reason._tag === "OcrTimeout" || this.reason._tag === "OcrEngineFailed"
  }
}

/**
 * What a reader tells the client when OCR of a page or picture failed: the reason in our words.
 * The engine's own message (a decoder's or a crashed thread's text) is for the server's log only.
 */
export const ocrFailureText = (error: OcrError): string => {
  switch (error.reason._tag) {
    case "OcrInvalidImage":
      return "the image could not be decoded"
    case "OcrEngineUnavailable":
      return `the OCR engine (${error.engine}) is not available`
    case "OcrEngineFailed":
      return `the OCR engine (${error.engine}) failed`
    case "OcrTimeout":
      return "the time budget ran out"
  }
}

// ---- the service -------------------------------------------------------------------------------

export class OcrEngine extends Context.Service<OcrEngine, {
  readonly name: string
  /** The render resolution this engine reads best at; renderers use it when they choose the DPI. */
  readonly preferredDpi: number
  /** How many `recognize` calls usefully run at once (a pool's worker count; 1 for a single engine). */
  readonly concurrency: number
  /** Expected wall seconds for `pages` more pages at `concurrency`, from what the engine has measured so far. */
  readonly estimateSeconds: (pages: number) => number
  readonly recognize: (image: OcrImage, options?: RecognizeOptions) => Effect.Effect<OcrResult, OcrError>
}>()("@strata/core/OcrEngine") {}

/**
 * Fails with `OcrTimeout` up front when `pages` pages cannot be recognised before `deadline`:
 * readers call it before queueing OCR work, so a request ends with a clear error rather than
 * running out of time halfway or silently dropping pages.
 */
export const ensureOcrFits = (engine: OcrEngine["Service"], pages: number, deadline: number): Effect.Effect<void, OcrError> => {
  if (pages <= 0) return Effect.void
  const needed = engine.estimateSeconds(pages)
  const left = (deadline - Date.now()) / 1000
  return needed <= left
    ? Effect.void
    : Effect.fail(new OcrError({
      engine: engine.name,
      reason: new OcrTimeout({
        message: `${pages} page(s) need OCR, about ${needed.toFixed(1)} s with ${engine.concurrency} worker(s), but only ${Math.max(0, left).toFixed(1)} s are left`
      })
    }))
}
