/**
 * The PDF benchmark. Quality and speed over ../shared/corpus/docling/pdf against Docling's markdown
 * (a peer's output, not truth), side by side with pdf-inspector, pdf-parse and pdftotext (each
 * engine in its own child process, so peak RSS is its own); the 2,000-page streaming check; and
 * robustness over ../shared/corpus/pdfjs. Writes bench/results/pdf.json and pdf.md.
 *
 *   node bench/pdf/run.ts [--skip-robust] [--skip-speed] [--skip-big] [--only-robust]
 */
import { execFileSync } from "node:child_process"
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs"
import { loadavg } from "node:os"
import { fileURLToPath } from "node:url"
import { hasPdftotext } from "./Engines.ts"
import { headings, multisetF1, tableCells, textSimilarity } from "./Metrics.ts"
import { runRobustness, type RobustSummary } from "./Robustness.ts"

const corpus = new URL("../../../shared/corpus/", import.meta.url)
const doclingDir = fileURLToPath(new URL("docling/pdf/", corpus))
const pdfjsDir = fileURLToPath(new URL("pdfjs/", corpus))
const resultsDir = new URL("../results/", import.meta.url)
const args = new Set(process.argv.slice(2))
const node = process.execPath

interface ChildResult { engine: string; results: Array<{ file: string; markdown: string; pages: number; ms: number; error?: string }>; maxRssMb: number }

const runEngine = (engine: string, files: Array<string>): ChildResult =>
  JSON.parse(execFileSync(node, [fileURLToPath(new URL("./EngineChild.ts", import.meta.url)), engine, ...files], {
    encoding: "utf8", maxBuffer: 512 * 1024 * 1024, stdio: ["ignore", "pipe", "inherit"]
  })) as ChildResult

const round = (n: number, digits = 3) => Math.round(n * 10 ** digits) / 10 ** digits

