/**
 * The PDF benchmark. Quality and speed over ../shared/corpus/docling/pdf against Docling's markdown
 * (a peer's output, not truth), side by side with pdf-inspector, pdf-parse and pdftotext (each
 * engine in its own child process, so peak RSS is its own); the 2,000-page streaming check; and
 * robustness over ../shared/corpus/pdfjs. The furniture and table-neighbour benches score
 * pdf-inspector's markdown beside ours in the same run. Writes bench/results/pdf.json and pdf.md;
 * a part skipped keeps its last figures there.
 *
 *   node bench/pdf/run.ts [--skip-quality] [--skip-figures] [--skip-robust] [--skip-speed] [--skip-big] [--only-robust] [--learned]
 *   (--learned: also the reader with the learned layout layer, as `strata-learned`)
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
/** This run's own flags (`-C @strata/source` reads the packages' src/, not a stale dist/), passed to every child. */
const own = process.execArgv

interface ChildResult { engine: string; results: Array<{ file: string; markdown: string; pages: number; ms: number; error?: string }>; maxRssMb: number }

const runEngine = (engine: string, files: Array<string>): ChildResult =>
  JSON.parse(execFileSync(node, [...own, fileURLToPath(new URL("./EngineChild.ts", import.meta.url)), engine, ...files], {
    encoding: "utf8", maxBuffer: 512 * 1024 * 1024, stdio: ["ignore", "pipe", "inherit"]
  })) as ChildResult

/** When, on what and under what load a part of the report was measured (parts can be rerun alone). */
const runInfo = () => ({
  date: new Date().toISOString().slice(0, 16) + "Z",
  commit: execFileSync("git", ["rev-parse", "--short", "HEAD"], { encoding: "utf8" }).trim(),
  load: loadavg().map((n) => n.toFixed(2)).join(" ")
})

const round = (n: number, digits = 3) => Math.round(n * 10 ** digits) / 10 ** digits

const quality = () => {
  const files = readdirSync(doclingDir).filter((f) => f.endsWith(".pdf")).sort().map((f) => doclingDir + f)
  const engineNames = ["strata", ...(args.has("--learned") ? ["strata-learned"] : []), "pdf-inspector", "pdf-parse", ...(hasPdftotext() ? ["pdftotext"] : [])]
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

/** The Node flags `npm start` and the CLI run with (package.json). */
const SERVICE_FLAGS = ["--max-semi-space-size=8", "--heap-growing-percent=150"]
/**
 * Configurations of the reader, each a set of Node flags and environment settings. The switches
 * that brought back earlier plumbing (the text pass, inflation on libuv's pool, pdf.js's
 * deep-copied messages) were removed from the library (issue 12); their last measurements stay
 * in bench/results/pdf.md and SpeedNotes.md.
 */
const CONFIGS: Record<string, [Array<string>, Record<string, string>]> = {
  "default, service flags": [SERVICE_FLAGS, {}],
  "default, V8 defaults": [[], {}]
}
/** Rounds of the Docling set per Speed.ts run, after its warm-up round. */
const SPEED_ROUNDS = "10"
const median = (xs: Array<number>) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]

/**
 * Speed of the reader alone on the Docling set (bench/pdf/Speed.ts), each configuration run three
 * times, interleaved so that load from other work on the machine falls on all of them alike.
 */
