/**
 * The tesseract.js engine, fully offline: the wasm core is loaded from the local
 * tesseract.js-core package (its Node adapter requires it, never fetching `corePath`), the
 * English LSTM weights from the local `@tesseract.js-data/eng` package (gzipped
 * `<variant>/eng.traineddata.gz`), and the language cache goes to a private temp dir.
 * One tesseract worker is created per engine and reused for every page.
 */
import { Effect, Layer, Semaphore } from "effect"
import { mkdtempSync, rmSync } from "node:fs"
import { createRequire } from "node:module"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { createWorker, OEM, PSM } from "tesseract.js"
import type { Worker } from "tesseract.js"
import { OcrEngine, OcrEngineUnavailable, OcrError } from "@strata/core"
import type { OcrImage, OcrLine, OcrResult, OcrWord, RecognizeOptions } from "@strata/core"
import { binarise } from "./ImageOps.ts"
import type { Gray } from "./ImageOps.ts"
import { makeThroughput } from "./Throughput.ts"
import { encodePgm, engineFailed, lineConfidence, meanConfidence, prepare, withinDeadline } from "./Prepare.ts"

export interface TesseractOptions {
  /** `best_int` (4.0.0_best_int, 2.9 MB: tessdata_best LSTM in integer form; the default) or `fast` (4.0.0, 10.9 MB: the standard tessdata set). */
  readonly variant?: "best_int" | "fast" | undefined
  /**
   * Global Otsu binarisation before recognition; off by default: tesseract thresholds adaptively
   * itself, and on our harsh synthetic scans a global threshold first raised CER (150 dpi:
   * 0.30% -> 0.78%; 300 dpi: 0.00% -> 0.09%).
   */
  readonly binarise?: boolean | undefined
  /**
   * The resolution pages are rendered at for this engine (its `preferredDpi`); default 300. On
   * dense 300-dpi A4 scans (bench/results/ocr-dense-confirm.md) 200 costs 12-17% less CPU with
   * the same CER, but on sparse harsh pages it raised CER 0.00% -> 0.14% (bench/results/ocr.md),
   * so 300 stays the default.
   */
  readonly dpi?: number | undefined
  /**
   * Tesseract's second look at lines that read poorly, inverted (white on dark); default on.
   * Off saved nothing measurable on dense A4 (5.51 vs 5.91 CPU s a page, inside the noise) and
   * loses white-on-dark text.
   */
  readonly invert?: boolean | undefined
  /**
   * `lstm` (default) or `legacy`: tesseract's pre-LSTM character classifier, which only the
   * `fast` file (4.0.0) carries; picking it implies that file. On dense A4 it was 31% cheaper
   * on a good scan but 40% dearer and 3x the CER (0.09% -> 0.29%) on a bad photocopy.
   */
  readonly recogniser?: "lstm" | "legacy" | undefined
}

const ENGINE = "tesseract"

const require = createRequire(import.meta.url)

/** The local traineddata folder; throws if the data package is missing. */
export const tesseractLangPath = (variant: "best_int" | "fast"): string =>
  join(dirname(require.resolve("@tesseract.js-data/eng/package.json")), variant === "best_int" ? "4.0.0_best_int" : "4.0.0")

const startWorker = async (variant: "best_int" | "fast", cachePath: string, options: TesseractOptions): Promise<Worker> => {
  const worker = await createWorker("eng", options.recogniser === "legacy" ? OEM.TESSERACT_ONLY : OEM.LSTM_ONLY, {
    langPath: tesseractLangPath(variant),
    gzip: true,
    cachePath,
    // The local file is the source of truth; a cache copy would only cost disk.
    cacheMethod: "none",
    // Ignored by the Node adapter (it requires tesseract.js-core), set so nothing can point at a CDN.
    corePath: dirname(require.resolve("tesseract.js-core/package.json")),
    errorHandler: () => undefined
  })
  await worker.setParameters({
    tessedit_pageseg_mode: PSM.AUTO,
    preserve_interword_spaces: "0",
    tessedit_do_invert: options.invert === false ? "0" : "1"
  })
  return worker
}

/** Converts tesseract's block tree (confidences 0..100) into lines of words. */
const toLines = (blocks: ReadonlyArray<any> | null): Array<OcrLine> => {
  const lines: Array<OcrLine> = []
  for (const block of blocks ?? []) {
    for (const para of block.paragraphs ?? []) {
      for (const line of para.lines ?? []) {
        const words: Array<OcrWord> = []
        for (const w of line.words ?? []) {
          const text = String(w.text ?? "").trim()
          if (text === "") continue
          words.push({ text, bbox: [w.bbox.x0, w.bbox.y0, w.bbox.x1, w.bbox.y1], confidence: clamp01(w.confidence / 100) })
        }
        if (words.length === 0) continue
        lines.push({
          text: words.map((w) => w.text).join(" "),
          bbox: [line.bbox.x0, line.bbox.y0, line.bbox.x1, line.bbox.y1],
          confidence: lineConfidence(words),
          words
        })
      }
    }
  }
  return lines
}

