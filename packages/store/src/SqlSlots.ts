/**
 * Concurrency slots in the store's database: a per-team semaphore with a first-in-first-out queue
 * that every server process on the database shares. A row per request (`concurrency_slots`) is
 * either `waiting` (in the queue since `queued_at`) or `running`; each row expires unless asked
 * about again (a waiting request polls, a running one renews), so a process that dies frees its
 * slots and places by itself.
 *
 * Every call is one transaction holding the team's row in `concurrency_locks` (`FOR UPDATE` on
 * Postgres; SQLite's transactions are `BEGIN IMMEDIATE`), so two processes never both take the
 * last slot. A waiting request takes a slot when one is free and fewer requests queued before it
 * than there are free slots: with one slot free, only the head of the queue may take it. The queue
 * is ordered by the millisecond a request first asked, then by lease id.
 *
 * A fleet's replica hands a held slot to the job that reads its document (`bindSlot`, on
 * Postgres): in the transaction that inserts the job, the row becomes `job`, naming the job. Such
 * a row has no lease; it counts while its job is waiting, waiting to be retried or running, and is
 * dropped by the next take of its team once the job has ended (completed, failed for good or
 * cancelled), so a replica that dies, stalls or stops waiting can neither free a slot a worker is
 * still using nor leave one taken. The job's state is read from the queue's own table (pg-boss's
 * `pgboss.job`), named in the row.
 */
import type { SlotClaim, SlotJob, SlotState, SqlExecutor } from "@strata/core"
import { Clock, Effect } from "effect"
import { type SqlClient, SqlError } from "effect/sql"

export const defaultLeaseMs = 30_000
export const defaultWaitMs = 5_000

/** A job table's name as a row may give it: `schema.table`, plain identifiers only (it is spliced into SQL). */
const JOB_TABLE = /^[a-z_][a-z0-9_]{0,62}\.[a-z_][a-z0-9_]{0,62}$/

/** Job states in which a job still holds its slot (pg-boss's: not yet completed, cancelled or failed). */
const LIVE_STATES = "('created', 'retry', 'active')"

