/**
 * Our own OCR engine: the page is cut into text lines by Regions.ts (Otsu threshold, rules
 * whitened, recursive XY cut, then lines), each line is read by the line recogniser trained in
 * models/ocr/line-model (a convolutional CTC model, on onnxruntime-node), and the CTC output is
 * decoded into words placed along the line. Lines the model reads with low confidence can be
 * handed to tesseract as single lines (`fallback`), so a page costs the model's fraction of a
 * second plus tesseract's time for the few lines that need it.
 *
 * The input convention is the training script's: the line cut to its ink with a margin (a tenth
 * of its height above and below, a quarter at the sides), scaled (antialiased) to 32 px high, ink 1.0 and paper 0.0, batches padded
 * on the right with paper; one output step per 4 px of width.
 */
import { Effect, Layer, Semaphore } from "effect"
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { basename, join } from "node:path"
import { fileURLToPath } from "node:url"
import * as ort from "onnxruntime-node"
import type { Worker } from "tesseract.js"
import { OcrEngine, OcrEngineUnavailable, OcrError } from "@strata/core"
import type { OcrImage, OcrLine, OcrResult, OcrWord, RecognizeOptions } from "@strata/core"
import { ctcDecode } from "./CtcDecode.ts"
import type { CtcLine } from "./CtcDecode.ts"
import type { Gray } from "./ImageOps.ts"
import { engineFailed, lineConfidence, readUpright, withinDeadline } from "./Prepare.ts"
import { linesOf, segment } from "./Regions.ts"
import type { Box } from "./Regions.ts"
import { readStrip, startWorker } from "./TesseractEngine.ts"
import { resolveModel } from "./TesseractModel.ts"
import { makeThroughput } from "./Throughput.ts"

export interface LineEngineOptions {
  /** The model: an ONNX file and its card (JSON with `charset`); default: the weights in models/ocr/line-model. */
  readonly model?: { readonly onnx: string; readonly card: string } | undefined
  /** onnxruntime intra-op threads (1 when the pool runs one engine per core). */
  readonly threads?: number | undefined
  /** Lines per onnxruntime call (sorted by width, so padding stays small). */
  readonly batchSize?: number | undefined
  /**
   * Lines whose least certain character the model read with less than this probability (0..1)
   * are read again by tesseract (tessdata_fast when the machine has it, else best_int) as single
   * lines; tesseract's reading replaces the model's when tesseract's confidence in it is above the
   * model's in that least certain character. 0 (default) turns it off: on the dense A4 bench the
   * model's few errors were confident ones, and at 0.8 this tripled the CPU time for at most 0.02
   * points of CER either way (bench/results/ocr-line-engine.md).
   */
  readonly fallback?: number | undefined
  /**
   * A blank run inside a line at least this many times the line's height (ink with its margin)
   * splits it into pieces read one by one (table columns, tab stops); default 1.
   */
  readonly gap?: number | undefined
  /** The render resolution to ask for; default 300. */
  readonly dpi?: number | undefined
}

const ENGINE = "lines"
const HEIGHT = 32
const STEP = 4
/**
 * White kept left and right of a piece's ink, as a share of its height. With a tenth, the model
 * dropped first letters (`West` read as `est`): it was trained with margins of up to a quarter.
 */
const SIDE_MARGIN = 0.25

/**
 * The committed weights: in the repository, models/ocr/line-model (where they are trained); in
 * the published package, the copy its `prepack` puts in models/line-model beside dist/.
 */
const [repositoryModels, packagedModels] = [new URL("../../../models/ocr/line-model/", import.meta.url), new URL("../models/line-model/", import.meta.url)]
  .map((url) => fileURLToPath(url))
const lineModelDir = existsSync(join(repositoryModels, "conv-tiny.onnx")) ? repositoryModels : packagedModels

export const defaultLineModel = { onnx: join(lineModelDir, "conv-tiny.onnx"), card: join(lineModelDir, "conv-tiny.json") }

/** A piece of a line ready for the model: which line, where its ink is on the page, and its width at 32 px high. */
interface LineCut {
  readonly line: number
  /** The ink's box with the margin, in page pixels. */
  readonly box: Box
  readonly outW: number
}

