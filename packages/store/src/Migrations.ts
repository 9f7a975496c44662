/**
 * The store's schema, one list of numbered migrations for both backends. Each is applied once and
 * recorded in `strata_migrations`; `migrate` runs when the store's layer is built.
 *
 * Two processes may start at once on one database. All of `migrate` is one transaction that first
 * takes the database's lock: on Postgres a transaction-scoped advisory lock, on SQLite the write
 * lock `BEGIN IMMEDIATE` takes (the client begins every transaction that way). The second process
 * waits, then finds every migration recorded and applies nothing. DDL is transactional on both, so
 * a migration that fails leaves no half-built table behind.
 *
 * Numbers are stored as integers (epoch milliseconds for times, 0/1 for flags) and JSON as text,
 * so the same statements read the same on both; only byte and floating-point columns are spelled
 * differently.
 */
import { Clock, Effect } from "effect"
import type { SqlClient } from "effect/sql"

export interface Migration {
  readonly id: number
  readonly name: string
  /** The statements, one at a time (Postgres prepares one statement per call), given the column types that differ. */
  readonly statements: (types: { readonly bytes: string; readonly double: string }) => ReadonlyArray<string>
}

export const migrations: ReadonlyArray<Migration> = [
  {
    id: 1,
    name: "accounts, credits, cache, idempotency",
    statements: ({ bytes }) => [
      // NULL credits, rate_limit or concurrency: no limit.
      `CREATE TABLE teams (
        id TEXT PRIMARY KEY,
        credits BIGINT,
        rate_limit INTEGER,
        concurrency INTEGER,
        zdr INTEGER NOT NULL DEFAULT 0,
        catalog INTEGER NOT NULL DEFAULT 1,
        audit_sink TEXT,
        created_at BIGINT NOT NULL
      )`,
      // `hash` is the hex SHA-256 of the whole key; the plain key is never stored.
      `CREATE TABLE api_keys (
        id TEXT PRIMARY KEY,
        team_id TEXT NOT NULL REFERENCES teams (id),
        hash TEXT NOT NULL UNIQUE,
        created_at BIGINT NOT NULL,
        revoked_at BIGINT
      )`,
      `CREATE INDEX api_keys_team ON api_keys (team_id)`,
      // One row per charge id: the primary key is what makes a charge happen once.
      `CREATE TABLE credit_ledger (
        charge_id TEXT PRIMARY KEY,
        team_id TEXT NOT NULL REFERENCES teams (id),
        amount BIGINT NOT NULL,
        created_at BIGINT NOT NULL,
        refunded_at BIGINT
      )`,
      `CREATE INDEX credit_ledger_team ON credit_ledger (team_id, created_at)`,
      `CREATE TABLE cache_entries (
        key TEXT PRIMARY KEY,
        url TEXT NOT NULL,
        final_url TEXT NOT NULL,
        status INTEGER NOT NULL,
        headers TEXT NOT NULL,
        body ${bytes} NOT NULL,
        fetched_at BIGINT NOT NULL,
        size BIGINT NOT NULL,
        last_used BIGINT NOT NULL
      )`,
      `CREATE INDEX cache_entries_lru ON cache_entries (last_used)`,
      // The cache's byte count, kept with every put and delete so the bound is checked without a scan.
      `CREATE TABLE cache_usage (id INTEGER PRIMARY KEY, bytes BIGINT NOT NULL)`,
      `INSERT INTO cache_usage (id, bytes) VALUES (1, 0)`,
      `CREATE TABLE idempotency (
        team_id TEXT NOT NULL,
        request_id TEXT NOT NULL,
        params_hash TEXT NOT NULL,
        state TEXT NOT NULL,
        response TEXT,
        created_at BIGINT NOT NULL,
        deadline BIGINT NOT NULL,
        completed_at BIGINT,
        PRIMARY KEY (team_id, request_id)
      )`,
      `CREATE INDEX idempotency_created ON idempotency (created_at)`
    ]
  },
  {
    id: 2,
    name: "rate limits shared by replicas",
    // Times are fractional: a window of 60 s for 7 requests refills every 8571.43 ms.
    statements: ({ double }) => [
      `CREATE TABLE rate_windows (key TEXT PRIMARY KEY, count ${double} NOT NULL, expires_at ${double} NOT NULL)`,
      `CREATE TABLE rate_buckets (key TEXT PRIMARY KEY, tokens ${double} NOT NULL, last_refill ${double} NOT NULL)`
    ]
  },
  {
    id: 3,
    name: "cache entry metadata",
    // What a hit is checked against beyond the key (the wait a request asks for at least, a screenshot), as JSON.
    statements: () => [`ALTER TABLE cache_entries ADD COLUMN meta TEXT NOT NULL DEFAULT '{}'`]
  },
  {
    id: 4,
    name: "concurrency slots shared by replicas",
    statements: () => [
      // One row per team that has asked for a slot: what a take locks, so takes for a team run one at a time.
      `CREATE TABLE concurrency_locks (team_id TEXT PRIMARY KEY)`,
      `CREATE TABLE concurrency_slots (
        lease_id TEXT PRIMARY KEY,
        team_id TEXT NOT NULL,
        state TEXT NOT NULL,
        queued_at BIGINT NOT NULL,
        expires_at BIGINT NOT NULL
      )`,
      `CREATE INDEX concurrency_slots_team ON concurrency_slots (team_id, state, queued_at)`
    ]
  },
  {
    id: 5,
    name: "change tracking snapshots",
    statements: () => [
      // The last scrape per team, normalised URL and tag ('' for none): what the next one is compared with.
      // `json` holds the json-mode values ({schemaKey, values}) as JSON text, NULL when none were extracted.
      `CREATE TABLE change_snapshots (
        team_id TEXT NOT NULL,
        url TEXT NOT NULL,
        tag TEXT NOT NULL,
        markdown TEXT NOT NULL,
        json TEXT,
        status INTEGER NOT NULL,
        removed INTEGER NOT NULL DEFAULT 0,
        scraped_at BIGINT NOT NULL,
        PRIMARY KEY (team_id, url, tag)
      )`
    ]
  },
  {
    id: 6,
    name: "catalog terms accepted",
    statements: () => [
      // One row per team, provider and terms version: who accepted (the CLI's user) and when.
      `CREATE TABLE catalog_terms (
        team_id TEXT NOT NULL REFERENCES teams (id),
        provider TEXT NOT NULL,
        version TEXT NOT NULL,
        accepted_by TEXT NOT NULL,
        accepted_at BIGINT NOT NULL,
        PRIMARY KEY (team_id, provider, version)
      )`
    ]
  },
  {
    id: 7,
    name: "interact records and leases",
    statements: () => [
      // A scrape that may be interacted with (InteractRecords.ts in core). `replay` is sealed
      // (AES-256-GCM, RecordSeal.ts): the headers and cookies in it may be credentials. NULL
      // under zero data retention, when only whose scrape it was is kept.
      `CREATE TABLE interact_records (
        scrape_id TEXT PRIMARY KEY,
        key_id TEXT NOT NULL,
        team_id TEXT NOT NULL,
        replay TEXT,
        created_at BIGINT NOT NULL,
        expires_at BIGINT NOT NULL
      )`,
      `CREATE INDEX interact_records_expiry ON interact_records (expires_at)`,
      `CREATE INDEX interact_records_created ON interact_records (created_at)`,
      // Who holds an open session (`session:{scrapeId}`) or a profile for saving (`profile:{key}`), until when.
      `CREATE TABLE interact_leases (name TEXT PRIMARY KEY, holder TEXT NOT NULL, expires_at BIGINT NOT NULL)`
    ]
  },
  {
    id: 8,
    name: "concurrency slots held by queued jobs",
    statements: () => [
      // A slot handed to a fleet job (state `job`): counted while the job in `job_table` is alive.
      `ALTER TABLE concurrency_slots ADD COLUMN job_table TEXT`,
      `ALTER TABLE concurrency_slots ADD COLUMN job_queue TEXT`,
      `ALTER TABLE concurrency_slots ADD COLUMN job_id TEXT`
    ]
  }
]

