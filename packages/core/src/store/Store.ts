/**
 * The state store: teams and their limits, API keys, credits, the fetch cache and idempotency
 * records. It is the one place the server keeps state, so that two server processes on one
 * database behave as one service. The contract lives in core because the pipeline reads and
 * writes the cache; the backends (embedded SQLite, Postgres) are in `@strata/store`.
 *
 * Every method that changes state is atomic on its own: a charge is one transaction keyed by its
 * charge id, `beginRequest` claims a request id in one statement, a cache `put` updates the entry
 * and the byte count together, `changeSwap` reads a page's last snapshot and writes the new one
 * in one transaction.
 */
import { Context, type Effect, type Option } from "effect"
import type { InsufficientCredits, StoreError, UnknownTeam } from "./StoreError.ts"

/** A team: who keys belong to, and the limits its requests run under. `undefined` limits mean none. */
export interface Team {
  readonly id: string
  /** The credit balance; `undefined` for a team without a credit limit. */
  readonly credits: number | undefined
  /** Requests per minute; `undefined` for no rate limit. */
  readonly rateLimit: number | undefined
  /** Requests running at once; `undefined` for no concurrency limit. */
  readonly concurrency: number | undefined
  /** Zero data retention: nothing about the team's requests is written anywhere. */
  readonly zdr: boolean
  /** Whether the team may call catalog providers. */
  readonly catalog: boolean
  /** Where the team's audit events go (`stdout`, a `.jsonl` file path, an `https://` webhook); `undefined` for none. */
  readonly auditSink: string | undefined
  readonly createdAt: number
}

/**
 * A change to a team's settings: a field left out keeps its value; `null` removes a limit
 * (unlimited credits, no rate limit, no concurrency limit, no audit sink).
 */
export interface TeamSettings {
  readonly credits?: number | null
  readonly rateLimit?: number | null
  readonly concurrency?: number | null
  readonly zdr?: boolean
  readonly catalog?: boolean
  readonly auditSink?: string | null
}

/** A key as the store knows it: never the key itself. */
export interface ApiKeyInfo {
  readonly id: string
  readonly teamId: string
  readonly createdAt: number
  readonly revokedAt: number | undefined
}

/** A new key: `key` is the only time the plain key exists outside the client's hands. */
export interface CreatedKey {
  readonly id: string
  readonly teamId: string
  readonly key: string
}

/** Who a presented key belongs to. */
export interface Authenticated {
  readonly keyId: string
  readonly team: Team
}

/** What a charge did: `replayed` when this charge id was already charged (nothing was charged again). */
export interface Charge {
  readonly chargeId: string
  readonly teamId: string
  readonly amount: number
  /** The balance after the charge; `undefined` for a team without a credit limit. */
  readonly balance: number | undefined
  readonly replayed: boolean
}

/** A fetched page as the cache keeps it: the body and what is needed to read it again. */
export interface CacheEntry {
  /** The caller's cache key (normalised URL plus the options that change what is fetched). */
  readonly key: string
  readonly url: string
  readonly finalUrl: string
  readonly status: number
  readonly headers: Readonly<Record<string, string>>
  readonly body: Uint8Array
  /** When the page was fetched (epoch ms). */
  readonly fetchedAt: number
  /**
   * What a hit must be checked against beyond the key, as JSON-serialisable data: how long the
   * engine waited (a request may ask for at least as long), the screenshot taken, the engine, ...
   * Empty when left out.
   */
  readonly meta?: Readonly<Record<string, unknown>>
}

/** A cache entry read back: `size` is what it counts against the bound, `lastUsed` its LRU time. */
export interface CachedPage extends CacheEntry {
  readonly meta: Readonly<Record<string, unknown>>
  readonly size: number
  readonly lastUsed: number
}

/** Whose history of which page: `changeTracking` keeps one snapshot per team, normalised URL and tag. */
export interface ChangeKey {
  readonly teamId: string
  /** The URL as `normalizeCacheUrl` writes it. */
  readonly url: string
  /** The request's `tag`; "" for none. */
  readonly tag: string
}

/**
 * The last scrape of a page that `changeTracking` keeps: its markdown and, in `json` mode, the
 * values extracted with a schema (`schemaKey` names the schema and prompt they came from).
 */
export interface PageSnapshot {
  readonly markdown: string
  readonly json?: {
    readonly schemaKey: string
    readonly values: unknown
    /** What extracted them: `model`, or an offline path (`structured-data`). */
    readonly by?: string | undefined
  } | undefined
  /** The page's HTTP status. */
  readonly status: number
  /**
   * The page answered 404 or 410. Swapping in a removed snapshot keeps the last content the page
   * had (its markdown and json), so a page that comes back is compared with what it was.
   */
  readonly removed: boolean
  /** When it was scraped (epoch ms). */
  readonly scrapedAt: number
}

