/**
 * An article set never tuned on: the real-world pages of Readability.js's own test suite
 * (`../shared/corpus/readability`, about 130 news, blog and reference pages in a dozen
 * languages, plus Readability's small synthetic cases). The corpus carries no reference
 * content, only metadata, so each page is scored against what Readability.js itself extracts:
 * a peer's output on its own test pages, which favours Readability by construction. Read the
 * scores as agreement with Readability, side by side with defuddle's, and the page list as where
 * to look: a page where we keep far more (or less) than both peers is a likely error of ours.
 *
 *   node_modules/.bin/node -C @strata/source bench/html/readabilityPages.ts [--write] [--worst N]
 */
import { readFileSync, readdirSync, writeFileSync } from "node:fs"
import { processHtml } from "../../packages/core/src/html/HtmlPipeline.ts"
import { defuddleEngine, readabilityEngine } from "./Peers.ts"
import { markdownToPlain, tokenize, wordF1 } from "./Score.ts"

const args = process.argv.slice(2)
const worstAt = args.indexOf("--worst")
const worst = worstAt >= 0 ? Number(args[worstAt + 1]) : 15
const corpus = new URL("../../../shared/corpus/readability/", import.meta.url)
const results = new URL("../results/", import.meta.url)
const url = "http://fakehost/test/page.html"

const readability = async (html: string): Promise<string> => markdownToPlain(await readabilityEngine(html, url))

/** As bench/html/run.ts runs it; a page it throws on gives nothing. */
const defuddle = async (html: string): Promise<string> => {
  try {
    return markdownToPlain(await defuddleEngine(html, url))
  } catch {
    return ""
  }
}

const ours = (html: string): string =>
  markdownToPlain(processHtml(html, { url, onlyMainContent: true, removeBase64Images: true, formats: { markdown: true, html: false, links: false } }).markdown ?? "")

interface Row {
  readonly page: string
  readonly words: { readonly ours: number; readonly readability: number; readonly defuddle: number }
  readonly ours: { readonly precision: number; readonly recall: number; readonly f1: number }
  readonly defuddle: { readonly precision: number; readonly recall: number; readonly f1: number }
}

const rows: Array<Row> = []
for (const page of readdirSync(corpus).sort()) {
  let html: string
  try {
    html = readFileSync(new URL(`${page}/source.html`, corpus), "utf8")
  } catch {
    continue
  }
  const reference = await readability(html)
  if (tokenize(reference).length === 0) continue
  const [mine, theirs] = [ours(html), await defuddle(html)]
  const score = (text: string) => {
    const s = wordF1(text, reference)
    return { precision: s.precision, recall: s.recall, f1: s.f1 }
  }
  rows.push({
    page,
    words: { ours: tokenize(mine).length, readability: tokenize(reference).length, defuddle: tokenize(theirs).length },
    ours: score(mine),
    defuddle: score(theirs)
  })
}

const mean = (pick: (r: Row) => number) => rows.reduce((a, r) => a + pick(r), 0) / rows.length
const f = (x: number) => x.toFixed(3)
const lines = [
  "# Readability.js's test pages: agreement with Readability (bench/html/readabilityPages.ts)",
  "",
  `${new Date().toISOString()}, ${rows.length} pages with text. Reference: Readability.js 0.6's own extraction (linkedom + turndown), so it scores 1.000 against itself; word precision / recall / F1, macro-averaged.`,
  "",
  "| engine | precision | recall | F1 | pages with precision < 0.6 | pages with recall < 0.6 |",
  "| --- | ---: | ---: | ---: | ---: | ---: |",
  `| ours (processHtml, onlyMainContent) | ${f(mean((r) => r.ours.precision))} | ${f(mean((r) => r.ours.recall))} | ${f(mean((r) => r.ours.f1))} | ${rows.filter((r) => r.ours.precision < 0.6).length} | ${rows.filter((r) => r.ours.recall < 0.6).length} |`,
  `| defuddle 0.19 | ${f(mean((r) => r.defuddle.precision))} | ${f(mean((r) => r.defuddle.recall))} | ${f(mean((r) => r.defuddle.f1))} | ${rows.filter((r) => r.defuddle.precision < 0.6).length} | ${rows.filter((r) => r.defuddle.recall < 0.6).length} |`,
  "",
  `Our ${worst} lowest F1 (words: ours / Readability / defuddle):`,
  "",
  "| page | ours P / R / F1 | defuddle P / R / F1 | words |",
  "| --- | --- | --- | --- |",
  ...[...rows]
    .sort((a, b) => a.ours.f1 - b.ours.f1)
    .slice(0, worst)
    .map((r) => `| ${r.page} | ${f(r.ours.precision)} / ${f(r.ours.recall)} / ${f(r.ours.f1)} | ${f(r.defuddle.precision)} / ${f(r.defuddle.recall)} / ${f(r.defuddle.f1)} | ${r.words.ours} / ${r.words.readability} / ${r.words.defuddle} |`)
]
console.log(lines.join("\n"))
if (args.includes("--write")) {
  writeFileSync(new URL("html-readability-pages.md", results), lines.join("\n") + "\n")
  writeFileSync(new URL("html-readability-pages.json", results), JSON.stringify(rows, null, 1) + "\n")
}
