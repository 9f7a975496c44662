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
 */
import type { SlotClaim, SlotState } from "@strata/core"
import { Clock, Effect } from "effect"
import type { SqlClient } from "effect/sql"

export const defaultLeaseMs = 30_000
export const defaultWaitMs = 5_000

export const makeSlots = (sql: SqlClient.SqlClient) => {
  const forUpdate = sql.onDialectOrElse({ pg: () => sql.literal("FOR UPDATE"), orElse: () => sql.literal("") })

  const acquireSlot = (claim: SlotClaim) =>
    Effect.gen(function*() {
      const now = yield* Clock.currentTimeMillis
      const { leaseId, limit, teamId } = claim
      const leaseUntil = now + (claim.leaseMs ?? defaultLeaseMs)
      const waitUntil = now + (claim.waitMs ?? defaultWaitMs)
      return yield* sql.withTransaction(Effect.gen(function*() {
        yield* sql`INSERT INTO concurrency_locks (team_id) VALUES (${teamId}) ON CONFLICT (team_id) DO NOTHING`
        yield* sql`SELECT team_id FROM concurrency_locks WHERE team_id = ${teamId} ${forUpdate}`
        yield* sql`DELETE FROM concurrency_slots WHERE team_id = ${teamId} AND expires_at < ${now}`
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
            (SELECT count(*) FROM concurrency_slots WHERE team_id = ${teamId} AND state = 'running') AS running,
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

  const releaseSlot = (leaseId: string) => Effect.asVoid(sql`DELETE FROM concurrency_slots WHERE lease_id = ${leaseId}`)

  return { acquireSlot, renewSlot, releaseSlot }
}

/** Deletes slots and places that expired (a team that never asks again would keep them). */
export const purgeSlots = (sql: SqlClient.SqlClient) =>
  Effect.flatMap(Clock.currentTimeMillis, (now) => sql`DELETE FROM concurrency_slots WHERE expires_at < ${now}`)
