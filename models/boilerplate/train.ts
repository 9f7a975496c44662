/**
 * Trains the boilerplate-block classifier behind offline `onlyCleanContent`
 * (packages/core/src/clean): gradient-boosted trees over the block features of
 * `blockFeatures`, written to packages/core/src/clean/BoilerplateModel.ts.
 *
 * Data: the WCXB dev pages in ../shared/corpus. Each page goes through the HTML pipeline as a
 * scrape with onlyMainContent would (processHtml), its markdown is split into blocks, and a block
 * is labelled content when its words are in the page's human-checked main content (a block
 * whose text is found there, or 80% of whose words are), boilerplate when at most 30% are;
 * blocks in between are left out of training. Odd file ids train; even ids are held out for the
 * figures (bench/clean, the model card).
 *
 *   node -C @strata/source models/boilerplate/train.ts [--corpus ../shared/corpus] [--rounds 150]
 */
import { readdirSync, readFileSync, writeFileSync } from "node:fs"
import { join, resolve } from "node:path"
import { parseArgs } from "node:util"
import { gunzipSync } from "node:zlib"
import { decodeBody } from "../../packages/core/src/fetch/Charset.ts"
import { processHtml } from "../../packages/core/src/html/HtmlPipeline.ts"
import { blockFeatures, contentScore, FEATURES, markdownBlocks, type TreeModel } from "../../packages/core/src/clean/CleanContent.ts"

const { values: args } = parseArgs({
  options: {
    corpus: { type: "string", default: resolve(import.meta.dirname, "../../../shared/corpus") },
    rounds: { type: "string", default: "150" },
    depth: { type: "string", default: "3" },
    rate: { type: "string", default: "0.1" },
    recall: { type: "string", default: "0.985" },
    /** Fixed threshold, chosen on the training pages with `bench/clean/run.ts --half odd --threshold T`. */
    threshold: { type: "string", default: "0.65" }
  }
})
const dir = join(args.corpus, "wcxb-dev")
const WORD = /[\p{L}\p{N}_]+/gu
const tokens = (text: string) => text.toLowerCase().match(WORD) ?? []
const normal = (text: string) => tokens(text).join(" ")

export interface PageRows {
  readonly id: string
  readonly rows: Array<Array<number>>
  readonly labels: Array<number | undefined>
  readonly chars: Array<number>
}

/** The labelled blocks of every page (train = odd ids). */
export const loadPages = (corpusDir: string): Array<PageRows> => {
  const pages: Array<PageRows> = []
  for (const file of readdirSync(join(corpusDir, "ground-truth")).filter((f) => f.endsWith(".json")).sort()) {
    const id = file.replace(/\.json$/, "")
    const truth = JSON.parse(readFileSync(join(corpusDir, "ground-truth", file), "utf8"))
    const html = decodeBody(gunzipSync(readFileSync(join(corpusDir, "html", `${id}.html.gz`))), undefined).text
    const markdown = processHtml(html, { url: truth.url ?? "", onlyMainContent: true, removeBase64Images: true, formats: { markdown: true, html: false, links: false } }).markdown ?? ""
    const main = normal(truth.ground_truth?.main_content ?? "")
    const mainWords = new Set(main.split(" "))
    const blocks = markdownBlocks(markdown)
    const labels = blocks.map((b) => {
      const words = tokens(b.plain)
      if (words.length === 0) return undefined
      if (main.includes(words.join(" "))) return 1
      const share = words.filter((w) => mainWords.has(w)).length / words.length
      return share >= 0.8 ? 1 : share <= 0.3 ? 0 : undefined
    })
    pages.push({ id, rows: blockFeatures(blocks), labels, chars: blocks.map((b) => b.plain.length) })
  }
  return pages
}

// ---- gradient-boosted trees (log loss), on quantile bins --------------------------------------

interface Tree { feature: Array<number>; split: Array<number>; left: Array<number>; right: Array<number>; value: Array<number> }

