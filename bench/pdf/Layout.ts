/**
 * The layout bench (issue 17): block-label F1 (per label and macro) and box IoU of our Layout
 * layer against labelled regions (`LayoutMetric.ts`), on
 * - generated documents (models/layout/data, exact labels from the DOM), the held-out seeds
 *   1000-1099 by default (seeds 0-999 are a model's training range and are not scored here);
 * - generated LaTeX documents (models/layout/data generateLatex.ts, exact labels from the source),
 *   held-out seeds 1000-1099 by default;
 * - Docling's PDFs in ../shared/corpus with Docling's JSON layout labels (a peer's, not truth).
 *
 * Today the layer is the heuristic one; a learned layer is scored with the same pages and
 * matching. Writes bench/results/layout.json and layout.md unless `--no-write`.
 *
 *   node -C @strata/source bench/pdf/Layout.ts [--from 1000] [--to 1099] [--latex-from 1000] [--latex-to 1099]
 *     [--classifier path/to/classifier.json] [--no-write]
 */
import { existsSync, writeFileSync } from "node:fs"
import { loadavg } from "node:os"
import { parseArgs } from "node:util"
import { Effect } from "effect"
import { classify, loadModel, modelPath } from "../../models/layout/Classifier.ts"
import { pageRows, type PageSnapshot } from "../../models/layout/Features.ts"
import { onnxClassifier } from "../../packages/pdf/src/LearnedLayout.ts"
import type { TreeModel } from "../../models/layout/Trees.ts"
import { docbankDocuments, doclingDocuments, doclingFiles, generatedDocuments, type LabelledDocument, latexDocuments, relabelled } from "./LayoutData.ts"
import { LABELS, type Scores, scorePage, scores, tally } from "./LayoutMetric.ts"

const { values: args } = parseArgs({
  options: {
    from: { type: "string", default: "1000" },
    to: { type: "string", default: "1099" },
    "latex-from": { type: "string", default: "1000" },
    "latex-to": { type: "string", default: "1099" },
    /** Another classifier.json to score (an older model, to compare); the default is the shipped one. */
    classifier: { type: "string" },
    "no-write": { type: "boolean", default: false },
    /** Also score the block classifier of models/layout (when its classifier.json is there). */
    model: { type: "boolean", default: true }
  }
})
const classifierPath = args.classifier ?? modelPath
const model: TreeModel | undefined = args.model && existsSync(classifierPath) ? loadModel(classifierPath) : undefined

const score = async (docs: AsyncIterable<LabelledDocument>) => {
  const heuristic = tally(), learned = tally(), ungated = tally(), alone = tally()
  const counts = { mapped: 0, blocks: 0 }
  let documents = 0
  let ms = performance.now()
  for await (const doc of docs) {
    documents++
    for (const p of doc.pages) scorePage(heuristic, p.blocks.map((b) => b.region), p.truth)
    if (model === undefined) continue
    const labels = classify(model, doc.snapshots)
    relabelled(doc, labels.map((page) => page.map((b) => b.gated)), counts).forEach((ours, i) => scorePage(learned, ours, doc.pages[i].truth))
    relabelled(doc, labels.map((page) => page.map((b) => b.label))).forEach((ours, i) => scorePage(ungated, ours, doc.pages[i].truth))
    relabelled(doc, labels.map((page) => page.map((b) => b.alone))).forEach((ours, i) => scorePage(alone, ours, doc.pages[i].truth))
  }
  ms = performance.now() - ms
  const base = { documents, seconds: Math.round(ms / 100) / 10 }
  return {
    heuristic: { ...base, ...scores(heuristic) },
    model: model === undefined ? undefined : { ...base, ...scores(learned), ungated: scores(ungated), blockByBlock: scores(alone), blocksFoundAmongLabelled: Math.round((counts.mapped / Math.max(1, counts.blocks)) * 1000) / 1000 }
  }
}

