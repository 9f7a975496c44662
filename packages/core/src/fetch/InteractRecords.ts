/**
 * Where interact keeps what it must remember between calls, so that a `metadata.scrapeId` outlives
 * the process that served the scrape: the scrape's record (whose it is, and the replay it needs)
 * and leases, rows that say which process holds something for now (an open session, a profile
 * held for saving) and lapse unless renewed, so a process that dies frees what it held.
 *
 * The store provides this beside its `Store` (packages/store: SQLite by default, Postgres shared
 * by replicas; the replay is sealed at rest there). `memoryInteractRecords` is the one-process fallback the
 * browser engine uses when no store is in its context (a library user without a server).
 */
import { Context, Effect, Option, Schema } from "effect"
import type { StoreError } from "../store/StoreError.ts"

/** A scrape that may be interacted with. */
export interface InteractRecord {
  readonly scrapeId: string
  /** The API key that made it: only the same key may interact with it. */
  readonly keyId: string
  readonly teamId: string
  /** What replaying it needs, as JSON text; undefined when it ran under zero data retention (nothing kept). */
  readonly replay: string | undefined
  readonly createdAt: number
  /** After this (epoch ms) it is gone: read as absent, and deleted by the next sweep. */
  readonly expiresAt: number
}

/** What taking a lease found: it is now this holder's, or another holder has it until `expiresAt`. */
export type LeaseClaim =
  | { readonly _tag: "Taken" }
  | { readonly _tag: "Held"; readonly holder: string; readonly expiresAt: number }

/** A record that is there but cannot be opened: it was sealed with another key (or altered). */
export class RecordUnreadable extends Schema.TaggedError<RecordUnreadable>()("RecordUnreadable", {
  scrapeId: Schema.String,
  message: Schema.String
}) {}

export interface InteractRecordsService {
  /** Keeps (or replaces) a record. */
  readonly put: (record: InteractRecord) => Effect.Effect<void, StoreError>
  /** The record, unless there is none or it expired. */
  readonly get: (scrapeId: string) => Effect.Effect<Option.Option<InteractRecord>, StoreError | RecordUnreadable>
  readonly remove: (scrapeId: string) => Effect.Effect<void, StoreError>
  /**
   * Deletes expired records and lapsed leases, then the oldest records beyond `maxRecords`
   * (never one whose session lease is live); returns how many records went.
   */
  readonly sweep: (maxRecords: number) => Effect.Effect<number, StoreError>
  /**
   * Takes `name` for `holder` for `ttlMs`, unless another holder has it and it has not lapsed.
   * Taking it again is how a holder renews it (and takes it back if it lapsed and nobody took it).
   */
  readonly takeLease: (name: string, holder: string, ttlMs: number) => Effect.Effect<LeaseClaim, StoreError>
  /** Gives a lease back (only this holder's). */
  readonly releaseLease: (name: string, holder: string) => Effect.Effect<void, StoreError>
  /** Who holds `name` now, if anyone. */
  readonly leaseHolder: (name: string) => Effect.Effect<Option.Option<{ readonly holder: string; readonly expiresAt: number }>, StoreError>
}

export class InteractRecords extends Context.Service<InteractRecords, InteractRecordsService>()("@strata/core/InteractRecords") {}

/** The lease an open interact session holds on its scrape. */
export const sessionLease = (scrapeId: string): string => `session:${scrapeId}`

/** The lease a saving session holds on a profile (`key` as the profile store names it). */
export const profileLease = (key: string): string => `profile:${key}`

/** Records and leases in this process's memory, at most `maxRecords` records (oldest out first). */
export const memoryInteractRecords = (options: { readonly maxRecords: number }): InteractRecordsService => {
  const records = new Map<string, InteractRecord>()
  const leases = new Map<string, { holder: string; expiresAt: number }>()
  const live = (name: string, now: number) => {
    const lease = leases.get(name)
    return lease !== undefined && lease.expiresAt > now ? lease : undefined
  }
  /** Oldest first down to `maxRecords` (expired ones too when `expired`: a sweep, not every put). */
  const trim = (maxRecords: number, now: number, expired: boolean) => {
    let removed = 0
    if (expired) {
      for (const [id, record] of records) {
        if (record.expiresAt <= now) {
          records.delete(id)
          removed++
        }
      }
    }
    for (const id of records.keys()) {
      if (records.size <= maxRecords) break
      if (live(sessionLease(id), now) !== undefined) continue
      records.delete(id)
      removed++
    }
    return removed
  }
  return {
    put: (record) =>
      Effect.sync(() => {
        // Re-inserted, so the map's order stays oldest first.
        records.delete(record.scrapeId)
        records.set(record.scrapeId, record)
        trim(Math.max(1, options.maxRecords), Date.now(), false)
      }),
    get: (scrapeId) =>
      Effect.sync(() => {
        const record = records.get(scrapeId)
        return record === undefined || record.expiresAt <= Date.now() ? Option.none() : Option.some(record)
      }),
    remove: (scrapeId) => Effect.sync(() => void records.delete(scrapeId)),
    sweep: (maxRecords) =>
      Effect.sync(() => {
        const now = Date.now()
        for (const [name, lease] of leases) if (lease.expiresAt <= now) leases.delete(name)
        return trim(Math.max(1, maxRecords), now, true)
      }),
    takeLease: (name, holder, ttlMs) =>
      Effect.sync((): LeaseClaim => {
        const now = Date.now()
        const current = live(name, now)
        if (current !== undefined && current.holder !== holder) return { _tag: "Held", holder: current.holder, expiresAt: current.expiresAt }
        leases.set(name, { holder, expiresAt: now + ttlMs })
        return { _tag: "Taken" }
      }),
    releaseLease: (name, holder) =>
      Effect.sync(() => {
        if (leases.get(name)?.holder === holder) leases.delete(name)
      }),
    leaseHolder: (name) =>
      Effect.sync(() => {
        const current = live(name, Date.now())
        return current === undefined ? Option.none() : Option.some({ holder: current.holder, expiresAt: current.expiresAt })
      })
  }
}
