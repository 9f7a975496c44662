/**
 * Reading-order bench (issue 17 item 7): one-page articles in two and three columns with
 * sidebars, pull quotes and captions (models/layout/data/Articles.ts, the reading rule stated
 * there), printed to PDF by Chromium; the truth is the DOM order of the article's units, and each
 * unit's glyph line boxes say which of our lines belong to it.
 *
 * Scores, per unit kind (body paragraph, sidebar, pull quote, caption, ...):
 * - pairs: of the truth's consecutive units (a, b), the share we read with b right after a
 *   (a pair counts for the kinds of both ends);
 * - whole: the share of units whose lines we read without another unit's line among them (a
 *   sidebar read as a unit, a paragraph not interleaved with the column beside it);
 * - one block: the share of units written as one block (a paragraph cut by a pull quote or a
 *   column break joined again);
 * - Kendall tau of the units' order, per page, averaged.
 * And on Docling's 11 PDFs (../shared/corpus/docling/pdf): text similarity against Docling's
 * markdown (word edit distance: order counts) and successor-pair F1 of the text blocks against the
 * order of Docling's JSON (a peer's order, not truth).
 *
 * Seeds 0-39 tune, 1000-1039 are held out. Variants run side by side in one process.
 *
 *   node -C @strata/source bench/pdf/ArticleOrder.ts [--seeds tune|held-out] [--count 40] [--learned] [--no-docling] [--write] [--why]
 */
import { execFileSync } from "node:child_process"
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs"
import { loadavg } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { parseArgs } from "node:util"
import { chromium } from "playwright-core"
import { Effect, Scope, Stream } from "effect"
import { type Layout, type LayoutBlock, MarkdownWriter, ReadingOrder } from "@strata/core"
import { heuristicLayout, heuristicReadingOrderWith, heuristicTables, heuristicTablesWith, type LayoutClassifier, learnedLayout, onnxClassifier, pdfReaderWith } from "../../packages/pdf/src/index.ts"
import { makeArticle } from "../../models/layout/data/Articles.ts"
import { textSimilarity } from "./Metrics.ts"

const { values: args } = parseArgs({
  options: {
    seeds: { type: "string", default: "held-out" },
    count: { type: "string", default: "40" },
    write: { type: "boolean", default: false },
    docling: { type: "boolean", default: true },
    "no-docling": { type: "boolean", default: false },
    verbose: { type: "boolean", default: false },
    /** Prints each pair read out of order (seed, the pair's units, the unit read after the first). */
    why: { type: "boolean", default: false },
    /** Also run the stages with the learned Layout layer (STRATA_PDF_LAYOUT=learned). */
    learned: { type: "boolean", default: false }
  }
})

const dir = fileURLToPath(new URL("../../.tmp/articles/", import.meta.url))
const doclingDir = fileURLToPath(new URL("../../../shared/corpus/docling/pdf/", import.meta.url))
const first = args.seeds === "tune" ? 0 : 1000
const seeds = Array.from({ length: Number(args.count) }, (_, i) => first + i)

type Rect = [number, number, number, number]
interface Unit { readonly id: number; readonly kind: string; readonly rects: ReadonlyArray<Rect>; readonly text: string }
interface Truth { readonly width: number; readonly height: number; readonly units: ReadonlyArray<Unit> }

/** In the page: drops flow units that overflow the columns, then reads every unit's line boxes in points. */
const layOut = (): { units: Array<{ kind: string; rects: Array<[number, number, number, number]>; text: string }> } => {
  const main = document.querySelector(".main")!
  const box = main.getBoundingClientRect()
  const outside = (el: Element) => {
    const range = document.createRange()
    range.selectNodeContents(el)
    return Array.from(range.getClientRects()).some((r) => r.width > 0.5 && (r.right > box.right + 1 || r.bottom > box.bottom + 1))
  }
  while (main.lastElementChild !== null && outside(main.lastElementChild)) main.lastElementChild.remove()
  const origin = document.querySelector(".pg")!.getBoundingClientRect()
  const pt = (v: number) => Math.round(v * 75) / 100
  const elements = Array.from(document.querySelectorAll<HTMLElement | SVGElement>("[data-k]"))
  const units = elements.map((el) => ({ kind: el.dataset.k!, rects: [] as Array<[number, number, number, number]>, text: "" }))
  const toRect = (r: DOMRect): [number, number, number, number] => [pt(r.left - origin.left), pt(r.top - origin.top), pt(r.right - origin.left), pt(r.bottom - origin.top)]
  elements.forEach((el, i) => {
    if (el.dataset.k === "figure") units[i].rects.push(toRect(el.getBoundingClientRect()))
  })
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT)
  for (let node = walker.nextNode(); node !== null; node = walker.nextNode()) {
    const owner = node.parentElement?.closest("[data-k]")
    const i = owner === null || owner === undefined ? -1 : elements.indexOf(owner as HTMLElement)
    if (i < 0) continue
    const range = document.createRange()
    range.selectNodeContents(node)
    for (const r of Array.from(range.getClientRects())) if (r.width > 0.5 && r.height > 0.5) units[i].rects.push(toRect(r))
    units[i].text += node.textContent ?? ""
  }
  return { units: units.filter((u) => u.rects.length > 0) }
}

