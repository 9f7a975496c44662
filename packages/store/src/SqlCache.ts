/**
 * The fetch cache in the store's database: entries keyed by the caller's cache key, bounded in
 * bytes, least recently used first out. The byte count lives in `cache_usage`, kept with every put
 * and eviction in the same transaction, so the bound is checked without a scan; a put locks that
 * row before it reads the entry's old size (a no-op update, which Postgres holds to commit and
 * SQLite's `BEGIN IMMEDIATE` already implies), so concurrent puts of one key cannot both count it.
 */
import type { CachedPage, CacheEntry } from "@strata/core"
import { Clock, Effect, Option } from "effect"
import type { SqlClient } from "effect/sql"
import { num, unavailable } from "./SqlRows.ts"

/** What an entry counts against the cache's bound: its body plus the text stored beside it. */
const entrySize = (entry: CacheEntry, text: string): number =>
  entry.body.byteLength + text.length + entry.url.length + entry.finalUrl.length + entry.key.length

const bytesOf = (value: unknown): Uint8Array =>
  value instanceof Uint8Array ? value : typeof value === "string" ? Buffer.from(value, "hex") : new Uint8Array(0)

export const makeCache = (sql: SqlClient.SqlClient, cacheMaxBytes: number) => {
  const cacheGet = Effect.fn("Store.cacheGet")(function*(key: string) {
    const rows = yield* sql<{
      url: string
      final_url: string
      status: unknown
      headers: string
      meta: string
      body: unknown
      fetched_at: unknown
      size: unknown
      last_used: unknown
    }>`SELECT url, final_url, status, headers, meta, body, fetched_at, size, last_used FROM cache_entries WHERE key = ${key}`.pipe(
      Effect.mapError(unavailable("cacheGet"))
    )
    if (rows.length === 0) return Option.none<CachedPage>()
    const row = rows[0]
    return Option.some<CachedPage>({
      key,
      url: row.url,
      finalUrl: row.final_url,
      status: num(row.status),
      headers: JSON.parse(row.headers) as Record<string, string>,
      meta: JSON.parse(row.meta) as Record<string, unknown>,
      body: bytesOf(row.body),
      fetchedAt: num(row.fetched_at),
      size: num(row.size),
      lastUsed: num(row.last_used)
    })
  })

  /** Deletes least recently used entries until at most `maxBytes` remain; runs inside a transaction holding the counter. */
  const evictTo = (maxBytes: number, known?: number) =>
    Effect.gen(function*() {
      let evicted = 0
      let bytes = known ?? num((yield* sql<{ bytes: unknown }>`SELECT bytes FROM cache_usage WHERE id = 1`)[0].bytes)
      while (bytes > maxBytes) {
        const oldest = yield* sql<{ key: string; size: unknown }>`
          SELECT key, size FROM cache_entries ORDER BY last_used, key LIMIT 64`
        if (oldest.length === 0) break
        const victims: Array<string> = []
        let freed = 0
        for (const row of oldest) {
          if (bytes - freed <= maxBytes) break
          victims.push(row.key)
          freed += num(row.size)
        }
        yield* sql`DELETE FROM cache_entries WHERE ${sql.in("key", victims)}`
        yield* sql`UPDATE cache_usage SET bytes = bytes - ${freed} WHERE id = 1`
        bytes -= freed
        evicted += victims.length
      }
      return evicted
    })

  /** Takes the byte counter's row lock (a no-op update) so that puts and evictions run one at a time. */
  const lockCounter = sql`UPDATE cache_usage SET bytes = bytes WHERE id = 1`

  const cachePut = Effect.fn("Store.cachePut")(function*(entry: CacheEntry) {
    const now = yield* Clock.currentTimeMillis
    const headers = JSON.stringify(entry.headers)
    const meta = JSON.stringify(entry.meta ?? {})
    const size = entrySize(entry, headers + meta)
    yield* sql.withTransaction(Effect.gen(function*() {
      yield* lockCounter
      const previous = yield* sql<{ size: unknown }>`SELECT size FROM cache_entries WHERE key = ${entry.key}`
      yield* sql`
        INSERT INTO cache_entries (key, url, final_url, status, headers, meta, body, fetched_at, size, last_used)
        VALUES (${entry.key}, ${entry.url}, ${entry.finalUrl}, ${entry.status}, ${headers}, ${meta}, ${entry.body},
          ${entry.fetchedAt}, ${size}, ${now})
        ON CONFLICT (key) DO UPDATE SET url = excluded.url, final_url = excluded.final_url, status = excluded.status,
          headers = excluded.headers, meta = excluded.meta, body = excluded.body, fetched_at = excluded.fetched_at,
          size = excluded.size, last_used = excluded.last_used`
      const delta = size - (previous.length === 0 ? 0 : num(previous[0].size))
      const usage = yield* sql<{ bytes: unknown }>`UPDATE cache_usage SET bytes = bytes + ${delta} WHERE id = 1 RETURNING bytes`
      const bytes = num(usage[0].bytes)
      if (bytes > cacheMaxBytes) yield* evictTo(cacheMaxBytes, bytes)
    })).pipe(Effect.mapError(unavailable("cachePut")))
  })

  const cacheTouch = Effect.fn("Store.cacheTouch")(function*(key: string) {
    const now = yield* Clock.currentTimeMillis
    yield* sql`UPDATE cache_entries SET last_used = ${now} WHERE key = ${key}`.pipe(Effect.mapError(unavailable("cacheTouch")))
  })

  const cacheEvict = (maxBytes?: number) =>
    sql.withTransaction(Effect.andThen(lockCounter, evictTo(maxBytes ?? cacheMaxBytes))).pipe(
      Effect.mapError(unavailable("cacheEvict")),
      Effect.withSpan("Store.cacheEvict")
    )

  const cacheBytes = sql<{ bytes: unknown }>`SELECT bytes FROM cache_usage WHERE id = 1`.pipe(
    Effect.map((rows) => num(rows[0].bytes)),
    Effect.mapError(unavailable("cacheBytes"))
  )

  return { cacheGet, cachePut, cacheTouch, cacheEvict, cacheBytes }
}
