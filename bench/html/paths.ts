/**
 * Article path vs multi-block path, per page of WCXB dev: runs the HTML pipeline's stages with
 * each path forced, records the choice features (`PathFeatures`) with the word F1 of each path
 * and of the current rule, and prints the mean F1 of: the rule, always-article, always-blocks
 * and the per-page oracle. Fit a rule on one half (`--half even`), check it on the other.
 *
 *   node_modules/.bin/node bench/html/paths.ts [--half even|odd] [--out FILE]
 */
import { readFileSync, readdirSync, writeFileSync } from "node:fs"
import { gunzipSync } from "node:zlib"
import { decodeBody } from "../../packages/core/src/fetch/Charset.ts"
import { parseHtml } from "../../packages/core/src/html/HtmlParser.ts"
import { cleanHtml } from "../../packages/core/src/html/HtmlClean.ts"
import { hastToMarkdown } from "../../packages/core/src/html/HastToMarkdown.ts"
import { type PathFeatures, extractMainContent, readMainContentHints } from "../../packages/core/src/html/MainContent.ts"
import { preferBlocks } from "../../packages/core/src/html/MainContentChoice.ts"
import { markdownToPlain, wordF1 } from "./Score.ts"

const args = process.argv.slice(2)
const option = (name: string): string | undefined => {
  const i = args.indexOf(name)
  return i >= 0 ? args[i + 1] : undefined
}
const half = option("--half")
const corpus = new URL("../../../shared/corpus/wcxb-dev/", import.meta.url)

interface Row {
  readonly id: string
  readonly pageType: string
  readonly features: PathFeatures
  readonly article: number
  readonly blocks: number
  readonly rule: "article" | "blocks"
}

const rows: Array<Row> = []
let total = 0
let sumOther = 0
const ids = readdirSync(new URL("html/", corpus))
  .filter((f) => f.endsWith(".html.gz"))
  .map((f) => f.slice(0, -".html.gz".length))
  .filter((id) => half === undefined || (Number(id.replace(/\D/g, "")) % 2 === 0) === (half === "even"))
  .sort()
for (const id of ids) {
  const json = JSON.parse(readFileSync(new URL(`ground-truth/${id}.json`, corpus), "utf8"))
  const truth: string = json.ground_truth?.main_content ?? ""
  const pt = json._internal?.page_type
  const pageType = typeof pt === "string" ? pt : (pt?.primary ?? "article")
  const url: string = json.url ?? ""
  const html = decodeBody(gunzipSync(readFileSync(new URL(`html/${id}.html.gz`, corpus))), undefined).text
  const parsed = parseHtml(html)
  const hints = readMainContentHints(parsed, url)
  const { root } = cleanHtml(parsed, url)
  const f1 = (path?: "article" | "blocks", onChoice?: (f: PathFeatures) => void) =>
    wordF1(markdownToPlain(hastToMarkdown(extractMainContent(root, { url, hints, path, onChoice }), { removeBase64Images: true })), truth).f1
  let features: PathFeatures | undefined
  const auto = f1(undefined, (f) => (features = f))
  total++
  if (features === undefined) {
    sumOther += auto
    continue
  }
  rows.push({ id, pageType, features, article: f1("article"), blocks: f1("blocks"), rule: preferBlocks(features) ? "blocks" : "article" })
}

const mean = (pick: (r: Row) => number) => (sumOther + rows.reduce((a, r) => a + pick(r), 0)) / total
console.log(`pages ${total}, with a choice ${rows.length}`)
console.log(`rule    ${mean((r) => (r.rule === "blocks" ? r.blocks : r.article)).toFixed(4)}`)
console.log(`article ${mean((r) => r.article).toFixed(4)}`)
console.log(`blocks  ${mean((r) => r.blocks).toFixed(4)}`)
console.log(`oracle  ${mean((r) => Math.max(r.article, r.blocks)).toFixed(4)}`)
const out = option("--out")
if (out !== undefined) writeFileSync(out, JSON.stringify({ total, sumOther, rows }))
