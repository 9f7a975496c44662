/**
 * HTML main-content benchmark over WCXB dev (../shared/corpus/wcxb-dev): our pipeline
 * (`processHtml` with onlyMainContent and markdown, or the extractor + plain text until the
 * pipeline exists) side by side with Readability.js on linkedom + turndown and defuddle on
 * linkedom (its own markdown). Word F1 /
 * precision / recall per page type and per id-parity half, `with`/`without` snippet rates,
 * empty and near-empty outputs on pages whose reference has text, and ms per page.
 *
 *   node_modules/.bin/node bench/html/run.ts [--limit N] [--type T] [--runs N] [--no-readability] [--no-defuddle]
 *                                            [--extractor] [--dump ID] [--worst N] [--write]
 *                                            [--half even|odd] [--out FILE]
 *
 * `--half even|odd` keeps the pages whose numeric id is even or odd: tune on one half, confirm
 * on the other, so that a rule that only fits the pages it was written for shows up.
 * `--write` stores bench/results/html.json and html.md (use it for full runs only).
 */
import { existsSync, readFileSync, readdirSync, writeFileSync, mkdirSync } from "node:fs"
import { gunzipSync } from "node:zlib"
import { performance } from "node:perf_hooks"
import { decodeBody } from "../../packages/core/src/fetch/Charset.ts"
import { markdownToPlain, snippetRate, tokenize, wordF1 } from "./Score.ts"
import { summarise, type PageResult, renderMarkdown } from "./Report.ts"
import { defuddleEngine, type Engine, readabilityEngine } from "./Peers.ts"

const args = process.argv.slice(2)
const flag = (name: string) => args.includes(name)
const option = (name: string): string | undefined => {
  const i = args.indexOf(name)
  return i >= 0 ? args[i + 1] : undefined
}

const corpus = new URL("../../../shared/corpus/wcxb-dev/", import.meta.url)
const results = new URL("../results/", import.meta.url)

interface Truth {
  readonly mainContent: string
  readonly with: ReadonlyArray<string>
  readonly without: ReadonlyArray<string>
  readonly pageType: string
  readonly url: string
}

const loadTruth = (id: string): Truth => {
  const json = JSON.parse(readFileSync(new URL(`ground-truth/${id}.json`, corpus), "utf8"))
  const gt = json.ground_truth ?? {}
  const pt = json._internal?.page_type
  const pageType = typeof pt === "string" ? pt : (pt?.primary ?? "article")
  return {
    mainContent: gt.main_content ?? "",
    with: gt.with ?? [],
    without: gt.without ?? [],
    pageType: pageType === "category" ? "collection" : pageType,
    url: json.url ?? ""
  }
}

/** Decode as a scrape would: the fetch stage's charset sniffing (BOM, meta, UTF-8 validity). */
const decode = (bytes: Uint8Array): string => decodeBody(bytes, undefined).text

// ---- engines ----------------------------------------------------------------------------

const pipelinePath = new URL("../../packages/core/src/html/HtmlPipeline.ts", import.meta.url)
const parserPath = new URL("../../packages/core/src/html/HtmlParser.ts", import.meta.url)

/** Words the whole page shows (markdown with no main-content filtering): "has visible text". */
const { processHtml: wholePage } = await import(pipelinePath.href)
const visibleWords = (html: string, url: string): number =>
  tokenize(markdownToPlain(wholePage(html, { url, onlyMainContent: false, removeBase64Images: true, formats: { markdown: true, html: false, links: false } }).markdown ?? "")).length

const loadOurs = async (): Promise<{ engine: Engine; kind: string }> => {
  const { extractMainContent } = await import("../../packages/core/src/html/MainContent.ts")
  if (!flag("--extractor") && existsSync(pipelinePath)) {
    const { processHtml } = await import(pipelinePath.href)
    const engine: Engine = (html, url) =>
      processHtml(html, {
        url,
        onlyMainContent: true,
        removeBase64Images: true,
        formats: { markdown: true, html: false, links: false }
      }).markdown ?? ""
    return { engine, kind: "processHtml (parse+clean+main+markdown)" }
  }
  const { toText } = await import("hast-util-to-text")
  const parse: (html: string) => import("hast").Root = existsSync(parserPath)
    ? (await import(parserPath.href)).parseHtml
    : (await import("hast-util-from-html")).fromHtml
  const engine: Engine = (html, url) => toText(extractMainContent(parse(html), { url }))
  return { engine, kind: "parse + extractMainContent + hast-util-to-text" }
}

// ---- run ---------------------------------------------------------------------------------

