/**
 * The load run (issue 13): a local page server on 127.0.0.1 serves a ~30 KB article; `--clients`
 * clients POST /v2/scrape for it (maxAge 0, no cache store, a fresh query string each time) for
 * `--seconds`, first with nothing else running (baseline), then while `--docs` hostile documents
 * are parsed in a loop. Reports p50/p99 latency and throughput for both and the ratio (target
 * >= 70%), to bench/results/reliability-load.md and .json.
 *
 *   node -C @strata/source bench/reliability/load.ts [--seconds 20] [--clients 8] [--docs 4] [--root DIR] [--out BASE]
 */
import { writeFileSync } from "node:fs"
import { createServer } from "node:http"
import { join } from "node:path"
import { parseArgs } from "node:util"
import { articleHtml } from "./Article.ts"
import { deflateRepeated, pdfDocument } from "./PdfBytes.ts"
import { docx, plainPdf } from "./Hostile.ts"
import { Probe } from "./Probe.ts"
import { apiKey, postParse, repoRoot, ServerProcess, sleep } from "./ServerProcess.ts"

const { values: args } = parseArgs({
  options: {
    seconds: { type: "string", default: "20" },
    clients: { type: "string", default: "8" },
    docs: { type: "string", default: "4" },
    root: { type: "string" },
    out: { type: "string" },
    label: { type: "string" }
  }
})
const seconds = Number(args.seconds)
const clients = Number(args.clients)
const docLoops = Number(args.docs)
const outBase = args.out ?? join(repoRoot, "bench/results/reliability-load")
const MB = 1024 * 1024

const html = articleHtml()
const pages = createServer((request, response) => {
  response.writeHead(200, { "content-type": "text/html; charset=utf-8", "content-length": Buffer.byteLength(html) })
  response.end(html)
})
await new Promise<void>((done) => pages.listen(0, "127.0.0.1", done))
const pageAddress = pages.address()
const pageUrl = `http://127.0.0.1:${typeof pageAddress === "object" && pageAddress !== null ? pageAddress.port : 0}/news/river-district`

/**
 * Hostile but survivable documents (the inflate bombs at 20-40 MB rather than the run's 300 MB):
 * the point here is how much of the server they take from scrapes, not whether they kill it.
 */
const hostile = [
  { fileName: "paths.pdf", description: "PDF, one page inflating to 20 MB of path operators", bytes: await bombPdf("0 0 m 1 1 l S\n", 20 * MB) },
  { fileName: "text.pdf", description: "PDF, one page inflating to 20 MB of Tj text operators", bytes: await bombPdf("BT /F1 12 Tf 10 10 Td (hello) Tj ET\n", 20 * MB) },
  { fileName: "near-bomb.docx", description: "docx whose document.xml is 40 MB", bytes: (await docx(`${"<w:p><w:r><w:t>A paragraph of the near-bomb, the quick brown fox.</w:t></w:r></w:p>".repeat(40 * MB / 80)}`)).bytes },
  { fileName: "ten-pages.pdf", description: "an ordinary 10-page text PDF", bytes: plainPdf(10) }
]

async function bombPdf(unit: string, bytes: number): Promise<Buffer> {
  const stream = await deflateRepeated(unit, bytes)
  return pdfDocument([
    "<< /Type /Catalog /Pages 2 0 R >>",
    "<< /Type /Pages /Kids [5 0 R] /Count 1 >>",
    { dict: "<< /Filter /FlateDecode >>", stream },
    "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 3 0 R /Resources << /Font << /F1 4 0 R >> >> >>"
  ])
}

const logFile = `${outBase}.server.log`
writeFileSync(logFile, "")
const server = new ServerProcess({ ...(args.root === undefined ? {} : { root: args.root }), logFile })
await server.start()

let sequence = 0
const scrapeOnce = async (): Promise<{ ok: boolean; ms: number }> => {
  const started = performance.now()
  try {
    const response = await fetch(`${server.baseUrl}/v2/scrape`, {
      method: "POST",
      headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/json" },
      body: JSON.stringify({ url: `${pageUrl}?i=${sequence++}`, formats: ["markdown"], maxAge: 0, storeInCache: false, timeout: 30_000 }),
      signal: AbortSignal.timeout(60_000)
    })
    const body = (await response.json()) as { success?: boolean }
    return { ok: response.ok && body.success === true, ms: performance.now() - started }
  } catch {
    return { ok: false, ms: performance.now() - started }
  }
}

interface Phase {
  readonly name: string
  readonly requests: number
  readonly ok: number
  readonly failed: number
  readonly throughput: number
  readonly p50Ms: number
  readonly p99Ms: number
  readonly documents: number
  readonly documentAnswers: Record<string, number>
  /** /health answer time while the phase ran, probed every 100 ms from a worker thread of the run. */
  readonly healthP50Ms: number
  readonly healthP99Ms: number
  readonly serverDied: boolean
}

const percentile = (sorted: ReadonlyArray<number>, p: number) => (sorted.length === 0 ? Number.NaN : sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))])

