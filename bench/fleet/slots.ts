/**
 * What a team's concurrency slot costs on Postgres, now that a slot can be handed to a queued job
 * (`Store.bindSlot`, issue 19): the wall time of one take of a free slot, as a team with no job
 * rows and as one whose other slots are held by live pg-boss jobs (each take then reads their
 * state in pg-boss's job table); a take refused (the team full); the release; and the hand-over
 * itself, a transaction that turns the lease into the job's and inserts the `fleet_parse_jobs` row
 * and the pg-boss job through it, against inserting the same row and job without a slot. Medians
 * over `--rounds` rounds of `--ops` operations each, on one connection pool.
 *
 * Postgres is a throwaway server from Debian's binaries on loopback (fsync off), on the same 2
 * shared cores as the bench: upper bounds.
 *
 *   node_modules/.bin/node -C @strata/source bench/fleet/slots.ts [--ops 200] [--rounds 5] [--write]
 */
import { JobQueue, jobIdFor, Priority, Store } from "@strata/core"
import { FLEET_QUEUE, layer as queueLayer, ParseJobs, parseJobsLayer, parseJobKey } from "@strata/fleet"
import { layerPg } from "@strata/store"
import { Effect, Layer, Redacted } from "effect"
import { randomUUID } from "node:crypto"
import { mkdirSync, writeFileSync } from "node:fs"
import { cpus, loadavg } from "node:os"
import { performance } from "node:perf_hooks"
import { startPostgres } from "../../packages/store/test/support/TempPostgres.ts"
import { median } from "../Stats.ts"

const args = process.argv.slice(2)
const option = (name: string): string | undefined => {
  const i = args.indexOf(name)
  return i >= 0 ? args[i + 1] : undefined
}
const ops = Number(option("--ops") ?? 200)
const rounds = Number(option("--rounds") ?? 5)

/** Milliseconds per call of `run`, `ops` calls in sequence. */
const perOp = <E, R>(run: (i: number) => Effect.Effect<unknown, E, R>) =>
  Effect.gen(function*() {
    const t0 = performance.now()
    for (let i = 0; i < ops; i++) yield* run(i)
    return (performance.now() - t0) / ops
  })

const input = (expiresAt: number) => ({
  bytes: new Uint8Array(Buffer.from("%PDF-1.7\n")),
  fileName: "long.pdf",
  contentType: "application/pdf",
  options: { formats: ["markdown"] },
  expiresAt
})

const measure = Effect.gen(function*() {
  const store = yield* Store
  const queue = yield* JobQueue
  const jobs = yield* ParseJobs
  yield* queue.define(FLEET_QUEUE)
  const table = queue.jobTable!
  const results: Record<string, Array<number>> = {
    "take a free slot (no job rows)": [],
    "release it": [],
    "take a free slot (3 slots held by live jobs)": [],
    "take refused (team full)": [],
    "hand a slot to a job: row + job in the slot's transaction": [],
    "the same row + job without a slot (before issue 19's change)": []
  }
  for (let round = 0; round < rounds; round++) {
    const team = `bench${round}`
    const lease = (i: number) => `${team}-${i}`
    results["take a free slot (no job rows)"]!.push(yield* perOp((i) => store.acquireSlot({ teamId: `${team}-a${i}`, leaseId: lease(i), limit: 4 })))
    results["release it"]!.push(yield* perOp((i) => store.releaseSlot(lease(i))))
    // A team with 3 of its 4 slots held by queued jobs: each take reads their state.
    const busy = `${team}-busy`
    for (let j = 0; j < 3; j++) {
      const leaseId = `${busy}-job${j}`
      yield* store.acquireSlot({ teamId: busy, leaseId, limit: 4 })
      const id = randomUUID()
      const job = { table, queue: FLEET_QUEUE, id: jobIdFor(FLEET_QUEUE, parseJobKey(id)), holdUntil: Date.now() + 3_600_000 }
      yield* store.bindSlot(leaseId, job, (db) =>
        Effect.runPromise(Effect.asVoid(Effect.andThen(
          jobs.put(id, input(Date.now() + 600_000), db),
          queue.enqueue(FLEET_QUEUE, [{ key: parseJobKey(id), data: { parseJob: id }, priority: Priority.api }], { db })
        ))))
    }
    results["take a free slot (3 slots held by live jobs)"]!.push(yield* perOp((i) =>
      Effect.andThen(store.acquireSlot({ teamId: busy, leaseId: `${busy}-t${i}`, limit: 4 }), store.releaseSlot(`${busy}-t${i}`))))
    // The release is measured above: take the paired figure less it.
    yield* store.acquireSlot({ teamId: busy, leaseId: `${busy}-last`, limit: 4 })
    results["take refused (team full)"]!.push(yield* perOp((i) => store.acquireSlot({ teamId: busy, leaseId: `${busy}-w${i}`, limit: 4, waitMs: 1 })))
    yield* store.releaseSlot(`${busy}-last`)
    // The hand-over against the plain insert it replaces, each on its own team with a fresh lease.
    const handTeam = `${team}-hand`
    let handed = 0
    for (let i = 0; i < ops; i++) {
      const leaseId = `${handTeam}-${i}`
      yield* store.acquireSlot({ teamId: `${handTeam}-${i}`, leaseId, limit: 1 })
      const id = randomUUID()
      const t0 = performance.now()
      yield* store.bindSlot(leaseId, { table, queue: FLEET_QUEUE, id: jobIdFor(FLEET_QUEUE, parseJobKey(id)), holdUntil: Date.now() + 3_600_000 }, (db) =>
        Effect.runPromise(Effect.asVoid(Effect.andThen(
          jobs.put(id, input(Date.now() + 600_000), db),
          queue.enqueue(FLEET_QUEUE, [{ key: parseJobKey(id), data: { parseJob: id }, priority: Priority.api }], { db })
        ))))
      handed += performance.now() - t0
    }
    results["hand a slot to a job: row + job in the slot's transaction"]!.push(handed / ops)
    results["the same row + job without a slot (before issue 19's change)"]!.push(yield* perOp(() =>
      Effect.gen(function*() {
        const id = randomUUID()
        yield* jobs.put(id, input(Date.now() + 600_000))
        yield* queue.enqueue(FLEET_QUEUE, [{ key: parseJobKey(id), data: { parseJob: id }, priority: Priority.api }])
      })))
  }
  return results
})