/**
 * The ink's extent inside `box` (rows and columns holding ink beyond noise, rules left out), with a
 * margin of a tenth of the ink's height above and below and `SIDE_MARGIN` of it on either side,
 * or undefined when the box holds no glyph-sized ink.
 */
export const inkBox = (gray: Gray, threshold: number, [x0, y0, x1, y1]: Box, ruleMask?: Uint8Array): Box | undefined => {
  const w = x1 - x0
  const h = y1 - y0
  if (w <= 0 || h <= 0) return undefined
  const rows = new Int32Array(h)
  const cols = new Int32Array(w)
  const ink = (x: number, y: number) => gray.data[y * gray.width + x] <= threshold && (ruleMask === undefined || ruleMask[y * gray.width + x] === 0)
  // Only ink with ink to its right and below counts: glyph strokes are wider than a pixel, while a
  // scan's noise specks are mostly single pixels. Specks counted in full made the row test so strict
  // that the single descender of a line's one `y` was cut off (read as `v`).
  for (let y = y0; y < y1 - 1; y++) {
    for (let x = x0; x < x1 - 1; x++) {
      if (ink(x, y) && ink(x + 1, y) && ink(x, y + 1)) {
        rows[y - y0]++
        cols[x - x0]++
      }
    }
  }
  const rowFloor = 1
  let top = 0
  while (top < h && rows[top] <= rowFloor) top++
  let bottom = h - 1
  while (bottom > top && rows[bottom] <= rowFloor) bottom--
  if (bottom - top < 3) return undefined
  let left = 0
  while (left < w && cols[left] < 2) left++
  let right = w - 1
  while (right > left && cols[right] < 2) right--
  if (right - left < 2) return undefined
  const pad = Math.max(1, Math.round((bottom - top + 1) * 0.1))
  const side = Math.max(2, Math.round((bottom - top + 1) * SIDE_MARGIN))
  return [
    Math.max(0, x0 + left - side),
    Math.max(0, y0 + top - pad),
    Math.min(gray.width, x0 + right + 1 + side),
    Math.min(gray.height, y0 + bottom + 1 + pad)
  ]
}

/**
 * Splits a line's ink box at blank runs at least `minGap` wide (a table's column gaps, a form's
 * tab stops): the model was trained on word spaces and short gaps, and each piece is read on its
 * own. Pieces keep the line's top and bottom, so they are scaled alike.
 */
export const splitAtGaps = (gray: Gray, threshold: number, [x0, y0, x1, y1]: Box, minGap: number, ruleMask?: Uint8Array): Array<Box> => {
  const cols = new Int32Array(x1 - x0)
  for (let y = y0; y < y1; y++) {
    const base = y * gray.width
    for (let x = x0; x < x1; x++) if (gray.data[base + x] <= threshold && (ruleMask === undefined || ruleMask[base + x] === 0)) cols[x - x0]++
  }
  const out: Array<Box> = []
  let start = -1
  let lastInk = -1
  const pad = Math.max(2, Math.round((y1 - y0) * SIDE_MARGIN))
  for (let i = 0; i <= cols.length; i++) {
    const ink = i < cols.length && cols[i] >= 2
    if (!ink) continue
    if (start < 0) start = i
    else if (i - lastInk - 1 >= minGap) {
      out.push([Math.max(x0, x0 + start - pad), y0, Math.min(x1, x0 + lastInk + 1 + pad), y1])
      start = i
    }
    lastInk = i
  }
  if (start >= 0) out.push([Math.max(x0, x0 + start - pad), y0, Math.min(x1, x0 + lastInk + 1 + pad), y1])
  return out
}