/** Any constant shared by every Strata process; it names the migration lock in Postgres's advisory lock space. */
const advisoryLockKey = 0x5374_7261 // "Stra"

/** Applies the migrations not yet recorded, in order; returns the ids it applied. */
export const migrate = (sql: SqlClient.SqlClient, list: ReadonlyArray<Migration> = migrations) =>
  sql.withTransaction(Effect.gen(function*() {
    const dialect = sql.onDialectOrElse({ pg: () => "pg" as const, orElse: () => "sqlite" as const })
    if (dialect === "pg") yield* sql.unsafe(`SELECT pg_advisory_xact_lock(${advisoryLockKey})`)
    yield* sql.unsafe(
      `CREATE TABLE IF NOT EXISTS strata_migrations (id INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at BIGINT NOT NULL)`
    )
    const rows = yield* sql<{ id: unknown }>`SELECT id FROM strata_migrations`
    const applied = new Set(rows.map((row) => Number(row.id)))
    const types = dialect === "pg" ? { bytes: "BYTEA", double: "DOUBLE PRECISION" } : { bytes: "BLOB", double: "REAL" }
    const now = yield* Clock.currentTimeMillis
    const done: Array<number> = []
    for (const migration of [...list].sort((a, b) => a.id - b.id)) {
      if (applied.has(migration.id)) continue
      for (const statement of migration.statements(types)) yield* sql.unsafe(statement)
      yield* sql`INSERT INTO strata_migrations (id, name, applied_at) VALUES (${migration.id}, ${migration.name}, ${now})`
      done.push(migration.id)
    }
    return done
  }))
