/**
 * The learned Layout layer (issue 17): the heuristic layer, then our block classifier
 * (models/layout: gradient-boosted trees exported to ONNX, run with onnxruntime-node) over the
 * blocks it labelled. Every block gets the model's `label` and `confidence` (the contract's
 * `confidence.layout`); its `kind` becomes the model's only where the model's probability is at
 * least the gate chosen at training (below it the heuristic's kind stays, which is what kept the
 * model from losing to the heuristic on real documents), and never to or from `figure` (a picture
 * has no text to write, and text called a picture would be lost), nor to `table` for a block with
 * no table beside it on its row (LayoutDecision.ts). Boxes, cuts and the heuristic's structure
 * (table grids, LaTeX, list depth) are kept.
 *
 * `classifier.onnx` carries its classes, features and gate in the model's metadata
 * (`strata.layout`), so the file alone is the model. Off by default: `STRATA_PDF_LAYOUT=learned`
 * (packages/strata Readers.ts) or `LearnedLayout.layer` selects it.
 */
import { readFileSync } from "node:fs"
import { fileURLToPath } from "node:url"
import { Effect, Layer, type Scope } from "effect"
import * as ort from "onnxruntime-node"
import { type BlockKind, Layout, type LayoutPage, StageError, Tables } from "@strata/core"
import { heuristicLayout } from "./HeuristicLayout.ts"
import { decidePage } from "./LayoutDecision.ts"
import { FEATURES, pageRows, snapshot } from "./LayoutFeatures.ts"

/** The model the repository ships (models/layout/export.ts writes it). */
export const defaultLayoutModel = fileURLToPath(new URL("../../../models/layout/classifier.onnx", import.meta.url))

export interface LayoutModelMeta {
  readonly classes: ReadonlyArray<string>
  readonly features: ReadonlyArray<string>
  readonly gate: number
}

/** The `strata.layout` entry of a serialised ModelProto's metadata_props (field 14), read without a protobuf library. */
export const layoutModelMeta = (bytes: Uint8Array): LayoutModelMeta => {
  let at = 0
  const varint = (): number => {
    let value = 0, shift = 0, byte = 0
    do { byte = bytes[at++]; value += (byte & 0x7f) * 2 ** shift; shift += 7 } while (byte & 0x80)
    return value
  }
  const fields = (end: number, visit: (field: number, start: number, stop: number) => void) => {
    while (at < end) {
      const key = varint(), field = Math.floor(key / 8), wire = key & 7
      if (wire === 0) { varint(); continue }
      if (wire === 5) { at += 4; continue }
      if (wire === 1) { at += 8; continue }
      const length = varint(), start = at
      at += length
      visit(field, start, at)
    }
  }
  let meta: LayoutModelMeta | undefined
  fields(bytes.length, (field, start, stop) => {
    if (field !== 14) return
    const saved = at
    at = start
    let k = "", v = ""
    fields(stop, (f, s, e) => {
      const text = new TextDecoder().decode(bytes.subarray(s, e))
      if (f === 1) k = text
      if (f === 2) v = text
    })
    at = saved
    if (k === "strata.layout") meta = JSON.parse(v) as LayoutModelMeta
  })
  if (meta === undefined) throw new Error("not a layout model: no strata.layout metadata")
  return meta
}

export interface LayoutClassifier extends LayoutModelMeta {
  /** Class probabilities, row-major ([rows, classes]), of `rows` rows of FEATURES. */
  readonly probabilities: (rows: ReadonlyArray<ReadonlyArray<number>>) => Effect.Effect<Float32Array, StageError>
}

/** The classifier in `path` on onnxruntime-node, released with the scope. */
export const onnxClassifier = (path: string = defaultLayoutModel): Effect.Effect<LayoutClassifier, StageError, Scope.Scope> =>
  Effect.gen(function*() {
    const failed = (cause: unknown) => new StageError({ stage: "Layout", message: `layout model ${path}: ${String(cause)}` })
    const bytes = yield* Effect.try({ try: () => new Uint8Array(readFileSync(path)), catch: failed })
    const meta = yield* Effect.try({ try: () => layoutModelMeta(bytes), catch: failed })
    if (meta.features.join() !== FEATURES.join()) return yield* Effect.fail(failed("trained on other features than LayoutFeatures.ts computes"))
    const session = yield* Effect.acquireRelease(
      Effect.tryPromise({
        // One thread: a page has a few dozen blocks, and the reader's own pages run alongside.
        try: () => ort.InferenceSession.create(bytes, { intraOpNumThreads: 1, interOpNumThreads: 1, executionMode: "sequential" }),
        catch: failed
      }),
      (s) => Effect.promise(() => s.release().catch(() => undefined))
    )
    const width = meta.features.length
    return {
      ...meta,
      probabilities: (rows) =>
        Effect.tryPromise({
          try: async () => {
            const data = new Float32Array(rows.length * width)
            rows.forEach((row, i) => data.set(row, i * width))
            const out = await session.run({ X: new ort.Tensor("float32", data, [rows.length, width]) })
            return out.probabilities.data as Float32Array
          },
          catch: failed
        })
    }
  })

/** `inner`'s labelling, then the classifier's over each labelled page. */
export const learnedLayout = (inner: Layout["Service"], classifier: LayoutClassifier): Layout["Service"] =>
  Layout.of({
    name: "learned",
    begin: Effect.map(inner.begin, (session) => ({
      analyse: session.analyse,
      label: (page, neighbours) =>
        Effect.flatMap(session.label(page, neighbours), (labelled): Effect.Effect<LayoutPage, StageError> => {
          if (labelled.blocks.length === 0) return Effect.succeed(labelled)
          const rows = pageRows(snapshot(labelled, neighbours))
          return Effect.map(classifier.probabilities(rows), (p) => {
            const K = classifier.classes.length
            const blocks = labelled.blocks.map((b) => ({ kind: b.kind, top: b.top, bottom: b.bottom, structured: b.table !== undefined || b.latex !== undefined }))
            const decisions = decidePage(classifier.classes, (i) => p.subarray(i * K, (i + 1) * K), blocks, classifier.gate)
            labelled.blocks.forEach((block, i) => {
              const d = decisions[i]
              block.label = d.label
              block.confidence = Math.round(d.confidence * 1000) / 1000
              block.kind = d.kind as BlockKind
            })
            return labelled
          })
        })
    }))
  })

/** The learned Layout over the context's `Tables`, with the model in `path` (the shipped one by default). */
export const learnedLayoutLayer = (path: string = defaultLayoutModel): Layer.Layer<Layout, StageError, Tables> =>
  Layer.effect(Layout, Effect.gen(function*() {
    const tables = yield* Tables
    return learnedLayout(heuristicLayout(tables), yield* onnxClassifier(path))
  }))

export const LearnedLayout = learnedLayoutLayer()
