/**
 * Parse benchmark: every non-PDF document of ../shared/corpus/docling (Docling's markdown as the
 * reference) read through type detection and the office readers (html through the core HTML
 * stages), scored by token F1 and order-aware token similarity after normalising away markdown
 * and HTML syntax, timed per document; plus the acceptance phrases of ../shared/corpus/formats.
 * Writes bench/results/parse.json and parse.md.
 *
 *   node bench/parse/run.ts [--runs 5]
 */
import { Effect, Exit, Scope, Stream } from "effect"
import { existsSync, readFileSync, readdirSync, writeFileSync } from "node:fs"
import { cpus, loadavg } from "node:os"
import { DocumentReaders, detectFormat, htmlToMarkdown, writeMarkdown, type DocumentFormat, type Reader } from "@strata/core"
import { LibreOffice, libreOfficeConfig, makeOfficeReaders } from "@strata/office"
import { multisetScore } from "../lib/MultisetF1.ts"

const corpus = new URL("../../../shared/corpus/", import.meta.url)
const results = new URL("../results/", import.meta.url)
const runsArg = process.argv.indexOf("--runs")
const runs = runsArg > 0 ? Number(process.argv[runsArg + 1]) : 5
const folders = ["docx", "xlsx", "pptx", "html", "epub", "odf", "csv", "doc", "xls", "ppt"]

const extraReaders: Array<Reader> = []
try {
  const pdf = (await import("@strata/pdf" as string)) as { pdfReader?: Reader }
  if (pdf.pdfReader !== undefined) extraReaders.push(pdf.pdfReader)
} catch {
  // The PDF reader is another package; the acceptance check reports it as unavailable.
}
/** The configured LibreOffice (.doc, .ppt), kept for the script's life; its profiles go at exit. */
const libreOffice = Effect.runSync(Scope.provide(Effect.flatMap(libreOfficeConfig, LibreOffice.make), Scope.makeUnsafe()))
const officeReaders = makeOfficeReaders({ libreOffice })
const readers = DocumentReaders.make([...officeReaders, ...extraReaders])

const convert = async (bytes: Uint8Array, fileName: string): Promise<{ markdown: string; format: string } | { error: string; format: string }> => {
  const format = detectFormat({ bytes, fileName })
  if (format === undefined) return { error: "undetected", format: "?" }
  if (format === "html" || format === "text" || format === "json") {
    return { markdown: htmlToMarkdown(new TextDecoder().decode(bytes)), format }
  }
  if (!readers.supports(format)) return { error: `no reader for ${format}`, format }
  const exit = await Effect.runPromiseExit(
    Effect.scoped(Effect.gen(function*() {
      const result = yield* readers.read({ bytes, format: format as DocumentFormat, fileName, options: { mode: "fast", deadline: Date.now() + 120_000 } })
      return writeMarkdown(Array.from(yield* Stream.runCollect(result.pages))).markdown
    }))
  )
  return Exit.isSuccess(exit) ? { markdown: exit.value, format } : { error: String(Exit.findErrorOption(exit).pipe((o) => (o._tag === "Some" ? o.value.message : exit.cause))), format }
}

// ---- scoring ---------------------------------------------------------------------------------

