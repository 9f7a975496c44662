/**
 * What the replica tests share (Replica.test.ts, SlotJobs.test.ts): a throwaway Postgres for the
 * file, a replica's services on a fresh database of it (the queued parse, `ParseJobs`, the pg-boss
 * queue, and the SQL client a test reads through), an upload and its options, and a worker in the
 * test's own process whose handler decides what each attempt does with its row.
 */
import { PgClient } from "@effect/sql-pg"
import { JobQueue, type ParseOptions } from "@strata/core"
import { Effect, Layer, type Redacted, Redacted as R, Schema } from "effect"
import { Reactivity } from "effect/reactivity"
import { afterAll, beforeAll } from "vitest"
import { startPostgres, type TempPostgres } from "../../../store/test/support/TempPostgres.ts"
import { FLEET_QUEUE, layer, ParseJob, ParseJobs, queuedParseLayer } from "../../src/index.ts"
import { make as makeParseJobs } from "../../src/ParseJobs.ts"

/** Starts a Postgres for the test file (stopped after it); `database` makes a fresh database on it. */
export const usePostgres = (prefix: string) => {
  let postgres: TempPostgres | undefined
  let databases = 0
  beforeAll(async () => {
    postgres = await startPostgres()
  }, 120_000)
  afterAll(() => postgres?.stop())
  return { database: (): Redacted.Redacted => R.make(postgres!.createDatabase(`${prefix}${process.pid}_${++databases}`)) }
}

/** An upload the replica takes (its page count is the test's), and options with room to wait. */
export const file = { bytes: new Uint8Array(Buffer.from("%PDF-1.7\n")), fileName: "long.pdf", contentType: "application/pdf" }
export const options = { formats: ["markdown"], timeout: 20_000 } as unknown as ParseOptions

/** A replica's queued parse (documents over 5 pages; `pages` is every upload's count), with `ParseJobs`, the queue and the SQL client. */
export const replicaServices = (url: Redacted.Redacted, pages: number | undefined) => {
  const sql = PgClient.layer({ url, maxConnections: 2 }).pipe(Layer.provide(Reactivity.layer))
  const jobs = Layer.effect(ParseJobs, Effect.flatMap(PgClient.PgClient, makeParseJobs)).pipe(Layer.provideMerge(sql))
  return queuedParseLayer({ pagesAbove: 5, countPages: () => Effect.succeed(pages) }).pipe(
    Layer.provideMerge(Layer.merge(jobs, layer({ url })))
  )
}

/** A worker in this process, one slot: `answer` decides what each attempt does with its row. */
export const work = (answer: (id: string, attempt: number) => Effect.Effect<void, unknown, ParseJobs>) =>
  Effect.gen(function*() {
    const queue = yield* JobQueue
    const jobs = yield* ParseJobs
    yield* queue.work(FLEET_QUEUE, { slots: 1 }, (job) =>
      Effect.flatMap(Schema.decodeUnknownEffect(ParseJob)(job.data), ({ parseJob }) =>
        answer(parseJob, job.attempt).pipe(Effect.provideService(ParseJobs, jobs))))
  })

/** The ids of the parse rows the replica has put (and not yet removed). */
export const parseRows = Effect.flatMap(PgClient.PgClient, (sql) => sql<{ id: string }>`SELECT id FROM fleet_parse_jobs`)

/** The one parse row's id, once the replica has put it. */
export const parseRow = Effect.gen(function*() {
  while (true) {
    const found = yield* parseRows
    if (found.length > 0) return found[0]!.id
    yield* Effect.sleep("20 millis")
  }
})
