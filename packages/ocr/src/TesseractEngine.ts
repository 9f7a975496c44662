/**
 * The tesseract.js engine, fully offline: the wasm core is loaded from the local
 * tesseract.js-core package (its Node adapter requires it, never fetching `corePath`), the
 * English LSTM weights from a local file (TesseractModel.ts: the `@tesseract.js-data/eng`
 * package's best_int, or a named folder's file such as Debian's tessdata_fast), and the language cache goes
 * to a private temp dir. One tesseract worker is created per engine and reused for every page;
 * every result names the model that read it.
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
import { binarise, graySharp, toGrayPixels } from "./ImageOps.ts"
import type { Gray } from "./ImageOps.ts"
import { makeThroughput } from "./Throughput.ts"
import { encodePgm, engineFailed, lineConfidence, readUpright, withinDeadline } from "./Prepare.ts"
import { crop, linesOf, segment } from "./Regions.ts"
import { resolveModel } from "./TesseractModel.ts"
import type { TesseractModel, TesseractModelChoice } from "./TesseractModel.ts"

export interface TesseractOptions {
  /**
   * The English weights (TesseractModel.ts): `auto` (default) reads the `tessdataDir` folder's
   * `eng.traineddata` when one is named and the npm package's best_int otherwise; `fast` reads
   * the named folder's file or Debian's tesseract-ocr-eng (tessdata_fast), and fails to start
   * without a fast file; `best_int` always reads the npm file.
   */
  readonly model?: TesseractModelChoice | undefined
  /** A tessdata folder holding an uncompressed `eng.traineddata` (the server passes `STRATA_TESSDATA_DIR`). */
  readonly tessdataDir?: string | undefined
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
   * so 300 stays the default. With the fast model 200 saves another 15-20% (3.90 -> 3.11 CPU s
   * clean, 4.05 -> 3.43 scanned), CER mixed: better on the tuning pages, worse on held-out scanned
   * ones (0.05% -> 0.11%; bench/results/ocr-dense.md, ocr-dense-heldout.md).
   */
  readonly dpi?: number | undefined
  /**
   * Tesseract's second look at lines that read poorly, inverted (white on dark); default on.
   * Off saved nothing measurable on dense A4 (5.51 vs 5.91 CPU s a page, inside the noise) and
   * loses white-on-dark text.
   */
  readonly invert?: boolean | undefined
  /**
   * `lstm` (default) or `legacy`: tesseract's pre-LSTM character classifier, which only the npm
   * package's `4.0.0` file carries; picking it implies that file. On dense A4 it was 31% cheaper
   * on a good scan but 40% dearer and 3x the CER (0.09% -> 0.29%) on a bad photocopy.
   */
  readonly recogniser?: "lstm" | "legacy" | undefined
  /**
   * Lines the model reads with less than this confidence (0..1) are read again one by one, as
   * single lines, by the npm best_int model, and the better-scored reading is kept; off (0) by
   * default. Meant for the fast model on poor scans; costs a second worker when it first fires.
   * At 0.9 on harsh dense A4 it halved the fast model's CER on held-out pages (0.12% -> 0.06%,
   * best_int 0.12%), cut it 0.20% -> 0.14% on the pages it was tried on for CPU within the noise
   * (4.17 -> 4.17 s, 3 rounds), and fires on no line of clean or scanned pages; most of the fast model's
   * remaining errors are read with high confidence, which no threshold catches.
   */
  readonly reread?: number | undefined
  /**
   * Horizontal scale (0 < x <= 1) applied to the page before tesseract reads it; word boxes are
   * scaled back. Default 1. Tesseract's LSTM scales every text line to a fixed height (36 px)
   * and takes one step per 3 px of the scaled width, so its cost follows a line's width over
   * its height: narrowing the page is the one lever that cuts the network's steps (a lower dpi
   * does not: lines are scaled back up to 36 px). On dense A4 (bench/results/ocr-dense-speed.md,
   * tuning and held-out pages, 2 rounds each) best_int at 0.75 cost 3.9-4.4 CPU s a page against
   * 4.6-5.8 with CER 0.01-0.14% against 0.00-0.12%; tessdata_fast at 200 dpi and 0.75, the
   * cheapest setting that still reads well, 2.2-2.9 s at CER 0.07-0.31%; at 0.65 2.1-2.7 s and
   * CER up to 0.6%. Off by default: it buys 15-25%, not the 1.5 s target, and narrows digits and
   * punctuation first (`62.55` read as `62:55`).
   */
  readonly squeeze?: number | undefined
  /**
   * Who finds the text: `tesseract` (default: its page layout analysis, PSM auto), `blocks` (our
   * own XY cut, Regions.ts, and each block read as one uniform block, PSM 6) or `lines` (each
   * line of those blocks read as one line, PSM 7). Ours skips tesseract's column finding, tab
   * stops and rule removal (we whiten long rules ourselves). Tesseract's layout analysis is about
   * 0.6 of a fast page's 3.1 CPU s, but the recognition after it stays and ours costs 0.1-0.25 s
   * on the calling thread: on dense A4 both landed within the noise of PSM auto (±10%), and our
   * blocks cost more on bad photocopies (bench/results/ocr-dense-speed-layout*.md); off by default.
   */
  readonly layout?: "tesseract" | "blocks" | "lines" | undefined
  /**
   * Tesseract parameters set when the worker starts (so init-only ones such as
   * `load_system_dawg` take effect too), e.g. `{ load_system_dawg: "0", load_freq_dawg: "0" }`.
   * Dictionaries off changed neither the text nor the time of dense A4 pages (the beam search
   * over the dictionaries is about 2% of a native tesseract profile).
   */
  readonly parameters?: Readonly<Record<string, string>> | undefined
}

