/**
 * The block classifier applied: a label and its probability for every block of a document's
 * pages as the heuristic Layout layer labelled them (`Features.ts`). Not wired into the reader
 * yet; the layout bench and `train.ts` use it to relabel the reader's blocks.
 */
import { readFileSync } from "node:fs"
import { documentRows, FEATURES, type PageSnapshot } from "./Features.ts"
import { predict, type TreeModel } from "./Trees.ts"

export const modelPath = new URL("./classifier.json", import.meta.url)

export const loadModel = (path: URL | string = modelPath): TreeModel => {
  const model = JSON.parse(readFileSync(path, "utf8")) as TreeModel
  if (model.features.join() !== FEATURES.join()) throw new Error("classifier.json was trained on other features: run models/layout/train.ts")
  return model
}

export interface Labelled { readonly label: string; readonly confidence: number }

/** Per page, per block (the snapshots' order): the model's label. */
export const classify = (model: TreeModel, pages: ReadonlyArray<PageSnapshot>): Array<Array<Labelled>> =>
  documentRows(pages).map((rows) => rows.map((row) => {
    const p = predict(model, row)
    let best = 0
    for (let k = 1; k < p.length; k++) if (p[k] > p[best]) best = k
    return { label: model.classes[best], confidence: p[best] }
  }))
