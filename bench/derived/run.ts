/**
 * The offline derived formats, measured. Answer accuracy: the hand-written questions in
 * `questions.json` over WCXB dev pages (each with the spans the page states), answered by the
 * offline extractive path from the markdown our HTML stages write for the page; exact match and
 * token F1 (SQuAD normalisation: lower case, no punctuation or articles), the share whose chosen
 * sentence holds an answer, and for the questions the page does not answer, the share left
 * unanswered. Reported per split: pages alternate dev/test in the order the questions were
 * written, and only dev questions were looked at while tuning. Speed: ms per page for every
 * offline format (summary, answer, highlights, json, onlyCleanContent, redactPII, product, menu)
 * over the same WCXB dev pages, on one core, on the markdown (and for json, product and menu the
 * HTML) already produced.
 *
 *   node_modules/.bin/node -C @strata/source bench/derived/run.ts [--pages N] [--show dev|test] [--write]
 */
import { readdirSync, readFileSync, writeFileSync } from "node:fs"
import { loadavg } from "node:os"
import { performance } from "node:perf_hooks"
import { gunzipSync } from "node:zlib"
import { cleanMarkdown } from "../../packages/core/src/clean/CleanContent.ts"
import { commerceFormats } from "../../packages/core/src/commerce/CommerceFormats.ts"
import { deriveOffline } from "../../packages/core/src/derived/DerivedFormats.ts"
import { extractiveAnswer } from "../../packages/core/src/derived/Extractive.ts"
import { decodeBody } from "../../packages/core/src/fetch/Charset.ts"
import { processHtml } from "../../packages/core/src/html/index.ts"
import { piiOptions, redactString } from "../../packages/core/src/pii/PiiRedactor.ts"

const args = process.argv.slice(2)
const option = (name: string): string | undefined => {
  const i = args.indexOf(name)
  return i >= 0 ? args[i + 1] : undefined
}
const corpus = new URL("../../../shared/corpus/", import.meta.url)
const results = new URL("../results/", import.meta.url)

interface Question {
  readonly page: string
  readonly split: "dev" | "test"
  readonly question: string
  readonly answers: ReadonlyArray<string>
}

const questions = (JSON.parse(readFileSync(new URL("./questions.json", import.meta.url), "utf8")) as { questions: Array<Question> }).questions

const readPage = (path: string) => {
  const html = decodeBody(gunzipSync(readFileSync(new URL(path, corpus))), "text/html").text
  const url = "https://example.com/page"
  const result = processHtml(html, { url, onlyMainContent: true, removeBase64Images: true, formats: { markdown: true, html: false, links: false } })
  return { html, markdown: result.markdown ?? "" }
}

const normalise = (text: string) =>
  text.toLowerCase().replace(/[\p{P}\p{S}]/gu, " ").replace(/\b(a|an|the)\b/g, " ").replace(/\s+/g, " ").trim()

const f1 = (prediction: string, truth: string): number => {
  const p = normalise(prediction).split(" ").filter(Boolean)
  const t = normalise(truth).split(" ").filter(Boolean)
  if (p.length === 0 || t.length === 0) return p.length === t.length ? 1 : 0
  const counts = new Map<string, number>()
  for (const w of t) counts.set(w, (counts.get(w) ?? 0) + 1)
  let same = 0
  for (const w of p) {
    const c = counts.get(w) ?? 0
    if (c > 0) {
      same++
      counts.set(w, c - 1)
    }
  }
  if (same === 0) return 0
  const precision = same / p.length
  const recall = same / t.length
  return (2 * precision * recall) / (precision + recall)
}

// --- answer accuracy ---
const pages = new Map<string, { html: string; markdown: string }>()
for (const q of questions) if (!pages.has(q.page)) pages.set(q.page, readPage(q.page))

interface Row {
  readonly q: Question
  readonly answer: string | undefined
  readonly sentence: string | undefined
  readonly em: number
  readonly f1: number
  readonly sentenceHit: boolean
  readonly inMarkdown: boolean
}

const rows: Array<Row> = questions.map((q) => {
  const page = pages.get(q.page)!
  const found = extractiveAnswer(page.markdown, q.question)
  const answer = found?.answer
  const inMarkdown = q.answers.some((a) => normalise(page.markdown).includes(normalise(a)))
  if (q.answers.length === 0) {
    return { q, answer, sentence: found?.sentence, em: answer === undefined ? 1 : 0, f1: answer === undefined ? 1 : 0, sentenceHit: answer === undefined, inMarkdown: true }
  }
  return {
    q,
    answer,
    sentence: found?.sentence,
    em: answer === undefined ? 0 : Math.max(...q.answers.map((a) => (normalise(a) === normalise(answer) ? 1 : 0))),
    f1: answer === undefined ? 0 : Math.max(...q.answers.map((a) => f1(answer, a))),
    sentenceHit: found !== undefined && q.answers.some((a) => normalise(found.sentence).includes(normalise(a))),
    inMarkdown
  }
})