const phase = async (name: string, withDocuments: boolean, scrapeClients = clients): Promise<Phase> => {
  if (!server.alive() || !(await server.healthy(3000))) {
    await server.kill()
    await server.start()
  }
  const until = performance.now() + seconds * 1000
  const latencies: Array<number> = []
  let failed = 0
  const documentAnswers: Record<string, number> = {}
  let documents = 0
  const loaders = withDocuments
    ? Array.from({ length: docLoops }, async (_, k) => {
      while (performance.now() < until) {
        const document = hostile[k % hostile.length]
        let label: string
        try {
          const answer = await postParse(server.baseUrl, document, { timeout: 10_000 }, AbortSignal.timeout(Math.round(Math.max(1000, until - performance.now() + 5000))))
          const body = answer.body as { code?: string }
          label = `${document.fileName}: ${answer.status}${body.code === undefined ? "" : ` ${body.code}`}`
        } catch (error) {
          const cause = error instanceof Error ? (error.cause instanceof Error ? error.cause.message : error.message) : String(error)
          label = `${document.fileName}: no answer (${cause.slice(0, 80)})`
          // A refused connection fails at once: wait, so the loop neither spins nor starves the scrapers.
          await sleep(Math.min(1000, Math.max(0, until - performance.now())))
        }
        documents++
        documentAnswers[label] = (documentAnswers[label] ?? 0) + 1
      }
    })
    : []
  // Give the documents a moment to get going, so the scrapes meet them.
  if (withDocuments) await sleep(300)
  const health = new Probe(server.baseUrl, () => server.pid)
  const started = performance.now()
  const scrapers = Array.from({ length: scrapeClients }, async () => {
    while (performance.now() < until) {
      const result = await scrapeOnce()
      if (result.ok) latencies.push(result.ms)
      else failed++
    }
  })
  await Promise.all([...scrapers, ...loaders])
  const probed = await health.stop()
  const elapsed = (performance.now() - started) / 1000
  const sorted = latencies.toSorted((a, b) => a - b)
  return {
    name,
    requests: latencies.length + failed,
    ok: latencies.length,
    failed,
    throughput: latencies.length / elapsed,
    p50Ms: percentile(sorted, 50),
    p99Ms: percentile(sorted, 99),
    documents,
    documentAnswers,
    healthP50Ms: probed.p50Ms,
    healthP99Ms: probed.p99Ms,
    serverDied: !server.alive()
  }
}

// Warm the scrape path (first-request module loading) before measuring.
for (let i = 0; i < 20; i++) await scrapeOnce()
const baseline = await phase("no documents (baseline)", false)
process.stderr.write(`baseline: ${baseline.throughput.toFixed(1)} req/s, p50 ${baseline.p50Ms.toFixed(0)} ms, p99 ${baseline.p99Ms.toFixed(0)} ms\n`)
await sleep(2000)
const loaded = await phase(`${docLoops} hostile documents in a loop`, true)
process.stderr.write(`loaded: ${loaded.throughput.toFixed(1)} req/s, p50 ${loaded.p50Ms.toFixed(0)} ms, p99 ${loaded.p99Ms.toFixed(0)} ms\n`)
await sleep(2000)
// The reader pool saturated and nothing else: what /health gets while documents fill the cores.
const docsOnly = await phase(`${docLoops} hostile documents in a loop, no scrapes`, true, 0)
process.stderr.write(`documents only: /health p50 ${docsOnly.healthP50Ms.toFixed(1)} ms, p99 ${docsOnly.healthP99Ms.toFixed(1)} ms\n`)
await server.stop()
pages.close()

const ratio = loaded.throughput / baseline.throughput
const meta = { date: new Date().toISOString(), label: args.label ?? "", root: args.root ?? repoRoot, seconds, clients, docLoops, pageBytes: Buffer.byteLength(html) }
writeFileSync(`${outBase}.json`, `${JSON.stringify({ meta, baseline, loaded, docsOnly, ratio, hostile: hostile.map((h) => ({ fileName: h.fileName, description: h.description, bytes: h.bytes.length })) }, null, 2)}\n`)
const row = (p: Phase) => `| ${p.name} | ${p.throughput.toFixed(1)} req/s | ${p.p50Ms.toFixed(0)} ms | ${p.p99Ms.toFixed(0)} ms | ${p.ok} | ${p.failed} | ${p.documents} | ${p.healthP50Ms.toFixed(1)} / ${p.healthP99Ms.toFixed(1)} ms |`
writeFileSync(
  `${outBase}.md`,
  [
    "# Reliability: scrape throughput under document load",
    "",
    `${meta.date}${meta.label === "" ? "" : ` · ${meta.label}`} · server root \`${meta.root}\` · ${clients} clients for ${seconds} s per phase · a ${(meta.pageBytes / 1024).toFixed(0)} KB article from a local page server, scraped with maxAge 0 and no cache store.`,
    "",
    "Generated by `bench/reliability/load.ts`.",
    "",
    `| target | result | met |`,
    `| --- | --- | --- |`,
    `| scrape throughput under document load >= 70% of unloaded | ${(ratio * 100).toFixed(1)}% | ${ratio >= 0.7 ? "yes" : "**no**"} |`,
    `| /health p99 while the reader pool is saturated (documents only) < 50 ms | ${docsOnly.healthP99Ms.toFixed(1)} ms | ${docsOnly.healthP99Ms < 50 ? "yes" : "**no**"} |`,
    `| /health p99 with 8 scrape clients and the documents (not a target: the scrapes' own HTML work shares the server's thread) | ${loaded.healthP99Ms.toFixed(1)} ms | - |`,
    "",
    "| phase | throughput | p50 | p99 | scrapes ok | scrapes failed | documents answered | /health p50 / p99 |",
    "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    row(baseline),
    row(loaded),
    row(docsOnly),
    "",
    `Documents parsed in the loaded phase (${docLoops} loops, \`timeout\` 10 s each), answers:`,
    "",
    ...Object.entries(loaded.documentAnswers).map(([label, n]) => `- ${label}: ${n}`),
    ...(loaded.serverDied ? ["", "**The server died during the loaded phase.**"] : []),
    "",
    "The documents:",
    "",
    ...hostile.map((h) => `- \`${h.fileName}\` (${(h.bytes.length / 1024).toFixed(0)} KB): ${h.description}`),
    ""
  ].join("\n")
)
process.stderr.write(`ratio ${(ratio * 100).toFixed(1)}%; wrote ${outBase}.md\n`)
process.exit(0)