const ENGINE = "tesseract"

const require = createRequire(import.meta.url)

export const startWorker = async (model: TesseractModel, cachePath: string, options: TesseractOptions): Promise<Worker> => {
  const worker = await createWorker("eng", options.recogniser === "legacy" ? OEM.TESSERACT_ONLY : OEM.LSTM_ONLY, {
    langPath: model.langPath,
    gzip: model.gzip,
    cachePath,
    // The local file is the source of truth; a cache copy would only cost disk.
    cacheMethod: "none",
    // Ignored by the Node adapter (it requires tesseract.js-core), set so nothing can point at a CDN.
    corePath: dirname(require.resolve("tesseract.js-core/package.json")),
    errorHandler: () => undefined
  }, options.parameters === undefined ? undefined : { ...options.parameters })
  await worker.setParameters({
    tessedit_pageseg_mode: options.layout === "blocks" ? PSM.SINGLE_BLOCK : options.layout === "lines" ? PSM.SINGLE_LINE : PSM.AUTO,
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

/** The words tesseract reads in `strip`, a piece of the page cut out at (x, y), placed back in page pixels. */
export const readStrip = async (worker: Worker, strip: Gray, x: number, y: number): Promise<Array<OcrWord>> => {
  const result = await worker.recognize(Buffer.from(encodePgm(strip)), {}, { blocks: true, text: false })
  return toLines(result.data.blocks).flatMap((l) => l.words).map((word): OcrWord => ({
    ...word,
    bbox: [word.bbox[0] + x, word.bbox[1] + y, word.bbox[2] + x, word.bbox[3] + y]
  }))
}

/** The line's box with a margin of half its height (tesseract wants some white around a single line), cut out of the page. */
const cropLine = (gray: Gray, [x0, y0, x1, y1]: readonly [number, number, number, number]): { gray: Gray; x: number; y: number } => {
  const pad = Math.max(4, Math.round((y1 - y0) / 2))
  const x = Math.max(0, Math.floor(x0 - pad))
  const y = Math.max(0, Math.floor(y0 - pad))
  const width = Math.min(gray.width, Math.ceil(x1 + pad)) - x
  const height = Math.min(gray.height, Math.ceil(y1 + pad)) - y
  const data = new Uint8Array(width * height)
  for (let row = 0; row < height; row++) data.set(gray.data.subarray((y + row) * gray.width + x, (y + row) * gray.width + x + width), row * width)
  return { gray: { data, width, height }, x, y }
}

/** A line's boxes moved by (dx, dy) and then stretched horizontally by `fx`, back into page pixels. */
const placeLine = (line: OcrLine, fx: number, dx: number, dy: number): OcrLine => {
  const place = ([x0, y0, x1, y1]: readonly [number, number, number, number]): [number, number, number, number] => [
    (x0 + dx) * fx,
    y0 + dy,
    (x1 + dx) * fx,
    y1 + dy
  ]
  return { ...line, bbox: place(line.bbox), words: line.words.map((word) => ({ ...word, bbox: place(word.bbox) })) }
}

/** The page narrowed to `factor` of its width (lanczos3), its height kept: fewer LSTM steps a line (see `squeeze`). */
const narrow = (gray: Gray, factor: number): Promise<Gray> =>
  toGrayPixels(graySharp(gray).resize(Math.max(8, Math.round(gray.width * factor)), gray.height, { fit: "fill", kernel: "lanczos3" }))

const clamp01 = (x: number) => (Number.isFinite(x) ? Math.min(1, Math.max(0, x)) : 0)

/** Builds the engine; the worker lives until the surrounding scope closes. */
export const make = Effect.fn("TesseractEngine.make")(function*(options: TesseractOptions = {}) {
  const model = yield* Effect.try({
    try: () => resolveModel({ model: options.model, tessdataDir: options.tessdataDir, legacy: options.recogniser === "legacy" }),
    catch: (cause) =>
      new OcrError({ engine: ENGINE, reason: new OcrEngineUnavailable({ message: `tesseract has no model: ${cause instanceof Error ? cause.message : String(cause)}` }) })
  })
  const cachePath = mkdtempSync(join(tmpdir(), "strata-tesseract-"))
  yield* Effect.addFinalizer(() => Effect.sync(() => rmSync(cachePath, { recursive: true, force: true })))
  let worker: Worker | undefined = yield* Effect.tryPromise({
    try: () => startWorker(model, cachePath, options),
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
        worker = await startWorker(model, cachePath, options)
        lastDpi = undefined
      }
      return worker
    },
    catch: (cause) =>
      new OcrError({ engine: ENGINE, reason: new OcrEngineUnavailable({ message: `tesseract could not restart: ${String(cause)}` }) })
  })

  // The second reader, for `reread`: started on the first line that needs it.
  let rereader: Worker | undefined
  let rereaderDpi: number | undefined
  yield* Effect.addFinalizer(() => Effect.promise(async () => void (await rereader?.terminate().catch(() => undefined))))
  const ensureRereader = Effect.tryPromise({
    try: async () => {
      if (rereader === undefined) {
        const w = await startWorker(resolveModel({ model: "best_int" }), cachePath, { ...options, recogniser: "lstm" })
        await w.setParameters({ tessedit_pageseg_mode: PSM.SINGLE_LINE })
        rereader = w
        rereaderDpi = undefined
      }
      return rereader
    },
    catch: (cause) =>
      new OcrError({ engine: ENGINE, reason: new OcrEngineUnavailable({ message: `tesseract's second reader could not start: ${String(cause)}` }) })
  })

  /** Reads the lines under `threshold` again with best_int, cropped with a margin, and keeps the better-scored reading. */
  const rereadLines = (input: Gray, lines: Array<OcrLine>, threshold: number, dpi: number | undefined) =>
    Effect.gen(function*() {
      const out: Array<OcrLine> = []
      for (const line of lines) {
        if (line.confidence >= threshold) {
          out.push(line)
          continue
        }
        const w = yield* ensureRereader
        if (dpi !== undefined && dpi !== rereaderDpi) {
          yield* Effect.tryPromise({ try: () => w.setParameters({ user_defined_dpi: String(Math.round(dpi)) }), catch: engineFailed(ENGINE) })
          rereaderDpi = dpi
        }
        const { gray: strip, x, y } = cropLine(input, line.bbox)
        const words = yield* Effect.tryPromise({ try: () => readStrip(w, strip, x, y), catch: engineFailed(ENGINE) })
        const confidence = lineConfidence(words)
        out.push(words.length > 0 && confidence > line.confidence ? { ...line, text: words.map((w) => w.text).join(" "), confidence, words } : line)
      }
      return out
    })

  const squeeze = options.squeeze ?? 1
  const layout = options.layout ?? "tesseract"
  const readLines = (gray: Gray, recognizeOptions: RecognizeOptions | undefined) => {
    const input = options.binarise === true ? binarise(gray) : gray
    const run = Effect.gen(function*() {
      const w = yield* ensureWorker
      const dpi = recognizeOptions?.dpi
      if (dpi !== undefined && dpi !== lastDpi) {
        yield* Effect.tryPromise({ try: () => w.setParameters({ user_defined_dpi: String(Math.round(dpi)) }), catch: engineFailed(ENGINE) })
        lastDpi = dpi
      }
      const page = squeeze < 1 ? yield* Effect.tryPromise({ try: () => narrow(input, squeeze), catch: engineFailed(ENGINE) }) : input
      let lines: Array<OcrLine> = []
      if (layout === "tesseract") {
        const result = yield* Effect.tryPromise({
          try: () => w.recognize(Buffer.from(encodePgm(page)), {}, { blocks: true, text: false }),
          catch: engineFailed(ENGINE)
        })
        lines = toLines(result.data.blocks)
      } else {
        const found = segment(page, { dpi })
        const boxes = layout === "lines" ? found.blocks.flatMap((b) => linesOf(page, found.threshold, b, dpi)) : found.blocks
        for (const box of boxes) {
          const result = yield* Effect.tryPromise({
            try: () => w.recognize(Buffer.from(encodePgm(crop(page, found.rules, box))), {}, { blocks: true, text: false }),
            catch: engineFailed(ENGINE)
          })
          for (const line of toLines(result.data.blocks)) lines.push(placeLine(line, 1, box[0], box[1]))
        }
      }
      const threshold = options.reread ?? 0
      if (threshold > 0) lines = yield* rereadLines(page, lines, threshold, dpi)
      // Back by the width actually made (rounded), not by 1 / squeeze.
      return page === input ? lines : lines.map((line) => placeLine(line, input.width / page.width, 0, 0))
    })
    return lock.withPermits(1)(
      withinDeadline(ENGINE, run, recognizeOptions?.deadline, () => {
        // The wasm job cannot be interrupted: drop the workers so the next page gets fresh ones.
        const stale = [worker, rereader]
        worker = undefined
        rereader = undefined
        lastDpi = undefined
        for (const w of stale) void w?.terminate().catch(() => undefined)
      })
    )
  }

  const recognize = Effect.fn("TesseractEngine.recognize")(function*(image: OcrImage, recognizeOptions?: RecognizeOptions) {
    const started = Date.now()
    const { gray, orientation, read: { lines } } = yield* readUpright(
      ENGINE,
      image,
      recognizeOptions,
      (page) => readLines(page, recognizeOptions).pipe(Effect.map((lines) => ({ lines })))
    )
    throughput.record((Date.now() - started) / 1000)
    const out: OcrResult = {
      engine: ENGINE,
      model: model.name,
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