const started = new Date()
const from = Number(args.from), to = Number(args.to)
const both = await score(generatedDocuments(from, to))
const generated = both.heuristic
console.error("generated", JSON.stringify({ macroF1: generated.macroF1, meanIoU: generated.meanIoU, found: generated.found, pages: generated.pages, model: both.model?.macroF1, blockByBlock: both.model?.blockByBlock.macroF1 }))
const latexFrom = Number(args["latex-from"]), latexTo = Number(args["latex-to"])
const latexBoth = await score(latexDocuments(latexFrom, latexTo))
const latex = latexBoth.heuristic
console.error("latex", JSON.stringify({ macroF1: latex.macroF1, meanIoU: latex.meanIoU, found: latex.found, pages: latex.pages, model: latexBoth.model?.macroF1, blockByBlock: latexBoth.model?.blockByBlock.macroF1 }))
const doclingBoth = await score(doclingDocuments())
const docling = doclingBoth.heuristic
console.error("docling", JSON.stringify({ macroF1: docling.macroF1, meanIoU: docling.meanIoU, found: docling.found, pages: docling.pages, model: doclingBoth.model?.macroF1, blockByBlock: doclingBoth.model?.blockByBlock.macroF1, ungated: doclingBoth.model?.ungated.macroF1 }))
const docbankBoth = await score(docbankDocuments())
console.error("docbank", JSON.stringify({ macroF1: docbankBoth.heuristic.macroF1, pages: docbankBoth.heuristic.pages, model: docbankBoth.model?.macroF1, blockByBlock: docbankBoth.model?.blockByBlock.macroF1, ungated: docbankBoth.model?.ungated.macroF1 }))

/**
 * What the learned layer adds to a page, on Docling's pages as the heuristic labelled them: the
 * features (TypeScript) and one onnxruntime-node run per page (packages/pdf LearnedLayout), 20
 * rounds after a warm-up round. The reader's own pages/s with and without it: bench/pdf/Speed.ts --layout learned.
 */
const layerCost = async (pages: ReadonlyArray<PageSnapshot>) => Effect.runPromise(Effect.scoped(Effect.gen(function*() {
  const onnx = yield* onnxClassifier()
  // CPU time (user + system, all threads) as well as wall time: a loaded machine distorts it least.
  const cpuMs = (from: NodeJS.CpuUsage) => { const d = process.cpuUsage(from); return (d.user + d.system) / 1000 }
  const totals = { featuresMs: 0, featuresCpuMs: 0, onnxMs: 0, onnxCpuMs: 0 }
  let n = 0
  for (let round = 0; round <= 20; round++) {
    let t = performance.now(), cpu = process.cpuUsage()
    const rows = pages.map(pageRows)
    const featuresMs = performance.now() - t, featuresCpuMs = cpuMs(cpu)
    t = performance.now(); cpu = process.cpuUsage()
    for (const r of rows) if (r.length > 0) yield* onnx.probabilities(r)
    if (round === 0) continue
    totals.featuresMs += featuresMs; totals.featuresCpuMs += featuresCpuMs
    totals.onnxMs += performance.now() - t; totals.onnxCpuMs += cpuMs(cpu)
    n += pages.length
  }
  const per = (v: number) => Math.round((v / n) * 1000) / 1000
  return { pages: n, featuresMsPerPage: per(totals.featuresMs), featuresCpuMsPerPage: per(totals.featuresCpuMs), onnxMsPerPage: per(totals.onnxMs), onnxCpuMsPerPage: per(totals.onnxCpuMs) }
})))
const doclingSnapshots: Array<PageSnapshot> = []
for await (const doc of doclingDocuments()) doclingSnapshots.push(...doc.snapshots)
const cost = model === undefined ? undefined : await layerCost(doclingSnapshots)