/** Triangle-filter weights for resampling `inSize` pixels to `outSize` (antialiased when shrinking), as [first, weights] per output pixel. */
const weightsFor = (inSize: number, outSize: number): Array<{ first: number; weights: Float32Array }> => {
  const scale = outSize / inSize
  const support = scale < 1 ? 1 / scale : 1
  const out: Array<{ first: number; weights: Float32Array }> = []
  for (let o = 0; o < outSize; o++) {
    const center = (o + 0.5) / scale
    const first = Math.max(0, Math.floor(center - support))
    const last = Math.min(inSize - 1, Math.ceil(center + support))
    const weights = new Float32Array(last - first + 1)
    let sum = 0
    for (let i = first; i <= last; i++) {
      const wgt = Math.max(0, 1 - Math.abs(i + 0.5 - center) / support)
      weights[i - first] = wgt
      sum += wgt
    }
    if (sum > 0) for (let k = 0; k < weights.length; k++) weights[k] /= sum
    out.push({ first, weights })
  }
  return out
}

/**
 * Writes `box` of the page, resampled to `outW` x 32, into `dst` at `offset` (row stride `padW`),
 * as ink 1.0 / paper 0.0. Pixels of the page's long rules (`rules`) read as paper.
 */
export const fillLine = (gray: Gray, ruleMask: Uint8Array | undefined, box: Box, outW: number, padW: number, dst: Float32Array, offset: number) => {
  const [x0, y0, x1, y1] = box
  const bw = x1 - x0
  const bh = y1 - y0
  const rowsW = weightsFor(bh, HEIGHT)
  const colsW = weightsFor(bw, outW)
  // Rows first: bh x bw -> HEIGHT x bw, then columns.
  const tmp = new Float32Array(HEIGHT * bw)
  for (let y = 0; y < HEIGHT; y++) {
    const { first, weights } = rowsW[y]
    for (let k = 0; k < weights.length; k++) {
      const wgt = weights[k]
      if (wgt === 0) continue
      const src = (y0 + first + k) * gray.width + x0
      const row = y * bw
      for (let x = 0; x < bw; x++) {
        const v = ruleMask !== undefined && ruleMask[src + x] === 1 ? 255 : gray.data[src + x]
        tmp[row + x] += wgt * (1 - v / 255)
      }
    }
  }
  for (let y = 0; y < HEIGHT; y++) {
    const row = y * bw
    const out = offset + y * padW
    for (let x = 0; x < outW; x++) {
      const { first, weights } = colsW[x]
      let v = 0
      for (let k = 0; k < weights.length; k++) v += weights[k] * tmp[row + first + k]
      dst[out + x] = v
    }
  }
}

/** Splits a decoded line at its spaces into words, each placed along the line by its characters' steps. */
export const wordsOf = (line: CtcLine, box: Box, pxPerStep: number): Array<OcrWord> => {
  const [x0, y0, x1, y1] = box
  const toX = (step: number) => Math.min(x1, Math.max(x0, x0 + step * pxPerStep))
  const words: Array<OcrWord> = []
  let current: Array<CtcLine["chars"][number]> = []
  const flush = () => {
    if (current.length === 0) return
    let p = 0
    for (const c of current) p += c.prob
    words.push({
      text: current.map((c) => c.char).join(""),
      bbox: [Math.round(toX(current[0].step - 0.5)), y0, Math.round(toX(current[current.length - 1].step + 1.5)), y1],
      confidence: p / current.length
    })
    current = []
  }
  for (const c of line.chars) {
    if (c.char === " ") flush()
    else current.push(c)
  }
  flush()
  return words
}

/** `box` of the page copied onto a white canvas `margin` pixels larger on every side. */
export const onWhite = (gray: Gray, [x0, y0, x1, y1]: Box, margin: number): Gray => {
  const width = x1 - x0 + 2 * margin
  const height = y1 - y0 + 2 * margin
  const data = new Uint8Array(width * height).fill(255)
  for (let y = y0; y < y1; y++) data.set(gray.data.subarray(y * gray.width + x0, y * gray.width + x1), (y - y0 + margin) * width + margin)
  return { data, width, height }
}

/** The CTC classes: 0 is the blank, then the card's charset in order. */
export const readCharset = (cardPath: string): Array<string> => {
  const card = JSON.parse(readFileSync(cardPath, "utf8")) as { charset?: unknown }
  if (typeof card.charset !== "string" || card.charset.length === 0) throw new Error(`${cardPath} has no charset`)
  return ["", ...Array.from(card.charset)]
}

