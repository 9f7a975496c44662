/**
 * What `blockAds` costs on a page the fetch engine serves: building the packaged lists once, then
 * per page the feature walk + rule lookup + removal (`hideCosmetic`), and the whole HTML path
 * (`processHtml`, main content, markdown) with and without it, over WCXB dev pages with their
 * real URLs (so domain rules apply). Also how many pages lose elements, and how much markdown.
 *
 *   node_modules/.bin/node -C @strata/source bench/browser/cosmetic.ts [pages=120]
 */
import { readFileSync, readdirSync } from "node:fs"
import { gunzipSync } from "node:zlib"
import { buildAdBlocker } from "../../packages/browser/src/AdBlock.ts"
import { hideCosmetic, pageFeatures } from "../../packages/core/src/html/CosmeticFilter.ts"
import { parseHtml } from "../../packages/core/src/html/HtmlParser.ts"
import { processHtml } from "../../packages/core/src/html/HtmlPipeline.ts"

const corpus = "/work/shared/corpus/wcxb-dev"
const limit = Number(process.argv[2] ?? 120)
const ids = readdirSync(`${corpus}/html`).filter((name) => name.endsWith(".html.gz")).map((name) => name.slice(0, 4)).slice(0, limit)

const heapBefore = process.memoryUsage()
const blocker = buildAdBlocker()
const heapAfter = process.memoryUsage()
const matcher = (url: string, features: Parameters<typeof blocker.selectors>[1]) => blocker.selectors(url, features)

const quantile = (values: Array<number>, q: number) => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0
}
const options = (url: string) => ({ url, onlyMainContent: true, removeBase64Images: true, formats: { markdown: true, html: false, links: false } })

const hide: Array<number> = []
const lookup: Array<number> = []
const plain: Array<number> = []
const filtered: Array<number> = []
let touched = 0
let selectorsTotal = 0
let charsBefore = 0
let charsAfter = 0
for (const id of ids) {
  const html = gunzipSync(readFileSync(`${corpus}/html/${id}.html.gz`)).toString("utf8")
  const url = (JSON.parse(readFileSync(`${corpus}/ground-truth/${id}.json`, "utf8")) as { url: string }).url
  const tree = parseHtml(html)
  let started = performance.now()
  const selectors = blocker.selectors(url, pageFeatures(tree, url))
  lookup.push(performance.now() - started)
  selectorsTotal += selectors.length
  started = performance.now()
  const after = hideCosmetic(tree, url, matcher)
  hide.push(performance.now() - started)
  if (after !== tree) touched++
  started = performance.now()
  const a = processHtml(html, options(url))
  plain.push(performance.now() - started)
  started = performance.now()
  const b = processHtml(html, { ...options(url), cosmetic: matcher })
  filtered.push(performance.now() - started)
  charsBefore += a.markdown?.length ?? 0
  charsAfter += b.markdown?.length ?? 0
}

const ms = (value: number) => value.toFixed(2)
console.log(`lists: ${blocker.stats.networkRules} network + ${blocker.stats.cosmeticRules} cosmetic rules, built in ${blocker.stats.buildMs.toFixed(0)} ms; heap +${((heapAfter.heapUsed - heapBefore.heapUsed) / 2 ** 20).toFixed(1)} MB, RSS +${((heapAfter.rss - heapBefore.rss) / 2 ** 20).toFixed(0)} MB`)
console.log(`pages: ${ids.length}; pages with elements removed: ${touched}; selectors per page (mean): ${(selectorsTotal / ids.length).toFixed(1)}`)
console.log(`features + rule lookup, ms: p50 ${ms(quantile(lookup, 0.5))} p95 ${ms(quantile(lookup, 0.95))}`)
console.log(`hideCosmetic (lookup + removal), ms: p50 ${ms(quantile(hide, 0.5))} p95 ${ms(quantile(hide, 0.95))}`)
console.log(`processHtml without / with, ms: p50 ${ms(quantile(plain, 0.5))} / ${ms(quantile(filtered, 0.5))}, p95 ${ms(quantile(plain, 0.95))} / ${ms(quantile(filtered, 0.95))}`)
console.log(`main-content markdown chars: ${charsBefore} -> ${charsAfter} (${(100 * (charsAfter - charsBefore) / charsBefore).toFixed(2)}%)`)