const main = async () => {
  const ours = await loadOurs()
  const withReadability = !flag("--no-readability")
  const withDefuddle = !flag("--no-defuddle")
  const runs = Number(option("--runs") ?? "1")
  const limit = option("--limit") !== undefined ? Number(option("--limit")) : Infinity
  const type = option("--type")
  const dump = option("--dump")
  const half = option("--half")
  if (half !== undefined && half !== "even" && half !== "odd") throw new Error("--half takes even or odd")

  let ids = readdirSync(new URL("html/", corpus))
    .filter((f) => f.endsWith(".html.gz"))
    .map((f) => f.slice(0, -".html.gz".length))
    .sort()
  if (dump !== undefined) ids = [dump]
  if (half !== undefined) ids = ids.filter((id) => (Number(id.replace(/\D/g, "")) % 2 === 0) === (half === "even"))
  const pages: Array<{ id: string; html: string; truth: Truth }> = []
  for (const id of ids) {
    const truth = loadTruth(id)
    if (type !== undefined && truth.pageType !== type) continue
    pages.push({ id, html: decode(gunzipSync(readFileSync(new URL(`html/${id}.html.gz`, corpus)))), truth })
    if (pages.length >= limit) break
  }

  const pageWords = new Map(pages.map((page) => [page.id, visibleWords(page.html, page.truth.url)]))
  const engines: Array<[string, Engine]> = [["ours", ours.engine]]
  if (withReadability) engines.push(["readability", readabilityEngine])
  if (withDefuddle) engines.push(["defuddle", defuddleEngine])
  const out: Record<string, Array<PageResult>> = {}
  for (const [name, engine] of engines) {
    const perPage: Array<PageResult> = []
    for (const page of pages) {
      const times: Array<number> = []
      let markdown = ""
      for (let r = 0; r < runs; r++) {
        const t0 = performance.now()
        try {
          markdown = await engine(page.html, page.truth.url)
        } catch (error) {
          markdown = ""
          if (r === 0) console.error(`${name} ${page.id}: ${String(error)}`)
        }
        times.push(performance.now() - t0)
      }
      times.sort((a, b) => a - b)
      const plain = markdownToPlain(markdown)
      const score = wordF1(plain, page.truth.mainContent)
      perPage.push({
        id: page.id,
        pageType: page.truth.pageType,
        ...score,
        withRate: snippetRate(plain, page.truth.with),
        withoutRate: snippetRate(plain, page.truth.without),
        hasWithout: page.truth.without.length > 0,
        ms: times[Math.floor(times.length / 2)],
        bytes: page.html.length,
        words: tokenize(plain).length,
        truthWords: tokenize(page.truth.mainContent).length,
        pageWords: pageWords.get(page.id) ?? 0
      })
      if (dump !== undefined) {
        console.log(`==== ${name} (${page.truth.pageType}) F1 ${score.f1.toFixed(3)} P ${score.precision.toFixed(3)} R ${score.recall.toFixed(3)}`)
        console.log(name === "ours" ? markdown : plain)
      }
    }
    out[name] = perPage
  }
  if (dump !== undefined) {
    const truth = pages[0]?.truth
    console.log(`==== truth ${truth?.url}\n${truth?.mainContent}\n---- with: ${JSON.stringify(truth?.with)}\n---- without: ${JSON.stringify(truth?.without)}`)
    return
  }

  const summary = Object.fromEntries(Object.entries(out).map(([name, perPage]) => [name, summarise(perPage)]))
  const conditions = {
    date: new Date().toISOString(),
    pages: pages.length,
    runs,
    node: process.version,
    loadAverage: (await import("node:os")).loadavg().map((x) => Number(x.toFixed(2))),
    ours: ours.kind,
    readability: "@mozilla/readability 0.6 on linkedom 0.18 + turndown 7 (atx, fenced)",
    defuddle: "defuddle 0.19.4 (defuddle/node) on linkedom 0.18 with its linkedom polyfills, markdown: true, useAsync: false"
  }
  console.log(JSON.stringify(conditions))
  console.log(renderMarkdown(summary, conditions))
  const worst = Number(option("--worst") ?? "0")
  if (worst > 0) {
    const sorted = [...(out.ours ?? [])].sort((a, b) => a.f1 - b.f1).slice(0, worst)
    for (const r of sorted) {
      const other = out.readability?.find((x) => x.id === r.id)
      console.log(`${r.id} ${r.pageType.padEnd(13)} F1 ${r.f1.toFixed(3)} P ${r.precision.toFixed(3)} R ${r.recall.toFixed(3)}${other ? ` | readability ${other.f1.toFixed(3)}` : ""}`)
    }
  }
  const outFile = option("--out")
  if (outFile !== undefined) writeFileSync(outFile, JSON.stringify(out))
  if (flag("--write")) {
    mkdirSync(results, { recursive: true })
    writeFileSync(new URL("html.json", results), JSON.stringify({ conditions, summary, pages: out }, null, 1) + "\n")
    writeFileSync(new URL("html.md", results), renderMarkdown(summary, conditions))
  }
}

await main()
