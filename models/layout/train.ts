/**
 * Trains the block classifier (`Classifier.ts`): multiclass gradient-boosted trees (`Trees.ts`)
 * over the features of `Features.ts`, then chooses its confidence gate on validation data.
 *
 * - Training: generated documents (seeds 0-999 are the training range; by default 0-299), and
 *   with `--docbank-weight k` the even-numbered half of DocBank's 30 pages (by sorted file name),
 *   each of their rows k times. Each block the heuristic Layout layer labels gets the label of the
 *   region it overlaps most (bench/pdf/LayoutMetric.ts's matching; page numbers folded into
 *   page_header/page_footer); blocks matching no region are left out.
 * - With `--latex-to n`, also the LaTeX documents of seeds `--latex-from`..n (models/layout/data
 *   generateLatex.ts, `.tmp/layout-latex`), each row once.
 * - Gate: on generated seeds 300-359 and DocBank's odd-numbered half (neither trained on), the
 *   threshold in GATES that gives the best DocBank macro-F1 while the generated macro-F1 stays at
 *   least 0.10 above the heuristic's; below it a block keeps the heuristic's kind. With
 *   `--latex-val-to`, the LaTeX validation seeds must also not fall below the heuristic's
 *   macro-F1 on them. Docling's PDFs play no part.
 *
 * Writes models/layout/classifier.json (with `gate`). The held-out figures come from
 * `bench/pdf/Layout.ts`.
 *
 *   node -C @strata/source models/layout/train.ts [--from 0] [--to 299] [--rounds 60] [--docbank-weight 0]
 *     [--latex-from 0 --latex-to 299 --latex-val-from 300 --latex-val-to 359]
 */
import { writeFileSync } from "node:fs"
import { parseArgs } from "node:util"
import { docbankDocuments, docbankFiles, generatedDocuments, type LabelledDocument, latexDocuments, relabelled } from "../../bench/pdf/LayoutData.ts"
import { type Box, foldLabel, LABELS, matchRegion, scorePage, scores, tally } from "../../bench/pdf/LayoutMetric.ts"
import { decidePage } from "../../packages/pdf/src/LayoutDecision.ts"
import { modelPath } from "./Classifier.ts"
import { documentRows, FEATURES } from "./Features.ts"
import { predict, train } from "./Trees.ts"

const { values: args } = parseArgs({
  options: {
    from: { type: "string", default: "0" },
    to: { type: "string", default: "299" },
    "val-from": { type: "string", default: "300" },
    "val-to": { type: "string", default: "359" },
    rounds: { type: "string", default: "60" },
    depth: { type: "string", default: "4" },
    rate: { type: "string", default: "0.2" },
    "docbank-weight": { type: "string", default: "0" },
    "latex-from": { type: "string", default: "0" },
    "latex-to": { type: "string", default: "-1" },
    "latex-val-from": { type: "string", default: "300" },
    "latex-val-to": { type: "string", default: "-1" },
    out: { type: "string" }
  }
})
if ([args.to, args["val-to"], args["latex-to"], args["latex-val-to"]].some((s) => Number(s) >= 1000)) throw new Error("seeds from 1000 are held out")
const latexTo = Number(args["latex-to"]), latexValTo = Number(args["latex-val-to"])

/** Thresholds tried for the gate; 1.01 keeps every heuristic kind. */
const GATES = [0, 0.5, 0.6, 0.7, 0.8, 0.85, 0.9, 0.95, 0.98, 0.99, 0.995, 1.01]

const docbank = docbankFiles()
const docbankTrain = docbank.filter((_, i) => i % 2 === 0), docbankVal = docbank.filter((_, i) => i % 2 === 1)

