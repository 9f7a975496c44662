/**
 * The `Store` written once over effect's `SqlClient`, for both backends: the statements are plain
 * SQL that SQLite and Postgres read the same (`ON CONFLICT`, `RETURNING`, integers for times and
 * flags). What makes each method safe with several processes on one database:
 *
 * - a charge inserts its ledger row first (the charge id is the primary key, so a second insert of
 *   the same id waits for the first and then does nothing), then takes the credits with a guarded
 *   `UPDATE ... WHERE credits >= amount`; Postgres re-checks that guard against the newest row, so
 *   concurrent charges can neither overdraw nor be lost, and a failed guard rolls the ledger row back;
 * - a cache put locks the byte counter row before touching the entry (SqlCache.ts);
 * - `beginRequest` claims a request id with one `INSERT ... ON CONFLICT DO NOTHING`;
 * - a change-tracking swap reads and replaces its snapshot in one transaction (SqlChanges.ts);
 * - concurrency slots lock their team's row for each take (SqlSlots.ts).
 *
 * On SQLite every transaction begins `IMMEDIATE`, so they run one at a time across processes.
 */
import { Clock, Effect, Option } from "effect"
import type { SqlClient } from "effect/sql"
import type {
  ApiKeyInfo,
  Authenticated,
  Charge,
  RequestClaim,
  RequestState,
  Team,
  TeamSettings
} from "@strata/core"
import { InsufficientCredits, Store, UnknownTeam } from "@strata/core"
import { importedKeyId, lookupOf, newKey, sameHash } from "./KeyFormat.ts"
import { makeCache } from "./SqlCache.ts"
import { makeChanges } from "./SqlChanges.ts"
import { num, optionalNum, unavailable } from "./SqlRows.ts"
import { makeSlots } from "./SqlSlots.ts"
import { makeTerms } from "./SqlTerms.ts"

export interface SqlStoreOptions {
  /** The cache's byte bound: puts evict least recently used entries beyond it. */
  readonly cacheMaxBytes: number
  /** How long a finished request id is remembered for replay (default 7 days). */
  readonly requestRetentionMs?: number
  /** How long past its deadline a claim still counts as running before it is unresolved (default 30 s). */
  readonly requestGraceMs?: number
}

interface TeamRow {
  readonly team_id: string
  readonly credits: unknown
  readonly rate_limit: unknown
  readonly concurrency: unknown
  readonly zdr: unknown
  readonly catalog: unknown
  readonly audit_sink: string | null
  readonly team_created_at: unknown
}

const teamColumns = `t.id AS team_id, t.credits, t.rate_limit, t.concurrency, t.zdr, t.catalog, t.audit_sink,
  t.created_at AS team_created_at`

const toTeam = (row: TeamRow): Team => ({
  id: row.team_id,
  credits: optionalNum(row.credits),
  rateLimit: optionalNum(row.rate_limit),
  concurrency: optionalNum(row.concurrency),
  zdr: num(row.zdr) === 1,
  catalog: num(row.catalog) === 1,
  auditSink: row.audit_sink ?? undefined,
  createdAt: num(row.team_created_at)
})

interface KeyRow {
  readonly id: string
  readonly team_id: string
  readonly created_at: unknown
  readonly revoked_at: unknown
}

const toKey = (row: KeyRow): ApiKeyInfo => ({
  id: row.id,
  teamId: row.team_id,
  createdAt: num(row.created_at),
  revokedAt: optionalNum(row.revoked_at)
})

/** How long a finished request id is remembered when the options do not say: 7 days, as Firecrawl keeps them. */
export const defaultRequestRetentionMs = 7 * 24 * 3600_000

/**
 * Deletes idempotency records older than the retention; returns how many went. `beginRequest`
 * forgets an old record of the id it is given, but ids never reused would stay forever, so the
 * layer runs this at start and every hour.
 */
export const purgeRequests = (sql: SqlClient.SqlClient, retentionMs: number = defaultRequestRetentionMs) =>
  Effect.gen(function*() {
    const now = yield* Clock.currentTimeMillis
    const rows = yield* sql<{ request_id: string }>`DELETE FROM idempotency WHERE created_at < ${now - retentionMs} RETURNING request_id`
    return rows.length
  })