export const makeSlots = (sql: SqlClient.SqlClient) => {
  const isPg = sql.onDialectOrElse({ pg: () => true, orElse: () => false })
  const forUpdate = isPg ? sql.literal("FOR UPDATE") : sql.literal("")

  /** Takes the team's lock for the rest of the transaction. */
  const lockTeam = (teamId: string) =>
    Effect.andThen(
      sql`INSERT INTO concurrency_locks (team_id) VALUES (${teamId}) ON CONFLICT (team_id) DO NOTHING`,
      sql`SELECT team_id FROM concurrency_locks WHERE team_id = ${teamId} ${forUpdate}`
    )

  /** Drops the team's expired rows, and its job rows whose job has ended (or whose table is gone). */
  const sweep = (teamId: string, now: number) =>
    Effect.gen(function*() {
      yield* sql`DELETE FROM concurrency_slots WHERE team_id = ${teamId} AND expires_at < ${now}`
      if (!isPg) return
      const tables = yield* sql<{ job_table: string }>`
        SELECT DISTINCT job_table FROM concurrency_slots WHERE team_id = ${teamId} AND state = 'job'`
      for (const { job_table: table } of tables) {
        const present = JOB_TABLE.test(table)
          ? (yield* sql<{ present: boolean }>`SELECT to_regclass(${table}) IS NOT NULL AS present`)[0]?.present === true
          : false
        yield* present
          ? sql`DELETE FROM concurrency_slots s WHERE s.team_id = ${teamId} AND s.state = 'job' AND s.job_table = ${table}
              AND NOT EXISTS (SELECT 1 FROM ${sql.literal(table)} j
                WHERE j.name = s.job_queue AND j.id = s.job_id::uuid AND j.state::text IN ${sql.literal(LIVE_STATES)})`
          : sql`DELETE FROM concurrency_slots WHERE team_id = ${teamId} AND state = 'job' AND job_table = ${table}`
      }
    })

  const acquireSlot = (claim: SlotClaim) =>
    Effect.gen(function*() {
      const now = yield* Clock.currentTimeMillis
      const { leaseId, limit, teamId } = claim
      const leaseUntil = now + (claim.leaseMs ?? defaultLeaseMs)
      const waitUntil = now + (claim.waitMs ?? defaultWaitMs)
      return yield* sql.withTransaction(Effect.gen(function*() {
        yield* lockTeam(teamId)
        yield* sweep(teamId, now)
        const mine = yield* sql<{ state: string; queued_at: unknown }>`
          SELECT state, queued_at FROM concurrency_slots WHERE lease_id = ${leaseId}`
        if (mine[0]?.state === "running") {
          yield* sql`UPDATE concurrency_slots SET expires_at = ${leaseUntil} WHERE lease_id = ${leaseId}`
          return { _tag: "Acquired" } satisfies SlotState
        }
        const queuedAt = mine.length === 0 ? now : Number(mine[0].queued_at)
        if (mine.length === 0) {
          yield* sql`INSERT INTO concurrency_slots (lease_id, team_id, state, queued_at, expires_at)
            VALUES (${leaseId}, ${teamId}, 'waiting', ${queuedAt}, ${waitUntil})`
        }
        const counts = yield* sql<{ running: unknown; ahead: unknown }>`
          SELECT
            (SELECT count(*) FROM concurrency_slots WHERE team_id = ${teamId} AND state IN ('running', 'job')) AS running,
            (SELECT count(*) FROM concurrency_slots WHERE team_id = ${teamId} AND state = 'waiting'
              AND (queued_at < ${queuedAt} OR (queued_at = ${queuedAt} AND lease_id < ${leaseId}))) AS ahead`
        const running = Number(counts[0].running)
        const ahead = Number(counts[0].ahead)
        if (running < limit && ahead < limit - running) {
          yield* sql`UPDATE concurrency_slots SET state = 'running', expires_at = ${leaseUntil} WHERE lease_id = ${leaseId}`
          return { _tag: "Acquired" } satisfies SlotState
        }
        yield* sql`UPDATE concurrency_slots SET expires_at = ${waitUntil} WHERE lease_id = ${leaseId}`
        return { _tag: "Queued", position: ahead + 1 } satisfies SlotState
      }))
    })

  const renewSlot = (leaseId: string, leaseMs?: number) =>
    Effect.gen(function*() {
      const now = yield* Clock.currentTimeMillis
      const rows = yield* sql<{ lease_id: string }>`
        UPDATE concurrency_slots SET expires_at = ${now + (leaseMs ?? defaultLeaseMs)}
        WHERE lease_id = ${leaseId} AND state = 'running' AND expires_at >= ${now} RETURNING lease_id`
      return rows.length > 0
    })

  const releaseSlot = (leaseId: string) =>
    Effect.asVoid(sql`DELETE FROM concurrency_slots WHERE lease_id = ${leaseId} AND state <> 'job'`)

  const bindSlot = (leaseId: string, job: SlotJob, enqueue: (db: SqlExecutor) => Promise<void>) =>
    Effect.gen(function*() {
      if (!isPg) return yield* Effect.fail(failed("a slot can be handed to a job only on Postgres"))
      if (!JOB_TABLE.test(job.table)) return yield* Effect.fail(failed(`job table ${JSON.stringify(job.table)} is not schema.table`))
      const now = yield* Clock.currentTimeMillis
      return yield* sql.withTransaction(Effect.gen(function*() {
        const held = yield* sql<{ team_id: string }>`
          SELECT team_id FROM concurrency_slots WHERE lease_id = ${leaseId} AND state = 'running' AND expires_at >= ${now}`
        if (held.length === 0) return false
        yield* lockTeam(held[0].team_id)
        const bound = yield* sql<{ lease_id: string }>`
          UPDATE concurrency_slots SET state = 'job', job_table = ${job.table}, job_queue = ${job.queue}, job_id = ${job.id},
            expires_at = ${job.holdUntil}
          WHERE lease_id = ${leaseId} AND state = 'running' AND expires_at >= ${now} RETURNING lease_id`
        if (bound.length === 0) return false
        // The job goes in through this transaction: if its insert fails, the slot stays a lease.
        const context = yield* Effect.context<never>()
        const db: SqlExecutor = {
          executeSql: (text, values) =>
            Effect.runPromiseWith(context)(Effect.map(sql.unsafe(text, values ?? []), (rows) => ({ rows: rows as Array<any> })))
        }
        yield* Effect.tryPromise({ try: () => enqueue(db), catch: (cause) => failed(cause instanceof Error ? cause.message : String(cause), cause) })
        return true
      }))
    })

  return { acquireSlot, renewSlot, releaseSlot, bindSlot }
}

const failed = (message: string, cause?: unknown) =>
  new SqlError.SqlError({ reason: new SqlError.UnknownError({ cause, message }) })

/** Deletes slots and places that expired (a team that never asks again would keep them). */
export const purgeSlots = (sql: SqlClient.SqlClient) =>
  Effect.flatMap(Clock.currentTimeMillis, (now) => sql`DELETE FROM concurrency_slots WHERE expires_at < ${now}`)
