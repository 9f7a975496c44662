/**
 * What metering (packages/http/src/Metering.ts: the team read, its rate limit, the concurrency
 * slot, the charge, an `x-request-id` claim and its record) adds to a scrape, on SQLite and on
 * Postgres, through the real server (`packages/http/src/bin.ts`, unsupervised, browser off).
 *
 * For each backend, n rounds of four sequential scrapes of a small loopback page, in turn:
 * - `default`: the default team's key (no limits: the team is read, nothing else);
 * - `metered`: a team with credits, a rate limit and a concurrency limit (rate check, slot taken
 *   and given back, one charge);
 * - `idempotent`: the same team with a fresh `x-request-id` each time (claim + stored answer too);
 * - `replay`: an `x-request-id` already answered (the stored answer, nothing runs).
 * Every scrape has `maxAge: 0, storeInCache: false`, so the cache stays out. Figures are p50/p95
 * in ms; the differences of the p50s against `default` are what metering costs.
 *
 *   node_modules/.bin/node -C @strata/source bench/state/metering.ts [--n 200] [--write]
 *
 * `--write` stores bench/results/state-metering.md and .json.
 */
import { Store } from "@strata/core"
import { layerPg, layerSqlite, sqliteFileIn } from "@strata/store"
import { Effect, type Layer, Redacted } from "effect"
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { cpus, loadavg, tmpdir } from "node:os"
import { join } from "node:path"
import { parseArgs } from "node:util"
import { startPostgres } from "../../packages/store/test/support/TempPostgres.ts"
import { apiKey, ServerProcess } from "../reliability/ServerProcess.ts"

const { values: args } = parseArgs({ options: { n: { type: "string" }, write: { type: "boolean" } } })
const n = Number(args.n ?? 200)
const log = (line: string) => process.stderr.write(`${line}\n`)

const site = createServer((_request, response) => {
  response.writeHead(200, { "content-type": "text/html; charset=utf-8" })
    .end("<!doctype html><html><head><title>Tide log</title></head><body><main><h1>Tide log</h1><p>High water at noon.</p></main></body></html>")
})
await new Promise<void>((resolve) => site.listen(0, "127.0.0.1", resolve))
const origin = `http://127.0.0.1:${(site.address() as AddressInfo).port}`

delete process.env.STRATA_DATABASE_URL
const postgres = await startPostgres()
const sqliteDir = mkdtempSync(join(tmpdir(), "strata-metering-bench-"))
const pgUrl = postgres.createDatabase("metering")
const common = { STRATA_BROWSER: "off", STRATA_ALLOWED_ORIGINS: origin, STRATA_RATE_LIMIT: "0" }
const backends = {
  sqlite: {
    server: new ServerProcess({ logFile: join(sqliteDir, "server.log"), env: { ...common, STRATA_DATA_DIR: sqliteDir } }),
    store: layerSqlite({ filename: sqliteFileIn(sqliteDir), cacheMaxBytes: 1 << 20 }) as Layer.Layer<Store, unknown>
  },
  pg: {
    server: new ServerProcess({ logFile: join(sqliteDir, "pg.server.log"), env: { ...common, STRATA_DATABASE_URL: pgUrl } }),
    store: layerPg({ url: Redacted.make(pgUrl), cacheMaxBytes: 1 << 20 }) as Layer.Layer<Store, unknown>
  }
}

const scrape = async (base: string, key: string, headers: Record<string, string> = {}): Promise<number> => {
  const started = performance.now()
  const response = await fetch(`${base}/v2/scrape`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json", ...headers },
    body: JSON.stringify({ url: `${origin}/tide`, maxAge: 0, storeInCache: false })
  })
  const json = await response.json() as { success?: boolean }
  if (response.status !== 200 || json.success !== true) throw new Error(`scrape failed: ${response.status} ${JSON.stringify(json).slice(0, 300)}`)
  return performance.now() - started
}