const quality = () => {
  const files = readdirSync(doclingDir).filter((f) => f.endsWith(".pdf")).sort().map((f) => doclingDir + f)
  const engineNames = ["strata", "pdf-inspector", "pdf-parse", ...(hasPdftotext() ? ["pdftotext"] : [])]
  const perEngine: Record<string, unknown> = {}
  const perDoc: Array<Record<string, unknown>> = []
  for (const name of engineNames) {
    const child = runEngine(name, files)
    let text = 0, table = 0, heading = 0, pages = 0, ms = 0, tableDocs = 0, headingDocs = 0
    for (const r of child.results) {
      const reference = readFileSync(`${r.file}.md`, "utf8")
      const t = textSimilarity(r.markdown, reference)
      const refTables = tableCells(reference)
      const ourTables = tableCells(r.markdown)
      const refHeadings = headings(reference)
      const tb = refTables.tables > 0 ? multisetF1(ourTables.cells, refTables.cells) : undefined
      const hd = refHeadings.length > 0 ? multisetF1(headings(r.markdown), refHeadings) : undefined
      text += t
      if (tb !== undefined) { table += tb; tableDocs++ }
      if (hd !== undefined) { heading += hd; headingDocs++ }
      pages += r.pages
      ms += r.ms
      perDoc.push({ engine: name, file: r.file.replace(/.*\//, ""), text: round(t), table: tb === undefined ? null : round(tb), heading: hd === undefined ? null : round(hd), ms: Math.round(r.ms), ...(r.error ? { error: r.error } : {}) })
    }
    perEngine[name] = {
      text: round(text / child.results.length), table: round(table / Math.max(1, tableDocs)), heading: round(heading / Math.max(1, headingDocs)),
      pages, seconds: round(ms / 1000), pagesPerSecond: round(pages / (ms / 1000), 1), maxRssMb: Math.round(child.maxRssMb)
    }
    if (name === "strata") {
      const outDir = new URL("pdf-out/", resultsDir)
      mkdirSync(outDir, { recursive: true })
      for (const r of child.results) writeFileSync(new URL(`${r.file.replace(/.*\//, "")}.md`, outDir), r.markdown)
    }
    console.error(name, JSON.stringify(perEngine[name]))
  }
  return { files: files.length, engines: perEngine, perDoc }
}

/** Switches that bring back the reader's pdf.js plumbing as it was before the speed work (same output). */
const BEFORE_ENV = { STRATA_PDF_CLONE: "1" }
const SYNC_ENV = { STRATA_PDF_SYNC_INFLATE: "1" }
const CONFIGS: Record<string, Record<string, string>> = {
  after: {}, before: BEFORE_ENV, "after + sync inflate": SYNC_ENV, "pool of 2 workers": { STRATA_PDF_WORKERS: "2" }
}
const median = (xs: Array<number>) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]

/**
 * Speed of the reader alone on the Docling set (bench/pdf/Speed.ts), each configuration run three
 * times, interleaved so that load from other work on the machine falls on all of them alike.
 */
const speed = () => {
  const runs: Record<string, Array<Record<string, number>>> = {}
  for (let rep = 0; rep < 3; rep++) {
    for (const [name, env] of Object.entries(CONFIGS)) {
      const out = execFileSync(node, [fileURLToPath(new URL("./Speed.ts", import.meta.url)), "5"], {
        encoding: "utf8", env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "inherit"]
      })
      ;(runs[name] ??= []).push(JSON.parse(out) as Record<string, number>)
      console.error("speed", name, out.trim().slice(0, 120))
    }
  }
  return Object.fromEntries(Object.entries(runs).map(([name, rs]) => [name, {
    pagesPerSecond: round(median(rs.map((r) => r.medianPagesPerSecond)), 1),
    pagesPerCpuSecond: round(median(rs.map((r) => r.medianPagesPerCpuSecond)), 1),
    maxRssMb: Math.round(median(rs.map((r) => r.maxRssMb))),
    runs: rs.map((r) => r.medianPagesPerSecond)
  }]))
}

/** The 2,000-page run: each configuration with V8's default young generation and with a small one, twice, interleaved. */
const big = () => {
  const run = (flags: Array<string>, env: Record<string, string>) => {
    const out = execFileSync(node, [...flags, fileURLToPath(new URL("./BigDocument.ts", import.meta.url)), "2000"], {
      encoding: "utf8", env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "inherit"]
    })
    console.error("big", flags.join(" "), JSON.stringify(env), out.trim())
    return JSON.parse(out) as Record<string, number>
  }
  const cases: Record<string, [Array<string>, Record<string, string>]> = {
    after: [[], {}],
    afterSemiSpace8: [["--max-semi-space-size=8"], {}],
    before: [[], BEFORE_ENV],
    beforeSemiSpace8: [["--max-semi-space-size=8"], BEFORE_ENV],
    syncInflate: [[], SYNC_ENV],
    pool2: [[], { STRATA_PDF_WORKERS: "2" }]
  }
  const runs: Record<string, Array<Record<string, number>>> = {}
  for (let rep = 0; rep < 2; rep++) for (const [name, [flags, env]] of Object.entries(cases)) (runs[name] ??= []).push(run(flags, env))
  const summary = Object.fromEntries(Object.entries(runs).map(([name, rs]) => [name, {
    ...rs[0],
    pagesPerSecond: Math.max(...rs.map((r) => r.pagesPerSecond)),
    maxRssMb: Math.max(...rs.map((r) => r.maxRssMb)),
    runs: rs.map((r) => [round(r.pagesPerSecond, 1), Math.round(r.maxRssMb)])
  }]))
  return { ...summary.after, semiSpace8: summary.afterSemiSpace8, cases: summary }
}

const robust = async (): Promise<RobustSummary> => {
  const files = readdirSync(pdfjsDir).filter((f) => f.toLowerCase().endsWith(".pdf")).sort().map((f) => pdfjsDir + f)
  const summary = await runRobustness(files, 20_000, 40_000)
  console.error("robust", JSON.stringify({ ...summary, problems: summary.problems.length }))
  return summary
}