export const make = Effect.fn("LineEngine.make")(function*(options: LineEngineOptions = {}) {
  const model = options.model ?? defaultLineModel
  const unavailable = (cause: unknown) =>
    new OcrError({ engine: ENGINE, reason: new OcrEngineUnavailable({ message: `the line model could not be loaded: ${String(cause)}` }) })
  const { session, charset } = yield* Effect.tryPromise({
    try: async () => {
      const charset = readCharset(model.card)
      const session = await ort.InferenceSession.create(model.onnx, {
        intraOpNumThreads: options.threads ?? 1,
        interOpNumThreads: 1,
        graphOptimizationLevel: "all",
        executionMode: "sequential"
      })
      return { session, charset }
    },
    catch: unavailable
  })
  yield* Effect.addFinalizer(() => Effect.promise(() => session.release().catch(() => undefined)))
  const modelName = basename(model.onnx, ".onnx")
  const batchSize = options.batchSize ?? 16
  const fallback = options.fallback ?? 0
  const gapFactor = options.gap ?? 1
  const lock = Semaphore.makeUnsafe(1)
  const throughput = makeThroughput(1)

  // Tesseract for the lines the model is unsure of: started, with its private cache folder, on the first such line.
  let cachePath: string | undefined
  let reader: Worker | undefined
  let readerDpi: number | undefined
  yield* Effect.addFinalizer(() =>
    Effect.promise(async () => {
      await reader?.terminate().catch(() => undefined)
      if (cachePath !== undefined) rmSync(cachePath, { recursive: true, force: true })
    })
  )
  const ensureReader = async () => {
    if (reader === undefined) {
      cachePath ??= mkdtempSync(join(tmpdir(), "strata-lines-"))
      let tesseractModel
      try {
        tesseractModel = resolveModel({ model: "fast" })
      } catch {
        tesseractModel = resolveModel({ model: "best_int" })
      }
      reader = await startWorker(tesseractModel, cachePath, { layout: "lines" })
      readerDpi = undefined
    }
    return reader
  }

  /** Tesseract's single-line reading of `box`, in page pixels, or undefined when it finds no words. */
  const readWithTesseract = async (gray: Gray, box: Box, dpi: number | undefined): Promise<OcrLine | undefined> => {
    const w = await ensureReader()
    if (dpi !== undefined && dpi !== readerDpi) {
      await w.setParameters({ user_defined_dpi: String(Math.round(dpi)) })
      readerDpi = dpi
    }
    // The line alone on white, with a margin of half its height: a plain crop with that margin would take in the neighbouring lines' ink.
    const margin = Math.max(4, Math.round((box[3] - box[1]) / 2))
    const words = await readStrip(w, onWhite(gray, box, margin), box[0] - margin, box[1] - margin)
    if (words.length === 0) return undefined
    return { text: words.map((w) => w.text).join(" "), bbox: box, confidence: lineConfidence(words), words }
  }

  const readPage = async (gray: Gray, dpi: number | undefined): Promise<{ lines: Array<OcrLine>; reread: number }> => {
    const found = segment(gray, { dpi })
    const ruleMask = found.rules.length === 0 ? undefined : new Uint8Array(gray.width * gray.height)
    if (ruleMask !== undefined) for (const i of found.rules) ruleMask[i] = 1
    const boxes: Array<Box> = []
    const cuts: Array<LineCut> = []
    for (const block of found.blocks) {
      for (const line of linesOf(gray, found.threshold, block, dpi, "lightest")) {
        const box = inkBox(gray, found.threshold, line, ruleMask)
        if (box === undefined) continue
        const height = box[3] - box[1]
        for (const piece of splitAtGaps(gray, found.threshold, box, Math.round(height * gapFactor), ruleMask)) {
          const outW = Math.max(STEP * 2, Math.round(((piece[2] - piece[0]) * HEIGHT) / height))
          cuts.push({ line: boxes.length, box: piece, outW })
        }
        boxes.push(box)
      }
    }
    const words: Array<Array<{ x: number; words: Array<OcrWord>; sum: number; n: number }>> = boxes.map(() => [])
    // Lines to hand to tesseract, with the model's least certain character's probability on each.
    const unsure = new Map<number, number>()
    const byWidth = [...cuts].sort((a, b) => a.outW - b.outW)
    for (let i = 0; i < byWidth.length; i += batchSize) {
      const batch = byWidth.slice(i, i + batchSize)
      const padW = Math.ceil(Math.max(...batch.map((b) => b.outW)) / STEP) * STEP
      const data = new Float32Array(batch.length * HEIGHT * padW)
      batch.forEach((b, k) => fillLine(gray, ruleMask, b.box, b.outW, padW, data, k * HEIGHT * padW))
      const out = await session.run({ [session.inputNames[0]]: new ort.Tensor("float32", data, [batch.length, 1, HEIGHT, padW]) })
      const probs = out[session.outputNames[0]]
      const [, steps, classes] = probs.dims as [number, number, number]
      const logs = probs.data as Float32Array
      const p = new Float32Array(steps * classes)
      batch.forEach((b, k) => {
        const valid = Math.min(steps, Math.ceil(b.outW / STEP))
        const base = k * steps * classes
        for (let j = 0; j < valid * classes; j++) p[j] = Math.exp(logs[base + j])
        // Spaces are a class of their own here: no recovery of spaces from blank steps.
        const decoded = ctcDecode(p, 0, valid, classes, charset, 2)
        let least = 1
        let sum = 0
        for (const c of decoded.chars) {
          least = Math.min(least, c.prob)
          sum += c.prob
        }
        if (fallback > 0 && least < fallback) unsure.set(b.line, Math.min(least, unsure.get(b.line) ?? 1))
        const placed = wordsOf(decoded, b.box, (STEP * (b.box[2] - b.box[0])) / b.outW)
        if (placed.length > 0) words[b.line].push({ x: b.box[0], words: placed, sum, n: decoded.chars.length })
      })
    }
    const lines: Array<OcrLine | undefined> = boxes.map((box, k) => {
      const pieces = words[k].sort((a, b) => a.x - b.x)
      if (pieces.length === 0) return undefined
      const all = pieces.flatMap((piece) => piece.words)
      const n = pieces.reduce((t, piece) => t + piece.n, 0)
      return { text: all.map((w) => w.text).join(" "), bbox: box, confidence: n === 0 ? 0 : pieces.reduce((t, piece) => t + piece.sum, 0) / n, words: all }
    })
    let replaced = 0
    for (const [k, least] of unsure) {
      const read = await readWithTesseract(gray, boxes[k], dpi)
      if (read !== undefined && (lines[k] === undefined || read.confidence > least)) {
        lines[k] = read
        replaced++
      }
    }
    return { lines: lines.filter((l): l is OcrLine => l !== undefined), reread: replaced }
  }

  const readLines = (gray: Gray, recognizeOptions: RecognizeOptions | undefined) =>
    lock.withPermits(1)(
      withinDeadline(
        ENGINE,
        Effect.tryPromise({ try: () => readPage(gray, recognizeOptions?.dpi), catch: engineFailed(ENGINE) }),
        recognizeOptions?.deadline,
        () => {
          // A tesseract job cannot be interrupted: the next page gets a fresh reader.
          const stale = reader
          reader = undefined
          void stale?.terminate().catch(() => undefined)
        }
      )
    )

  const recognize = Effect.fn("LineEngine.recognize")(function*(image: OcrImage, recognizeOptions?: RecognizeOptions) {
    const started = Date.now()
    const { gray, orientation, read: { lines, reread } } = yield* readUpright(ENGINE, image, recognizeOptions, (page) => readLines(page, recognizeOptions), "invert", 1)
    throughput.record((Date.now() - started) / 1000)
    const out: OcrResult = {
      engine: ENGINE,
      model: reread > 0 ? `${modelName}+tesseract` : modelName,
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

export const layer = (options: LineEngineOptions = {}): Layer.Layer<OcrEngine, OcrError> => Layer.effect(OcrEngine, make(options))
