/**
 * The page cache through the real server (issue 15, "How it is checked"), SQLite and Postgres side
 * by side in one run: two servers (`packages/http/src/bin.ts`, as `npm start` runs it,
 * unsupervised), one on each backend, scrape a 100 KB page served on loopback.
 *
 * Each run, for each backend (the order alternates from run to run):
 * 1. Miss against no cache: scrapes of fresh URLs (a new query string each, so a miss: the cache
 *    is read, the page fetched and its row written after the answer) alternate with scrapes that
 *    leave the store out (`maxAge: 0, storeInCache: false`: no read, no write). The difference of
 *    the p50s is what the store adds to a miss (target: under 2 ms).
 * 2. First hits: each URL of phase 1 scraped again, once: the page comes from the cache and its
 *    formats are computed again from the stored body.
 * 3. Repeated hits: one URL scraped again and again from the cache (after the first hit, the
 *    server's RenderedCopies give the same request's formats without computing them again);
 *    p50/p95 against the no-cache fetch of phase 1 (target: a hit at least 10x faster).
 * 4. Hits per second with 8 clients at once on that URL.
 * Figures are medians over the runs; the load average is noted at every phase, since the machine
 * is shared. The browser engine is off (STRATA_BROWSER=off): the page is static, the fetch engine
 * keeps it either way, and no Chromium competes for the cores.
 *
 *   node_modules/.bin/node -C @strata/source bench/state/cache.ts [--quick] [--runs 5] [--n 200] [--out BASE]
 *
 * Without --quick the results go to bench/results/state-cache.md and .json.
 */
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { cpus, loadavg, tmpdir } from "node:os"
import { join } from "node:path"
import { writeFileSync } from "node:fs"
import { parseArgs } from "node:util"
import { startPostgres } from "../../packages/store/test/support/TempPostgres.ts"
import { apiKey, repoRoot, ServerProcess } from "../reliability/ServerProcess.ts"

const { values: args } = parseArgs({
  options: { quick: { type: "boolean", default: false }, runs: { type: "string" }, n: { type: "string" }, out: { type: "string" } }
})
const runs = Number(args.runs ?? (args.quick ? 1 : 5))
const n = Number(args.n ?? (args.quick ? 40 : 200))
const concurrentRequests = args.quick ? 80 : 400
const outBase = args.out ?? (args.quick ? join(tmpdir(), "strata-state-cache-quick") : join(repoRoot, "bench/results/state-cache"))
const log = (line: string) => process.stderr.write(`${line}\n`)

// The page: about 100 KB of article text in paragraphs, as a static site serves it.
const paragraph = (i: number) =>
  `<p>Paragraph ${i}: the harbour master's log records the tides, the boats moored and the weather each day, written plainly for anyone who reads it later.</p>`
const pageHtml = (() => {
  let body = ""
  for (let i = 0; body.length < 100 * 1024; i++) body += paragraph(i)
  return `<!doctype html><html><head><meta charset="utf-8"><title>Harbour log</title></head><body><main><h1>Harbour log</h1>${body}</main></body></html>`
})()
let siteRequests = 0
const site = createServer((_request, response) => {
  siteRequests++
  response.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(pageHtml)
})
await new Promise<void>((resolve) => site.listen(0, "127.0.0.1", resolve))
const origin = `http://127.0.0.1:${(site.address() as AddressInfo).port}`

delete process.env.STRATA_DATABASE_URL
const postgres = await startPostgres()
const common = { STRATA_BROWSER: "off", STRATA_ALLOWED_ORIGINS: origin, STRATA_RATE_LIMIT: "0" }
const servers = {
  sqlite: new ServerProcess({ logFile: `${outBase}.sqlite.server.log`, env: common }),
  pg: new ServerProcess({ logFile: `${outBase}.pg.server.log`, env: { ...common, STRATA_DATABASE_URL: postgres.createDatabase("bench") } })
}
type Backend = keyof typeof servers

const scrape = async (server: ServerProcess, body: Record<string, unknown>): Promise<{ ms: number; cacheState: unknown }> => {
  const started = performance.now()
  const response = await fetch(`${server.baseUrl}/v2/scrape`, {
    method: "POST",
    headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/json" },
    body: JSON.stringify(body)
  })
  const json = await response.json() as { success?: boolean; data?: { markdown?: string; metadata?: { cacheState?: unknown } } }
  const ms = performance.now() - started
  if (response.status !== 200 || json.success !== true || !(json.data?.markdown ?? "").includes("Harbour log")) {
    throw new Error(`scrape failed: ${response.status} ${JSON.stringify(json).slice(0, 300)}`)
  }
  return { ms, cacheState: json.data?.metadata?.cacheState }
}

const quantile = (values: ReadonlyArray<number>, q: number) => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * q))]
}
const median = (values: ReadonlyArray<number>) => quantile(values, 0.5)
const round = (x: number, digits = 2) => Number(x.toFixed(digits))
const load = () => loadavg().map((x) => round(x))