const postgres = await startPostgres()
try {
  const load0 = loadavg()
  const url = Redacted.make(postgres.createDatabase("slots_bench"))
  const services = Layer.mergeAll(
    layerPg({ url, cacheMaxBytes: 1 << 20, maxConnections: 4, recordSecret: "a-bench-secret-of-16+" }),
    queueLayer({ url }),
    parseJobsLayer({ url, maxConnections: 2 })
  )
  const results = await Effect.runPromise(Effect.scoped(Effect.provide(measure, services)))
  const load1 = loadavg()
  const rows = Object.entries(results).map(([operation, values]) => ({ operation, ms: median(values), byRound: values }))
  const fmt = (load: Array<number>) => load.map((v) => v.toFixed(2)).join(" / ")
  const md = [
    "# Fleet: a team's concurrency slot on Postgres, and handing it to a job",
    "",
    `${new Date().toISOString()}, ${cpus().length} cores (${cpus()[0]?.model.trim()}), load average ${fmt(load0)} before and ${fmt(load1)} after`,
    "(1 / 5 / 15 min; shared machine, so upper bounds). Postgres is a throwaway Debian server on loopback (fsync off) on the same cores.",
    "`node_modules/.bin/node -C @strata/source bench/fleet/slots.ts --write`",
    "",
    `Milliseconds per operation, median over ${rounds} rounds of ${ops} operations in sequence (one request at a time).`,
    "A take is one transaction under the team's row lock; a team whose slots are held by queued jobs adds one",
    "statement for their tables and one that drops the rows of jobs that ended (pg-boss's job table, by primary key).",
    "The hand-over is the queued parse's insert of its row and job, moved into the slot's transaction.",
    "",
    "| operation | ms (median) | ms by round |",
    "| --- | ---: | --- |",
    ...rows.map((row) => `| ${row.operation} | ${row.ms.toFixed(2)} | ${row.byRound.map((v) => v.toFixed(2)).join(", ")} |`),
    "",
    "\"take a free slot (3 slots held by live jobs)\" is a take and its release together."
  ].join("\n")
  console.log(md)
  if (args.includes("--write")) {
    mkdirSync("bench/results", { recursive: true })
    writeFileSync("bench/results/fleet-slots.md", md + "\n")
    writeFileSync("bench/results/fleet-slots.json", JSON.stringify({ date: new Date().toISOString(), load: [load0, load1], ops, rounds, rows }, null, 2) + "\n")
  }
} finally {
  postgres.stop()
}