/** A catalog provider's terms, at one version, accepted for a team by an administrator. */
export interface AcceptedTerms {
  readonly teamId: string
  readonly provider: string
  readonly version: string
  /** Who accepted (the administrator's name as the CLI recorded it). */
  readonly acceptedBy: string
  readonly acceptedAt: number
}

/** An idempotency claim (`x-request-id`), scoped to a team. */
export interface RequestClaim {
  readonly teamId: string
  readonly requestId: string
  /** A hash of the request's parameters: a reuse with other parameters is a conflict. */
  readonly paramsHash: string
  /** When the running request gives up (epoch ms); a claim still running well past it is unresolved. */
  readonly deadline: number
}

/**
 * What `beginRequest` found. `New`: the caller owns the request and must `completeRequest` or
 * `abandonRequest` it. `Running`: another call holds it. `Done`: the stored response to replay.
 * `Conflict`: the id was used with other parameters. `Unresolved`: a call claimed it and never
 * finished (its process died past the deadline), so whether it ran cannot be known.
 */
export type RequestState =
  | { readonly _tag: "New" }
  | { readonly _tag: "Running" }
  | { readonly _tag: "Done"; readonly response: string }
  | { readonly _tag: "Conflict" }
  | { readonly _tag: "Unresolved" }

/**
 * A request asking for one of its team's concurrency slots. `leaseId` names the request: asking
 * again with it keeps its place in the queue (and renews it), so a waiting request polls.
 */
export interface SlotClaim {
  readonly teamId: string
  readonly leaseId: string
  /** The team's concurrency limit. */
  readonly limit: number
  /** How long a slot is held unless renewed (`renewSlot`), so a dead process frees it (default 30 s). */
  readonly leaseMs?: number
  /** How long a place in the queue is kept without another ask (default 5 s). */
  readonly waitMs?: number
}

/** `Acquired`: the request may run. `Queued`: it waits, `position` (1 = next) in its team's queue. */
export type SlotState =
  | { readonly _tag: "Acquired" }
  | { readonly _tag: "Queued"; readonly position: number }

/**
 * Runs SQL inside a transaction: `text` with `$1`-style parameters. The shape pg-boss takes as its
 * `db` option, so a job can be inserted in the same transaction as the slot it takes.
 */
export interface SqlExecutor {
  readonly executeSql: (text: string, values?: Array<unknown>) => Promise<{ rows: Array<any> }>
}

/**
 * The lease of the concurrency slot the current request holds, set by the HTTP adapter's metering
 * around the work it admits (`undefined` when the team has no concurrency limit), so that a
 * replica handing the request's document to a worker hands the slot with it (`bindSlot`).
 */
export const HeldSlot = Context.Reference<string | undefined>("@strata/core/HeldSlot", { defaultValue: () => undefined })

/**
 * The queued job a held slot is handed to (`bindSlot`): from then on the slot is counted while the
 * job is waiting, waiting to be retried or running, and freed when the job ends, whoever ends it.
 */
export interface SlotJob {
  /** The relation holding the job's state, `schema.table` (pg-boss's `pgboss.job`), with `name`, `id` (uuid) and `state` columns. */
  readonly table: string
  /** The job's queue (`name` in the table). */
  readonly queue: string
  readonly id: string
  /** A backstop (epoch ms): past it the slot is freed even if the job still looks alive. */
  readonly holdUntil: number
}

export class Store extends Context.Service<Store, {
  /** Which backend this is (`sqlite` or `pg`), for logs and benchmarks. */
  readonly backend: "sqlite" | "pg"

  // Teams and keys
  /** Creates a team with these settings, or changes an existing one's. */
  readonly setTeam: (teamId: string, settings: TeamSettings) => Effect.Effect<Team, StoreError>
  readonly getTeam: (teamId: string) => Effect.Effect<Option.Option<Team>, StoreError>
  readonly listTeams: Effect.Effect<ReadonlyArray<Team>, StoreError>
  /** A new key for the team; the plain key is in the result and nowhere else. */
  readonly createKey: (teamId: string) => Effect.Effect<CreatedKey, StoreError | UnknownTeam>
  /**
   * Records a key that was made elsewhere (`STRATA_API_KEYS`, the key generated on first start)
   * by its SHA-256 (hex) under a stable id; a second call for the same hash changes nothing.
   */
  readonly importKey: (teamId: string, sha256Hex: string) => Effect.Effect<ApiKeyInfo, StoreError | UnknownTeam>
  /** Revokes a key; false when no such key exists. Revoking twice is not an error. */
  readonly revokeKey: (keyId: string) => Effect.Effect<boolean, StoreError>
  readonly listKeys: (teamId: string) => Effect.Effect<ReadonlyArray<ApiKeyInfo>, StoreError>
  /** The team behind a presented key; `None` for an unknown or revoked key. */
  readonly authenticate: (key: string) => Effect.Effect<Option.Option<Authenticated>, StoreError>