interface RunResult {
  readonly backend: Backend
  readonly run: number
  readonly missP50: number
  readonly missP95: number
  readonly noCacheP50: number
  readonly noCacheP95: number
  /** The median of (miss − no cache) over the alternating pairs. */
  readonly pairedDifferenceP50: number
  readonly firstHitP50: number
  readonly firstHitP95: number
  readonly hitP50: number
  readonly hitP95: number
  readonly hitsPerSecond: number
  readonly siteRequestsDuringHits: number
  readonly load: Record<string, Array<number>>
}

let nonce = 0
const measure = async (backend: Backend, run: number): Promise<RunResult> => {
  const server = servers[backend]
  const loads: Record<string, Array<number>> = { start: load() }
  // Warm up: the first scrapes compile the stages and fill the connection pool.
  for (let i = 0; i < 10; i++) await scrape(server, { url: `${origin}/warm?n=${++nonce}` })
  // 1. Misses alternating with scrapes that leave the store out.
  const miss: Array<number> = []
  const noCache: Array<number> = []
  const missed: Array<string> = []
  for (let i = 0; i < n; i++) {
    missed.push(`${origin}/fresh?n=${++nonce}`)
    const a = await scrape(server, { url: missed[i] })
    if (a.cacheState !== "miss") throw new Error(`expected a miss, got ${String(a.cacheState)}`)
    miss.push(a.ms)
    const b = await scrape(server, { url: `${origin}/fresh?n=${++nonce}`, maxAge: 0, storeInCache: false })
    if (b.cacheState !== undefined) throw new Error(`expected no cache, got ${String(b.cacheState)}`)
    noCache.push(b.ms)
  }
  loads.misses = load()
  // 2. First hits on those pages (their rows were written after each answer; the last few may
  // still be on their way, so the scan starts at the oldest).
  const firstHits: Array<number> = []
  for (const url of missed) {
    const hit = await scrape(server, { url })
    if (hit.cacheState !== "hit") throw new Error(`expected a first hit, got ${String(hit.cacheState)}`)
    firstHits.push(hit.ms)
  }
  loads.firstHits = load()
  // 2. Hits on one URL (the first scrape writes the row; wait for it with minAge: 1, cache only).
  const hitUrl = `${origin}/hit?run=${run}-${++nonce}`
  await scrape(server, { url: hitUrl })
  for (let i = 0; ; i++) {
    const ready = await fetch(`${server.baseUrl}/v2/scrape`, {
      method: "POST",
      headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/json" },
      body: JSON.stringify({ url: hitUrl, minAge: 1 })
    })
    await ready.arrayBuffer()
    if (ready.status === 200) break
    if (i > 200) throw new Error("the hit page never reached the cache")
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
  const before = siteRequests
  const hits: Array<number> = []
  for (let i = 0; i < n; i++) {
    const hit = await scrape(server, { url: hitUrl })
    if (hit.cacheState !== "hit") throw new Error(`expected a hit, got ${String(hit.cacheState)}`)
    hits.push(hit.ms)
  }
  loads.hits = load()
  // 3. Hits per second, 8 clients at once.
  let left = concurrentRequests
  const started = performance.now()
  await Promise.all(Array.from({ length: 8 }, async () => {
    while (left > 0) {
      left--
      await scrape(server, { url: hitUrl })
    }
  }))
  const hitsPerSecond = concurrentRequests / ((performance.now() - started) / 1000)
  loads.concurrent = load()
  return {
    backend,
    run,
    missP50: round(median(miss)),
    missP95: round(quantile(miss, 0.95)),
    noCacheP50: round(median(noCache)),
    noCacheP95: round(quantile(noCache, 0.95)),
    pairedDifferenceP50: round(median(miss.map((ms, i) => ms - noCache[i]))),
    firstHitP50: round(median(firstHits)),
    firstHitP95: round(quantile(firstHits, 0.95)),
    hitP50: round(median(hits)),
    hitP95: round(quantile(hits, 0.95)),
    hitsPerSecond: round(hitsPerSecond, 1),
    siteRequestsDuringHits: siteRequests - before,
    load: loads
  }
}

const results: Array<RunResult> = []
const startedAt = new Date().toISOString()
try {
  await Promise.all([servers.sqlite.start(), servers.pg.start()])
  for (let run = 1; run <= runs; run++) {
    const order: Array<Backend> = run % 2 === 1 ? ["sqlite", "pg"] : ["pg", "sqlite"]
    for (const backend of order) {
      const result = await measure(backend, run)
      results.push(result)
      log(`run ${run} ${backend}: miss p50 ${result.missP50} ms, no cache p50 ${result.noCacheP50} ms, first hit p50 ${result.firstHitP50} ms, hit p50 ${result.hitP50} ms p95 ${result.hitP95} ms, ${result.hitsPerSecond} hits/s at 8 (load ${result.load.concurrent.join(" ")})`)
    }
  }
} finally {
  await servers.sqlite.kill()
  await servers.pg.kill()
  postgres.stop()
  site.close()
}

const summary = (["sqlite", "pg"] as const).map((backend) => {
  const rows = results.filter((r) => r.backend === backend)
  const of = (pick: (r: RunResult) => number) => round(median(rows.map(pick)))
  return {
    backend,
    hitP50: of((r) => r.hitP50),
    hitP95: of((r) => r.hitP95),
    firstHitP50: of((r) => r.firstHitP50),
    firstHitP95: of((r) => r.firstHitP95),
    noCacheP50: of((r) => r.noCacheP50),
    noCacheP95: of((r) => r.noCacheP95),
    missP50: of((r) => r.missP50),
    missP95: of((r) => r.missP95),
    // Run by run, so both sides of each difference saw the same load.
    storeOnMissP50: of((r) => r.missP50 - r.noCacheP50),
    storeOnMissPaired: of((r) => r.pairedDifferenceP50),
    speedup: round(median(rows.map((r) => r.noCacheP50 / r.hitP50)), 1),
    firstHitSpeedup: round(median(rows.map((r) => r.noCacheP50 / r.firstHitP50)), 1),
    hitsPerSecond: round(median(rows.map((r) => r.hitsPerSecond)), 1),
    siteRequestsDuringHits: rows.reduce((sum, r) => sum + r.siteRequestsDuringHits, 0)
  }
})

const loads = results.flatMap((r) => Object.values(r.load).map((l) => l[0]))
const machine = `${cpus().length} cores (${cpus()[0]?.model.trim()}), 1-minute load average ${Math.min(...loads)} to ${Math.max(...loads)} during the run`
const table = [
  "| backend | repeated hit p50 / p95 ms | first hit p50 / p95 ms | fetch, no cache p50 / p95 ms | speed-up, repeated / first hit (p50) | hits/s, 8 clients | miss p50 / p95 ms | store on a miss (p50) ms: difference of p50s / median paired difference |",
  "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
  ...summary.map((s) =>
    `| ${s.backend} | ${s.hitP50} / ${s.hitP95} | ${s.firstHitP50} / ${s.firstHitP95} | ${s.noCacheP50} / ${s.noCacheP95} | ${s.speedup}x / ${s.firstHitSpeedup}x | ${s.hitsPerSecond} | ${s.missP50} / ${s.missP95} | ${s.storeOnMissP50} / ${s.storeOnMissPaired} |`
  )
].join("\n")
const perRun = [
  "| run | backend | repeated hit p50 / p95 ms | first hit p50 / p95 ms | no cache p50 / p95 ms | miss p50 / p95 ms | hits/s at 8 | load (start, misses, first hits, hits, 8 clients) |",
  "| ---: | --- | ---: | ---: | ---: | ---: | ---: | --- |",
  ...results.map((r) =>
    `| ${r.run} | ${r.backend} | ${r.hitP50} / ${r.hitP95} | ${r.firstHitP50} / ${r.firstHitP95} | ${r.noCacheP50} / ${r.noCacheP95} | ${r.missP50} / ${r.missP95} | ${r.hitsPerSecond} | ${["start", "misses", "firstHits", "hits", "concurrent"].map((k) => r.load[k]?.[0]).join(", ")} |`
  )
].join("\n")
const markdown = `# The page cache through the server: SQLite and Postgres side by side

bench/state/cache.ts, ${startedAt}; ${runs} runs of ${n} sequential scrapes per phase and ${concurrentRequests} hits at 8 clients, per backend; medians over the runs.
A ${Math.round(pageHtml.length / 1024)} KB static HTML page served on loopback, scraped with the default formats (markdown) through POST /v2/scrape;
the browser engine off. Postgres is a throwaway local server (fsync off, as in the tests). ${machine}: a shared machine, so read the
figures as upper bounds.

${table}

- **repeated hit**: the same request again on a cached page: the page from the store, its formats from the server's RenderedCopies (kept from the previous hit on the same stored page and options).
- **first hit**: a cached page's first hit: the page from the store, its markdown computed again from the stored body (the contract recomputes formats on a hit).
- **fetch, no cache**: \`maxAge: 0, storeInCache: false\`, a fresh fetch of the local page with the store left out; the hit speed-up is this over the hit, run by run.
- **miss**: a new URL each time: the cache read, the fetch, and the row written after the answer (forked, so the write's CPU still competes).
- **store on a miss**: miss p50 minus no-cache p50, run by run, and the median of the differences of the alternating pairs. Both are within the noise of ~40 ms requests on a loaded machine; the store's own cost per operation is in state-store.md (bench/state/store.ts: a cache read that misses, p50 0.07 ms on SQLite and 0.26 ms on Postgres, and the put of a 100 KB page, 0.65 / 7.2 ms, forked after the answer).
- Requests that reached the page server during the hit phases: ${summary.map((s) => `${s.backend} ${s.siteRequestsDuringHits}`).join(", ")}.

## Per run

${perRun}
`
writeFileSync(`${outBase}.md`, markdown)
writeFileSync(`${outBase}.json`, JSON.stringify({ startedAt, runs, n, concurrentRequests, pageBytes: pageHtml.length, machine, summary, results }, null, 2) + "\n")
log(markdown)
log(`written ${outBase}.md and .json`)