const markdownReport = (report: Record<string, any>): string => {
  const lines: Array<string> = ["# PDF benchmark", "", `Run ${report.date} on ${report.machine}; load average at start ${report.load}.`, ""]
  if (report.quality) {
    lines.push(`## Quality and speed: ${report.quality.files} PDFs of the Docling corpus (reference: Docling's markdown)`, "",
      "Text = 1 - word-level normalised edit distance; table = F1 over table cells; heading = F1 over heading texts. Pages/s after one warm-up file, each engine in its own process.", "",
      "| engine | text | table | heading | pages | pages/s | peak RSS MB |", "|---|---|---|---|---|---|---|")
    for (const [name, e] of Object.entries<any>(report.quality.engines)) lines.push(`| ${name} | ${e.text} | ${e.table} | ${e.heading} | ${e.pages} | ${e.pagesPerSecond} | ${e.maxRssMb} |`)
    lines.push("", "Per document (strata / pdf-inspector text similarity):", "", "| file | strata text | inspector text | strata table | inspector table | strata heading | inspector heading |", "|---|---|---|---|---|---|---|")
    const docs = report.quality.perDoc as Array<any>
    for (const d of docs.filter((x) => x.engine === "strata")) {
      const o = docs.find((x) => x.engine === "pdf-inspector" && x.file === d.file) ?? {}
      lines.push(`| ${d.file} | ${d.text} | ${o.text ?? ""} | ${d.table ?? "-"} | ${o.table ?? "-"} | ${d.heading ?? "-"} | ${o.heading ?? "-"} |`)
    }
    lines.push("")
  }
  if (report.figures) {
    const f = report.figures
    lines.push("## Figures (bench/pdf/Figures.ts)", "",
      "Strata's `figure` blocks against the `pictures` of Docling's JSON (a layout model's output, not truth), matched per page at IoU >= 0.5. Images under 2% of the page (logos, icons) are never figures here by design, while Docling keeps them; vector-only drawings are not detected.", "",
      `ours ${f.ours}, Docling ${f.reference}, matched ${f.matched}: precision **${f.precision}**, recall **${f.recall}**, F1 **${f.f1}**.`, "",
      "| file | ours | Docling | matched |", "|---|---|---|---|",
      ...Object.entries<any>(f.perFile).filter(([, v]) => v.ours + v.reference > 0).map(([k, v]) => `| ${k} | ${v.ours} | ${v.reference} | ${v.matched} |`), "")
  }
  if (report.graphicsCost) {
    lines.push("Reading the operator list on every page (`STRATA_PDF_ALL_GRAPHICS=1`) instead of only where the text leaves a gap, looks tabular or brings new fonts, on generated plain text (bench/pdf/GraphicsCost.ts, 300 pages, 3 interleaved runs):", "",
      "| configuration | pages/s | pages per CPU-second |", "|---|---|---|",
      ...Object.entries<any>(report.graphicsCost).map(([k, v]) => `| ${k} | ${v.map((r: any) => r.pagesPerSecond).join(", ")} | ${v.map((r: any) => r.pagesPerCpuSecond).join(", ")} |`), "")
  }
  if (report.speed) {
    lines.push("## Reader speed on the Docling set (bench/pdf/Speed.ts)", "",
      "Strata's reader alone, 5 rounds after a warm-up round in one process; each configuration run 3 times, interleaved; medians. Pages per CPU-second (user + system, all threads) is the steadier figure on a shared machine. `before` = pdf.js messages deep-copied as they were (`STRATA_PDF_CLONE=1`); `sync inflate` = `STRATA_PDF_SYNC_INFLATE=1`; output is byte-identical in all of them.", "",
      "| configuration | pages/s (wall) | pages per CPU-second | peak RSS MB | wall runs |", "|---|---|---|---|---|")
    for (const [name, e] of Object.entries<any>(report.speed)) lines.push(`| ${name} | ${e.pagesPerSecond} | ${e.pagesPerCpuSecond} | ${e.maxRssMb} | ${e.runs.join(", ")} |`)
    lines.push("")
  }
  if (report.big) {
    const b = report.big
    lines.push("## 2,000-page document (generated, streamed through the MarkdownWriter)", "", `${b.pages} pages in ${round(b.seconds, 1)} s: **${round(b.pagesPerSecond, 1)} pages/s**, peak RSS **${Math.round(b.maxRssMb)} MB**, ${b.tables} tables found (V8 defaults).`, "")
    if (b.cases) {
      lines.push("Two runs of each, interleaved (best pages/s, worst peak RSS):", "", "| configuration | pages/s | peak RSS MB | runs (pages/s, MB) |", "|---|---|---|---|")
      for (const [name, c] of Object.entries<any>(b.cases)) lines.push(`| ${name} | ${round(c.pagesPerSecond, 1)} | ${Math.round(c.maxRssMb)} | ${c.runs.map((r: Array<number>) => r.join(" / ")).join("; ")} |`)
      lines.push("")
    }
  }
  if (report.robust) {
    const r = report.robust
    lines.push(`## Robustness: ${r.files} PDFs of pdf.js's test corpus`, "",
      `ok ${r.ok} (with text ${r.okWithText}), clean errors ${Object.entries(r.errors).map(([k, v]) => `${k} ${v}`).join(", ") || "0"}, pages recorded failed ${r.pagesFailed}, **crashes ${r.crashes}**, **time-outs ${r.timeouts}**, ${round(r.seconds, 0)} s.`, "",
      `Slowest: ${r.slowest.map((s: any) => `${s.file} ${s.ms} ms`).join(", ")}.`, "")
    if (r.problems.length > 0) lines.push("Problems:", "", ...r.problems.map((p: any) => `- ${p.file.replace(/.*\//, "")}: ${p.outcome} ${p.message ?? ""}`), "")
  }
  const notes = new URL("./SpeedNotes.md", import.meta.url)
  if (existsSync(notes)) lines.push(readFileSync(notes, "utf8").trim(), "")
  return lines.join("\n")
}