const report = {
  date: started.toISOString(),
  layer: "heuristic",
  load: Math.round(loadavg()[0] * 10) / 10,
  split: { train: "seeds 0-999 (models/layout)", heldOut: `seeds ${from}-${to}`, latexHeldOut: `seeds ${latexFrom}-${latexTo}` },
  generated,
  latex,
  docling: { ...docling, files: doclingFiles() },
  docbank: docbankBoth.heuristic,
  ...(both.model !== undefined && latexBoth.model !== undefined && doclingBoth.model !== undefined && docbankBoth.model !== undefined
    ? { model: { name: args.classifier ?? "models/layout/classifier.json", gate: model?.gate ?? 0, generated: both.model, latex: latexBoth.model, docling: doclingBoth.model, docbank: docbankBoth.model, cost } }
    : {})
}

const f = (n: number) => n.toFixed(3)
const labelTable = (s: Scores) => [
  "| label | regions | our blocks | precision | recall | F1 |",
  "| --- | ---: | ---: | ---: | ---: | ---: |",
  ...[...LABELS, ...Object.keys(s.perLabel).filter((l) => !(LABELS as ReadonlyArray<string>).includes(l))]
    .filter((l) => s.perLabel[l] !== undefined)
    .map((l) => { const r = s.perLabel[l]; return `| ${l} | ${r.regions} | ${r.blocks} | ${f(r.precision)} | ${f(r.recall)} | ${r.regions === 0 ? "-" : f(r.f1)} |` })
]
/** The largest confusions: truth label -> our label, off the diagonal. */
const confusions = (s: Scores, n = 8) =>
  Object.entries(s.confusion).flatMap(([truth, row]) => Object.entries(row).filter(([ours]) => ours !== truth).map(([ours, count]) => ({ truth, ours, count })))
    .sort((a, b) => b.count - a.count).slice(0, n).map((c) => `${c.truth} read as ${c.ours} ${c.count}`).join("; ")
const summary = (name: string, s: Scores & { documents: number; seconds: number }) => [
  `### ${name}`,
  "",
  `${s.documents} documents, ${s.pages} pages, ${s.regions} labelled regions, ${s.blocks} of our blocks (${s.seconds} s to read and score).`,
  "",
  `**Block-label macro-F1 ${f(s.macroF1)}** (mean over the labels present in the regions), **mean box IoU ${f(s.meanIoU)}** of matched pairs; regions found by any block ${f(s.found)}; regions cut into two blocks or more ${s.splitRegions}; blocks covering two regions or more ${s.mergingBlocks}; blocks matching no region ${s.unmatchedBlocks}.`,
  "",
  ...labelTable(s),
  "",
  `Largest confusions (region's label read as ours, matched blocks): ${confusions(s)}.`,
  ""
]