const started = performance.now()
const X: Array<Array<number>> = [], y: Array<number> = []
let blocks = 0, docs = 0
const addRows = (doc: LabelledDocument, copies: number) => {
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
      for (let c = 0; c < copies; c++) {
        X.push(rows[p][i])
        y.push(LABELS.indexOf(foldLabel(page.truth[match].label, box) as (typeof LABELS)[number]))
      }
    })
  })
}
for await (const doc of generatedDocuments(Number(args.from), Number(args.to))) addRows(doc, 1)
if (latexTo >= 0) for await (const doc of latexDocuments(Number(args["latex-from"]), latexTo)) addRows(doc, 1)
const weight = Number(args["docbank-weight"])
if (weight > 0) for await (const doc of docbankDocuments(docbankTrain)) addRows(doc, weight)
const read = performance.now()
console.error(`${docs} documents, ${blocks} blocks, ${X.length} labelled rows in ${((read - started) / 1000).toFixed(1)} s`)
const fitted = train(X, y, LABELS, FEATURES, { rounds: Number(args.rounds), depth: Number(args.depth), rate: Number(args.rate), minLeaf: 5, lambda: 1 }, (round, loss) => {
  if (round % 10 === 0) console.error(`round ${round} loss ${loss.toFixed(4)}`)
})
const fit = performance.now()
console.error(`fitted in ${((fit - read) / 1000).toFixed(1)} s`)

/** Macro-F1 of a validation set at each gate (the heuristic's own at 1.01). */
const sweep = async (documents: AsyncIterable<LabelledDocument>) => {
  const tallies = GATES.map(() => tally())
  for await (const doc of documents) {
    const probs = documentRows(doc.snapshots).map((rows) => rows.map((row) => predict(fitted, row)))
    GATES.forEach((gate, g) => {
      const labels = probs.map((page, p) => decidePage(fitted.classes, (i) => page[i], doc.snapshots[p].blocks, gate).map((d) => d.kind))
      relabelled(doc, labels).forEach((ours, i) => scorePage(tallies[g], ours, doc.pages[i].truth))
    })
  }
  return tallies.map((t) => scores(t).macroF1)
}
const generatedVal = await sweep(generatedDocuments(Number(args["val-from"]), Number(args["val-to"])))
const docbankValF1 = await sweep(docbankDocuments(docbankVal))
const latexVal = latexValTo >= 0 ? await sweep(latexDocuments(Number(args["latex-val-from"]), latexValTo)) : undefined
const heuristicGenerated = generatedVal[GATES.length - 1]
const allowed = (g: number) => generatedVal[g] >= heuristicGenerated + 0.1 && (latexVal === undefined || latexVal[g] >= latexVal[GATES.length - 1])
let chosen = GATES.length - 1
GATES.forEach((_, g) => {
  if (allowed(g) && (docbankValF1[g] > docbankValF1[chosen] || !allowed(chosen))) chosen = g
})
console.error(`gate | generated val | docbank val${latexVal === undefined ? "" : " | latex val"}`)
GATES.forEach((gate, g) => console.error(`${gate} | ${generatedVal[g].toFixed(3)} | ${docbankValF1[g].toFixed(3)}${latexVal === undefined ? "" : ` | ${latexVal[g].toFixed(3)}`}${g === chosen ? "  <- chosen" : ""}`))

const validation = {
  generated: `seeds ${args["val-from"]}-${args["val-to"]}`,
  docbank: `${docbankVal.length} odd-numbered pages`,
  ...(latexVal === undefined ? {} : { latex: `seeds ${args["latex-val-from"]}-${latexValTo}` }),
  gates: GATES.map((gate, g) => ({ gate, generated: generatedVal[g], docbank: docbankValF1[g], ...(latexVal === undefined ? {} : { latex: latexVal[g] }) }))
}
const training = { generated: `seeds ${args.from}-${args.to}`, ...(latexTo >= 0 ? { latex: `seeds ${args["latex-from"]}-${latexTo}` } : {}), docbank: weight > 0 ? `${docbankTrain.length} even-numbered pages x ${weight}` : "none", rows: X.length, rounds: Number(args.rounds), depth: Number(args.depth), rate: Number(args.rate) }
// Splits to 9 significant digits (a float32 comes back exactly with Math.fround), leaf values and the rest to 6.
const splits = new Set<unknown>(fitted.rounds.flatMap((round) => round.map((tree) => tree.split)))
const json = JSON.stringify({ ...fitted, gate: GATES[chosen], training, validation }, function(this: unknown, _, v) {
  return typeof v !== "number" || Number.isInteger(v) ? v : Number(v.toPrecision(splits.has(this) ? 9 : 6))
})
const out = args.out ?? modelPath.pathname
writeFileSync(out, json + "\n")
console.error(`validated in ${((performance.now() - fit) / 1000).toFixed(1)} s; ${(json.length / 1024).toFixed(0)} KB -> ${out}`)