const generate = async (missing: ReadonlyArray<number>) => {
  if (missing.length === 0) return
  mkdirSync(dir, { recursive: true })
  const families = [...new Set(execFileSync("fc-list", [":", "family"], { encoding: "utf8" }).split("\n").map((l) => l.split(",")[0].trim()).filter((l) => l.length > 0))].sort()
  const browser = await chromium.launch({ executablePath: "/usr/bin/chromium" })
  try {
    const context = await browser.newContext()
    for (const seed of missing) {
      const spec = makeArticle(seed, families)
      const page = await context.newPage()
      await page.setViewportSize({ width: Math.ceil(spec.width), height: Math.ceil(spec.height) })
      await page.setContent(spec.html)
      await page.evaluate(() => document.fonts.ready)
      const laid = await page.evaluate(layOut)
      const pdf = await page.pdf({ width: `${spec.width}px`, height: `${spec.height}px`, printBackground: true, margin: { top: "0", right: "0", bottom: "0", left: "0" } })
      await page.close()
      writeFileSync(join(dir, `${seed}.pdf`), pdf)
      writeFileSync(join(dir, `${seed}.json`), JSON.stringify({ width: spec.width * 0.75, height: spec.height * 0.75, columns: spec.columns, units: laid.units.map((u, id) => ({ id, ...u, text: u.text.replace(/\s+/g, " ").trim().slice(0, 160) })) }))
    }
  } finally {
    await browser.close()
  }
}

type Variant = readonly [Layout["Service"], ReadingOrder["Service"]]

/** A reader whose ReadingOrder hands each page's ordered blocks to `into`. */
const capturing = ([layout, inner]: Variant, into: Array<Array<LayoutBlock>>) =>
  pdfReaderWith({
    layout,
    readingOrder: ReadingOrder.of({
      name: inner.name,
      order: (page) => Effect.tap(inner.order(page), (blocks) => Effect.sync(() => { into[page.pageNumber - 1] = blocks })),
      continueAcross: inner.continueAcross
    })
  })

const read = async (order: Variant, bytes: Uint8Array) => {
  const pages: Array<Array<LayoutBlock>> = []
  const reader = capturing(order, pages)
  const markdown = await Effect.runPromise(Effect.scoped(Effect.gen(function*() {
    const result = yield* reader.read({ bytes, format: "pdf", options: { mode: "fast", deadline: Date.now() + 120_000 } })
    const writer = new MarkdownWriter()
    yield* Stream.runForEach(result.pages, (page) => Effect.sync(() => writer.push(page)))
    return writer.markdown
  })))
  return { pages, markdown }
}

const inside = (x: number, y: number, r: Rect, pad = 1.5) => x >= r[0] - pad && x <= r[2] + pad && y >= r[1] - pad && y <= r[3] + pad

/** Our reading as a sequence of (unit, block) per line, figures by their box. */
const sequence = (blocks: ReadonlyArray<LayoutBlock>, truth: Truth): Array<{ unit: number; block: number }> => {
  const out: Array<{ unit: number; block: number }> = []
  blocks.forEach((block, b) => {
    if (block.kind === "figure") {
      const cx = (block.x0 + block.x1) / 2, cy = (block.top + block.bottom) / 2
      const u = truth.units.find((u) => u.kind === "figure" && inside(cx, cy, u.rects[0], 4))
      if (u !== undefined) out.push({ unit: u.id, block: b })
    }
    for (const line of block.lines) {
      const cx = (line.x0 + line.x1) / 2, cy = (line.top + line.bottom) / 2
      // A line is the unit owning most of the glyph boxes its middle row crosses.
      const u = truth.units.find((u) => u.kind !== "figure" && u.rects.some((r) => inside(cx, cy, r))) ??
        truth.units.find((u) => u.kind !== "figure" && u.rects.some((r) => inside(line.x0 + 1, cy, r)))
      if (u !== undefined) out.push({ unit: u.id, block: b })
    }
  })
  return out
}

interface KindTally { units: number; whole: number; oneBlock: number; pairs: number; pairsRight: number }
const tallyOf = () => new Map<string, KindTally>()
const kindTally = (t: Map<string, KindTally>, kind: string) => {
  let k = t.get(kind)
  if (k === undefined) t.set(kind, (k = { units: 0, whole: 0, oneBlock: 0, pairs: 0, pairsRight: 0 }))
  return k
}