const sideBySide = (h: Scores, m: Scores & { ungated: Scores; blockByBlock: Scores }) => [
  "| label | regions | heuristic P | R | F1 | model F1, ungated | gated, block by block P | R | F1 | gated, page's constraints P | R | F1 |",
  "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
  ...LABELS.filter((l) => (h.perLabel[l]?.regions ?? 0) > 0).map((l) => {
    const none = { precision: 0, recall: 0, f1: 0 }
    const a = h.perLabel[l], b = m.perLabel[l] ?? none, u = m.ungated.perLabel[l] ?? none, o = m.blockByBlock.perLabel[l] ?? none
    return `| ${l} | ${a.regions} | ${f(a.precision)} | ${f(a.recall)} | ${f(a.f1)} | ${f(u.f1)} | ${f(o.precision)} | ${f(o.recall)} | ${f(o.f1)} | ${f(b.precision)} | ${f(b.recall)} | ${f(b.f1)} |`
  }),
  `| **macro-F1** | | | | **${f(h.macroF1)}** | **${f(m.ungated.macroF1)}** | | | **${f(m.blockByBlock.macroF1)}** | | | **${f(m.macroF1)}** |`
]
/** What train.ts recorded in classifier.json: its data and the gate's validation sweep. */
const trainedOn = model as unknown as { training?: { generated: string; latex?: string; docbank: string; rows: number; rounds: number; depth: number; rate: number }; validation?: { generated: string; latex?: string; docbank: string; gates: Array<{ gate: number; generated: number; docbank: number; latex?: number }> } }
const modelSection = report.model === undefined ? [] : [
  "## Block classifier (models/layout; the reader's `layout: \"learned\"` layer)",
  "",
  `Gradient-boosted trees over the reader's per-block features (models/layout/Features.ts: the heuristic's kind, size against the body size of the page's window, bold, italic, mono, math fonts, box, indent, lines, fragments per row, numbering, bullets, caption words, digits, capitals, math symbols, gaps to the neighbours above and below, a figure or table beside, page index), trained by models/layout/train.ts on generated ${trainedOn.training?.generated ?? "seeds 0-299"}${trainedOn.training?.latex !== undefined ? `, LaTeX ${trainedOn.training.latex}` : ""}${trainedOn.training !== undefined && trainedOn.training.docbank !== "none" ? ` and DocBank's ${trainedOn.training.docbank}` : ""}. It relabels the same blocks the heuristic labelled (boxes and segmentation unchanged, so IoU and found are the heuristic's); the same matching and scores.`,
  "",
  `**Gate ${report.model.gate}**: a block keeps the heuristic's kind unless the model's probability is at least that. Chosen by train.ts on ${trainedOn.validation?.generated ?? "?"}${trainedOn.validation?.latex !== undefined ? `, LaTeX ${trainedOn.validation.latex}` : ""} and DocBank's ${trainedOn.validation?.docbank ?? "?"} (none trained on): the best DocBank macro-F1 while the generated one stays 0.10 above the heuristic's${trainedOn.validation?.latex !== undefined ? " and the LaTeX one not below the heuristic's" : ""}. Docling's PDFs played no part in training, the gate or any choice. Sweep (macro-F1, generated / DocBank${trainedOn.validation?.latex !== undefined ? " / LaTeX" : ""} validation; 1.01 is the heuristic): ${(trainedOn.validation?.gates ?? []).map((g) => `${g.gate}: ${f(g.generated)} / ${f(g.docbank)}${g.latex !== undefined ? ` / ${f(g.latex)}` : ""}`).join(", ")}.`,
  "",
  "**The page's constraint** (packages/pdf LayoutDecision.ts `decidePage`): a block becomes a `table` only beside another table block on its row (one the heuristic found or one the model also calls a table). Chosen on the same validation data (models/layout/Constraints.ts: generated 0.966 with or without it, DocBank 0.772 -> 0.791, and gate 0.8 still the rule's choice), not on the held-out sets below. The tables give the gated model block by block (the layer before the constraint) and with it (the layer).",
  "",
  `### Generated, held out (seeds ${from}-${to})`,
  "",
  `Blocks found among the labelled ones by their box: ${f(report.model.generated.blocksFoundAmongLabelled)} (the rest keep the heuristic's kind).`,
  "",
  ...sideBySide(generated, report.model.generated),
  "",
  `Largest confusions left (gated): ${confusions(report.model.generated)}.`,
  "",
  `### Generated from LaTeX, held out (seeds ${latexFrom}-${latexTo})`,
  "",
  ...sideBySide(latex, report.model.latex),
  "",
  `Largest confusions left (gated): ${confusions(report.model.latex)}.`,
  "",
  "### Docling's PDFs (Docling's labels; held out)",
  "",
  ...sideBySide(docling, report.model.docling),
  "",
  `Largest confusions left (gated): ${confusions(report.model.docling)}.`,
  "",
  "### DocBank's 30 arXiv pages (token labels from LaTeX, per block)",
  "",
  "Labels per block: each of our blocks is a region with the label most of its tokens' characters carry, so this is a block-label score (segmentation is not judged). The even-numbered half (by file name) may be in the training data and the odd-numbered half chose the gate: it is not held out.",
  "",
  ...sideBySide(report.docbank, report.model.docbank),
  "",
  `Largest confusions left (gated): ${confusions(report.model.docbank)}.`,
  "",
  "### Cost",
  "",
  cost === undefined ? "" : `What the learned layer adds per page on Docling's ${doclingSnapshots.length} pages (20 rounds after a warm-up, load ${report.load}): features ${cost.featuresMsPerPage} ms wall / ${cost.featuresCpuMsPerPage} ms CPU, onnxruntime-node ${cost.onnxMsPerPage} ms wall / ${cost.onnxCpuMsPerPage} ms CPU (models/layout/classifier.onnx, one run per page, 1 thread). Over the speed table's 131.7 pages/s (7.6 ms a page, bench/results/pdf.md), the CPU figures make about ${Math.round(1000 / (1000 / 131.7 + cost.featuresCpuMsPerPage + cost.onnxCpuMsPerPage))} pages/s. The whole reader with and without it: \`node -C @strata/source bench/pdf/Speed.ts 10 --layout learned\`.`,
  ""
]

