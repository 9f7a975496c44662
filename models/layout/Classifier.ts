/**
 * The block classifier applied in TypeScript: a label and its probability for every block of a
 * document's pages as the heuristic Layout layer labelled them (`Features.ts`), and the kind the
 * learned layer would keep. The reader runs the same trees from `classifier.onnx` with
 * onnxruntime-node (packages/pdf LearnedLayout.ts); the bench and `train.ts` use this.
 */
import { readFileSync } from "node:fs"
import { documentRows, FEATURES, type PageSnapshot } from "./Features.ts"
import { decide, decidePage } from "../../packages/pdf/src/LayoutDecision.ts"
import { predict, type TreeModel } from "./Trees.ts"

export const modelPath = new URL("./classifier.json", import.meta.url)

export const loadModel = (path: URL | string = modelPath): TreeModel => {
  const model = JSON.parse(readFileSync(path, "utf8")) as TreeModel
  if (model.features.join() !== FEATURES.join()) throw new Error("classifier.json was trained on other features: run models/layout/train.ts")
  // The file's decimals are the float32 splits the trees were fitted with, to 9 digits: rounded back exactly.
  for (const round of model.rounds) for (const tree of round) tree.split.forEach((v, i) => { tree.split[i] = Math.fround(v) })
  return model
}

export interface Labelled {
  /** The model's most probable label and its probability. */
  readonly label: string
  readonly confidence: number
  /** The kind the learned layer keeps (packages/pdf LayoutDecision.ts): the model's at or above `gate` where the page agrees, else the heuristic's. */
  readonly gated: string
  /** The kind block by block, without the page's constraints (LayoutDecision.ts `decide`): the layer before them. */
  readonly alone: string
}

/** Per page, per block (the snapshots' order): the model's label, gated at `gate` (the model's own by default). */
export const classify = (model: TreeModel, pages: ReadonlyArray<PageSnapshot>, gate = model.gate ?? 0): Array<Array<Labelled>> =>
  documentRows(pages).map((rows, p) => {
    const probs = rows.map((row) => predict(model, row)), blocks = pages[p].blocks
    return decidePage(model.classes, (i) => probs[i], blocks, gate).map((d, i) => ({
      label: d.label, confidence: d.confidence, gated: d.kind, alone: decide(model.classes, probs[i], blocks[i].kind, gate, blocks[i].structured).kind
    }))
  })
