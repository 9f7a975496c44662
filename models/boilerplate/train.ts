/**
 * Trains the boilerplate-block classifier behind offline `onlyCleanContent`
 * (packages/core/src/clean): gradient-boosted trees (models/lib/BoostedTrees.ts) over the block features of
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
import { trainTrees } from "../lib/BoostedTrees.ts"

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
  const { base, trees } = trainTrees(X, y, w, { rounds: Number(args.rounds), depth: Number(args.depth), rate: Number(args.rate), minLeaf: 20 })
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
