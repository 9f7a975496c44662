/**
 * Word F1 of `onlyMainContent` markdown on one half of WCXB dev with the learned prune off and
 * on (parse, clean, main content, markdown as `processHtml` runs them; the bench's scorer).
 * Every run on the even (held-out) half is appended to even-evaluations.log with the design it
 * judged, so that the count of looks at the held-out half is on record.
 *
 *   node -C @strata/source models/main-content/evaluate.ts --half odd|even --design "prune t=0.2, depth 3"
 */
import { appendFileSync, readFileSync } from "node:fs"
import { join, resolve } from "node:path"
import { parseArgs } from "node:util"
import { gunzipSync } from "node:zlib"
import { decodeBody } from "../../packages/core/src/fetch/Charset.ts"
import { parseHtml } from "../../packages/core/src/html/HtmlParser.ts"
import { cleanHtml } from "../../packages/core/src/html/HtmlClean.ts"
import { hastToMarkdown } from "../../packages/core/src/html/HastToMarkdown.ts"
import { extractMainContent, readMainContentHints } from "../../packages/core/src/html/MainContent.ts"
import { markdownToPlain, wordF1 } from "../../bench/html/Score.ts"
import { pageIds } from "./data.ts"

const { values: args } = parseArgs({
  options: {
    corpus: { type: "string", default: resolve(import.meta.dirname, "../../../shared/corpus/wcxb-dev") },
    half: { type: "string", default: "odd" },
    design: { type: "string", default: "" }
  }
})
const ids = pageIds(args.corpus).filter((id) => (Number(id.replace(/\D/g, "")) % 2 === 1) === (args.half === "odd"))
const sums = { off: { f1: 0, p: 0, r: 0 }, on: { f1: 0, p: 0, r: 0 } }
let changed = 0
let ms = 0
for (const id of ids) {
  const json = JSON.parse(readFileSync(join(args.corpus, "ground-truth", `${id}.json`), "utf8"))
  const truth: string = json.ground_truth?.main_content ?? ""
  const url: string = json.url ?? ""
  const html = decodeBody(gunzipSync(readFileSync(join(args.corpus, "html", `${id}.html.gz`))), undefined).text
  const parsed = parseHtml(html)
  const hints = readMainContentHints(parsed, url)
  const { root } = cleanHtml(parsed, url)
  const run = (learned: boolean) => markdownToPlain(hastToMarkdown(extractMainContent(root, { url, hints, learned }), { removeBase64Images: true }))
  const off = run(false)
  const t = performance.now()
  const on = run(true)
  ms += performance.now() - t
  if (on !== off) changed++
  for (const [key, text] of [["off", off], ["on", on]] as const) {
    const s = wordF1(text, truth)
    sums[key].f1 += s.f1
    sums[key].p += s.precision
    sums[key].r += s.recall
  }
}
const fmt = (s: { f1: number; p: number; r: number }) => `F1 ${(s.f1 / ids.length).toFixed(4)} P ${(s.p / ids.length).toFixed(4)} R ${(s.r / ids.length).toFixed(4)}`
const line = `${new Date().toISOString()} half ${args.half} (${ids.length} pages) design "${args.design}": rules ${fmt(sums.off)}; with the model ${fmt(sums.on)}; ${changed} pages changed`
console.log(line)
console.log(`extraction with the model: ${(ms / ids.length).toFixed(2)} ms a page on average`)
if (args.half === "even") appendFileSync(resolve(import.meta.dirname, "even-evaluations.log"), `${line}\n`)