/** Markdown or HTML to its words: syntax (tables, headings, emphasis, links, images, tags) removed. */
export const words = (markdown: string): Array<string> =>
  markdown
    .replace(/<!--[\s\S]*?-->/g, " ")
    .replace(/!\[([^\]]*)\]\([^)]*\)/g, " $1 ")
    .replace(/\[([^\]]*)\]\([^)]*\)/g, " $1 ")
    .replace(/<[^>]+>/g, " ")
    .replace(/&(amp|lt|gt|quot|nbsp);/g, " ")
    .replace(/\\([\\`*_{}[\]()#+\-.!|>~])/g, "$1")
    .toLowerCase()
    .match(/[\p{L}\p{N}]+/gu) ?? []

/** 1 - normalised Levenshtein distance over token sequences (capped at 4000 tokens each). */
const orderSimilarity = (a: Array<string>, b: Array<string>): number => {
  const x = a.slice(0, 4000)
  const y = b.slice(0, 4000)
  if (x.length === 0 && y.length === 0) return 1
  let prev = new Uint32Array(y.length + 1).map((_, j) => j)
  let cur = new Uint32Array(y.length + 1)
  for (let i = 1; i <= x.length; i++) {
    cur[0] = i
    for (let j = 1; j <= y.length; j++) cur[j] = Math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (x[i - 1] === y[j - 1] ? 0 : 1))
    ;[prev, cur] = [cur, prev]
  }
  return 1 - prev[y.length] / Math.max(x.length, y.length)
}

const median = (values: Array<number>): number => {
  if (values.length === 0) return NaN
  const s = [...values].sort((a, b) => a - b)
  const m = Math.floor(s.length / 2)
  return s.length % 2 === 1 ? s[m] : (s[m - 1] + s[m]) / 2
}
const round = (n: number, digits = 3) => Math.round(n * 10 ** digits) / 10 ** digits

// ---- docling comparison ----------------------------------------------------------------------

interface DocResult {
  folder: string
  file: string
  format: string
  f1: number
  order: number
  ms: number
  /** The first run of the document in this process (includes JIT warm-up of its code paths). */
  firstMs: number
  error?: string
}

const docs: Array<DocResult> = []
for (const folder of folders) {
  const dir = new URL(`docling/${folder}/`, corpus)
  if (!existsSync(dir)) continue
  for (const file of readdirSync(dir).sort()) {
    if (file.endsWith(".md") || file.endsWith(".png") || file.endsWith(".json")) continue
    const reference = new URL(`${file}.md`, dir)
    if (!existsSync(reference)) continue
    const bytes = new Uint8Array(readFileSync(new URL(file, dir)))
    const legacy = folder === "doc" || folder === "ppt"
    const times: Array<number> = []
    let out: Awaited<ReturnType<typeof convert>> = { error: "not run", format: "?" }
    for (let i = 0; i < (legacy ? 1 : runs); i++) {
      const started = performance.now()
      out = await convert(bytes, file)
      times.push(performance.now() - started)
    }
    const expected = words(readFileSync(reference, "utf8"))
    const got = "markdown" in out ? words(out.markdown) : []
    docs.push({
      folder, file, format: out.format, ms: round(median(times), 1), firstMs: round(times[0], 1),
      f1: round(multisetScore(got, expected).f1), order: round(orderSimilarity(got, expected)),
      ...("error" in out ? { error: out.error } : {})
    })
  }
}

const byFolder = folders.filter((f) => docs.some((d) => d.folder === f)).map((folder) => {
  const rows = docs.filter((d) => d.folder === folder)
  return {
    folder,
    documents: rows.length,
    failed: rows.filter((d) => d.error !== undefined).length,
    meanF1: round(rows.reduce((a, d) => a + d.f1, 0) / rows.length),
    meanOrder: round(rows.reduce((a, d) => a + d.order, 0) / rows.length),
    medianMs: round(median(rows.map((d) => d.ms)), 1),
    medianFirstMs: round(median(rows.map((d) => d.firstMs)), 1)
  }
})
const officeDocs = docs.filter((d) => !["html", "doc", "ppt"].includes(d.folder))
const officeMedianMs = round(median(officeDocs.map((d) => d.ms)), 1)
const officeMedianFirstMs = round(median(officeDocs.map((d) => d.firstMs)), 1)
const officeMaxMs = round(Math.max(...officeDocs.map((d) => d.ms)), 1)

// ---- acceptance phrases ----------------------------------------------------------------------

const normalise = (text: string) => text.replace(/\\([\\`*_{}[\]()#+\-.!|>~])/g, "$1").replace(/[*_]/g, "").replace(/<[^>]+>/g, " ").replace(/\s+/g, " ").toLowerCase()
const acceptance: Array<{ file: string; format: string; found: number; phrases: number; missing: Array<string>; error?: string }> = []
const formatsDir = new URL("formats/", corpus)
if (existsSync(new URL("expected.tsv", formatsDir))) {
  const lines = readFileSync(new URL("expected.tsv", formatsDir), "utf8").trim().split("\n").slice(1)
  for (const line of lines) {
    const [file, ...phrases] = line.split("\t").filter((s) => s.length > 0)
    const bytes = new Uint8Array(readFileSync(new URL(file, formatsDir)))
    const out = await convert(bytes, file)
    const text = "markdown" in out ? normalise(out.markdown) : ""
    const missing = phrases.filter((p) => !text.includes(normalise(p)))
    acceptance.push({ file, format: out.format, found: phrases.length - missing.length, phrases: phrases.length, missing, ...("error" in out ? { error: out.error } : {}) })
  }
}

const conditions = { node: process.version, cpus: cpus().length, cpu: cpus()[0]?.model ?? "?", loadavg: loadavg().map((l) => round(l, 2)), runsPerDocument: runs, date: new Date().toISOString() }
writeFileSync(new URL("parse.json", results), `${JSON.stringify({ conditions, officeMedianMs, officeMedianFirstMs, officeMaxMs, byFolder, acceptance, documents: docs }, null, 2)}\n`)

const md: Array<string> = [
  "# Parse benchmark",
  "",
  `Generated by \`node bench/parse/run.ts\` on ${conditions.date}: Node ${conditions.node}, ${conditions.cpus} cores (${conditions.cpu}), load average ${conditions.loadavg.join(" / ")} (shared machine), median of ${runs} in-process runs per document (1 for LibreOffice conversions).`,
  "",
  "Similarity against Docling's markdown after removing markdown/HTML syntax: **F1** = bag-of-words token F1; **order** = 1 − normalised token edit distance (reading order and duplication count).",
  "",
  "| folder | docs | failed | mean F1 | mean order | median ms/doc | median first-run ms |",
  "| --- | --- | --- | --- | --- | --- | --- |",
  ...byFolder.map((r) => `| ${r.folder} | ${r.documents} | ${r.failed} | ${r.meanF1} | ${r.meanOrder} | ${r.medianMs} | ${r.medianFirstMs} |`),
  "",
  `Median over the office documents (docx, xlsx, pptx, epub, odf, csv, xls; LibreOffice-converted doc/ppt and html excluded): **${officeMedianMs} ms** per document (first run in the process: ${officeMedianFirstMs} ms; slowest document: ${officeMaxMs} ms). Node runs each conversion on one thread.`,
  "",
  "## Where we differ from Docling",
  "",
  "- **Merged cells**: Docling writes GFM and repeats a merged cell's text in every slot it covers; we write an HTML table with `colspan`/`rowspan` (GFM when nothing spans). The repeated words count as misses for us in both scores (word_tables, xlsx_01, xlsx_07, powerpoint_sample, odf).",
  "- **Pictures**: we keep alt text (`![A cartoon duck ...]()`), Docling writes `<!-- image -->` only (powerpoint_with_image, malformed_pictures, test_emf_docx).",
  "- **Comments**: slide and cell comments are kept as `> **Comment (Author, ref):** ...` blocks; Docling writes `[author: ...]: ...` lines, with time stamps (powerpoint_comments, xlsx_comments).",
  "- **Speaker notes** are kept (`> **Notes:**`); Docling drops them (powerpoint_sample, legacy_sample.ppt).",
  "- **Reading order on slides** is by shape position (rows top to bottom, left to right); Docling follows the shape tree order, which differs on some slides.",
  "- **Headings**: without a Title paragraph, Heading 1 is `#` for us and `##` for Docling; sheet titles and single cells are paragraphs for us, one-cell tables for Docling.",
  "",
  "## Acceptance phrases (corpus/formats)",
  "",
  "| file | detected | phrases found | missing |",
  "| --- | --- | --- | --- |",
  ...acceptance.map((a) => `| ${a.file} | ${a.format} | ${a.found}/${a.phrases} | ${a.error ?? a.missing.join("; ")} |`),
  "",
  "## Per document",
  "",
  "| document | F1 | order | ms | first-run ms | error |",
  "| --- | --- | --- | --- | --- | --- |",
  ...docs.map((d) => `| ${d.folder}/${d.file} | ${d.f1} | ${d.order} | ${d.ms} | ${d.firstMs} | ${d.error ?? ""} |`),
  ""
]
writeFileSync(new URL("parse.md", results), md.join("\n"))
console.log(md.slice(0, 26 + byFolder.length + acceptance.length).join("\n"))
