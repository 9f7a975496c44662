/**
 * Per-stage latency of the HTML path over WCXB dev pages (../shared/corpus/wcxb-dev): parse,
 * metadata, clean, links, main content, markdown, html serialisation, and processHtml end to
 * end (markdown + links, onlyMainContent on). Two passes; the second is reported, so the JIT
 * is warm. Also times the rejected alternatives (parse5 via hast-util-from-html,
 * hast-util-to-html) when `--alternatives` is given, to keep the decision checkable.
 *
 *   node_modules/.bin/node bench/html-stages/run.ts [--every N] [--alternatives]
 *
 * Single process, single thread: the numbers are per page on one core. Report the machine's
 * load with them (`uptime`); other processes on a shared machine inflate the tail.
 */
import { readFileSync, readdirSync } from "node:fs"
import { gunzipSync } from "node:zlib"
import { performance } from "node:perf_hooks"
import { cleanHtml } from "../../packages/core/src/html/HtmlClean.ts"
import { collectLinks } from "../../packages/core/src/html/HtmlLinks.ts"
import { extractMetadata } from "../../packages/core/src/html/HtmlMetadata.ts"
import { parseHtml } from "../../packages/core/src/html/HtmlParser.ts"
import { processHtml } from "../../packages/core/src/html/HtmlPipeline.ts"
import { serializeHtml } from "../../packages/core/src/html/HtmlSerialize.ts"
import { hastToMarkdown } from "../../packages/core/src/html/HastToMarkdown.ts"
import { extractMainContent } from "../../packages/core/src/html/MainContent.ts"

const args = process.argv.slice(2)
const everyIndex = args.indexOf("--every")
const every = everyIndex >= 0 ? Number(args[everyIndex + 1]) : 1
const alternatives = args.includes("--alternatives")

const corpus = new URL("../../../shared/corpus/wcxb-dev/html/", import.meta.url)
const files = readdirSync(corpus).filter((f) => f.endsWith(".html.gz")).sort().filter((_, i) => i % every === 0)
const pages = files.map((f) => gunzipSync(readFileSync(new URL(f, corpus))).toString("utf8"))
const url = "https://example.com/page"

const stages = ["parse", "metadata", "clean", "links", "main", "markdown(main)", "markdown(page)", "html(main)", "processHtml"] as const
type Stage = (typeof stages)[number] | "parse5" | "hast-util-to-html(page)"

const run = async (): Promise<Map<Stage, Array<number>>> => {
  const times = new Map<Stage, Array<number>>()
  const record = (stage: Stage, ms: number) => {
    let list = times.get(stage)
    if (list === undefined) times.set(stage, (list = []))
    list.push(ms)
  }
  const alt = alternatives
    ? { fromHtml: (await import("hast-util-from-html")).fromHtml, toHtml: (await import("hast-util-to-html")).toHtml }
    : undefined
  for (const html of pages) {
    let t = performance.now()
    const lap = (stage: Stage) => {
      const now = performance.now()
      record(stage, now - t)
      t = now
    }
    const root = parseHtml(html)
    lap("parse")
    extractMetadata(root, url)
    lap("metadata")
    cleanHtml(root, url)
    lap("clean")
    collectLinks(root, url)
    lap("links")
    const main = extractMainContent(root, { url })
    lap("main")
    hastToMarkdown(main, { removeBase64Images: true })
    lap("markdown(main)")
    hastToMarkdown(root, { removeBase64Images: true })
    lap("markdown(page)")
    serializeHtml(main)
    lap("html(main)")
    processHtml(html, { url, onlyMainContent: true, removeBase64Images: true, formats: { markdown: true, html: false, links: true } })
    lap("processHtml")
    if (alt !== undefined) {
      alt.fromHtml(html)
      lap("parse5")
      alt.toHtml(root)
      lap("hast-util-to-html(page)")
    }
  }
  return times
}

const percentile = (sorted: ReadonlyArray<number>, p: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? 0

await run()
const times = await run()
console.log(`${pages.length} WCXB dev pages, Node ${process.version}, second pass`)
console.log("| stage | p50 ms | p95 ms | max ms |\n| --- | --- | --- | --- |")
for (const [stage, list] of times) {
  const sorted = [...list].sort((a, b) => a - b)
  console.log(`| ${stage} | ${percentile(sorted, 0.5).toFixed(2)} | ${percentile(sorted, 0.95).toFixed(2)} | ${(sorted[sorted.length - 1] ?? 0).toFixed(2)} |`)
}
