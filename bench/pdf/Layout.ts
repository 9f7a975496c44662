/**
 * The layout bench (issue 17): block-label F1 (per label and macro) and box IoU of our Layout
 * layer against labelled regions (`LayoutMetric.ts`), on
 * - generated documents (models/layout/data, exact labels from the DOM), the held-out seeds
 *   1000-1099 by default (seeds 0-999 are a model's training range and are not scored here);
 * - Docling's PDFs in ../shared/corpus with Docling's JSON layout labels (a peer's, not truth).
 *
 * Today the layer is the heuristic one; a learned layer is scored with the same pages and
 * matching. Writes bench/results/layout.json and layout.md unless `--no-write`.
 *
 *   node -C @strata/source bench/pdf/Layout.ts [--from 1000] [--to 1099] [--no-write]
 */
import { writeFileSync } from "node:fs"
import { loadavg } from "node:os"
import { parseArgs } from "node:util"
import { doclingFiles, doclingPages, generatedPages, type LabelledPage } from "./LayoutData.ts"
import { LABELS, type Scores, scorePage, scores, tally } from "./LayoutMetric.ts"

const { values: args } = parseArgs({
  options: {
    from: { type: "string", default: "1000" },
    to: { type: "string", default: "1099" },
    "no-write": { type: "boolean", default: false }
  }
})

const score = async (pages: AsyncIterable<LabelledPage>) => {
  const t = tally()
  const docs = new Set<string>()
  let ms = performance.now()
  for await (const p of pages) {
    docs.add(p.doc)
    scorePage(t, p.blocks.map((b) => b.region), p.truth)
  }
  ms = performance.now() - ms
  return { documents: docs.size, seconds: Math.round(ms / 100) / 10, ...scores(t) }
}

const started = new Date()
const from = Number(args.from), to = Number(args.to)
const generated = await score(generatedPages(from, to))
console.error("generated", JSON.stringify({ macroF1: generated.macroF1, meanIoU: generated.meanIoU, found: generated.found, pages: generated.pages }))
const docling = await score(doclingPages())
console.error("docling", JSON.stringify({ macroF1: docling.macroF1, meanIoU: docling.meanIoU, found: docling.found, pages: docling.pages }))

const report = {
  date: started.toISOString(),
  layer: "heuristic",
  load: Math.round(loadavg()[0] * 10) / 10,
  split: { train: "seeds 0-999 (models/layout)", heldOut: `seeds ${from}-${to}` },
  generated,
  docling: { ...docling, files: doclingFiles() }
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
  ...summary(`Generated, held out (seeds ${from}-${to})`, generated),
  ...summary("Docling's PDFs (Docling's labels)", docling)
].join("\n")

if (!args["no-write"]) {
  writeFileSync(new URL("../results/layout.json", import.meta.url), JSON.stringify(report, null, 2) + "\n")
  writeFileSync(new URL("../results/layout.md", import.meta.url), md)
}
process.stdout.write(md)
