/**
 * Core's `InteractRecords` in the store's database (migration 7): scrape records that outlive the
 * process, and leases every server process on the database sees. A lease is one row per name;
 * taking it is one upsert that only overwrites a row of the same holder or one that lapsed, so
 * two processes never both hold it (Postgres's `ON CONFLICT` locks the row; SQLite writes one at
 * a time). Replays are sealed (RecordSeal.ts) with the key `sealer` gives, asked for on first use.
 */
import { type InteractRecord, type InteractRecordsService, type LeaseClaim, RecordUnreadable, type StoreError } from "@strata/core"
import { Clock, Effect, Option } from "effect"
import type { SqlClient } from "effect/sql"
import type { Sealer } from "./RecordSeal.ts"
import { num, unavailable } from "./SqlRows.ts"

interface RecordRow {
  readonly scrape_id: string
  readonly key_id: string
  readonly team_id: string
  readonly replay: string | null
  readonly created_at: unknown
  readonly expires_at: unknown
}

/** What a sealed replay is bound to: moved to another row, it does not open. */
const contextOf = (record: Pick<InteractRecord, "scrapeId" | "keyId" | "teamId">) => `${record.scrapeId}\n${record.keyId}\n${record.teamId}`

export const makeInteractRecords = (sql: SqlClient.SqlClient, sealer: Effect.Effect<Sealer, StoreError>): InteractRecordsService => {
  const put = Effect.fn("InteractRecords.put")(function*(record: InteractRecord) {
    const replay = record.replay === undefined ? null : (yield* sealer).seal(record.replay, contextOf(record))
    yield* sql`INSERT INTO interact_records (scrape_id, key_id, team_id, replay, created_at, expires_at)
      VALUES (${record.scrapeId}, ${record.keyId}, ${record.teamId}, ${replay}, ${record.createdAt}, ${record.expiresAt})
      ON CONFLICT (scrape_id) DO UPDATE SET key_id = excluded.key_id, team_id = excluded.team_id, replay = excluded.replay,
        created_at = excluded.created_at, expires_at = excluded.expires_at`.pipe(Effect.mapError(unavailable("interactPut")))
  })

  const get = Effect.fn("InteractRecords.get")(function*(scrapeId: string) {
    const now = yield* Clock.currentTimeMillis
    const rows = yield* sql<RecordRow>`SELECT scrape_id, key_id, team_id, replay, created_at, expires_at FROM interact_records
      WHERE scrape_id = ${scrapeId} AND expires_at > ${now}`.pipe(Effect.mapError(unavailable("interactGet")))
    const row = rows[0]
    if (row === undefined) return Option.none<InteractRecord>()
    const record = { scrapeId: row.scrape_id, keyId: row.key_id, teamId: row.team_id, createdAt: num(row.created_at), expiresAt: num(row.expires_at) }
    if (row.replay === null) return Option.some<InteractRecord>({ ...record, replay: undefined })
    const replay = (yield* sealer).open(row.replay, contextOf(record))
    if (replay === undefined) {
      return yield* new RecordUnreadable({
        scrapeId,
        message: `The record of scrape ${scrapeId} cannot be opened by this server: it was sealed with another key. Every server sharing this database needs the same STRATA_ARTIFACT_SECRET.`
      })
    }
    return Option.some<InteractRecord>({ ...record, replay })
  })

  const remove = (scrapeId: string) =>
    sql`DELETE FROM interact_records WHERE scrape_id = ${scrapeId}`.pipe(
      Effect.asVoid,
      Effect.mapError(unavailable("interactRemove")),
      Effect.withSpan("InteractRecords.remove")
    )

  const sweep = Effect.fn("InteractRecords.sweep")(function*(maxRecords: number) {
    const now = yield* Clock.currentTimeMillis
    return yield* sql.withTransaction(Effect.gen(function*() {
      yield* sql`DELETE FROM interact_leases WHERE expires_at <= ${now}`
      const expired = yield* sql<{ scrape_id: string }>`DELETE FROM interact_records WHERE expires_at <= ${now} RETURNING scrape_id`
      // The newest `maxRecords` stay (ties at the boundary too); a record with a live session stays whatever its age.
      const boundary = yield* sql<{ created_at: unknown }>`SELECT created_at FROM interact_records
        ORDER BY created_at DESC LIMIT 1 OFFSET ${Math.max(0, Math.floor(maxRecords) - 1)}`
      if (boundary[0] === undefined) return expired.length
      const trimmed = yield* sql<{ scrape_id: string }>`DELETE FROM interact_records WHERE created_at < ${num(boundary[0].created_at)}
        AND NOT EXISTS (SELECT 1 FROM interact_leases WHERE interact_leases.name = 'session:' || interact_records.scrape_id)
        RETURNING scrape_id`
      return expired.length + trimmed.length
    })).pipe(Effect.mapError(unavailable("interactSweep")))
  })

  const takeOnce = (name: string, holder: string, ttlMs: number) =>
    Effect.gen(function*() {
      const now = yield* Clock.currentTimeMillis
      const taken = yield* sql<{ holder: string }>`INSERT INTO interact_leases (name, holder, expires_at) VALUES (${name}, ${holder}, ${now + ttlMs})
        ON CONFLICT (name) DO UPDATE SET holder = excluded.holder, expires_at = excluded.expires_at
        WHERE interact_leases.holder = excluded.holder OR interact_leases.expires_at <= ${now}
        RETURNING holder`
      if (taken.length > 0) return Option.some<LeaseClaim>({ _tag: "Taken" })
      const rows = yield* sql<{ holder: string; expires_at: unknown }>`SELECT holder, expires_at FROM interact_leases WHERE name = ${name}`
      // Released between the two statements: ask again.
      return rows[0] === undefined ? Option.none<LeaseClaim>() : Option.some<LeaseClaim>({ _tag: "Held", holder: rows[0].holder, expiresAt: num(rows[0].expires_at) })
    })

  const takeLease = Effect.fn("InteractRecords.takeLease")(function*(name: string, holder: string, ttlMs: number) {
    for (let attempt = 0; attempt < 3; attempt++) {
      const claim = yield* takeOnce(name, holder, ttlMs).pipe(Effect.mapError(unavailable("takeLease")))
      if (Option.isSome(claim)) return claim.value
    }
    return yield* Effect.die(new Error(`The lease ${name} changed hands three times in a row`))
  })

  const releaseLease = (name: string, holder: string) =>
    sql`DELETE FROM interact_leases WHERE name = ${name} AND holder = ${holder}`.pipe(
      Effect.asVoid,
      Effect.mapError(unavailable("releaseLease")),
      Effect.withSpan("InteractRecords.releaseLease")
    )

  const leaseHolder = Effect.fn("InteractRecords.leaseHolder")(function*(name: string) {
    const now = yield* Clock.currentTimeMillis
    const rows = yield* sql<{ holder: string; expires_at: unknown }>`SELECT holder, expires_at FROM interact_leases
      WHERE name = ${name} AND expires_at > ${now}`.pipe(Effect.mapError(unavailable("leaseHolder")))
    return rows[0] === undefined ? Option.none() : Option.some({ holder: rows[0].holder, expiresAt: num(rows[0].expires_at) })
  })

  return { put, get, remove, sweep, takeLease, releaseLease, leaseHolder }
}
