/**
 * What `changeTracking` adds to a scrape: the store's swap of a page's snapshot (read the last,
 * write this one, one transaction) on SQLite and Postgres side by side, and the unified diff of a
 * page with a few changed lines, each one at a time (p50/p95 in ms). The snapshot is 20 KB of
 * markdown, about a long article. Postgres is a throwaway server from Debian's binaries on
 * loopback (fsync off, as in the tests).
 *
 *   node_modules/.bin/node -C @strata/source bench/state/changes.ts [--n 300] [--write]
 *
 * `--write` stores bench/results/state-changes.json and .md.
 */
import { markdownDiff, Store } from "@strata/core"
import { layerPg, layerSqlite } from "@strata/store"
import { Effect, type Layer, Redacted } from "effect"
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs"
import { cpus, loadavg, tmpdir } from "node:os"
import { join } from "node:path"
import { performance } from "node:perf_hooks"
import { startPostgres } from "../../packages/store/test/support/TempPostgres.ts"

const args = process.argv.slice(2)
const n = Number(args[args.indexOf("--n") + 1] ?? 300) || 300

const percentile = (sorted: ReadonlyArray<number>, p: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]!

interface Row {
  readonly backend: string
  readonly operation: string
  readonly p50: number
  readonly p95: number
}

/** 20 KB of markdown in 250 lines; `version` changes every 25th line. */
const article = (version: number) =>
  Array.from({ length: 250 }, (_, i) =>
    i % 25 === 0 ? `Paragraph ${i}, edition ${version}: the harbour timetable.` : `Paragraph ${i} of the article, which stays the same.`)
    .join("\n").padEnd(20 * 1024, " ")

const time = (backend: string, operation: string, run: (i: number) => Effect.Effect<unknown, unknown>) =>
  Effect.gen(function*() {
    for (let i = 0; i < 20; i++) yield* run(-1 - i)
    const samples: Array<number> = []
    for (let i = 0; i < n; i++) {
      const t = performance.now()
      yield* run(i)
      samples.push(performance.now() - t)
    }
    samples.sort((a, b) => a - b)
    return { backend, operation, p50: percentile(samples, 0.5), p95: percentile(samples, 0.95) } satisfies Row
  })

const measure = (backend: string, layer: Layer.Layer<Store, unknown>) =>
  Effect.gen(function*() {
    const store = yield* Store
    const snapshot = (i: number) => ({ markdown: article(i), status: 200, removed: false, scrapedAt: Date.now() })
    return [
      // One page scraped again and again: the row exists, so read + update.
      yield* time(backend, "swap a 20 KB snapshot (page seen before)", (i) =>
        store.changeSwap({ teamId: "bench", url: "https://example.com/article", tag: "" }, snapshot(i))),
      // A new page each time: the insert alone.
      yield* time(backend, "swap a 20 KB snapshot (new page)", (i) =>
        store.changeSwap({ teamId: "bench", url: `https://example.com/new/${i}`, tag: "" }, snapshot(i)))
    ]
  }).pipe(Effect.provide(layer))

const main = async () => {
  const rows: Array<Row> = []
  rows.push(await Effect.runPromise(time("-", "unified diff, 250 lines, 10 changed", (i) => Effect.sync(() => markdownDiff(article(i), article(i + 1))))))
  const dir = mkdtempSync(join(tmpdir(), "strata-bench-changes-"))
  rows.push(...await Effect.runPromise(measure("sqlite", layerSqlite({ filename: join(dir, "strata.db"), cacheMaxBytes: 1024 ** 3 }))))
  const postgres = await startPostgres()
  try {
    rows.push(...await Effect.runPromise(measure("pg", layerPg({ url: Redacted.make(postgres.createDatabase("bench")), cacheMaxBytes: 1024 ** 3 }))))
  } finally {
    postgres.stop()
  }
  const table = [
    "| backend | operation | p50 ms | p95 ms |",
    "| --- | --- | ---: | ---: |",
    ...rows.map((row) => `| ${row.backend} | ${row.operation} | ${row.p50.toFixed(3)} | ${row.p95.toFixed(3)} |`)
  ].join("\n")
  const machine = `${cpus().length} cores, load average ${loadavg()[0].toFixed(1)} when it finished`
  console.log(`${table}\n\n${machine}`)
  if (args.includes("--write")) {
    const out = new URL("../results/", import.meta.url)
    mkdirSync(out, { recursive: true })
    writeFileSync(new URL("state-changes.json", out), JSON.stringify({ n, date: new Date().toISOString(), machine, rows }, null, 2) + "\n")
    writeFileSync(new URL("state-changes.md", out), `# changeTracking's cost per scrape (n = ${n})\n\n${table}\n\n${machine}.\n`)
  }
}

await main()