const mean = (xs: ReadonlyArray<number>) => (xs.length === 0 ? 0 : xs.reduce((a, b) => a + b, 0) / xs.length)
const round = (x: number, digits = 3) => Math.round(x * 10 ** digits) / 10 ** digits

const score = (subset: ReadonlyArray<Row>) => {
  const answerable = subset.filter((r) => r.q.answers.length > 0)
  const unanswerable = subset.filter((r) => r.q.answers.length === 0)
  return {
    questions: subset.length,
    answerable: answerable.length,
    exactMatch: round(mean(answerable.map((r) => r.em))),
    f1: round(mean(answerable.map((r) => r.f1))),
    sentenceHoldsAnswer: round(mean(answerable.map((r) => (r.sentenceHit ? 1 : 0)))),
    answeredWhenAnswerable: round(mean(answerable.map((r) => (r.answer !== undefined ? 1 : 0)))),
    answerInMarkdown: round(mean(answerable.map((r) => (r.inMarkdown ? 1 : 0)))),
    unanswerable: unanswerable.length,
    noAnswerWhenUnanswerable: round(mean(unanswerable.map((r) => r.em)))
  }
}

const accuracy = { dev: score(rows.filter((r) => r.q.split === "dev")), test: score(rows.filter((r) => r.q.split === "test")), all: score(rows) }

const show = option("--show")
if (show !== undefined) {
  for (const r of rows.filter((r) => r.q.split === show && r.em < 1)) {
    console.log(`[${r.q.page.slice(14, 18)}] ${r.q.question}\n  want ${JSON.stringify(r.q.answers)}  got ${JSON.stringify(r.answer)}  f1 ${round(r.f1, 2)}${r.inMarkdown ? "" : "  (answer not in markdown)"}\n  from ${JSON.stringify(r.sentence?.slice(0, 160))}`)
  }
}

// --- speed ---
const pageLimit = Number(option("--pages") ?? "200")
const files = readdirSync(new URL("wcxb-dev/html/", corpus)).filter((f) => f.endsWith(".html.gz")).sort().slice(0, pageLimit)
const sample = files.map((f) => readPage(`wcxb-dev/html/${f}`))
const schema = {
  type: "object",
  properties: {
    title: { type: "string" },
    author: { type: "string" },
    datePublished: { type: "string" },
    description: { type: "string" },
    price: { type: "number" },
    image: { type: "string" }
  }
}
type Sample = (typeof sample)[number]
const derived = (fs: Parameters<typeof deriveOffline>[0]) => (page: Sample) => deriveOffline(fs, { markdown: page.markdown, html: page.html })
// `redactPII: true`: accurate mode, every entity, tags; run on the markdown as the Redaction stage runs on text.
const pii = piiOptions({ mode: "accurate", replaceStyle: "tag" })
const formats: Record<string, (page: Sample) => unknown> = {
  summary: derived([{ type: "summary" }]),
  answer: derived([{ type: "question", question: "When was it published and who wrote it?" }]),
  highlights: derived([{ type: "highlights", query: "price and availability" }]),
  json: derived([{ type: "json", schema }]),
  onlyCleanContent: (page) => cleanMarkdown(page.markdown),
  redactPII: (page) => redactString(page.markdown, pii),
  // The HTML parsed once for both, as a request asking for both parses it; here each alone.
  product: (page) => commerceFormats([{ type: "product" }], page.html, "https://example.com/page"),
  menu: (page) => commerceFormats([{ type: "menu" }], page.html, "https://example.com/page")
}
const percentile = (xs: Array<number>, p: number) => {
  const sorted = [...xs].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0
}
const speed: Record<string, { pages: number; p50: number; p95: number; max: number; mean: number }> = {}
for (const [name, format] of Object.entries(formats)) {
  // One untimed pass over every page (JIT, as in a server that has been up a while), then the timed one.
  for (const page of sample) format(page)
  // Three timed passes, each page's fastest kept: the machine is shared, and another process taking
  // the core mid-page is not the format's cost.
  const times: Array<number> = sample.map(() => Number.POSITIVE_INFINITY)
  for (let pass = 0; pass < 3; pass++) {
    sample.forEach((page, i) => {
      const started = performance.now()
      format(page)
      times[i] = Math.min(times[i]!, performance.now() - started)
    })
  }
  speed[name] = { pages: times.length, p50: round(percentile(times, 50), 2), p95: round(percentile(times, 95), 2), max: round(Math.max(...times), 1), mean: round(mean(times), 2) }
}

