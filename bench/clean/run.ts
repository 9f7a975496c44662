/**
 * Offline `onlyCleanContent` on the held-out WCXB dev pages (even file ids; the classifier is
 * trained on the odd ones): the share of `with` snippets kept and `without` snippets leaked, and
 * word F1 against the main content, for the onlyMainContent markdown before and after the
 * cleaning pass, per page type; and the pass's ms per page.
 *
 *   node -C @strata/source bench/clean/run.ts [--corpus ../shared/corpus]
 */
import { readdirSync, readFileSync, writeFileSync } from "node:fs"
import { join, resolve } from "node:path"
import { parseArgs } from "node:util"
import { gunzipSync } from "node:zlib"
import { BOILERPLATE_MODEL } from "../../packages/core/src/clean/BoilerplateModel.ts"
import { cleanMarkdown } from "../../packages/core/src/clean/CleanContent.ts"
import { decodeBody } from "../../packages/core/src/fetch/Charset.ts"
import { processHtml } from "../../packages/core/src/html/HtmlPipeline.ts"
import { markdownToPlain, snippetRate, wordF1 } from "../html/Score.ts"

const { values: args } = parseArgs({
  options: {
    corpus: { type: "string", default: resolve(import.meta.dirname, "../../../shared/corpus") },
    out: { type: "string", default: resolve(import.meta.dirname, "../results/clean-content") },
    /** `odd`: the training pages, for choosing a threshold; the report is on `even`. */
    half: { type: "string", default: "even" },
    threshold: { type: "string" }
  }
})
const dir = join(args.corpus, "wcxb-dev")
interface Tally { n: number; withBefore: number; withAfter: number; leakBefore: number; leakAfter: number; f1Before: number; f1After: number }
const empty = (): Tally => ({ n: 0, withBefore: 0, withAfter: 0, leakBefore: 0, leakAfter: 0, f1Before: 0, f1After: 0 })
const byType = new Map<string, Tally>()
const all = empty()
const ms: Array<number> = []
let dropped = 0
let blocks = 0
for (const file of readdirSync(join(dir, "ground-truth")).filter((f) => f.endsWith(".json")).sort()) {
  const id = file.replace(/\.json$/, "")
  if (Number.parseInt(id, 10) % 2 !== (args.half === "odd" ? 1 : 0)) continue
  const json = JSON.parse(readFileSync(join(dir, "ground-truth", file), "utf8"))
  const gt = json.ground_truth ?? {}
  const pt = json._internal?.page_type
  const type = typeof pt === "string" ? pt : (pt?.primary ?? "article")
  const html = decodeBody(gunzipSync(readFileSync(join(dir, "html", `${id}.html.gz`))), undefined).text
  const before = processHtml(html, { url: json.url ?? "", onlyMainContent: true, removeBase64Images: true, formats: { markdown: true, html: false, links: false } }).markdown ?? ""
  const started = performance.now()
  const cleaned = cleanMarkdown(before, args.threshold === undefined ? BOILERPLATE_MODEL : { ...BOILERPLATE_MODEL, threshold: Number(args.threshold) })
  ms.push(performance.now() - started)
  dropped += cleaned.dropped
  blocks += cleaned.kept + cleaned.dropped
  const plainBefore = markdownToPlain(before)
  const plainAfter = markdownToPlain(cleaned.markdown)
  for (const t of [all, byType.get(type) ?? byType.set(type, empty()).get(type)!]) {
    t.n++
    t.withBefore += snippetRate(plainBefore, gt.with ?? [])
    t.withAfter += snippetRate(plainAfter, gt.with ?? [])
    t.leakBefore += (gt.without ?? []).length === 0 ? 0 : snippetRate(plainBefore, gt.without)
    t.leakAfter += (gt.without ?? []).length === 0 ? 0 : snippetRate(plainAfter, gt.without)
    t.f1Before += wordF1(plainBefore, gt.main_content ?? "").f1
    t.f1After += wordF1(plainAfter, gt.main_content ?? "").f1
  }
}
const pct = (v: number, n: number) => `${((100 * v) / n).toFixed(1)}%`
const f = (v: number, n: number) => (v / n).toFixed(3)
const row = (name: string, t: Tally) => `| ${name} | ${t.n} | ${pct(t.withBefore, t.n)} → ${pct(t.withAfter, t.n)} | ${pct(t.leakBefore, t.n)} → ${pct(t.leakAfter, t.n)} | ${f(t.f1Before, t.n)} → ${f(t.f1After, t.n)} |`
const sorted = [...ms].sort((a, b) => a - b)
const lines = [
  "# onlyCleanContent (offline): boilerplate blocks dropped from the main content",
  "",
  `${new Date().toISOString()} · \`bench/clean/run.ts\` · ${all.n} held-out WCXB dev pages (even ids; the classifier trained on the odd ones) · ${blocks} blocks, ${dropped} dropped.`,
  "",
  "Before: the markdown of a scrape with onlyMainContent. After: the same, through the classifier (`packages/core/src/clean`). `without` leaked is the share of a page's boilerplate snippets found in the output (lower is better), averaged over pages.",
  "",
  "| pages | n | `with` kept | `without` leaked | word F1 |",
  "| --- | ---: | ---: | ---: | ---: |",
  row("all", all),
  ...[...byType].sort((a, b) => b[1].n - a[1].n).map(([name, t]) => row(name, t)),
  "",
  `Cleaning pass: p50 ${sorted[Math.floor(sorted.length / 2)].toFixed(2)} ms, p95 ${sorted[Math.floor(sorted.length * 0.95)].toFixed(2)} ms a page (one core).`,
  ""
]
if (args.half === "odd" || args.threshold !== undefined) {
  process.stdout.write(`${row(`threshold ${args.threshold ?? BOILERPLATE_MODEL.threshold} (${args.half})`, all)}\n`)
  process.exit(0)
}
writeFileSync(`${args.out}.md`, lines.join("\n"))
writeFileSync(`${args.out}.json`, `${JSON.stringify({ all, byType: Object.fromEntries(byType), ms: { p50: sorted[Math.floor(sorted.length / 2)] }, blocks, dropped }, null, 2)}\n`)
process.stdout.write(lines.join("\n"))