const speed = () => {
  const runs: Record<string, Array<Record<string, number>>> = {}
  for (let rep = 0; rep < 3; rep++) {
    for (const [name, [flags, env]] of Object.entries(CONFIGS)) {
      const out = execFileSync(node, [...own, ...flags, fileURLToPath(new URL("./Speed.ts", import.meta.url)), SPEED_ROUNDS], {
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

/** The 2,000-page run: each configuration three times, interleaved. */
const big = () => {
  const run = (flags: Array<string>, env: Record<string, string>) => {
    const out = execFileSync(node, [...own, ...flags, fileURLToPath(new URL("./BigDocument.ts", import.meta.url)), "2000"], {
      encoding: "utf8", env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "inherit"]
    })
    console.error("big", flags.join(" "), JSON.stringify(env), out.trim())
    return JSON.parse(out) as Record<string, number>
  }
  const runs: Record<string, Array<Record<string, number>>> = {}
  for (let rep = 0; rep < 3; rep++) for (const [name, [flags, env]] of Object.entries(CONFIGS)) (runs[name] ??= []).push(run(flags, env))
  const summary = Object.fromEntries(Object.entries(runs).map(([name, rs]) => [name, {
    ...rs[0],
    pagesPerSecond: Math.max(...rs.map((r) => r.pagesPerSecond)),
    maxRssMb: Math.max(...rs.map((r) => r.maxRssMb)),
    runs: rs.map((r) => [round(r.pagesPerSecond, 1), Math.round(r.maxRssMb)])
  }]))
  return { ...summary["default, service flags"], cases: summary }
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
      "Text = 1 - word-level normalised edit distance (words = tokens with a letter or digit; leader dots and other punctuation-only tokens ignored); table = F1 over table cells; heading = F1 over heading texts. Pages/s after one warm-up file, each engine in its own process.", "",
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
      "Strata's `figure` blocks against the `pictures` of Docling's JSON (a layout model's output, not truth), matched per page at IoU >= 0.5. Figures come from painted images and from regions of vector drawings (VectorFigures.ts). Images under 2% of the page (logos, icons) are never figures here by design, while Docling keeps them.", "",
      `ours ${f.ours}, Docling ${f.reference}, matched ${f.matched}: precision **${f.precision}**, recall **${f.recall}**, F1 **${f.f1}**.`, "",
      "| file | ours | Docling | matched |", "|---|---|---|---|",
      ...Object.entries<any>(f.perFile).filter(([, v]) => v.ours + v.reference > 0).map(([k, v]) => `| ${k} | ${v.ours} | ${v.reference} | ${v.matched} |`), "")
  }
  if (report.furniture) {
    const f = report.furniture
    const drops = (d: Record<string, number>) => Object.entries(d).map(([k, v]) => `${k} ${v}`).join(", ") || "0"
    lines.push("## Furniture on single pages (bench/pdf/Furniture.ts)", "",
      "Every page read as a one-page PDF, so that repetition across pages cannot help. Docling's JSON (a layout model's output, not truth): a `page_header`/`page_footer` text is *leaked* when one of our body blocks over its box holds its text; a body text is *dropped* when only our furniture blocks hold it. DocBank (labels from LaTeX sources) has no furniture label: running heads and page numbers are `paragraph`, so dropped `paragraph` lines include true furniture (listed below); drops of any other label are errors. Rules were tuned looking at the even half (documents at even indices of the sorted list); the odd half is held out.", "",
      "| half | Docling pages | furniture texts | leaked | body texts | dropped | DocBank pages | lines | dropped lines by label |", "|---|---|---|---|---|---|---|---|---|")
    const rows: Array<[string, any]> = [["even (tuned)", f.even], ["odd (held out)", f.odd]]
    // The same measure on the code before single-page furniture (recorded once by hand in pdf.json).
    if (report.furnitureBefore) rows.unshift([`even, before (${report.furnitureBefore.commit})`, report.furnitureBefore.even], [`odd, before (${report.furnitureBefore.commit})`, report.furnitureBefore.odd])
    for (const [name, h] of rows) {
      lines.push(`| ${name} | ${h.docling.pages} | ${h.docling.furniture} | ${h.docling.leaked} | ${h.docling.body} | ${h.docling.dropped} | ${h.docbank.pages} | ${h.docbank.lines} | ${drops(h.docbank.dropped)} |`)
    }
    const whole = (h: any) => h.doclingWhole === undefined ? "-" : `leaked ${h.doclingWhole.leaked} of ${h.doclingWhole.furniture}, dropped ${h.doclingWhole.dropped} of ${h.doclingWhole.body}`
    lines.push("", `Docling documents read whole (repetition across pages helps): even ${whole(f.even)}; odd ${whole(f.odd)}${report.furnitureBefore ? `; before (${report.furnitureBefore.commit}): even ${whole(report.furnitureBefore.even)}, odd ${whole(report.furnitureBefore.odd)}` : ""}.`)
    lines.push("", ...["even", "odd"].map((half) => `DocBank \`paragraph\` lines dropped, ${half}: ${f[half].docbank.droppedParagraphLines.map((t: string) => `"${t}"`).join(", ")}.`), "")
    if (f.even.markdown) {
      const bank = (d: Record<string, number>) => Object.entries(d).map(([k, v]) => `${k} ${v}`).join(", ") || "0"
      lines.push(`### Side by side with pdf-inspector, on the markdown (${f.run ? `${f.run.date}, commit ${f.run.commit}, load ${f.run.load}` : "undated"})`, "",
        "The same one-page PDFs (and whole documents) read by both engines in the same run: ours through the MarkdownWriter, Firecrawl's pdf-inspector (`processPdf` page by page, in a child process) as it writes them. pdf-inspector has no blocks or boxes, so the measure above cannot be given to it; this one (bench/pdf/MarkdownFurniture.ts) needs only each page's markdown and scores both with the same code. *Leaked*: a Docling `page_header`/`page_footer` text occurs, as words, in the page's markdown more often than in the page's body texts and table cells. *Margin lost*: a body text lying in the top or bottom 12% of the page (where furniture is, and where a furniture rule can take body text with it) has fewer than half of its words anywhere in the markdown. *Lost anywhere*: the same over every body text (text lost for any reason: scale, not furniture). Words Docling read inside pictures are not body texts here (as in the layout bench). DocBank: its lines in those bands with fewer than half of their words in the markdown, by label (its `paragraph` lines there are mostly running heads and page numbers, which should go).", "",
        "| half | engine | pages | furniture texts | leaked | margin body texts | margin lost | body texts | lost anywhere | whole documents: leaked, margin lost | DocBank margin lines | DocBank lost by label |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|")
      for (const half of ["even", "odd"]) {
        for (const [engine, m] of Object.entries<any>(f[half].markdown)) {
          lines.push(`| ${half} | ${engine} | ${m.docling.pages} | ${m.docling.furniture} | ${m.docling.leaked} | ${m.docling.marginBody} | ${m.docling.marginLost} | ${m.docling.body} | ${m.docling.lost} | ${m.doclingWhole.leaked}, ${m.doclingWhole.marginLost} | ${m.docbank.marginLines} | ${bank(m.docbank.lost)} |`)
        }
      }
      lines.push("", `pdf-inspector failures (errors, crashes or time-outs of its child process): ${(f.inspectorFailures ?? []).length === 0 ? "none" : f.inspectorFailures.join("; ")}.`, "")
    }
  }
  if (report.tableNeighbours) {
    const t = report.tableNeighbours
    const b = report.tableNeighboursBefore
    lines.push("## Table-cell neighbours (bench/pdf/TableNeighbours.ts)", "",
      "Adjacency pairs of table cells (each cell with the nearest non-empty cell to its right and below it, spans included: a group head pairs with the first sub-header under it) against the tables of Docling's JSON (its table model's output, not truth), pooled per page. Docling's own choices weigh in: it merges the two lines of a row that spans two body rows into one cell (2305.03393v1-pg9), which we keep as two rows.", "",
      `reference ${t.reference} pairs, ours ${t.ours}, matched ${t.matched}: precision **${t.precision}**, recall **${t.recall}**, F1 **${t.f1}**${b ? ` (before multi-level headers, ${b.commit}: F1 ${b.f1}, matched ${b.matched})` : ""}.`, "",
      "| file | reference | ours | matched |", "|---|---|---|---|",
      ...Object.entries<any>(t.perFile).map(([k, v]) => `| ${k} | ${v.reference} | ${v.ours} | ${v.matched} |`), "")
    if (t.markdown) {
      const m = t.markdown
      lines.push(`### Side by side with pdf-inspector, on the markdown (${t.run ? `${t.run.date}, commit ${t.run.commit}, load ${t.run.load}` : "undated"})`, "",
        "The same pairs taken from the tables of each engine's markdown of each page (bench/pdf/MarkdownGrids.ts reads GFM pipe tables and HTML tables back into grids), so that both are scored by the same code: ours through the MarkdownWriter (it gives the same pairs as our table blocks above, a check of the read-back), Firecrawl's pdf-inspector (`processPdf` page by page, in a child process) as it writes them. pdf-inspector writes only pipe tables, where a merged cell is an empty slot (which the pairs skip).", "",
        "| engine | reference | pairs | matched | precision | recall | F1 |", "|---|---|---|---|---|---|---|",
        ...Object.entries<any>(m).map(([e, v]) => `| ${e} | ${v.reference} | ${v.ours} | ${v.matched} | ${v.precision} | ${v.recall} | **${v.f1}** |`), "",
        "| file | reference | strata pairs | matched | pdf-inspector pairs | matched |", "|---|---|---|---|---|---|",
        ...Object.entries<any>(m.strata.perFile).map(([k, v]) => { const o = m["pdf-inspector"].perFile[k] ?? {}; return `| ${k} | ${v.reference} | ${v.ours} | ${v.matched} | ${o.ours ?? "-"} | ${o.matched ?? "-"} |` }), "",
        `pdf-inspector failures: ${(m["pdf-inspector"].failures ?? []).length === 0 ? "none" : m["pdf-inspector"].failures.join("; ")}.`, "")
    }
  }
  if (report.speed) {
    lines.push("## Reader speed on the Docling set (bench/pdf/Speed.ts)", "",
      `Strata's reader alone (layout, reading order and tables on), ${SPEED_ROUNDS} rounds of the 11 files after a warm-up round in one process (a running service's steady state; the quality table above times a cold process after one warm-up file); each configuration run 3 times, interleaved; medians. Service flags = \`${SERVICE_FLAGS.join(" ")}\` as \`npm start\` runs. Pages per CPU-second (user + system, all threads) is the steadier figure on a shared machine.`, "",
      "| configuration | pages/s (wall) | pages per CPU-second | peak RSS MB | wall runs |", "|---|---|---|---|---|")
    for (const [name, e] of Object.entries<any>(report.speed)) lines.push(`| ${name} | ${e.pagesPerSecond} | ${e.pagesPerCpuSecond} | ${e.maxRssMb} | ${e.runs.join(", ")} |`)
    lines.push("")
  }
  if (report.big) {
    const b = report.big
    lines.push("## 2,000-page document (generated, streamed through the MarkdownWriter)", "", `${b.pages} pages in ${round(b.seconds, 1)} s: **${round(b.pagesPerSecond, 1)} pages/s**, peak RSS **${Math.round(b.maxRssMb)} MB**, ${b.tables} tables found (service flags).`, "")
    if (b.cases) {
      lines.push("Three runs of each configuration (as in the speed table), interleaved (best pages/s, worst peak RSS):", "", "| configuration | pages/s | peak RSS MB | runs (pages/s, MB) |", "|---|---|---|---|")
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
// The heading's date and load are the quality run's: a run that skips it keeps them (its own parts carry their own).
const report: Record<string, unknown> = {
  ...previous,
  ...(args.has("--skip-quality") && previous.date !== undefined ? {} : {
    date: new Date().toISOString(),
    machine: `${process.arch}, node ${process.version}`,
    load: loadavg().map((n) => n.toFixed(2)).join(" ")
  })
}
// measured the text pass's gating of the operator list, which the default reader no longer has
delete report.graphicsCost
if (!args.has("--only-robust")) {
  if (!args.has("--skip-quality")) report.quality = quality()
  if (!args.has("--skip-figures")) report.figures = JSON.parse(execFileSync(node, [...own, fileURLToPath(new URL("./Figures.ts", import.meta.url))], { encoding: "utf8", stdio: ["ignore", "pipe", "inherit"] }))
  const furnitureRun = runInfo()
  report.furniture = { ...JSON.parse(execFileSync(node, [...own, fileURLToPath(new URL("./Furniture.ts", import.meta.url))], { encoding: "utf8", stdio: ["ignore", "pipe", "inherit"] })), run: furnitureRun }
  const tablesRun = runInfo()
  report.tableNeighbours = { ...JSON.parse(execFileSync(node, [...own, fileURLToPath(new URL("./TableNeighbours.ts", import.meta.url))], { encoding: "utf8", stdio: ["ignore", "pipe", "inherit"] })), run: tablesRun }
  if (!args.has("--skip-speed")) report.speed = speed()
  if (!args.has("--skip-big")) report.big = big()
}
if (!args.has("--skip-robust")) report.robust = await robust()
writeFileSync(new URL("pdf.json", resultsDir), JSON.stringify(report, null, 1) + "\n")
writeFileSync(new URL("pdf.md", resultsDir), markdownReport(report))
console.error(`wrote ${fileURLToPath(new URL("pdf.md", resultsDir))}`)
