/**
 * What the catalog adds, through the real server (`packages/http/src/bin.ts`, unsupervised,
 * browser off, SQLite under a temp data folder), against a small loopback page. n rounds of, in turn:
 * - `scrape`: a plain scrape of the page (a cache hit after the first round);
 * - `web/scrape`: the same page through a catalog call (`web` / `scrape`, the same cache);
 * - `domainTools`: the plain scrape with `domainTools: true` (the registry matched against its URLs);
 * - `find-tools`: a free discovery page of 20 tools (`service` / `find-tools`, options expanded).
 * All on a team with credits (each request is charged, or, for find-tools, metered at 0).
 * Figures are p50/p95 in ms; the p50 differences against `scrape` are what the catalog costs.
 * Writes bench/results/catalog.md and .json.
 *
 *   node_modules/.bin/node -C @strata/source bench/catalog/run.ts [--n 100]
 */
import { Store } from "@strata/core"
import { layerSqlite, sqliteFileIn } from "@strata/store"
import { Effect } from "effect"
import { mkdtempSync, writeFileSync } from "node:fs"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { loadavg, tmpdir } from "node:os"
import { join } from "node:path"
import { parseArgs } from "node:util"
import { ServerProcess } from "../reliability/ServerProcess.ts"

const { values: args } = parseArgs({ options: { n: { type: "string" } } })
const n = Number(args.n ?? 100)
const log = (line: string) => process.stderr.write(`${line}\n`)

const site = createServer((_request, response) => {
  response.writeHead(200, { "content-type": "text/html; charset=utf-8" })
    .end("<!doctype html><html><head><title>Tide log</title></head><body><main><h1>Tide log</h1><p>High water at noon.</p></main></body></html>")
})
await new Promise<void>((resolve) => site.listen(0, "127.0.0.1", resolve))
const origin = `http://127.0.0.1:${(site.address() as AddressInfo).port}`

delete process.env.STRATA_DATABASE_URL
const dataDir = mkdtempSync(join(tmpdir(), "strata-catalog-bench-"))
const server = new ServerProcess({
  logFile: join(dataDir, "server.log"),
  env: { STRATA_BROWSER: "off", STRATA_ALLOWED_ORIGINS: origin, STRATA_RATE_LIMIT: "0", STRATA_DATA_DIR: dataDir }
})
await server.start()
const key = await Effect.runPromise(
  Effect.gen(function*() {
    const store = yield* Store
    yield* store.setTeam("bench", { credits: 1_000_000, rateLimit: 1_000_000 })
    return (yield* store.createKey("bench")).key
  }).pipe(Effect.provide(layerSqlite({ filename: sqliteFileIn(dataDir), cacheMaxBytes: 1 << 20 })))
)

const post = async (body: unknown): Promise<number> => {
  const started = performance.now()
  const response = await fetch(`${server.baseUrl}/v2/scrape`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify(body)
  })
  const json = await response.json() as { success?: boolean; data?: { catalog?: Array<{ error?: unknown }> } }
  if (response.status !== 200 || json.success !== true || json.data?.catalog?.[0]?.error !== undefined) {
    throw new Error(`request failed: ${response.status} ${JSON.stringify(json).slice(0, 300)}`)
  }
  return performance.now() - started
}

const page = `${origin}/tide`
const kinds = {
  scrape: { url: page },
  "web/scrape": { catalog: { provider: "web", capability: "scrape", options: { url: page } } },
  domainTools: { url: page, domainTools: true },
  "find-tools": { catalog: { provider: "service", capability: "find-tools", options: { expand: ["options", "response"] } } }
} as const
const quantile = (values: ReadonlyArray<number>, q: number) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(values.length * q))]
const round = (x: number) => Number(x.toFixed(2))

for (let i = 0; i < 10; i++) for (const body of Object.values(kinds)) await post(body)
const times: Record<string, Array<number>> = Object.fromEntries(Object.keys(kinds).map((kind) => [kind, []]))
const loadBefore = loadavg()[0]
for (let i = 0; i < n; i++) for (const [kind, body] of Object.entries(kinds)) times[kind].push(await post(body))
const loadAfter = loadavg()[0]
await server.stop()
site.close()

const p50 = (kind: string) => quantile(times[kind], 0.5)
const rows = Object.keys(kinds).map((kind) => ({
  kind,
  p50: round(p50(kind)),
  p95: round(quantile(times[kind], 0.95)),
  overScrapeP50: round(p50(kind) - p50("scrape"))
}))
const when = new Date().toISOString()
const load = `load average ${loadBefore.toFixed(2)} -> ${loadAfter.toFixed(2)} (1 min, 2 cores, shared)`
log(`catalog bench, n=${n}, ${load}`)
for (const row of rows) log(`  ${row.kind.padEnd(12)} p50 ${row.p50} ms  p95 ${row.p95} ms  (p50 vs scrape ${row.overScrapeP50 >= 0 ? "+" : ""}${row.overScrapeP50} ms)`)
const results = join(import.meta.dirname, "..", "results")
writeFileSync(join(results, "catalog.json"), JSON.stringify({ when, n, load: { before: loadBefore, after: loadAfter }, rows }, null, 2) + "\n")
writeFileSync(
  join(results, "catalog.md"),
  [
    "# Catalog overhead",
    "",
    `bench/catalog/run.ts, ${when}, n=${n} rounds, SQLite, browser off, a small loopback page (a cache hit after the first round); ${load}.`,
    "",
    "| request | p50 ms | p95 ms | p50 vs scrape |",
    "| --- | ---: | ---: | ---: |",
    ...rows.map((row) => `| ${row.kind} | ${row.p50} | ${row.p95} | ${row.overScrapeP50 >= 0 ? "+" : ""}${row.overScrapeP50} |`),
    ""
  ].join("\n")
)
