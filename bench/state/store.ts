/**
 * What the state store costs per operation, SQLite and Postgres side by side: a cache get and put
 * of a 100 KB page, a credit charge, a key lookup and an idempotency claim, each run one at a
 * time (latency, p50/p95 in ms) and, for cache gets, with 8 at once (operations per second).
 * Postgres is a throwaway server from Debian's binaries on loopback (fsync off, as in the tests),
 * so its numbers are the protocol and query cost, not the disk's.
 *
 *   node_modules/.bin/node -C @strata/source bench/state/store.ts [--n 500] [--write]
 *
 * `--write` stores bench/results/state-store.json and .md. This is the store alone; the server-level
 * numbers of issue 15 (hit latency through /v2/scrape, hits/s at 8 clients, the store's cost on a
 * miss) are bench/state/cache.ts's.
 */
import { Store } from "@strata/core"
import { layerPg, layerSqlite } from "@strata/store"
import { Effect, type Layer, Redacted } from "effect"
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs"
import { cpus, loadavg, tmpdir } from "node:os"
import { join } from "node:path"
import { performance } from "node:perf_hooks"
import { startPostgres } from "../../packages/store/test/support/TempPostgres.ts"

const args = process.argv.slice(2)
const option = (name: string): string | undefined => {
  const i = args.indexOf(name)
  return i >= 0 ? args[i + 1] : undefined
}
const n = Number(option("--n") ?? 500)

const percentile = (sorted: ReadonlyArray<number>, p: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]

interface Row {
  readonly backend: string
  readonly operation: string
  readonly p50: number
  readonly p95: number
  readonly perSecond: number
}

const time = (backend: string, operation: string, run: (i: number) => Effect.Effect<unknown, unknown>) =>
  Effect.gen(function*() {
    for (let i = 0; i < 20; i++) yield* run(-1 - i) // warm up: statements prepared, pool filled
    const samples: Array<number> = []
    const start = performance.now()
    for (let i = 0; i < n; i++) {
      const t = performance.now()
      yield* run(i)
      samples.push(performance.now() - t)
    }
    const total = performance.now() - start
    samples.sort((a, b) => a - b)
    return { backend, operation, p50: percentile(samples, 0.5), p95: percentile(samples, 0.95), perSecond: (n / total) * 1000 } satisfies Row
  })

const page = (key: string, body: Uint8Array) => ({
  key,
  url: `https://example.com/${key}`,
  finalUrl: `https://example.com/${key}`,
  status: 200,
  headers: { "content-type": "text/html; charset=utf-8", "cache-control": "max-age=60" },
  body,
  fetchedAt: Date.now()
})

const measure = (backend: string, layer: Layer.Layer<Store, unknown>) =>
  Effect.gen(function*() {
    const store = yield* Store
    const body = new Uint8Array(100 * 1024).map((_, i) => 32 + (i % 90))
    yield* store.setTeam("bench", { credits: Number.MAX_SAFE_INTEGER })
    const key = yield* store.createKey("bench")
    const rows: Array<Row> = []
    rows.push(yield* time(backend, "cache put 100 KB", (i) => store.cachePut(page(`p${i}`, body))))
    rows.push(yield* time(backend, "cache get 100 KB (hit)", (i) => store.cacheGet(`p${Math.abs(i) % n}`)))
    rows.push(yield* time(backend, "cache get (miss)", (i) => store.cacheGet(`absent${i}`)))
    rows.push(yield* time(backend, "charge 1 credit", (i) => store.charge({ teamId: "bench", chargeId: `c${i}`, amount: 1 })))
    rows.push(yield* time(backend, "authenticate key", () => store.authenticate(key.key)))
    rows.push(yield* time(backend, "claim request id", (i) =>
      store.beginRequest({ teamId: "bench", requestId: `r${i}`, paramsHash: "h", deadline: Date.now() + 60_000 })))
    // Eight clients at once, each getting hits: what a busy server's cache lookups add up to.
    const concurrent = yield* time(backend, "8 concurrent cache gets (per batch)", (i) =>
      Effect.forEach(Array.from({ length: 8 }, (_, j) => j), (j) => store.cacheGet(`p${Math.abs(i * 8 + j) % n}`), { concurrency: 8 }))
    rows.push({ ...concurrent, operation: "cache get 100 KB, 8 at once", perSecond: concurrent.perSecond * 8 })
    return rows
  }).pipe(Effect.provide(layer))

const main = async () => {
  const rows: Array<Row> = []
  const dir = mkdtempSync(join(tmpdir(), "strata-bench-state-"))
  rows.push(...await Effect.runPromise(measure("sqlite", layerSqlite({ filename: join(dir, "strata.db"), cacheMaxBytes: 1024 ** 3 }))))
  const postgres = await startPostgres()
  try {
    const url = postgres.createDatabase("bench")
    rows.push(...await Effect.runPromise(measure("pg", layerPg({ url: Redacted.make(url), cacheMaxBytes: 1024 ** 3 }))))
  } finally {
    postgres.stop()
  }
  const table = [
    "| backend | operation | p50 ms | p95 ms | ops/s |",
    "| --- | --- | ---: | ---: | ---: |",
    ...rows.map((row) => `| ${row.backend} | ${row.operation} | ${row.p50.toFixed(3)} | ${row.p95.toFixed(3)} | ${Math.round(row.perSecond)} |`)
  ].join("\n")
  const machine = `${cpus().length} cores, load average ${loadavg()[0].toFixed(1)} when it finished`
  console.log(`${table}\n\n${machine}`)
  if (args.includes("--write")) {
    const out = new URL("../results/", import.meta.url)
    mkdirSync(out, { recursive: true })
    writeFileSync(new URL("state-store.json", out), JSON.stringify({ n, date: new Date().toISOString(), machine, rows }, null, 2) + "\n")
    writeFileSync(new URL("state-store.md", out), `# State store, per operation (n = ${n})\n\n${table}\n\n${machine}.\n`)
  }
}

await main()