mkdirSync(resultsDir, { recursive: true })
const previous = existsSync(new URL("pdf.json", resultsDir)) ? JSON.parse(readFileSync(new URL("pdf.json", resultsDir), "utf8")) : {}
const report: Record<string, unknown> = {
  ...previous,
  date: new Date().toISOString(),
  machine: `${process.arch}, node ${process.version}`,
  load: loadavg().map((n) => n.toFixed(2)).join(" ")
}
if (!args.has("--only-robust")) {
  report.quality = quality()
  report.figures = JSON.parse(execFileSync(node, [fileURLToPath(new URL("./Figures.ts", import.meta.url))], { encoding: "utf8", stdio: ["ignore", "pipe", "inherit"] }))
  if (!args.has("--skip-speed")) {
    const cost: Record<string, Array<unknown>> = {}
    const out = execFileSync(node, [fileURLToPath(new URL("./GraphicsCost.ts", import.meta.url)), "300"], { encoding: "utf8", stdio: ["ignore", "pipe", "inherit"] })
    for (const line of out.trim().split("\n")) {
      const [name, json] = [line.slice(0, line.indexOf(" {")), line.slice(line.indexOf(" {") + 1)]
      ;(cost[name] ??= []).push(JSON.parse(json))
    }
    report.graphicsCost = cost
  }
  if (!args.has("--skip-speed")) report.speed = speed()
  if (!args.has("--skip-big")) report.big = big()
}
if (!args.has("--skip-robust")) report.robust = await robust()
writeFileSync(new URL("pdf.json", resultsDir), JSON.stringify(report, null, 1) + "\n")
writeFileSync(new URL("pdf.md", resultsDir), markdownReport(report))
console.error(`wrote ${fileURLToPath(new URL("pdf.md", resultsDir))}`)