/** The store's methods over a client whose database is migrated. */
export const make = (sql: SqlClient.SqlClient, options: SqlStoreOptions): Store["Service"] => {
  const backend = sql.onDialectOrElse({ pg: () => "pg" as const, orElse: () => "sqlite" as const })
  const retention = options.requestRetentionMs ?? defaultRequestRetentionMs
  const slots = makeSlots(sql)
  const cache = makeCache(sql, options.cacheMaxBytes)
  const terms = makeTerms(sql)
  const changes = makeChanges(sql)
  const grace = options.requestGraceMs ?? 30_000

  const selectTeam = (teamId: string) =>
    Effect.map(
      sql<TeamRow>`SELECT ${sql.literal(teamColumns)} FROM teams t WHERE t.id = ${teamId}`,
      (rows) => rows.length === 0 ? Option.none<Team>() : Option.some(toTeam(rows[0]))
    )

  const requireTeam = (teamId: string) =>
    Effect.flatMap(selectTeam(teamId), Option.match({
      onNone: () => Effect.fail(new UnknownTeam({ teamId })),
      onSome: Effect.succeed
    }))

  const setTeam = Effect.fn("Store.setTeam")(function*(teamId: string, settings: TeamSettings) {
    const now = yield* Clock.currentTimeMillis
    const changes = [
      settings.credits === undefined ? undefined : sql`credits = ${settings.credits}`,
      settings.rateLimit === undefined ? undefined : sql`rate_limit = ${settings.rateLimit}`,
      settings.concurrency === undefined ? undefined : sql`concurrency = ${settings.concurrency}`,
      settings.zdr === undefined ? undefined : sql`zdr = ${settings.zdr ? 1 : 0}`,
      settings.catalog === undefined ? undefined : sql`catalog = ${settings.catalog ? 1 : 0}`,
      settings.auditSink === undefined ? undefined : sql`audit_sink = ${settings.auditSink}`
    ].filter((change) => change !== undefined)
    return yield* sql.withTransaction(Effect.gen(function*() {
      yield* sql`INSERT INTO teams (id, created_at) VALUES (${teamId}, ${now}) ON CONFLICT (id) DO NOTHING`
      if (changes.length > 0) yield* sql`UPDATE teams SET ${sql.csv(changes)} WHERE id = ${teamId}`
      return Option.getOrThrow(yield* selectTeam(teamId))
    })).pipe(Effect.mapError(unavailable("setTeam")))
  })

  const getTeam = (teamId: string) => selectTeam(teamId).pipe(Effect.mapError(unavailable("getTeam")))

  const listTeams = sql<TeamRow>`SELECT ${sql.literal(teamColumns)} FROM teams t ORDER BY t.id`.pipe(
    Effect.map((rows) => rows.map(toTeam)),
    Effect.mapError(unavailable("listTeams"))
  )

  const createKey = Effect.fn("Store.createKey")(function*(teamId: string) {
    yield* requireTeam(teamId).pipe(Effect.mapError((error) => error._tag === "UnknownTeam" ? error : unavailable("createKey")(error)))
    const now = yield* Clock.currentTimeMillis
    const made = newKey()
    yield* sql`INSERT INTO api_keys (id, team_id, hash, created_at) VALUES (${made.id}, ${teamId}, ${made.hash}, ${now})`.pipe(
      Effect.mapError(unavailable("createKey"))
    )
    return { id: made.id, teamId, key: made.key }
  })

  const importKey = Effect.fn("Store.importKey")(function*(teamId: string, sha256Hex: string) {
    yield* requireTeam(teamId).pipe(Effect.mapError((error) => error._tag === "UnknownTeam" ? error : unavailable("importKey")(error)))
    const now = yield* Clock.currentTimeMillis
    const hash = sha256Hex.toLowerCase()
    const rows = yield* Effect.andThen(
      sql`INSERT INTO api_keys (id, team_id, hash, created_at) VALUES (${importedKeyId(hash)}, ${teamId}, ${hash}, ${now})
        ON CONFLICT DO NOTHING`,
      sql<KeyRow>`SELECT id, team_id, created_at, revoked_at FROM api_keys WHERE hash = ${hash}`
    ).pipe(Effect.mapError(unavailable("importKey")))
    return toKey(rows[0])
  })

  const revokeKey = Effect.fn("Store.revokeKey")(function*(keyId: string) {
    const now = yield* Clock.currentTimeMillis
    return yield* Effect.andThen(
      sql`UPDATE api_keys SET revoked_at = ${now} WHERE id = ${keyId} AND revoked_at IS NULL`,
      sql<{ id: string }>`SELECT id FROM api_keys WHERE id = ${keyId}`
    ).pipe(Effect.map((rows) => rows.length > 0), Effect.mapError(unavailable("revokeKey")))
  })

  const listKeys = (teamId: string) =>
    sql<KeyRow>`SELECT id, team_id, created_at, revoked_at FROM api_keys WHERE team_id = ${teamId} ORDER BY created_at, id`.pipe(
      Effect.map((rows) => rows.map(toKey)),
      Effect.mapError(unavailable("listKeys"))
    )

  const authenticate = Effect.fn("Store.authenticate")(function*(key: string) {
    const lookup = lookupOf(key)
    const where = lookup.id === undefined ? sql`k.hash = ${lookup.hash}` : sql`k.id = ${lookup.id}`
    const rows = yield* sql<TeamRow & { key_id: string; hash: string; revoked_at: unknown }>`
      SELECT k.id AS key_id, k.hash, k.revoked_at, ${sql.literal(teamColumns)}
      FROM api_keys k JOIN teams t ON t.id = k.team_id WHERE ${where}`.pipe(Effect.mapError(unavailable("authenticate")))
    const row = rows[0]
    if (row === undefined || !sameHash(row.hash, lookup.hash) || optionalNum(row.revoked_at) !== undefined) {
      return Option.none<Authenticated>()
    }
    return Option.some<Authenticated>({ keyId: row.key_id, team: toTeam(row) })
  })

  const balance = Effect.fn("Store.balance")(function*(teamId: string) {
    const rows = yield* sql<{ credits: unknown }>`SELECT credits FROM teams WHERE id = ${teamId}`.pipe(
      Effect.mapError(unavailable("balance"))
    )
    if (rows.length === 0) return yield* new UnknownTeam({ teamId })
    return optionalNum(rows[0].credits)
  })

  const charge = Effect.fn("Store.charge")(function*(
    options: { readonly teamId: string; readonly chargeId: string; readonly amount: number }
  ) {
    const { amount, chargeId, teamId } = options
    if (!Number.isSafeInteger(amount) || amount < 0) return yield* Effect.die(new RangeError(`A charge of ${amount} credits`))
    const now = yield* Clock.currentTimeMillis
    return yield* sql.withTransaction(Effect.gen(function*() {
      const inserted = yield* sql<{ charge_id: string }>`
        INSERT INTO credit_ledger (charge_id, team_id, amount, created_at) VALUES (${chargeId}, ${teamId}, ${amount}, ${now})
        ON CONFLICT (charge_id) DO NOTHING RETURNING charge_id`.pipe(
        // The team's foreign key: the ledger cannot name a team that does not exist.
        Effect.catchIf(
          (error) => error.reason._tag === "ConstraintError",
          () => Effect.fail(new UnknownTeam({ teamId }))
        )
      )
      if (inserted.length === 0) {
        const rows = yield* sql<{ team_id: string; amount: unknown; credits: unknown }>`
          SELECT l.team_id, l.amount, t.credits FROM credit_ledger l JOIN teams t ON t.id = l.team_id
          WHERE l.charge_id = ${chargeId}`
        return {
          chargeId,
          teamId: rows[0].team_id,
          amount: num(rows[0].amount),
          balance: optionalNum(rows[0].credits),
          replayed: true
        } satisfies Charge
      }
      const updated = yield* sql<{ credits: unknown }>`
        UPDATE teams SET credits = credits - ${amount}
        WHERE id = ${teamId} AND (credits IS NULL OR credits >= ${amount}) RETURNING credits`
      if (updated.length === 0) {
        const rows = yield* sql<{ credits: unknown }>`SELECT credits FROM teams WHERE id = ${teamId}`
        if (rows.length === 0) return yield* new UnknownTeam({ teamId })
        return yield* new InsufficientCredits({ teamId, balance: num(rows[0].credits), needed: amount })
      }
      return { chargeId, teamId, amount, balance: optionalNum(updated[0].credits), replayed: false } satisfies Charge
    })).pipe(Effect.catchTag("SqlError", (error) => Effect.fail(unavailable("charge")(error))))
  })

  const refund = Effect.fn("Store.refund")(function*(chargeId: string) {
    const now = yield* Clock.currentTimeMillis
    return yield* sql.withTransaction(Effect.gen(function*() {
      const rows = yield* sql<{ team_id: string; amount: unknown }>`
        UPDATE credit_ledger SET refunded_at = ${now} WHERE charge_id = ${chargeId} AND refunded_at IS NULL
        RETURNING team_id, amount`
      if (rows.length === 0) return false
      yield* sql`UPDATE teams SET credits = credits + ${num(rows[0].amount)} WHERE id = ${rows[0].team_id} AND credits IS NOT NULL`
      return true
    })).pipe(Effect.mapError(unavailable("refund")))
  })

  const beginRequest = Effect.fn("Store.beginRequest")(function*(claim: RequestClaim) {
    const now = yield* Clock.currentTimeMillis
    const { paramsHash, requestId, teamId } = claim
    return yield* sql.withTransaction(Effect.gen(function*() {
      // A record older than the retention is forgotten: the id may be used again.
      yield* sql`DELETE FROM idempotency WHERE team_id = ${teamId} AND request_id = ${requestId}
        AND created_at < ${now - retention}`
      const inserted = yield* sql<{ request_id: string }>`
        INSERT INTO idempotency (team_id, request_id, params_hash, state, created_at, deadline)
        VALUES (${teamId}, ${requestId}, ${paramsHash}, 'running', ${now}, ${claim.deadline})
        ON CONFLICT (team_id, request_id) DO NOTHING RETURNING request_id`
      if (inserted.length > 0) return { _tag: "New" } satisfies RequestState
      const rows = yield* sql<{ params_hash: string; state: string; response: string | null; deadline: unknown }>`
        SELECT params_hash, state, response, deadline FROM idempotency WHERE team_id = ${teamId} AND request_id = ${requestId}`
      const row = rows[0]
      // Abandoned by its owner between the two statements: the caller may try again.
      if (row === undefined) return { _tag: "Running" } satisfies RequestState
      if (row.params_hash !== paramsHash) return { _tag: "Conflict" } satisfies RequestState
      if (row.state === "done") return { _tag: "Done", response: row.response ?? "" } satisfies RequestState
      if (now > num(row.deadline) + grace) return { _tag: "Unresolved" } satisfies RequestState
      return { _tag: "Running" } satisfies RequestState
    })).pipe(Effect.mapError(unavailable("beginRequest")))
  })

  const completeRequest = Effect.fn("Store.completeRequest")(function*(
    options: { readonly teamId: string; readonly requestId: string; readonly response: string }
  ) {
    const now = yield* Clock.currentTimeMillis
    yield* sql`UPDATE idempotency SET state = 'done', response = ${options.response}, completed_at = ${now}
      WHERE team_id = ${options.teamId} AND request_id = ${options.requestId}`.pipe(Effect.mapError(unavailable("completeRequest")))
  })

  const abandonRequest = (options: { readonly teamId: string; readonly requestId: string }) =>
    sql`DELETE FROM idempotency WHERE team_id = ${options.teamId} AND request_id = ${options.requestId} AND state = 'running'`.pipe(
      Effect.asVoid,
      Effect.mapError(unavailable("abandonRequest")),
      Effect.withSpan("Store.abandonRequest")
    )

  return Store.of({
    backend,
    setTeam,
    getTeam,
    listTeams,
    createKey,
    importKey,
    revokeKey,
    listKeys,
    authenticate,
    balance,
    charge,
    refund,
    ...cache,
    ...terms,
    ...changes,
    beginRequest,
    completeRequest,
    abandonRequest,
    acquireSlot: (claim) => slots.acquireSlot(claim).pipe(Effect.mapError(unavailable("acquireSlot")), Effect.withSpan("Store.acquireSlot")),
    renewSlot: (leaseId, leaseMs) =>
      slots.renewSlot(leaseId, leaseMs).pipe(Effect.mapError(unavailable("renewSlot")), Effect.withSpan("Store.renewSlot")),
    releaseSlot: (leaseId) => slots.releaseSlot(leaseId).pipe(Effect.mapError(unavailable("releaseSlot")), Effect.withSpan("Store.releaseSlot")),
    bindSlot: (leaseId, job, enqueue) =>
      slots.bindSlot(leaseId, job, enqueue).pipe(Effect.mapError(unavailable("bindSlot")), Effect.withSpan("Store.bindSlot"))
  })
}
