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
 *   node_modules/.bin/node -C @strata/source bench/state/metering.ts [--n 200]
 */
import { Store } from "@strata/core"
import { layerPg, layerSqlite, sqliteFileIn } from "@strata/store"
import { Effect, type Layer, Redacted } from "effect"
import { mkdtempSync } from "node:fs"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { loadavg, tmpdir } from "node:os"
import { join } from "node:path"
import { parseArgs } from "node:util"
import { startPostgres } from "../../packages/store/test/support/TempPostgres.ts"
import { apiKey, ServerProcess } from "../reliability/ServerProcess.ts"

const { values: args } = parseArgs({ options: { n: { type: "string" } } })
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
  await backend.server.stop()
}
site.close()
postgres.stop()