const kendall = (order: ReadonlyArray<number>) => {
  let concordant = 0, pairs = 0
  for (let i = 0; i < order.length; i++) for (let j = i + 1; j < order.length; j++) { pairs++; if (order[i] < order[j]) concordant++ }
  return pairs === 0 ? 1 : (2 * concordant - pairs) / pairs
}

const scoreArticle = (blocks: ReadonlyArray<LayoutBlock>, truth: Truth, t: Map<string, KindTally>, why?: (line: string) => void): number => {
  const seq = sequence(blocks, truth)
  const kinds = new Map(truth.units.map((u) => [u.id, u.kind]))
  const firstAt = new Map<number, number>()
  for (const s of seq) if (!firstAt.has(s.unit)) firstAt.set(s.unit, firstAt.size)
  for (const [unit] of firstAt) {
    const k = kindTally(t, kinds.get(unit)!)
    k.units++
    const at = seq.flatMap((s, i) => (s.unit === unit ? [i] : []))
    if (seq.slice(at[0], at.at(-1)! + 1).every((s) => s.unit === unit)) k.whole++
    if (new Set(seq.filter((s) => s.unit === unit).map((s) => s.block)).size === 1) k.oneBlock++
  }
  const truthOrder = [...firstAt.keys()].sort((a, b) => a - b)
  for (let i = 1; i < truthOrder.length; i++) {
    const a = truthOrder[i - 1], b = truthOrder[i]
    const right = firstAt.get(b) === firstAt.get(a)! + 1
    if (!right && why !== undefined) {
      const after = [...firstAt].find(([, at]) => at === firstAt.get(a)! + 1)?.[0]
      const say = (u: number | undefined) => u === undefined ? "(nothing)" : `${kinds.get(u)} #${u} "${truth.units[u].text.slice(0, 50)}"`
      why(`${say(a)} -> ${say(b)}; read after it: ${say(after)}`)
    }
    for (const kind of new Set([kinds.get(a)!, kinds.get(b)!, "(all)"])) {
      const k = kindTally(t, kind)
      k.pairs++
      if (right) k.pairsRight++
    }
  }
  return kendall([...firstAt.keys()])
}

// --- Docling: successor pairs of text blocks against the order of Docling's JSON.
interface DoclingNode { readonly $ref: string }
interface DoclingDoc {
  readonly body: { readonly children: ReadonlyArray<DoclingNode> }
  readonly groups: ReadonlyArray<{ readonly children: ReadonlyArray<DoclingNode> }>
  readonly texts: ReadonlyArray<{ readonly text: string; readonly label: string }>
}
const words = (s: string) => s.toLowerCase().normalize("NFKC").split(/[^\p{L}\p{N}]+/u).filter((w) => w.length > 1)

const doclingTexts = (doc: DoclingDoc): Array<string> => {
  const out: Array<string> = []
  const walk = (nodes: ReadonlyArray<DoclingNode>) => {
    for (const n of nodes) {
      const [, kind, index] = n.$ref.split("/")
      if (kind === "texts") out.push(doc.texts[Number(index)].text)
      else if (kind === "groups") walk(doc.groups[Number(index)].children)
    }
  }
  walk(doc.body.children)
  return out
}

/** Each Docling text to the block (index in our order) holding most of its words; successor pairs of both, F1. */
const doclingPairs = (blocks: ReadonlyArray<LayoutBlock>, texts: ReadonlyArray<string>) => {
  const bags = blocks.map((b) => new Set(words(b.lines.map((l) => l.text).join(" "))))
  const theirs: Array<number> = []
  for (const text of texts) {
    const w = words(text)
    if (w.length < 3) continue
    let best = -1, bestShare = 0.6
    bags.forEach((bag, i) => {
      const share = w.filter((x) => bag.has(x)).length / w.length
      if (share > bestShare) { best = i; bestShare = share }
    })
    if (best >= 0 && theirs.at(-1) !== best) theirs.push(best)
  }
  const matched = [...new Set(theirs)].sort((a, b) => a - b)
  const pairs = (xs: ReadonlyArray<number>) => new Set(xs.slice(1).map((x, i) => `${xs[i]}>${x}`))
  const a = pairs(matched), b = pairs(theirs)
  return { ours: a.size, theirs: b.size, both: [...a].filter((p) => b.has(p)).length }
}

const learnedVariant = (classifier: LayoutClassifier): [string, Variant] =>
  ["after, learned labels", [learnedLayout(heuristicLayout(heuristicTables), classifier), heuristicReadingOrderWith({ asides: true })]]