const train = (X: ReadonlyArray<ReadonlyArray<number>>, y: ReadonlyArray<number>, w: ReadonlyArray<number>, rounds: number, depth: number, rate: number) => {
  const nf = X[0].length
  // Candidate splits: up to 32 quantiles of each feature.
  const edges: Array<Array<number>> = []
  for (let f = 0; f < nf; f++) {
    const values = [...new Set(X.map((r) => r[f]))].sort((a, b) => a - b)
    const cuts: Array<number> = []
    for (let q = 1; q < 32; q++) cuts.push(values[Math.floor((q / 32) * (values.length - 1))])
    edges.push([...new Set(cuts)])
  }
  const bins = X.map((r) => r.map((v, f) => { let b = 0; while (b < edges[f].length && v > edges[f][b]) b++; return b }))
  const positive = y.reduce((s, v, i) => s + v * w[i], 0) / w.reduce((s, v) => s + v, 0)
  const base = Math.log(positive / (1 - positive))
  const score = X.map(() => base)
  const trees: Array<Tree> = []
  const lambda = 1
  const minLeaf = 20
  for (let round = 0; round < rounds; round++) {
    const g = score.map((s, i) => (1 / (1 + Math.exp(-s)) - y[i]) * w[i])
    const h = score.map((s, i) => { const p = 1 / (1 + Math.exp(-s)); return Math.max(1e-6, p * (1 - p)) * w[i] })
    const tree: Tree = { feature: [], split: [], left: [], right: [], value: [] }
    const grow = (rows: Array<number>, level: number): number => {
      const node = tree.feature.length
      tree.feature.push(-1); tree.split.push(0); tree.left.push(-1); tree.right.push(-1); tree.value.push(0)
      const G = rows.reduce((s, i) => s + g[i], 0)
      const H = rows.reduce((s, i) => s + h[i], 0)
      tree.value[node] = (-G / (H + lambda)) * rate
      if (level >= depth || rows.length < 2 * minLeaf) return node
      let best = { gain: 0, f: -1, b: -1 }
      for (let f = 0; f < nf; f++) {
        const nb = edges[f].length + 1
        const gs = new Float64Array(nb), hs = new Float64Array(nb), cs = new Int32Array(nb)
        for (const i of rows) { const b = bins[i][f]; gs[b] += g[i]; hs[b] += h[i]; cs[b]++ }
        let gl = 0, hl = 0, cl = 0
        for (let b = 0; b < nb - 1; b++) {
          gl += gs[b]; hl += hs[b]; cl += cs[b]
          const gr = G - gl, hr = H - hl, cr = rows.length - cl
          if (cl < minLeaf || cr < minLeaf) continue
          const gain = (gl * gl) / (hl + lambda) + (gr * gr) / (hr + lambda) - (G * G) / (H + lambda)
          if (gain > best.gain) best = { gain, f, b }
        }
      }
      if (best.f < 0) return node
      tree.feature[node] = best.f
      tree.split[node] = edges[best.f][best.b]
      const leftRows = rows.filter((i) => bins[i][best.f] <= best.b)
      const rightRows = rows.filter((i) => bins[i][best.f] > best.b)
      tree.left[node] = grow(leftRows, level + 1)
      tree.right[node] = grow(rightRows, level + 1)
      return node
    }
    grow(X.map((_, i) => i), 0)
    trees.push(tree)
    for (let i = 0; i < X.length; i++) {
      let node = 0
      while (tree.feature[node] >= 0) node = X[i][tree.feature[node]] <= tree.split[node] ? tree.left[node] : tree.right[node]
      score[i] += tree.value[node]
    }
  }
  return { base, trees }
}

const isMain = import.meta.url === `file://${process.argv[1]}`
if (isMain) {
  const started = performance.now()
  const pages = loadPages(dir)
  const trainPages = pages.filter((p) => Number.parseInt(p.id, 10) % 2 === 1)
  const X: Array<Array<number>> = [], y: Array<number> = [], w: Array<number> = [], chars: Array<number> = []
  for (const page of trainPages) {
    page.rows.forEach((row, i) => {
      const label = page.labels[i]
      if (label === undefined) return
      X.push(row); y.push(label); w.push(1 + Math.log1p(page.chars[i])); chars.push(page.chars[i])
    })
  }
  process.stderr.write(`${pages.length} pages, ${X.length} training blocks (${y.filter((v) => v === 1).length} content) in ${((performance.now() - started) / 1000).toFixed(0)} s\n`)
  const { base, trees } = train(X, y, w, Number(args.rounds), Number(args.depth), Number(args.rate))
  // Threshold: the highest that keeps the asked share of content characters on the training pages.
  const partial: TreeModel = { features: [...FEATURES], base, threshold: 0.5, trees }
  const scored = X.map((row, i) => ({ p: contentScore(partial, row), y: y[i], c: chars[i] }))
  const contentChars = scored.filter((s) => s.y === 1).reduce((s, v) => s + v.c, 0)
  let threshold = 0.05
  for (let t = 0.05; t <= 0.95; t += 0.01) {
    const kept = scored.filter((s) => s.y === 1 && s.p >= t).reduce((s, v) => s + v.c, 0)
    if (kept / contentChars >= Number(args.recall)) threshold = Math.round(t * 100) / 100
  }
  if (args.threshold !== "") threshold = Number(args.threshold)
  const model: TreeModel = { ...partial, threshold }
  const round = (v: number) => Math.round(v * 1e6) / 1e6
  const compact = { ...model, base: round(base), trees: trees.map((t) => ({ ...t, split: t.split.map(round), value: t.value.map(round) })) }
  writeFileSync(
    resolve(import.meta.dirname, "../../packages/core/src/clean/BoilerplateModel.ts"),
    [
      "/**",
      " * Generated by models/boilerplate/train.ts: do not edit. See models/boilerplate/README.md.",
      ` * ${trees.length} trees of depth ${args.depth}, ${X.length} training blocks from ${trainPages.length} WCXB dev pages (odd ids), threshold ${threshold}.`,
      " */",
      'import type { TreeModel } from "./CleanContent.ts"',
      "",
      `export const BOILERPLATE_MODEL: TreeModel = ${JSON.stringify(compact)}`,
      ""
    ].join("\n")
  )
  const trainAcc = scored.filter((s) => (s.p >= threshold ? 1 : 0) === s.y).length / scored.length
  process.stderr.write(`trained in ${((performance.now() - started) / 1000).toFixed(0)} s; threshold ${threshold}; training accuracy ${trainAcc.toFixed(3)}\n`)
}