const md = [
  "# Layout: block labels and boxes against labelled regions",
  "",
  `${report.date} · \`node -C @strata/source bench/pdf/Layout.ts --from ${from} --to ${to}\` · layer **heuristic** (packages/pdf HeuristicLayout, pdfReader mode fast, whole documents) · load ${report.load}.`,
  "",
  "The baseline a learned layout layer must beat by 0.10 macro-F1 on the held-out generated pages (issue 17).",
  "",
  "Matching (bench/pdf/LayoutMetric.ts): each of our blocks is matched to the labelled region it overlaps most, when the overlap is at least half of the smaller box. A label's precision counts our blocks with it whose region has it; its recall counts regions with it matched by one of our blocks with it; macro-F1 is the mean F1 over the labels the regions hold. Box IoU is the mean over matched (block, region) pairs, so a paragraph cut in two scores about half. Page numbers are folded into page_header or page_footer by the half of the page they are in; list items are one region each.",
  "",
  `Split: generated seeds 0-999 are for training a model (models/layout/data), seeds ${from}-${to} are held out and scored here. Generated documents: Chromium-printed HTML with the machine's fonts, one or two columns, headings of three levels, paragraphs split across columns and pages, bulleted and numbered lists (some nested), tables (grid, rules, plain, striped), SVG and raster figures with captions, code, display formulas, running heads, page numbers and footnotes; labels from the DOM, exact.`,
  "",
  "Docling's labels are a peer's model output, not truth. Folded onto ours: picture -> figure, document_index -> table, checkbox_* -> text; words inside a picture (Docling's text items under a picture) are not regions. Docling has no title here; its list items, code, formulas, footnotes and furniture map one to one.",
  "",
  "Not scored side by side with pdf-inspector (Firecrawl's engine, side by side in bench/pdf's quality, furniture, table-neighbour and math parts): it writes markdown and positioned text runs, and has no blocks, block labels or block boxes to match against regions. Its `extractStructureElements` returns only a tagged PDF's own structure tags (3 of Docling's 11 PDFs are tagged: P, Span, Figure, H1), which are the author's, not a layout it finds. Checked with pdf-inspector 1.22.1 on 2026-11-29.",
  "",
  ...summary(`Generated, held out (seeds ${from}-${to})`, generated),
  ...summary(`Generated from LaTeX, held out (seeds ${latexFrom}-${latexTo}; pdflatex, labels from the source's colours and TeX's boxes, models/layout/data/generateLatex.ts)`, latex),
  ...summary("Docling's PDFs (Docling's labels)", docling),
  ...modelSection
].join("\n")

if (!args["no-write"]) {
  writeFileSync(new URL("../results/layout.json", import.meta.url), JSON.stringify(report, null, 2) + "\n")
  writeFileSync(new URL("../results/layout.md", import.meta.url), md)
}
process.stdout.write(md)
