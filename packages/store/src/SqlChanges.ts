/**
 * `changeTracking`'s snapshots in the store's database: one row per team, normalised URL and tag,
 * holding the last scrape's markdown (and json-mode values). `changeSwap` returns the row as it
 * was and writes the new one in one transaction:
 *
 * - first an `INSERT ... ON CONFLICT DO NOTHING`: a page never seen gets its row, and there was
 *   nothing before it. On Postgres a concurrent first insert of the same key makes this one wait
 *   for it to commit (then it does nothing);
 * - otherwise the row is read `FOR UPDATE` on Postgres (SQLite's `BEGIN IMMEDIATE` already runs
 *   writers one at a time) and updated, so two scrapes of one key are ordered: the second sees
 *   what the first wrote, and a row never mixes the two.
 *
 * A removed page (404/410) keeps the content it had: only its status, flag and time change.
 * `changePeek` reads the row without a lock: json mode uses it to skip extracting values again
 * from a page whose markdown has not changed.
 */
import type { ChangeKey, PageSnapshot } from "@strata/core"
import { Effect, Option } from "effect"
import type { SqlClient } from "effect/sql"
import { num, unavailable } from "./SqlRows.ts"

interface SnapshotRow {
  readonly markdown: string
  readonly json: string | null
  readonly status: unknown
  readonly removed: unknown
  readonly scraped_at: unknown
}

/** The stored json-mode values, or none when the text is missing or not what was written. */
const jsonOf = (text: string | null): PageSnapshot["json"] => {
  if (text === null) return undefined
  try {
    const parsed = JSON.parse(text) as { schemaKey?: unknown; values?: unknown; by?: unknown }
    if (typeof parsed.schemaKey !== "string") return undefined
    return { schemaKey: parsed.schemaKey, values: parsed.values ?? null, ...(typeof parsed.by === "string" ? { by: parsed.by } : {}) }
  } catch {
    return undefined
  }
}

const toSnapshot = (row: SnapshotRow): PageSnapshot => ({
  markdown: row.markdown,
  json: jsonOf(row.json),
  status: num(row.status),
  removed: num(row.removed) === 1,
  scrapedAt: num(row.scraped_at)
})

export const makeChanges = (sql: SqlClient.SqlClient) => {
  const forUpdate = sql.onDialectOrElse({ pg: () => " FOR UPDATE", orElse: () => "" })

  const changeSwap = Effect.fn("Store.changeSwap")(function*(key: ChangeKey, next: PageSnapshot) {
    const scrapedAt = Math.round(next.scrapedAt)
    const json = next.json === undefined
      ? null
      : JSON.stringify({ schemaKey: next.json.schemaKey, values: next.json.values ?? null, by: next.json.by })
    const markdown = next.removed ? "" : next.markdown
    return yield* sql.withTransaction(Effect.gen(function*() {
      const inserted = yield* sql<{ tag: string }>`
        INSERT INTO change_snapshots (team_id, url, tag, markdown, json, status, removed, scraped_at)
        VALUES (${key.teamId}, ${key.url}, ${key.tag}, ${markdown}, ${next.removed ? null : json}, ${next.status},
          ${next.removed ? 1 : 0}, ${scrapedAt})
        ON CONFLICT (team_id, url, tag) DO NOTHING RETURNING tag`
      if (inserted.length > 0) return Option.none<PageSnapshot>()
      const rows = yield* sql<SnapshotRow>`
        SELECT markdown, json, status, removed, scraped_at FROM change_snapshots
        WHERE team_id = ${key.teamId} AND url = ${key.url} AND tag = ${key.tag}${sql.literal(forUpdate)}`
      if (next.removed) {
        yield* sql`UPDATE change_snapshots SET status = ${next.status}, removed = 1, scraped_at = ${scrapedAt}
          WHERE team_id = ${key.teamId} AND url = ${key.url} AND tag = ${key.tag}`
      } else {
        yield* sql`UPDATE change_snapshots SET markdown = ${markdown}, json = ${json}, status = ${next.status}, removed = 0,
          scraped_at = ${scrapedAt} WHERE team_id = ${key.teamId} AND url = ${key.url} AND tag = ${key.tag}`
      }
      return rows.length === 0 ? Option.none<PageSnapshot>() : Option.some(toSnapshot(rows[0]))
    })).pipe(Effect.mapError(unavailable("changeSwap")))
  })

  const changePeek = Effect.fn("Store.changePeek")(function*(key: ChangeKey) {
    const rows = yield* sql<SnapshotRow>`
      SELECT markdown, json, status, removed, scraped_at FROM change_snapshots
      WHERE team_id = ${key.teamId} AND url = ${key.url} AND tag = ${key.tag}`.pipe(Effect.mapError(unavailable("changePeek")))
    return rows.length === 0 ? Option.none<PageSnapshot>() : Option.some(toSnapshot(rows[0]))
  })

  return { changeSwap, changePeek }
}