const load = loadavg().map((x) => round(x, 2))
const report = { date: new Date().toISOString(), node: process.version, loadavg: load, accuracy, speed, failures: rows.filter((r) => r.q.split === "test" && r.em < 1).map((r) => ({ page: r.q.page, question: r.q.question, answers: r.q.answers, got: r.answer ?? null })) }
console.log(JSON.stringify({ accuracy, speed }, null, 1))

if (args.includes("--write")) {
  writeFileSync(new URL("derived.json", results), JSON.stringify(report, null, 1) + "\n")
  const line = (name: string, s: ReturnType<typeof score>) =>
    `| ${name} | ${s.answerable} | ${s.exactMatch.toFixed(3)} | ${s.f1.toFixed(3)} | ${s.sentenceHoldsAnswer.toFixed(3)} | ${s.answeredWhenAnswerable.toFixed(3)} | ${s.answerInMarkdown.toFixed(3)} | ${s.unanswerable} | ${s.noAnswerWhenUnanswerable.toFixed(3)} |`
  const md = `# Derived formats, offline paths

Written by \`bench/derived/run.ts --write\` on ${report.date.slice(0, 10)} (Node ${process.version}, one core, the machine shared with other work).

## Answer accuracy (\`question\` -> \`answer\`, offline extractive)

${questions.length} questions written by hand over ${pages.size} WCXB dev pages (\`bench/derived/questions.json\`: page, question, the answer spans the page states), ${questions.filter((q) => q.answers.length > 0).length} answerable and ${questions.filter((q) => q.answers.length === 0).length} that the page does not answer. Each page is run through our HTML stages (onlyMainContent) and the question answered from that markdown. Pages alternate dev/test in the order the questions were written; only dev questions were looked at while tuning, so **test is the number to quote**.

| split | answerable | exact match | F1 | chosen sentence holds the answer | answered | answer in our markdown | unanswerable | no answer given |
| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |
${line("dev", accuracy.dev)}
${line("**test**", accuracy.test)}
${line("all", accuracy.all)}

Before any tuning (the first run of the span rules as first written, 2026-11-25): dev EM 0.321 / F1 0.445, test EM 0.264 / F1 0.423. Tuning on the dev misses (a label line followed by its value line, quantities keeping only unit words, money questions by "cost/price/fee", "X is the most ..." subjects, the words after the question's last word, two neighbours each side in the passage, a page's own FAQ questions never chosen as answers) moved dev to the numbers above and test to EM 0.377 / F1 0.469, the last strictly held-out test figures. One bug was then seen in the list of test misses below and fixed (a label line was answered with the next line even when that line was itself a label ending in ":"); dev did not move, test moved to the numbers above, which are therefore no longer strictly held out.

Exact match and F1 use SQuAD's normalisation (lower case, punctuation and articles removed), best over the accepted spans. "Chosen sentence holds the answer" is the retrieval half alone (BM25 over sentences and passages); "answer in our markdown" is the ceiling our HTML stages leave.

## Speed (ms per page, one core)

Every offline format over the same first ${sample.length} WCXB dev pages, on the markdown (and for json, product and menu the HTML) already produced: the format's own cost. onlyCleanContent is the block classifier; redactPII is \`redactPII: true\` (accurate mode, every entity, tags) on the page's markdown; product and menu each parse the HTML. One untimed pass, then three timed passes keeping each page's fastest (load average ${load.join(", ")} at the end of the run: other work shares the two cores, and single passes moved p50s by up to 2x between runs).

| format | p50 | p95 | max | mean |
| --- | ---: | ---: | ---: | ---: |
${Object.entries(speed).map(([name, s]) => `| ${name} | ${s.p50} | ${s.p95} | ${s.max} | ${s.mean} |`).join("\n")}

Target: under 20 ms p50 each: ${Object.values(speed).filter((s) => s.p50 < 20).length} of ${Object.keys(speed).length} formats meet it (largest p50 ${Math.max(...Object.values(speed).map((s) => s.p50))} ms).

## Test questions missed

${report.failures.map((f) => `- \`${f.page.slice(14, 18)}\` ${f.question} want ${JSON.stringify(f.answers)}, got ${JSON.stringify(f.got)}`).join("\n")}
`
  writeFileSync(new URL("derived.md", results), md)
}
