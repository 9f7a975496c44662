/**
 * `product` on real pages: the WCXB dev pages in ../shared/corpus, by their human-assigned page
 * type. On product pages: the share where a product is found, whose title matches the page's
 * human-checked title (one contains the other, case and spacing aside), and that has a price.
 * On every other type: the share where a product is (wrongly or arguably) found. Also ms a page.
 *
 *   node -C @strata/source bench/commerce/run.ts [--corpus ../shared/corpus]
 */
import { readdirSync, readFileSync, writeFileSync } from "node:fs"
import { join, resolve } from "node:path"
import { parseArgs } from "node:util"
import { gunzipSync } from "node:zlib"
import { commerceFormats } from "../../packages/core/src/commerce/CommerceFormats.ts"
import { decodeBody } from "../../packages/core/src/fetch/Charset.ts"

const { values: args } = parseArgs({
  options: {
    corpus: { type: "string", default: resolve(import.meta.dirname, "../../../shared/corpus") },
    out: { type: "string", default: resolve(import.meta.dirname, "../results/commerce") }
  }
})
const dir = join(args.corpus, "wcxb-dev")
const norm = (s: string) => s.toLowerCase().replace(/\s+/g, " ").trim()
const byType = new Map<string, { n: number; found: number; title: number; price: number; variants: number }>()
const ms: Array<number> = []
const misses: Array<string> = []
for (const file of readdirSync(join(dir, "ground-truth")).filter((f) => f.endsWith(".json")).sort()) {
  const json = JSON.parse(readFileSync(join(dir, "ground-truth", file), "utf8"))
  const pt = json._internal?.page_type
  const type = typeof pt === "string" ? pt : (pt?.primary ?? "article")
  const html = decodeBody(gunzipSync(readFileSync(join(dir, "html", file.replace(/\.json$/, ".html.gz")))), undefined).text
  const started = performance.now()
  const product = commerceFormats([{ type: "product" }], html, json.url).fields.product
  ms.push(performance.now() - started)
  const t = byType.get(type) ?? { n: 0, found: 0, title: 0, price: 0, variants: 0 }
  byType.set(type, t)
  t.n++
  if (product === null || product === undefined) {
    if (type === "product" && misses.length < 30) misses.push(`${file} ${json.url}`)
    continue
  }
  t.found++
  t.variants += product.variants.length
  const truth = norm(json.ground_truth?.title ?? "")
  const title = norm(product.title)
  if (truth !== "" && (truth.includes(title) || title.includes(truth))) t.title++
  if (product.variants.some((v) => v.price !== undefined)) t.price++
}
const pct = (v: number, n: number) => (n === 0 ? "-" : `${((100 * v) / n).toFixed(1)}%`)
const sorted = [...ms].sort((a, b) => a - b)
const rows = [...byType].sort((a, b) => (a[0] === "product" ? -1 : b[0] === "product" ? 1 : b[1].n - a[1].n))
const lines = [
  "# product: found on real pages (WCXB dev)",
  "",
  `${new Date().toISOString()} · \`bench/commerce/run.ts\` · ${ms.length} pages · read from schema.org JSON-LD and OpenGraph product tags only (no microdata or page-text evidence yet).`,
  "",
  "| page type | pages | product found | title matches the page's | with a price | variants per product |",
  "| --- | ---: | ---: | ---: | ---: | ---: |",
  ...rows.map(([type, t]) => `| ${type} | ${t.n} | ${pct(t.found, t.n)} | ${pct(t.title, t.found)} | ${pct(t.price, t.found)} | ${t.found === 0 ? "-" : (t.variants / t.found).toFixed(1)} |`),
  "",
  `A product found on a page of another type is not always wrong (a review or a listing may state one). ms a page: p50 ${sorted[Math.floor(sorted.length / 2)].toFixed(2)}, p95 ${sorted[Math.floor(sorted.length * 0.95)].toFixed(2)}.`,
  "",
  `Product pages with no product found (first 30): ${misses.join("; ")}`,
  ""
]
writeFileSync(`${args.out}.md`, lines.join("\n"))
writeFileSync(`${args.out}.json`, `${JSON.stringify({ byType: Object.fromEntries(byType), p50Ms: sorted[Math.floor(sorted.length / 2)] }, null, 2)}\n`)
process.stdout.write(lines.join("\n"))
