/**
 * Writes models/layout/classifier.onnx from classifier.json (`Onnx.ts`), then scores the
 * held-out generated documents' blocks (seeds 1000-1099 by default) with both onnxruntime-node
 * and the TypeScript trees and reports how far they differ: the largest probability difference
 * and the blocks whose label differs (0 expected).
 *
 *   node -C @strata/source models/layout/export.ts [--from 1000] [--to 1099]
 */
import { writeFileSync } from "node:fs"
import { parseArgs } from "node:util"
import { Effect } from "effect"
import { generatedDocuments } from "../../bench/pdf/LayoutData.ts"
import { onnxClassifier } from "../../packages/pdf/src/LearnedLayout.ts"
import { loadModel } from "./Classifier.ts"
import { documentRows } from "./Features.ts"
import { toOnnx } from "./Onnx.ts"
import { predict } from "./Trees.ts"

const { values: args } = parseArgs({ options: { from: { type: "string", default: "1000" }, to: { type: "string", default: "1099" } } })

const model = loadModel()
const bytes = toOnnx(model)
const path = new URL("./classifier.onnx", import.meta.url).pathname
writeFileSync(path, bytes)
console.error(`${(bytes.length / 1024).toFixed(0)} KB -> ${path}`)

const pages: Array<Array<Array<number>>> = []
for await (const doc of generatedDocuments(Number(args.from), Number(args.to))) pages.push(...documentRows(doc.snapshots))

const check = Effect.scoped(Effect.gen(function*() {
  const onnx = yield* onnxClassifier(path)
  let blocks = 0, labelDiffers = 0, maxDiff = 0, onnxMs = 0, tsMs = 0
  {
    for (const rows of pages) {
      if (rows.length === 0) continue
      let t = performance.now()
      const p = yield* onnx.probabilities(rows)
      onnxMs += performance.now() - t
      t = performance.now()
      const ts = rows.map((row) => predict(model, row))
      tsMs += performance.now() - t
      const K = model.classes.length
      ts.forEach((q, i) => {
        blocks++
        let a = 0, b = 0
        for (let k = 0; k < K; k++) {
          maxDiff = Math.max(maxDiff, Math.abs(q[k] - p[i * K + k]))
          if (q[k] > q[a]) a = k
          if (p[i * K + k] > p[i * K + b]) b = k
        }
        if (a !== b) labelDiffers++
      })
    }
  }
  return { blocks, labelDiffers, maxProbabilityDifference: maxDiff, onnxMs: Math.round(onnxMs), typescriptMs: Math.round(tsMs) }
}))
console.log(JSON.stringify({ pages: pages.length, ...(await Effect.runPromise(check)) }))
