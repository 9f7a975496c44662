/**
 * Where the page's structure overrules the block classifier (packages/pdf LayoutDecision.ts
 * `decidePage`), measured on the validation data only (generated seeds 300-359, DocBank's
 * odd-numbered pages; the split of train.ts, never Docling's PDFs nor seeds from 1000):
 * - every change of kind the gated model makes, by transition (heuristic kind -> model kind),
 *   with how often the labelled region has the new kind, the old one, or another;
 * - macro-F1 at each gate of train.ts with the block-by-block decision (`decide`) and with the
 *   page's constraints (`decidePage`), to check that the constraints keep the gate's choice.
 *
 *   node -C @strata/source models/layout/Constraints.ts
 */
import { docbankDocuments, docbankFiles, generatedDocuments, type LabelledDocument, relabelled } from "../../bench/pdf/LayoutData.ts"
import { type Box, foldLabel, matchRegion, scorePage, scores, tally } from "../../bench/pdf/LayoutMetric.ts"
import { decide, decidePage } from "../../packages/pdf/src/LayoutDecision.ts"
import { loadModel } from "./Classifier.ts"
import { documentRows } from "./Features.ts"
import { predict } from "./Trees.ts"

const GATES = [0, 0.5, 0.6, 0.7, 0.8, 0.85, 0.9, 0.95, 0.98, 0.99, 0.995, 1.01]
const model = loadModel()

const measure = async (name: string, documents: AsyncIterable<LabelledDocument>) => {
  const blockwise = GATES.map(() => tally()), paged = GATES.map(() => tally())
  const transitions = new Map<string, { right: number; before: number; other: number; overruled: number }>()
  for await (const doc of documents) {
    const probs = documentRows(doc.snapshots).map((rows) => rows.map((row) => predict(model, row)))
    GATES.forEach((gate, g) => {
      const one = probs.map((page, p) => page.map((pr, i) => decide(model.classes, pr, doc.snapshots[p].blocks[i].kind, gate, doc.snapshots[p].blocks[i].structured).kind))
      const all = probs.map((page, p) => decidePage(model.classes, (i) => page[i], doc.snapshots[p].blocks, gate).map((d) => d.kind))
      relabelled(doc, one).forEach((ours, i) => scorePage(blockwise[g], ours, doc.pages[i].truth))
      relabelled(doc, all).forEach((ours, i) => scorePage(paged[g], ours, doc.pages[i].truth))
      if (gate !== model.gate) return
      doc.snapshots.forEach((s, p) => {
        const page = doc.pages.find((l) => l.page.pageNumber === s.pageNumber)
        s.blocks.forEach((b, i) => {
          if (one[p][i] === b.kind || page === undefined) return
          const box: Box = [b.x0 / s.width, b.top / s.height, b.x1 / s.width, b.bottom / s.height]
          const m = matchRegion(box, page.truth)
          const before = foldLabel(b.kind, box), after = foldLabel(one[p][i], box), truth = m < 0 ? undefined : page.truth[m].label
          const key = `${before} -> ${after}`
          const t = transitions.get(key) ?? { right: 0, before: 0, other: 0, overruled: 0 }
          if (truth === after) t.right++
          else if (truth === before) t.before++
          else if (truth !== undefined) t.other++
          if (all[p][i] !== one[p][i]) t.overruled++
          transitions.set(key, t)
        })
      })
    })
  }
  console.log(`## ${name}\n\ntransition at gate ${model.gate} | region has the new kind | the old | another | overruled by the page`)
  for (const [k, t] of [...transitions].sort((a, b) => b[1].right + b[1].before + b[1].other - a[1].right - a[1].before - a[1].other)) console.log(`${k} | ${t.right} | ${t.before} | ${t.other} | ${t.overruled}`)
  console.log(`\ngate | macro-F1 block by block | with the page's constraints`)
  GATES.forEach((gate, g) => console.log(`${gate} | ${scores(blockwise[g]).macroF1.toFixed(3)} | ${scores(paged[g]).macroF1.toFixed(3)}`))
  console.log("")
}

const docbank = docbankFiles()
await measure("generated seeds 300-359", generatedDocuments(300, 359))
await measure("DocBank's odd-numbered pages", docbankDocuments(docbank.filter((_, i) => i % 2 === 1)))