const clamp01 = (x: number) => (Number.isFinite(x) ? Math.min(1, Math.max(0, x)) : 0)

/** Builds the engine; the worker lives until the surrounding scope closes. */
export const make = Effect.fn("TesseractEngine.make")(function*(options: TesseractOptions = {}) {
  const variant = options.recogniser === "legacy" ? "fast" : options.variant ?? "best_int"
  const cachePath = mkdtempSync(join(tmpdir(), "strata-tesseract-"))
  yield* Effect.addFinalizer(() => Effect.sync(() => rmSync(cachePath, { recursive: true, force: true })))
  let worker: Worker | undefined = yield* Effect.tryPromise({
    try: () => startWorker(variant, cachePath, options),
    catch: (cause) =>
      new OcrError({ engine: ENGINE, reason: new OcrEngineUnavailable({ message: `tesseract could not start: ${String(cause)}` }) })
  })
  yield* Effect.addFinalizer(() => Effect.promise(async () => void (await worker?.terminate().catch(() => undefined))))
  // A tesseract worker runs one job at a time; queueing here keeps deadlines per call honest.
  const lock = Semaphore.makeUnsafe(1)
  const throughput = makeThroughput(2)

  let lastDpi: number | undefined
  const ensureWorker = Effect.tryPromise({
    try: async () => {
      if (worker === undefined) {
        worker = await startWorker(variant, cachePath, options)
        lastDpi = undefined
      }
      return worker
    },
    catch: (cause) =>
      new OcrError({ engine: ENGINE, reason: new OcrEngineUnavailable({ message: `tesseract could not restart: ${String(cause)}` }) })
  })

  const readLines = (gray: Gray, recognizeOptions: RecognizeOptions | undefined) => {
    const input = options.binarise === true ? binarise(gray) : gray
    const run = Effect.gen(function*() {
      const w = yield* ensureWorker
      const dpi = recognizeOptions?.dpi
      if (dpi !== undefined && dpi !== lastDpi) {
        yield* Effect.tryPromise({ try: () => w.setParameters({ user_defined_dpi: String(Math.round(dpi)) }), catch: engineFailed(ENGINE) })
        lastDpi = dpi
      }
      const result = yield* Effect.tryPromise({
        try: () => w.recognize(Buffer.from(encodePgm(input)), {}, { blocks: true, text: false }),
        catch: engineFailed(ENGINE)
      })
      return toLines(result.data.blocks)
    })
    return lock.withPermits(1)(
      withinDeadline(ENGINE, run, recognizeOptions?.deadline, () => {
        // The wasm job cannot be interrupted: drop the worker so the next page gets a fresh one.
        const stale = worker
        worker = undefined
        lastDpi = undefined
        void stale?.terminate().catch(() => undefined)
      })
    )
  }

  const recognize = Effect.fn("TesseractEngine.recognize")(function*(image: OcrImage, recognizeOptions?: RecognizeOptions) {
    const started = Date.now()
    let { gray, orientation } = yield* prepare(ENGINE, image, recognizeOptions)
    let lines = yield* readLines(gray, recognizeOptions)
    // A wrong quarter-turn guess (a page of tables or figures) ruins a page; when the turned
    // page reads poorly, read it as given and keep whichever reads better.
    if (orientation.rotation !== 0 && meanConfidence(lines) < 0.75) {
      const plain = yield* prepare(ENGINE, image, { ...recognizeOptions, autoRotate: false })
      const plainLines = yield* readLines(plain.gray, recognizeOptions)
      if (meanConfidence(plainLines) > meanConfidence(lines)) {
        gray = plain.gray
        orientation = plain.orientation
        lines = plainLines
      }
    }
    throughput.record((Date.now() - started) / 1000)
    const out: OcrResult = {
      engine: ENGINE,
      width: gray.width,
      height: gray.height,
      lines,
      rotation: orientation.rotation,
      skew: orientation.skew
    }
    return out
  })

  return OcrEngine.of({
    name: ENGINE,
    preferredDpi: options.dpi ?? 300,
    concurrency: 1,
    estimateSeconds: (pages) => throughput.estimate(pages, 1),
    recognize
  })
})

export const layer = (options: TesseractOptions = {}): Layer.Layer<OcrEngine, OcrError> =>
  Layer.effect(OcrEngine, make(options))