const variants: ReadonlyArray<[string, Variant]> = [
  ["before", [heuristicLayout(heuristicTablesWith({ panels: false }), { asides: false }), heuristicReadingOrderWith({ asides: false })]],
  ["after", [heuristicLayout(heuristicTables), heuristicReadingOrderWith({ asides: true })]],
  // The learned layer relabels the same blocks (models/layout): whether its labels help the order.
  ...(args.learned ? [learnedVariant(await Effect.runPromise(Effect.flatMap(Scope.make(), (scope) => Scope.provide(onnxClassifier(), scope))))] : [])
]

await generate(seeds.filter((s) => !existsSync(join(dir, `${s}.json`))))
const load = loadavg().map((l) => l.toFixed(2)).join(" ")
const results: Record<string, { kinds: Record<string, KindTally>; tau: number; docling?: { text: number; pairF1: number; ms: number } }> = {}
const tallies = new Map(variants.map(([name]) => [name, { t: tallyOf(), tau: [] as Array<number> }]))
for (const seed of seeds) {
  const truth = JSON.parse(readFileSync(join(dir, `${seed}.json`), "utf8")) as Truth
  const bytes = new Uint8Array(readFileSync(join(dir, `${seed}.pdf`)))
  for (const [name, order] of variants) {
    const { pages } = await read(order, bytes)
    const v = tallies.get(name)!
    v.tau.push(scoreArticle(pages[0] ?? [], truth, v.t, args.why && name !== "before" ? (line) => process.stderr.write(`${seed} ${name}: ${line}\n`) : undefined))
    if (args.verbose) process.stderr.write(`${seed} ${name} tau ${v.tau.at(-1)!.toFixed(3)}\n`)
  }
}
for (const [name] of variants) {
  const v = tallies.get(name)!
  results[name] = { kinds: Object.fromEntries(v.t), tau: v.tau.reduce((a, b) => a + b, 0) / v.tau.length }
}
if (args.docling && !args["no-docling"]) {
  const files = readdirSync(doclingDir).filter((f) => f.endsWith(".pdf")).sort()
  for (const [name, order] of variants) {
    let text = 0, ours = 0, theirs = 0, both = 0, ms = 0
    for (const file of files) {
      const started = performance.now()
      const { pages, markdown } = await read(order, new Uint8Array(readFileSync(doclingDir + file)))
      ms += performance.now() - started
      text += textSimilarity(markdown, readFileSync(`${doclingDir}${file}.md`, "utf8"))
      const p = doclingPairs(pages.flat(), doclingTexts(JSON.parse(readFileSync(`${doclingDir}${file}.json`, "utf8")) as DoclingDoc))
      ours += p.ours
      theirs += p.theirs
      both += p.both
    }
    const precision = both / ours, recall = both / theirs
    results[name].docling = { text: text / files.length, pairF1: (2 * precision * recall) / (precision + recall), ms }
  }
}

const pct = (a: number, b: number) => (b === 0 ? "-" : `${((100 * a) / b).toFixed(1)}%`)
const lines: Array<string> = [`Seeds ${seeds[0]}-${seeds.at(-1)} (${args.seeds}), load average at start ${load}.`, "",
  "| variant | kind | units | pairs right | read whole | one block |", "|---|---|---|---|---|---|"]
for (const [name] of variants) {
  for (const [kind, k] of Object.entries(results[name].kinds).sort()) {
    lines.push(`| ${name} | ${kind} | ${k.units} | ${pct(k.pairsRight, k.pairs)} (${k.pairsRight}/${k.pairs}) | ${pct(k.whole, k.units)} | ${pct(k.oneBlock, k.units)} |`)
  }
}
lines.push("", "| variant | Kendall tau | all pairs right | Docling text | Docling successor-pair F1 | Docling read ms |", "|---|---|---|---|---|---|")
for (const [name] of variants) {
  const r = results[name]
  const all = r.kinds["(all)"]
  lines.push(`| ${name} | ${r.tau.toFixed(3)} | ${all === undefined ? "-" : pct(all.pairsRight, all.pairs)} | ${r.docling?.text.toFixed(4) ?? "-"} | ${r.docling?.pairF1.toFixed(3) ?? "-"} | ${r.docling?.ms.toFixed(0) ?? "-"} |`)
}
process.stdout.write(lines.join("\n") + "\n")
if (args.write) {
  const out = (ext: string) => fileURLToPath(new URL(`../results/reading-order-${args.seeds}.${ext}`, import.meta.url))
  writeFileSync(out("json"), JSON.stringify({ seeds: [seeds[0], seeds.at(-1)], load, results }, null, 2) + "\n")
  writeFileSync(out("md"), `# Reading order of asides, ${args.seeds} seeds (bench/pdf/ArticleOrder.ts)\n\n${lines.join("\n")}\n`)
}
