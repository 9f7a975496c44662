/**
 * Draws the committed bench results as SVG charts next to their markdown: bench/results/
 * html.svg, pdf.svg, ocr.svg and parse.svg from the .json of the same name, and makes sure
 * each .md opens with an image line linking its chart (a bench run that rewrites its .md
 * drops the line; running this again puts it back).
 *
 *   node_modules/.bin/node bench/charts.ts        (npm run bench:charts)
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs"
import { renderFigure, type Figure, type Group } from "./lib/BarChart.ts"

const results = new URL("./results/", import.meta.url)

// The result files are written by the bench scripts; only the fields drawn here are typed.
type Json = any // oxlint-disable-line no-explicit-any

const read = (name: string): Json => JSON.parse(readFileSync(new URL(`${name}.json`, results), "utf8"))

const score = (v: number) => v.toFixed(3)
const ms = (v: number) => (v >= 100 ? v.toFixed(0) : v >= 10 ? v.toFixed(1) : v.toFixed(2).replace(/\.?0+$/, ""))
const day = (iso: string) => iso.slice(0, 10)

const htmlFigure = (r: Json): Figure => {
  const ours = r.summary.ours
  // Peers in the order the run wrote them (Readability.js, then defuddle once it ran too).
  const peers: ReadonlyArray<[string, Json]> = ([["readability", "Readability.js + turndown"], ["defuddle", "defuddle"]] as const)
    .filter(([key]) => r.summary[key] !== undefined)
    .map(([key, label]) => [label, r.summary[key]])
  const types = Object.keys(ours.byType)
  const c = r.conditions
  const series = ["Strata", ...peers.map(([label]) => label)]
  return {
    title: `Web main content: WCXB dev, ${c.pages} pages`,
    subtitle: `${day(c.date)}, Node ${c.node}, best of ${c.runs} runs; shared 2-core machine, load ${c.loadAverage.join(" ")}`,
    panels: [
      {
        title: "Word F1 against the reference main content (higher is better)",
        series,
        max: 1,
        format: score,
        groups: [
          { label: `overall (${ours.overall.n})`, values: [ours.overall.f1, ...peers.map(([, p]) => p.overall.f1)] },
          ...types.map((t): Group => ({ label: `${t} (${ours.byType[t].n})`, values: [ours.byType[t].f1, ...peers.map(([, p]) => p.byType[t]?.f1 ?? null)] }))
        ]
      },
      {
        title: "Milliseconds per page: parse, clean, main content, markdown (lower is better)",
        series,
        format: ms,
        groups: [
          { label: "p50", values: [ours.ms.p50, ...peers.map(([, p]) => p.ms.p50)] },
          { label: "p95", values: [ours.ms.p95, ...peers.map(([, p]) => p.ms.p95)] }
        ]
      }
    ]
  }
}

const PDF_ENGINES: ReadonlyArray<[string, string]> = [
  ["strata", "Strata"],
  ["pdf-inspector", "pdf-inspector"],
  ["pdf-parse", "pdf-parse"],
  ["pdftotext", "pdftotext"]
]

const pdfFigure = (r: Json): Figure => {
  const engines = PDF_ENGINES.filter(([key]) => r.quality.engines[key] !== undefined)
  const series = engines.map(([, name]) => name)
  const row = (field: string) => engines.map(([key]) => r.quality.engines[key][field] as number)
  const pages = r.quality.engines.strata.pages
  return {
    title: `PDF: ${r.quality.files} PDFs of the Docling corpus (${pages} pages), reference Docling's markdown`,
    subtitle: `${day(r.date)}, ${r.machine}, load ${r.load}; each engine in its own process, after one warm-up file`,
    panels: [
      {
        title: "Scores against Docling (higher is better)",
        series,
        max: 1,
        format: score,
        groups: [
          { label: "text (1 - word edit dist.)", values: row("text") },
          { label: "table (cell F1)", values: row("table") },
          { label: "heading (F1)", values: row("heading") }
        ]
      },
      {
        title: "Throughput, pages per second (higher is better)",
        series,
        format: (v) => v.toFixed(1),
        groups: [{ label: "pages/s, cold process", values: row("pagesPerSecond") }]
      },
      {
        title: "Peak resident memory, MB (lower is better)",
        series,
        format: (v) => v.toFixed(0),
        groups: [{ label: "peak RSS", values: row("maxRssMb") }]
      }
    ]
  }
}

const OCR_ENGINES: ReadonlyArray<[string, string]> = [
  ["tesseract", "tesseract"],
  ["tesseract-fast", "tesseract-fast"],
  ["paddle", "PaddleOCR"]
]

const mean = (xs: ReadonlyArray<number>) => xs.reduce((a, b) => a + b, 0) / xs.length

const ocrFigure = (r: Json): Figure => {
  const rows: Array<Json> = r.rows
  const engines = OCR_ENGINES.filter(([key]) => rows.some((row) => row.engine === key))
  const series = engines.map(([, name]) => name)
  const cells = [...new Set(rows.map((row) => `${row.dpi}|${row.condition}`))]
  const dpis = [...new Set(rows.map((row) => row.dpi as number))]
  const find = (engine: string, cell: string) => rows.find((row) => `${row.dpi}|${row.condition}` === cell && row.engine === engine)
  const c = r.conditions
  return {
    title: "OCR: synthetic image-only pages, clean / noisy / harsh",
    subtitle: `${day(c.date)}, ${c.cores} cores (${c.cpu}), ${c.pagesPerCell} pages per cell, engines single-threaded; load ${c.loadAverageAtStart} to ${c.loadAverageAtEnd}`,
    panels: [
      {
        title: "Character error rate, % (lower is better)",
        series,
        format: (v) => `${v.toFixed(2)}%`,
        groups: cells.map((cell): Group => {
          const [dpi, condition] = cell.split("|")
          return { label: `${dpi} dpi, ${condition}`, values: engines.map(([key]) => (find(key, cell)?.cer ?? NaN) * 100) }
        })
      },
      {
        title: "CPU seconds per page, mean over the three conditions (lower is better)",
        series,
        format: (v) => v.toFixed(2),
        groups: dpis.map((dpi): Group => ({
          label: `${dpi} dpi`,
          values: engines.map(([key]) => mean(rows.filter((row) => row.engine === key && row.dpi === dpi).map((row) => row.cpuSecondsPerPage)))
        }))
      },
      {
        title: "Memory the engine adds to the process, MB (lower is better)",
        series,
        format: (v) => v.toFixed(0),
        groups: [{
          label: "peak - baseline RSS",
          values: engines.map(([key]) => {
            const m = r.peakRssMb?.[key]
            return m ? m.peakRssMb - m.baselineRssMb : null
          })
        }]
      }
    ]
  }
}

const parseFigure = (r: Json): Figure => {
  const folders: Array<Json> = r.byFolder
  const c = r.conditions
  return {
    title: "Office, HTML and CSV documents against Docling's markdown",
    subtitle: `${day(c.date)}, Node ${c.node}, ${c.cpus} cores, median of ${c.runsPerDocument} runs per document; doc and ppt go through LibreOffice`,
    panels: [
      {
        title: "Strata's markdown against Docling's, mean per format (higher is better)",
        series: ["token F1", "order (1 - token edit dist.)"],
        max: 1,
        format: score,
        groups: folders.map((f): Group => ({ label: `${f.folder} (${f.documents})`, values: [f.meanF1, f.meanOrder] }))
      },
      {
        title: "Strata, milliseconds per document, log scale (lower is better)",
        series: ["median", "median first run in the process"],
        scale: "log",
        format: ms,
        groups: folders.map((f): Group => ({ label: `${f.folder} (${f.documents})`, values: [f.medianMs, f.medianFirstMs] }))
      }
    ]
  }
}

/** Puts `![alt](name.svg)` right under the .md's first heading unless a line already links the chart. */
export const withChartLink = (markdown: string, svg: string, alt: string): string => {
  if (markdown.includes(`](${svg})`)) return markdown
  const lines = markdown.split("\n")
  const heading = lines.findIndex((line) => line.startsWith("# "))
  lines.splice(heading + 1, 0, "", `![${alt}](${svg})`)
  return lines.join("\n")
}

const charts: ReadonlyArray<[string, (r: Json) => Figure, string]> = [
  ["html", htmlFigure, "HTML benchmark: F1 and ms per page, Strata vs Readability.js and defuddle"],
  ["pdf", pdfFigure, "PDF benchmark: text, table and heading scores and pages/s, Strata vs peers"],
  ["ocr", ocrFigure, "OCR benchmark: character error rate and seconds per page by engine"],
  ["parse", parseFigure, "Parse benchmark: similarity to Docling and ms per document by format"]
]

for (const [name, figure, alt] of charts) {
  if (!existsSync(new URL(`${name}.json`, results))) continue
  writeFileSync(new URL(`${name}.svg`, results), renderFigure(figure(read(name))))
  const md = new URL(`${name}.md`, results)
  if (existsSync(md)) writeFileSync(md, withChartLink(readFileSync(md, "utf8"), `${name}.svg`, alt))
  console.log(`bench/results/${name}.svg`)
}
