/**
 * effect's `RateLimiterStore` kept in the store's database, so that server replicas on one
 * Postgres count one team's requests together (effect ships an in-memory store and a Redis one;
 * the memory one is right for a single SQLite process). Each take is one transaction that locks
 * the key's row (`FOR UPDATE` on Postgres; SQLite's transactions are `BEGIN IMMEDIATE` already),
 * then does what effect's memory store does, so both count alike:
 *
 * - fixed window: a counter and the time its tokens have all drained (`expires_at`); each token
 *   pushes that time on by the refill interval, and a take past the limit changes nothing;
 * - token bucket: the tokens left and when the bucket was last refilled.
 *
 * Adaptive limiting (learning a remote server's limits from its 429s) is for clients of other
 * services, not for a server's own limits: it is left inactive here.
 */
import { Clock, Duration, Effect } from "effect"
import { RateLimiter } from "effect/persistence"
import type { SqlClient, SqlError } from "effect/sql"

const storeError = (error: SqlError.SqlError) =>
  new RateLimiter.RateLimiterError({
    reason: new RateLimiter.RateLimitStoreError({ message: `Rate limit store: ${error.message}`, cause: error })
  })

/** How long a key idle past its window is kept before the sweep deletes it. */
export const rateLimitIdleMs = 3600_000

export const makeRateLimiterStore = (sql: SqlClient.SqlClient): RateLimiter.RateLimiterStore["Service"] => {
  const forUpdate = sql.onDialectOrElse({ pg: () => sql.literal("FOR UPDATE"), orElse: () => sql.literal("") })

  const fixedWindow = (options: {
    readonly key: string
    readonly tokens: number
    readonly refillRate: Duration.Duration
    readonly limit: number | undefined
  }) =>
    Effect.gen(function*() {
      const now = yield* Clock.currentTimeMillis
      const refillMs = Duration.toMillis(options.refillRate)
      return yield* sql.withTransaction(Effect.gen(function*() {
        yield* sql`INSERT INTO rate_windows (key, count, expires_at) VALUES (${options.key}, 0, ${now}) ON CONFLICT (key) DO NOTHING`
        const rows = yield* sql<{ count: unknown; expires_at: unknown }>`
          SELECT count, expires_at FROM rate_windows WHERE key = ${options.key} ${forUpdate}`
        let count = Number(rows[0].count)
        let expiresAt = Number(rows[0].expires_at)
        if (expiresAt <= now) {
          count = 0
          expiresAt = now
        }
        if (options.limit !== undefined && count + options.tokens > options.limit) {
          return [count + options.tokens, expiresAt - now] as const
        }
        count += options.tokens
        expiresAt += refillMs * options.tokens
        yield* sql`UPDATE rate_windows SET count = ${count}, expires_at = ${expiresAt} WHERE key = ${options.key}`
        return [count, expiresAt - now] as const
      }))
    }).pipe(Effect.mapError(storeError))

  const tokenBucket = (options: {
    readonly key: string
    readonly tokens: number
    readonly limit: number
    readonly refillRate: Duration.Duration
    readonly allowOverflow: boolean
  }) =>
    Effect.gen(function*() {
      const now = yield* Clock.currentTimeMillis
      const refillMs = Duration.toMillis(options.refillRate)
      return yield* sql.withTransaction(Effect.gen(function*() {
        yield* sql`INSERT INTO rate_buckets (key, tokens, last_refill) VALUES (${options.key}, ${options.limit}, ${now})
          ON CONFLICT (key) DO NOTHING`
        const rows = yield* sql<{ tokens: unknown; last_refill: unknown }>`
          SELECT tokens, last_refill FROM rate_buckets WHERE key = ${options.key} ${forUpdate}`
        let tokens = Number(rows[0].tokens)
        let lastRefill = Number(rows[0].last_refill)
        const refills = Math.floor((now - lastRefill) / refillMs)
        if (refills > 0) {
          tokens = Math.min(options.limit, tokens + refills)
          lastRefill += refills * refillMs
        }
        if (tokens >= options.limit) lastRefill = now
        const left = tokens - options.tokens
        if (options.allowOverflow || left >= 0) tokens = left
        yield* sql`UPDATE rate_buckets SET tokens = ${tokens}, last_refill = ${lastRefill} WHERE key = ${options.key}`
        return [left, Math.max(0, now - lastRefill)] as const
      }))
    }).pipe(Effect.mapError(storeError))

  return RateLimiter.RateLimiterStore.of({
    fixedWindow,
    tokenBucket,
    adaptiveConsume: () => Effect.succeed({ delay: Duration.zero, epoch: 0, phase: "inactive" as const }),
    adaptiveFeedback: () => Effect.void
  })
}

/** Deletes keys whose window drained, or whose bucket was last touched, more than `rateLimitIdleMs` ago. */
export const purgeRateLimits = (sql: SqlClient.SqlClient) =>
  Effect.gen(function*() {
    const before = (yield* Clock.currentTimeMillis) - rateLimitIdleMs
    yield* sql`DELETE FROM rate_windows WHERE expires_at < ${before}`
    yield* sql`DELETE FROM rate_buckets WHERE last_refill < ${before}`
  })
