/**
 * Trains the block classifier (`Classifier.ts`): multiclass gradient-boosted trees (`Trees.ts`)
 * over the features of `Features.ts`, on generated training documents (seeds 0-999 are the
 * training range; by default 0-299 are used). Each block the heuristic Layout layer labels gets
 * the label of the region it overlaps most (bench/pdf/LayoutMetric.ts's matching; page numbers
 * folded into page_header/page_footer); blocks matching no region are left out. Writes
 * models/layout/classifier.json. The held-out figures come from `bench/pdf/Layout.ts`.
 *
 *   node -C @strata/source models/layout/train.ts [--from 0] [--to 299] [--rounds 60]
 */
import { writeFileSync } from "node:fs"
import { parseArgs } from "node:util"
import { generatedDocuments } from "../../bench/pdf/LayoutData.ts"
import { type Box, foldLabel, LABELS, matchRegion } from "../../bench/pdf/LayoutMetric.ts"
import { modelPath } from "./Classifier.ts"
import { documentRows, FEATURES } from "./Features.ts"
import { train } from "./Trees.ts"

const { values: args } = parseArgs({
  options: {
    from: { type: "string", default: "0" },
    to: { type: "string", default: "299" },
    rounds: { type: "string", default: "60" },
    depth: { type: "string", default: "4" },
    rate: { type: "string", default: "0.2" }
  }
})
if (Number(args.to) >= 1000) throw new Error("seeds from 1000 are held out")

const started = performance.now()
const X: Array<Array<number>> = [], y: Array<number> = []
let blocks = 0, docs = 0
for await (const doc of generatedDocuments(Number(args.from), Number(args.to))) {
  docs++
  const rows = documentRows(doc.snapshots)
  doc.snapshots.forEach((snapshot, p) => {
    const page = doc.pages.find((l) => l.page.pageNumber === snapshot.pageNumber)
    if (page === undefined) return
    snapshot.blocks.forEach((b, i) => {
      blocks++
      const box: Box = [b.x0 / snapshot.width, b.top / snapshot.height, b.x1 / snapshot.width, b.bottom / snapshot.height]
      const match = matchRegion(box, page.truth)
      if (match < 0) return
      X.push(rows[p][i])
      y.push(LABELS.indexOf(foldLabel(page.truth[match].label, box) as (typeof LABELS)[number]))
    })
  })
}
const read = performance.now()
console.error(`${docs} documents, ${blocks} blocks, ${X.length} labelled in ${((read - started) / 1000).toFixed(1)} s`)
const model = train(X, y, LABELS, FEATURES, { rounds: Number(args.rounds), depth: Number(args.depth), rate: Number(args.rate), minLeaf: 5, lambda: 1 }, (round, loss) => {
  if (round % 10 === 0) console.error(`round ${round} loss ${loss.toFixed(4)}`)
})
// Split values kept to 6 significant digits: the file stays small and scores the same.
const json = JSON.stringify(model, (_, v) => (typeof v === "number" && !Number.isInteger(v) ? Number(v.toPrecision(6)) : v))
writeFileSync(modelPath, json + "\n")
console.error(`trained in ${((performance.now() - read) / 1000).toFixed(1)} s; ${(json.length / 1024).toFixed(0)} KB -> ${modelPath.pathname}`)
