/**
 * Parse-stage cost over WCXB dev: our htmlparser2 tree builder (`parseHtml`) against parse5's
 * HTML5 tree construction, alone (parse5's own tree) and converted to hast (hast-util-from-html,
 * what the pipeline would use). Milliseconds per page, p50 / p95 / max, one run per page after
 * one warm-up pass over the first 50 pages.
 *
 *   node_modules/.bin/node bench/html/parsers.ts [--limit N]
 */
import { readFileSync, readdirSync } from "node:fs"
import { loadavg } from "node:os"
import { gunzipSync } from "node:zlib"
import { performance } from "node:perf_hooks"
import { fromHtml } from "hast-util-from-html"
import { parse } from "parse5"
import { decodeBody } from "../../packages/core/src/fetch/Charset.ts"
import { parseHtml } from "../../packages/core/src/html/HtmlParser.ts"

const args = process.argv.slice(2)
const limitAt = args.indexOf("--limit")
const limit = limitAt >= 0 ? Number(args[limitAt + 1]) : Infinity
const corpus = new URL("../../../shared/corpus/wcxb-dev/html/", import.meta.url)
const pages = readdirSync(corpus)
  .filter((f) => f.endsWith(".html.gz"))
  .sort()
  .slice(0, limit)
  .map((f) => decodeBody(gunzipSync(readFileSync(new URL(f, corpus))), undefined).text)

const parsers: Array<[string, (html: string) => unknown]> = [
  ["ours (htmlparser2 + insertion modes)", parseHtml],
  ["parse5 (its own tree)", (html) => parse(html)],
  ["parse5 to hast (hast-util-from-html)", (html) => fromHtml(html)]
]
const pct = (sorted: Array<number>, p: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? 0
console.log(`pages ${pages.length}, load average ${loadavg().map((x) => x.toFixed(2)).join(" ")}`)
for (const [name, run] of parsers) {
  for (const html of pages.slice(0, 50)) run(html)
  const times: Array<number> = []
  for (const html of pages) {
    const t0 = performance.now()
    run(html)
    times.push(performance.now() - t0)
  }
  times.sort((a, b) => a - b)
  console.log(`${name.padEnd(40)} p50 ${pct(times, 0.5).toFixed(2)} ms  p95 ${pct(times, 0.95).toFixed(2)} ms  max ${times[times.length - 1]!.toFixed(1)} ms`)
}