  // Credits
  readonly balance: (teamId: string) => Effect.Effect<number | undefined, StoreError | UnknownTeam>
  /**
   * Takes `amount` credits from the team once per `chargeId`: the balance never goes below 0, and
   * the same charge id charged again (a retry, another replica) is reported as `replayed`.
   */
  readonly charge: (
    options: { readonly teamId: string; readonly chargeId: string; readonly amount: number }
  ) => Effect.Effect<Charge, StoreError | UnknownTeam | InsufficientCredits>
  /** Gives a charge back, once; false when there is no such charge or it was refunded already. */
  readonly refund: (chargeId: string) => Effect.Effect<boolean, StoreError>

  // Cache
  readonly cacheGet: (key: string) => Effect.Effect<Option.Option<CachedPage>, StoreError>
  /** Stores (or replaces) an entry, then evicts least recently used entries down to the byte bound. */
  readonly cachePut: (entry: CacheEntry) => Effect.Effect<void, StoreError>
  /** Marks an entry used now (a hit), so LRU eviction takes it last. */
  readonly cacheTouch: (key: string) => Effect.Effect<void, StoreError>
  /** Evicts least recently used entries until the cache holds at most `maxBytes` (default: the bound); returns how many went. */
  readonly cacheEvict: (maxBytes?: number) => Effect.Effect<number, StoreError>
  /** The bytes the cache holds now. */
  readonly cacheBytes: Effect.Effect<number, StoreError>

  // Change tracking
  /**
   * The page's last snapshot, replaced by `next` in the same transaction: concurrent scrapes of
   * one key each see the snapshot the one before them wrote, and no row is ever half of two.
   */
  readonly changeSwap: (key: ChangeKey, next: PageSnapshot) => Effect.Effect<Option.Option<PageSnapshot>, StoreError>
  /** The page's last snapshot, read without a lock (a hint: `changeSwap` says what it replaced). */
  readonly changePeek: (key: ChangeKey) => Effect.Effect<Option.Option<PageSnapshot>, StoreError>

  // Catalog terms
  /** Records that an administrator accepted a provider's terms at this version for the team; accepting again changes nothing. */
  readonly acceptTerms: (
    options: { readonly teamId: string; readonly provider: string; readonly version: string; readonly acceptedBy: string }
  ) => Effect.Effect<AcceptedTerms, StoreError | UnknownTeam>
  /** Every provider terms version accepted for the team. */
  readonly acceptedTerms: (teamId: string) => Effect.Effect<ReadonlyArray<AcceptedTerms>, StoreError>

  // Idempotency
  readonly beginRequest: (claim: RequestClaim) => Effect.Effect<RequestState, StoreError>
  /** Records the response of a request this caller began, for replay. */
  readonly completeRequest: (
    options: { readonly teamId: string; readonly requestId: string; readonly response: string }
  ) => Effect.Effect<void, StoreError>
  /** Forgets a claim refused before anything ran, so that a retry may run. */
  readonly abandonRequest: (options: { readonly teamId: string; readonly requestId: string }) => Effect.Effect<void, StoreError>

  // Concurrency slots, shared by every process on the database
  /**
   * Takes a slot when fewer than `limit` of the team's requests run and fewer requests queued
   * before this one than there are free slots (first in, first out); otherwise queues it, or keeps
   * its place when it asks again.
   */
  readonly acquireSlot: (claim: SlotClaim) => Effect.Effect<SlotState, StoreError>
  /** Extends a held slot (a heartbeat); false when it expired or was released. */
  readonly renewSlot: (leaseId: string, leaseMs?: number) => Effect.Effect<boolean, StoreError>
  /** Gives a slot back, or leaves the queue. A slot handed to a job (`bindSlot`) stays the job's. */
  readonly releaseSlot: (leaseId: string) => Effect.Effect<void, StoreError>
  /**
   * Hands a held slot to a queued job, in one transaction with `enqueue` (given an executor on that
   * transaction, to insert the job with): the slot is then the job's, counted until the job ends,
   * and no lease or release applies to it. False, with nothing enqueued, when the slot is no
   * longer held (its lease lapsed). Postgres only: SQLite's store has no shared job queue.
   */
  readonly bindSlot: (leaseId: string, job: SlotJob, enqueue: (db: SqlExecutor) => Promise<void>) => Effect.Effect<boolean, StoreError>
}>()("@strata/core/Store") {}

/** The team `STRATA_API_KEYS` keys and the key generated on first start belong to: no limits. */
export const defaultTeamId = "default"
