/**
 * The offline `onlyCleanContent` pass's speed, before and after its feature extraction and tree
 * scoring were rewritten (char-code scans for the regular expressions, complete trees), side by
 * side in one run on every WCXB dev page: each page's onlyMainContent markdown is made as
 * bench/clean/run.ts makes it, then cleaned by both versions, in alternating order, each timed.
 * Every page's output (markdown, blocks kept and dropped) and every block's features and score
 * must be the same from both, or the run fails. The version before is
 * packages/core/test/clean/CleanContentReference.ts.
 *
 *   node -C @strata/source bench/clean/speed.ts [--corpus ../shared/corpus]
 */
import { readdirSync, readFileSync, writeFileSync } from "node:fs"
import { loadavg } from "node:os"
import { join, resolve } from "node:path"
import { parseArgs } from "node:util"
import { gunzipSync } from "node:zlib"
import { BOILERPLATE_MODEL } from "../../packages/core/src/clean/BoilerplateModel.ts"
import { blockFeatures, cleanMarkdown, contentScore, markdownBlocks } from "../../packages/core/src/clean/CleanContent.ts"
import { decodeBody } from "../../packages/core/src/fetch/Charset.ts"
import { processHtml } from "../../packages/core/src/html/HtmlPipeline.ts"
import * as Before from "../../packages/core/test/clean/CleanContentReference.ts"

const { values: args } = parseArgs({
  options: {
    corpus: { type: "string", default: resolve(import.meta.dirname, "../../../shared/corpus") },
    out: { type: "string", default: resolve(import.meta.dirname, "../results/clean-speed") }
  }
})
const dir = join(args.corpus, "wcxb-dev")
const before: Array<number> = []
const after: Array<number> = []
const differences: Array<string> = []
let blocks = 0
const files = readdirSync(join(dir, "ground-truth")).filter((f) => f.endsWith(".json")).sort()
for (const [n, file] of files.entries()) {
  const id = file.replace(/\.json$/, "")
  const json = JSON.parse(readFileSync(join(dir, "ground-truth", file), "utf8"))
  const html = decodeBody(gunzipSync(readFileSync(join(dir, "html", `${id}.html.gz`))), undefined).text
  const markdown = processHtml(html, { url: json.url ?? "", onlyMainContent: true, removeBase64Images: true, formats: { markdown: true, html: false, links: false } }).markdown ?? ""
  const time = <A>(f: () => A): [A, number] => {
    const started = performance.now()
    const result = f()
    return [result, performance.now() - started]
  }
  // Alternating which runs first, so that neither always finds the caches the other warmed.
  const [old, oldMs] = n % 2 === 0 ? time(() => Before.cleanMarkdown(markdown)) : [undefined, 0]
  const [now, nowMs] = time(() => cleanMarkdown(markdown))
  const [old2, old2Ms] = n % 2 === 1 ? time(() => Before.cleanMarkdown(markdown)) : [old!, oldMs]
  before.push(old2Ms)
  after.push(nowMs)
  if (old2.markdown !== now.markdown || old2.kept !== now.kept || old2.dropped !== now.dropped) differences.push(`${id}: output`)
  const rowsBefore = Before.blockFeatures(Before.markdownBlocks(markdown))
  const rowsAfter = blockFeatures(markdownBlocks(markdown))
  blocks += rowsAfter.length
  if (rowsBefore.length !== rowsAfter.length) differences.push(`${id}: blocks`)
  else {
    for (const [i, row] of rowsAfter.entries()) {
      if (row.some((v, j) => !Object.is(v, rowsBefore[i]![j]))) differences.push(`${id}: features of block ${i}`)
      else if (!Object.is(contentScore(BOILERPLATE_MODEL, row), Before.contentScore(BOILERPLATE_MODEL, row))) differences.push(`${id}: score of block ${i}`)
    }
  }
}
const stats = (ms: Array<number>) => {
  const sorted = [...ms].sort((a, b) => a - b)
  return { p50: sorted[Math.floor(sorted.length / 2)]!, p95: sorted[Math.floor(sorted.length * 0.95)]!, max: sorted[sorted.length - 1]! }
}
const b = stats(before)
const a = stats(after)
const lines = [
  "# onlyCleanContent (offline): speed before and after, side by side",
  "",
  `${new Date().toISOString()} · \`bench/clean/speed.ts\` · ${files.length} WCXB dev pages, ${blocks} blocks · 1-minute load average ${loadavg()[0]!.toFixed(1)} on a shared 2-core machine.`,
  "",
  "Each page's onlyMainContent markdown (made as bench/clean/run.ts makes it) cleaned by the version before (`packages/core/test/clean/CleanContentReference.ts`: regular expressions, trees walked node by node) and the version after (`packages/core/src/clean/CleanContent.ts`), in alternating order, in one process. ms a page, one core:",
  "",
  "| | p50 | p95 | max |",
  "| --- | ---: | ---: | ---: |",
  `| before | ${b.p50.toFixed(2)} | ${b.p95.toFixed(2)} | ${b.max.toFixed(1)} |`,
  `| after | ${a.p50.toFixed(2)} | ${a.p95.toFixed(2)} | ${a.max.toFixed(1)} |`,
  "",
  `Same output on every page (markdown, blocks kept and dropped), and every block's 32 features and score bit for bit the same: ${differences.length === 0 ? "yes" : `no, ${differences.length} differences (${differences.slice(0, 10).join("; ")})`}.`,
  ""
]
writeFileSync(`${args.out}.md`, lines.join("\n"))
writeFileSync(`${args.out}.json`, `${JSON.stringify({ pages: files.length, blocks, before: b, after: a, differences }, null, 2)}\n`)
process.stdout.write(lines.join("\n"))
if (differences.length > 0) process.exit(1)