const quantile = (values: ReadonlyArray<number>, q: number) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(values.length * q))]
const round = (x: number) => Number(x.toFixed(2))

let nonce = 0
const results: Array<{ backend: string; load: { before: number; after: number }; rows: Array<{ kind: string; p50: number; p95: number; overP50: number }> }> = []
for (const [name, backend] of Object.entries(backends)) {
  await backend.server.start()
  const key = await Effect.runPromise(
    Effect.gen(function*() {
      const store = yield* Store
      yield* store.setTeam("bench", { credits: 1_000_000, rateLimit: 1_000_000, concurrency: 64 })
      return (yield* store.createKey("bench")).key
    }).pipe(Effect.provide(backend.store))
  )
  const base = backend.server.baseUrl
  for (let i = 0; i < 20; i++) await scrape(base, apiKey)
  await scrape(base, key, { "x-request-id": "replayed" })
  const times: Record<string, Array<number>> = { default: [], metered: [], idempotent: [], replay: [] }
  const loadBefore = loadavg()[0]
  for (let i = 0; i < n; i++) {
    times.default.push(await scrape(base, apiKey))
    times.metered.push(await scrape(base, key))
    times.idempotent.push(await scrape(base, key, { "x-request-id": `bench-${++nonce}` }))
    times.replay.push(await scrape(base, key, { "x-request-id": "replayed" }))
  }
  const p50 = (kind: string) => quantile(times[kind], 0.5)
  const rows = Object.keys(times).map((kind) => ({
    kind,
    p50: round(p50(kind)),
    p95: round(quantile(times[kind], 0.95)),
    overP50: round(p50(kind) - p50("default"))
  }))
  log(`${name}: n=${n}, load ${loadBefore.toFixed(2)} -> ${loadavg()[0].toFixed(2)}`)
  for (const row of rows) log(`  ${row.kind.padEnd(11)} p50 ${row.p50} ms  p95 ${row.p95} ms  (p50 vs default ${row.overP50 >= 0 ? "+" : ""}${row.overP50} ms)`)
  results.push({ backend: name, load: { before: round(loadBefore), after: round(loadavg()[0]) }, rows })
  await backend.server.stop()
}
site.close()
postgres.stop()

if (args.write === true) {
  const signed = (x: number) => `${x >= 0 ? "+" : ""}${x.toFixed(2)}`
  const table = [
    "| backend | scrape | p50 ms | p95 ms | p50 over default |",
    "| --- | --- | ---: | ---: | ---: |",
    ...results.flatMap((result) => result.rows.map((row) => `| ${result.backend} | ${row.kind} | ${row.p50.toFixed(2)} | ${row.p95.toFixed(2)} | ${signed(row.overP50)} |`))
  ].join("\n")
  const machine = `${cpus().length} cores; load average ${results.map((r) => `${r.backend} ${r.load.before.toFixed(1)} -> ${r.load.after.toFixed(1)}`).join(", ")}`
  const kinds = [
    "- `default`: the default team's key (no limits: the team is read, nothing else);",
    "- `metered`: a team with credits, a rate limit and a concurrency limit (rate check, slot taken and given back, one charge);",
    "- `idempotent`: the same team with a fresh `x-request-id` (the claim and the stored answer too);",
    "- `replay`: an `x-request-id` already answered (the stored answer; nothing runs)."
  ].join("\n")
  const out = new URL("../results/", import.meta.url)
  mkdirSync(out, { recursive: true })
  writeFileSync(new URL("state-metering.json", out), JSON.stringify({ n, date: new Date().toISOString(), machine, results }, null, 2) + "\n")
  writeFileSync(
    new URL("state-metering.md", out),
    `# What metering adds to a scrape, through the real server (n = ${n} rounds)\n\n${table}\n\n${kinds}\n\nA small loopback page, \`maxAge: 0, storeInCache: false\`; four sequential scrapes a round, in turn. ${machine}.\n`
  )
}
