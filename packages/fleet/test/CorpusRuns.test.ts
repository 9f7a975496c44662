/**
 * Corpus runs on a real, throwaway Postgres: recording a run twice adds nothing and reports what
 * is done; a failed item goes back to the queue in a new round when the run is recorded again; a
 * result stored twice is counted (and shown as a double write); progress counts states, rate and
 * ETA; two layers starting at once on one database both create the tables without a fight.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Option, Redacted } from "effect"
import { afterAll, beforeAll } from "vitest"
import { startPostgres, type TempPostgres } from "../../store/test/support/TempPostgres.ts"
import { CorpusRuns, runsLayer, type RunSpec } from "../src/index.ts"

let postgres: TempPostgres
let databases = 0
beforeAll(async () => {
  postgres = await startPostgres()
}, 120_000)
afterAll(() => postgres?.stop())

const fresh = () => runsLayer({ url: Redacted.make(postgres.createDatabase(`r${process.pid}_${++databases}`)) })
const spec: RunSpec = { id: "run-a", outDir: "/out", options: { formats: ["markdown"] }, json: true, formats: ["markdown"] }

describe("CorpusRuns", () => {
  it.live("records a run once, resumes it, and sends failed items again in a new round", () =>
    Effect.gen(function*() {
      const runs = yield* CorpusRuns
      const first = yield* runs.record(spec, ["a.pdf", "b.pdf", "c.pdf"])
      assert.strictEqual(first.total, 3)
      assert.strictEqual(first.done, 0)
      assert.deepStrictEqual(first.pending.map((p) => [p.path, p.round, p.state]), [["a.pdf", 0, "queued"], ["b.pdf", 0, "queued"], ["c.pdf", 0, "queued"]])
      assert.deepStrictEqual(Option.getOrThrow(yield* runs.spec("run-a")), spec)

      yield* runs.started("run-a", "a.pdf", 1)
      yield* runs.finished("run-a", "a.pdf", "key-a")
      yield* runs.started("run-a", "b.pdf", 3)
      yield* runs.failed("run-a", "b.pdf", "Corrupt: not a PDF", true)
      yield* runs.started("run-a", "c.pdf", 1)
      assert.deepStrictEqual(yield* runs.running("run-a"), [{ path: "c.pdf", round: 0 }])

      // The same run again, with one more document: done stays done, failed goes round 1, new is round 0.
      const again = yield* runs.record(spec, ["a.pdf", "b.pdf", "c.pdf", "d.pdf"])
      assert.strictEqual(again.total, 4)
      assert.strictEqual(again.done, 1)
      assert.deepStrictEqual(again.pending.map((p) => [p.path, p.round, p.state]), [["b.pdf", 1, "queued"], ["c.pdf", 0, "running"], ["d.pdf", 0, "queued"]])
      // A running item whose worker died is sent again by hand: a new round.
      assert.deepStrictEqual(yield* runs.requeue("run-a", "c.pdf"), { path: "c.pdf", round: 1 })
      // A finished item is not touched by a late failure report.
      yield* runs.failed("run-a", "a.pdf", "late", true)
      const p = Option.getOrThrow(yield* runs.progress("run-a"))
      assert.strictEqual(p.done, 1)
      assert.strictEqual(p.failed, 0)
      assert.strictEqual(p.queued, 3)
      assert.isTrue(Option.isNone(yield* runs.progress("no-such-run")))
    }).pipe(Effect.provide(fresh())))

  it.live("counts results stored twice, and reads progress with rate and ETA", () =>
    Effect.gen(function*() {
      const runs = yield* CorpusRuns
      yield* runs.record(spec, ["a.pdf", "b.pdf", "c.pdf", "d.pdf"])
      assert.strictEqual(yield* runs.saveResult("key-a", "run-a", "a.pdf"), 1)
      assert.strictEqual(yield* runs.saveResult("key-a", "run-a", "a.pdf"), 2)
      assert.deepStrictEqual(Option.getOrThrow(yield* runs.result("key-a")), { runId: "run-a", path: "a.pdf" })
      assert.isTrue(Option.isNone(yield* runs.result("key-none")))
      for (const path of ["a.pdf", "b.pdf"]) yield* runs.started("run-a", path, 1)
      yield* Effect.sleep("200 millis")
      for (const path of ["a.pdf", "b.pdf"]) yield* runs.finished("run-a", path, `key-${path}`)
      yield* runs.started("run-a", "c.pdf", 3)
      yield* runs.failed("run-a", "c.pdf", "Timeout: the attempt ran past its deadline", true)
      const p = Option.getOrThrow(yield* runs.progress("run-a"))
      assert.strictEqual(p.total, 4)
      assert.strictEqual(p.done, 2)
      assert.strictEqual(p.failed, 1)
      assert.strictEqual(p.queued, 1)
      assert.strictEqual(p.doubleWrites, 1)
      assert.deepStrictEqual(p.failures, [{ path: "c.pdf", attempts: 3, error: "Timeout: the attempt ran past its deadline" }])
      // Two documents in about 0.2 s: some documents a second, and the one left takes about half that.
      assert.isAbove(p.throughput ?? 0, 0)
      assert.isAbove(p.etaMs ?? 0, 0)
    }).pipe(Effect.provide(fresh())))

  it.live("two layers starting at once on one database both come up", () =>
    Effect.gen(function*() {
      const url = Redacted.make(postgres.createDatabase(`r${process.pid}_${++databases}`))
      const open = Effect.gen(function*() {
        const runs = yield* CorpusRuns
        return (yield* runs.record({ ...spec, id: "shared" }, ["a.pdf"])).total
      }).pipe(Effect.provide(runsLayer({ url })))
      assert.deepStrictEqual(yield* Effect.all([open, open], { concurrency: 2 }), [1, 1])
    }))
})
