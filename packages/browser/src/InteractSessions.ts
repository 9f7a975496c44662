/**
 * Interact sessions (core's `Interactions`): what each scrape needs to be replayed, and the
 * browser sessions opened from it.
 *
 * - A scrape is recorded by its `metadata.scrapeId`, with its key and team, for `recordTtlMs`
 *   (1 hour), in core's `InteractRecords`: the store's database when the layer is built with one
 *   (the server's SQLite or Postgres, so the id outlives a restart and any replica on the same
 *   database can open it), else this process's memory (at most `maxRecords`). Another key asking
 *   for it gets the same 404 as an id never seen or expired, so ids cannot be probed. A scrape
 *   made under zero data retention keeps only whose it was (`NotRetained`, 409).
 * - The first code run opens a session: its own browser context replays the scrape (URL,
 *   headers, device, place, `waitFor`, actions other than screenshot, pdf and scrape, which only
 *   produce output), with the scrape's profile loaded. Later runs reuse the page; runs on one
 *   session go one at a time.
 * - The page lives in the process that opened it. That process holds the lease
 *   `session:{scrapeId}` (renewed every sweep, lapsing `leaseMs` after the process stops renewing
 *   it, as when it dies); any other process asked to run code in it or stop it answers
 *   `SessionElsewhere` (409), and opens its own session only once the lease is gone.
 * - A session ends after `ttlMs` (10 min), `idleMs` without a run (5 min), on DELETE (then the
 *   record is deleted: 404 after), or when the server stops (the record stays: the next call
 *   replays the scrape afresh). Its context is closed on every path. With `saveChanges`, its
 *   cookies and localStorage are written to the profile first; only one open session, in any
 *   process on the store, may hold a profile for saving (the lease `profile:{key}`; a second gets
 *   `ProfileLocked`). A session opened or stopped by a caller under zero data retention saves
 *   nothing, and its stop says so in `warning`.
 * - At most `maxSessions` are open at once in this process (`TooManySessions` beyond).
 */
import {
  type BrowserRequest,
  browserRequestOf,
  type CodeRun,
  type InteractionOwner,
  interactionError,
  Interactions,
  type InteractionsService,
  InteractRecords,
  type InteractRecordsService,
  memoryInteractRecords,
  NotRetained,
  ProfileLocked,
  profileLease,
  ProfileTeam,
  RecordUnreadable,
  ReplayFailed,
  scrapeError,
  type ScrapeError,
  type ScrapeRequest,
  SessionElsewhere,
  sessionLease,
  type SessionSummary,
  StageFailed,
  type StoreError,
  StoreUnavailable,
  TooManySessions,
  UnknownScrape
} from "@strata/core"
import { Cause, Effect, Exit, Option, Scope, Semaphore } from "effect"
import { randomUUID } from "node:crypto"
import type { BrowserContext, CDPSession, Page } from "playwright-core"
import { runCode } from "./CodeRunner.ts"
import type { ProfileStore } from "./Profiles.ts"
import { messageOf, probe } from "./Steps.ts"

/** The replayed page of a session, open until the scope it was opened in closes. */
export interface SessionPage {
  readonly page: Page
  readonly context: BrowserContext
}

/** Opens a context in the engine's browser and replays `request` in it, by `deadline` (PlaywrightEngine.ts). */
export type OpenSession = (request: BrowserRequest, deadline: number) => Effect.Effect<SessionPage, ScrapeError, Scope.Scope>

export interface SessionOptions {
  /** Sessions open at once. */
  readonly maxSessions: number
  /** A session's whole life, ms. Default 600,000. */
  readonly ttlMs?: number | undefined
  /** A session's life without a run, ms. Default 300,000. */
  readonly idleMs?: number | undefined
  /** How long a scrape can still be interacted with before its first session opens, ms. Default 3,600,000. */
  readonly recordTtlMs?: number | undefined
  /** Scrapes remembered at once (in the store, the newest this many are kept by each sweep of it). Default 10,000 in memory, 200,000 in the store. */
  readonly maxRecords?: number | undefined
  /** How often expiry is checked and leases renewed, ms. Default 5,000. */
  readonly sweepEveryMs?: number | undefined
  /** How long a lease lasts unless renewed, ms: how soon another process may open a session a dead one held. Default 30,000. */
  readonly leaseMs?: number | undefined
  /** How often expired records are deleted from the store, ms. Default 60,000. */
  readonly purgeEveryMs?: number | undefined
}

/** Output-only actions: they add nothing to the page a session starts from. */
const outputOnly = new Set(["screenshot", "pdf", "scrape"])

/** Firecrawl's replay budget: the waits plus 45 s, within 30 s to 300 s. */
const replayBudgetMs = (request: BrowserRequest): number => {
  const waits = request.actions.reduce((sum, action) => sum + (action.type === "wait" ? action.milliseconds ?? 2_500 : 0), 0)
  return Math.min(300_000, Math.max(30_000, request.waitFor + waits + 45_000))
}

interface Session {
  readonly id: string
  readonly scope: Scope.Closeable
  readonly page: Page
  readonly context: BrowserContext
  readonly cdp: CDPSession
  readonly startedAt: number
  /** The key that made the scrape: only it may run code here or stop it. */
  readonly key: string
  readonly team: string
  readonly profile: Replay["profile"]
  /** The profile key it saves to when it stops. */
  readonly savesTo: string | undefined
  /** It was opened under zero data retention: its profile is not saved. */
  readonly keepsNothing: boolean
  /** The leases it holds, by name, with the holder they are held as. */
  readonly leases: ReadonlyArray<readonly [string, string]>
  lastUsed: number
  running: number
  closed: boolean
}

/** One scrape in this process: the gate its runs take turns at, and its session once open. */
interface Entry {
  readonly scrapeId: string
  readonly gate: Semaphore.Semaphore
  /** Calls inside `use`: the entry is dropped when none are and no session is open. */
  users: number
  session: Session | undefined
}

/** What a record keeps for a replay (as JSON, sealed by the store). */
interface Replay {
  readonly request: BrowserRequest
  readonly profile?: { readonly name: string; readonly saveChanges: boolean } | undefined
}

const parseReplay = (text: string): Replay | undefined => {
  try {
    const value = JSON.parse(text) as Replay
    return typeof value?.request?.url === "string" && Array.isArray(value.request.actions) ? value : undefined
  } catch {
    return undefined
  }
}

const unknownScrape = (scrapeId: string) =>
  interactionError(new UnknownScrape({
    scrapeId,
    message: `No scrape ${scrapeId} to interact with: the id is unknown to this server, belongs to another API key, or its session ended (stopped or expired). Scrape the page again for a new id.`
  }))

const elsewhere = (scrapeId: string, expiresAt: number) =>
  interactionError(new SessionElsewhere({
    scrapeId,
    expiresAt,
    message: `The interact session of scrape ${scrapeId} is open on another server of this service, which holds its page: send this call to that server (route a scrape's interact calls to one server), stop the session there, or wait until it ends (5 minutes idle, 10 at most; a server that stopped answering frees it by ${new Date(expiresAt).toISOString()}).`
  }))

/** The store failing, as interact's answer: unreadable as it is, anything else unavailable (a migration fails only at start). */
const storeFailed = (error: StoreError | RecordUnreadable) =>
  interactionError(
    error._tag === "RecordUnreadable"
      ? error
      : error.reason._tag === "StoreUnavailable"
      ? error.reason
      : new StoreUnavailable({ operation: "interact", message: error.message })
  )

/** The service, with its expiry sweep and its sessions tied to the calling scope. */
export const makeInteractions = (open: OpenSession, profiles: ProfileStore, options: SessionOptions): Effect.Effect<InteractionsService, never, Scope.Scope> =>
  Effect.gen(function*() {
    const ttlMs = options.ttlMs ?? 600_000
    const idleMs = options.idleMs ?? 300_000
    const recordTtlMs = options.recordTtlMs ?? 3_600_000
    const stored = yield* Effect.serviceOption(InteractRecords)
    // A stored record takes about 0.6 KB (2,000 typical ones: 1.5 MB of SQLite): the store's bound is for disk, memory's for the heap.
    const maxRecords = Math.max(1, options.maxRecords ?? (Option.isSome(stored) ? 200_000 : 10_000))
    const maxSessions = Math.max(1, options.maxSessions)
    const leaseMs = Math.max(1_000, options.leaseMs ?? 30_000)
    const records: InteractRecordsService = Option.getOrElse(stored, () => memoryInteractRecords({ maxRecords }))
    /** This process, as the holder of its sessions' leases. */
    const instance = randomUUID()
    const entries = new Map<string, Entry>()
    let live = 0

    const releaseLeases = (leases: ReadonlyArray<readonly [string, string]>) =>
      Effect.forEach(leases, ([name, holder]) => records.releaseLease(name, holder), { discard: true }).pipe(
        // It lapses by itself; another process waits at most `leaseMs` longer.
        Effect.catch((error) => Effect.logWarning("interact: a lease could not be released", { error: error.message }))
      )

    /**
     * Saves the profile when asked (unless the session, or the caller stopping it, keeps no data),
     * then closes the context and gives its leases back; safe to call twice, and not cut short by
     * an interruption.
     */
    const close = (entry: Entry, session: Session, stopper?: InteractionOwner): Effect.Effect<SessionSummary> =>
      Effect.uninterruptible(Effect.gen(function*() {
        const summary = { sessionId: session.id, sessionDurationMs: Date.now() - session.startedAt }
        if (session.closed) return summary
        session.closed = true
        if (entry.session === session) entry.session = undefined
        if (entry.users === 0 && entries.get(entry.scrapeId) === entry) entries.delete(entry.scrapeId)
        let warning: string | undefined
        const profile = session.profile
        if (profile?.saveChanges === true && (session.keepsNothing || stopper?.zeroDataRetention === true)) {
          warning = `The profile "${profile.name}" was not saved: zero data retention is on for this team, so nothing the session changed is kept`
        } else if (session.savesTo !== undefined && profile !== undefined) {
          const state = yield* probe(() => session.context.storageState(), undefined)
          const outcome = state === undefined
            ? { saved: false as const, problem: `The profile "${profile.name}" was not saved: the browser session had already ended` }
            : yield* profiles.save(session.team, profile.name, state)
          if (!outcome.saved) warning = outcome.problem
        }
        yield* Scope.close(session.scope, Exit.void)
        live--
        yield* releaseLeases(session.leases)
        return warning === undefined ? summary : { ...summary, warning }
      }))

    /** The caller's replay: missing, expired and another key's look the same. */
    const load = (scrapeId: string, owner: InteractionOwner) =>
      Effect.gen(function*() {
        const found = yield* records.get(scrapeId).pipe(Effect.mapError(storeFailed))
        if (Option.isNone(found) || found.value.keyId !== owner.key) return yield* Effect.fail(unknownScrape(scrapeId))
        const record = found.value
        if (record.replay === undefined) {
          return yield* Effect.fail(interactionError(new NotRetained({
            scrapeId,
            message: `Scrape ${scrapeId} ran with zero data retention: its URL and options were not kept, so it cannot be replayed for interaction`
          })))
        }
        const replay = parseReplay(record.replay)
        if (replay === undefined) {
          return yield* Effect.fail(interactionError(new RecordUnreadable({ scrapeId, message: `The record of scrape ${scrapeId} does not hold a replay this server can read` })))
        }
        return { replay, team: record.teamId }
      })

    /** Takes a lease, or fails with what holds it; a store that fails is `StoreUnavailable`. */
    const take = (name: string, holder: string) => records.takeLease(name, holder, leaseMs).pipe(Effect.mapError(storeFailed))

    const openFor = (entry: Entry, owner: InteractionOwner) =>
      Effect.gen(function*() {
        const { replay, team } = yield* load(entry.scrapeId, owner)
        if (live >= maxSessions) {
          return yield* Effect.fail(interactionError(new TooManySessions({
            limit: maxSessions,
            message: `You have reached the maximum number of concurrent browser sessions (${maxSessions}). Stop one (DELETE /v2/scrape/{scrapeId}/interact) or wait for one to expire.`
          })))
        }
        // Under zero data retention the session writes nothing, so it holds no profile for writing either.
        const keepsNothing = owner.zeroDataRetention === true
        const saver = replay.profile?.saveChanges === true && !keepsNothing ? replay.profile : undefined
        const savesTo = saver === undefined ? undefined : profiles.keyOf(team, saver.name)
        const id = randomUUID()
        const leases: Array<readonly [string, string]> = []
        live++
        const scope = yield* Scope.make()
        // Failure and interruption alike: the slot, the leases and the context go back.
        const release = Effect.andThen(Scope.close(scope, Exit.void), Effect.andThen(Effect.sync(() => live--), releaseLeases(leases)))
        const opened = yield* Effect.gen(function*() {
          const session = yield* take(sessionLease(entry.scrapeId), instance)
          if (session._tag === "Held") return yield* Effect.fail(elsewhere(entry.scrapeId, session.expiresAt))
          leases.push([sessionLease(entry.scrapeId), instance])
          if (saver !== undefined && savesTo !== undefined) {
            const profile = yield* take(profileLease(savesTo), id)
            if (profile._tag === "Held") {
              return yield* Effect.fail(interactionError(new ProfileLocked({
                profile: saver.name,
                message: `Another session is currently writing to the profile "${saver.name}". Only one writer is allowed at a time. You can still read it with saveChanges: false.`
              })))
            }
            leases.push([profileLease(savesTo), id])
          }
          const replayFailed = (error: ScrapeError) =>
            interactionError(new ReplayFailed({ error, message: `The session could not replay scrape ${entry.scrapeId}: ${error.message}` }))
          const { page, context } = yield* open(replay.request, Date.now() + replayBudgetMs(replay.request)).pipe(
            Effect.provideService(ProfileTeam, team),
            Scope.provide(scope),
            Effect.mapError(replayFailed)
          )
          const cdp = yield* Effect.tryPromise({
            try: () => context.newCDPSession(page),
            catch: (error) => scrapeError(new StageFailed({ stage: "browser", message: `The session's page could not be attached: ${messageOf(error)}` }))
          }).pipe(Effect.mapError(replayFailed))
          return { page, context, cdp }
        }).pipe(Effect.onError(() => release))
        const now = Date.now()
        const session: Session = {
          id,
          scope,
          ...opened,
          startedAt: now,
          key: owner.key,
          team,
          profile: replay.profile,
          savesTo,
          keepsNothing,
          leases,
          lastUsed: now,
          running: 0,
          closed: false
        }
        entry.session = session
        return session
      })

    const remember = (scrapeId: string, request: ScrapeRequest, owner: InteractionOwner) =>
      Effect.suspend(() => {
        // Ids are random; one with a session already is kept as it is (its session is never orphaned).
        if (entries.get(scrapeId)?.session !== undefined) return Effect.void
        const browser = browserRequestOf(request)
        const replay: Replay = {
          request: { ...browser, screenshot: undefined, actions: browser.actions.filter((action) => !outputOnly.has(action.type)) },
          profile: request.profile
        }
        const now = Date.now()
        return records.put({
          scrapeId,
          keyId: owner.key,
          teamId: owner.team,
          replay: request.zeroDataRetention ? undefined : JSON.stringify(replay),
          createdAt: now,
          expiresAt: now + recordTtlMs
        }).pipe(
          // The scrape's answer stands; only interacting with it is lost. The replay itself is never logged.
          Effect.catch((error) => Effect.logWarning("interact: the scrape could not be recorded", { scrapeId, error: error.message }))
        )
      })

    /** Runs `body` with the scrape's entry in this process, dropped after when nothing uses it. */
    const withEntry = <A, E>(scrapeId: string, body: (entry: Entry) => Effect.Effect<A, E>) =>
      Effect.suspend(() => {
        const entry = entries.get(scrapeId) ?? { scrapeId, gate: Semaphore.makeUnsafe(1), users: 0, session: undefined }
        entries.set(scrapeId, entry)
        entry.users++
        return body(entry).pipe(Effect.ensuring(Effect.sync(() => {
          entry.users--
          if (entry.users === 0 && entry.session === undefined && entries.get(scrapeId) === entry) entries.delete(scrapeId)
        })))
      })

    const execute = (scrapeId: string, owner: InteractionOwner, run: CodeRun) =>
      withEntry(scrapeId, (entry) =>
        entry.gate.withPermit(Effect.gen(function*() {
          const open = entry.session
          if (open !== undefined && open.key !== owner.key) return yield* Effect.fail(unknownScrape(scrapeId))
          const session = open ?? (yield* openFor(entry, owner))
          session.running++
          // A run never outlives its session.
          const limit = Math.max(1, Math.min(run.timeoutMs, session.startedAt + ttlMs - Date.now()))
          const outcome = yield* runCode(session.page, session.cdp, run.code, limit).pipe(
            Effect.ensuring(Effect.sync(() => {
              session.running--
              session.lastUsed = Date.now()
            }))
          )
          // The page is gone or frozen: this session is over, and the next run replays the scrape afresh.
          if (outcome.stuck || session.page.isClosed()) yield* close(entry, session)
          const { stuck: _stuck, ...rest } = outcome
          return { sessionId: session.id, ...rest }
        })))

    const stop = (scrapeId: string, owner: InteractionOwner) =>
      Effect.gen(function*() {
        const entry = entries.get(scrapeId)
        const session = entry?.session
        if (entry !== undefined && session !== undefined) {
          if (session.key !== owner.key) return yield* Effect.fail(unknownScrape(scrapeId))
          // Forgotten first: a run waiting its turn finds no record and gets the 404.
          yield* records.remove(scrapeId).pipe(Effect.mapError(storeFailed))
          return yield* close(entry, session, owner)
        }
        const found = yield* records.get(scrapeId).pipe(Effect.mapError(storeFailed))
        if (Option.isNone(found) || found.value.keyId !== owner.key) return yield* Effect.fail(unknownScrape(scrapeId))
        const holder = yield* records.leaseHolder(sessionLease(scrapeId)).pipe(Effect.mapError(storeFailed))
        if (Option.isSome(holder) && holder.value.holder !== instance) return yield* Effect.fail(elsewhere(scrapeId, holder.value.expiresAt))
        return yield* Effect.fail(interactionError(new UnknownScrape({
          scrapeId,
          message: `No interact session is open for scrape ${scrapeId}: POST /v2/scrape/${scrapeId}/interact opens one`
        })))
      })

    const sweep = Effect.gen(function*() {
      const now = Date.now()
      for (const [id, entry] of entries) {
        const session = entry.session
        if (session === undefined) continue
        if (now - session.startedAt >= ttlMs || (session.running === 0 && now - session.lastUsed >= idleMs)) {
          yield* records.remove(id).pipe(Effect.catch((error) => Effect.logWarning("interact: an ended session's record could not be deleted", { scrapeId: id, error: error.message })))
          yield* close(entry, session)
          continue
        }
        // Renewed while the session lives; one another process took after it lapsed (the store was out of reach) ends it here.
        const claims = yield* Effect.forEach(session.leases, ([name, holder]) => records.takeLease(name, holder, leaseMs)).pipe(
          Effect.catch((error) => Effect.as(Effect.logWarning("interact: leases could not be renewed", { scrapeId: id, error: error.message }), []))
        )
        if (claims.some((claim) => claim._tag === "Held")) yield* close(entry, session)
      }
    })
    const purgeEvery = Math.max(10, options.purgeEveryMs ?? 60_000)
    const purge = records.sweep(maxRecords).pipe(Effect.catch((error) => Effect.logWarning("interact: expired records could not be deleted", { error: error.message })))
    const every = Math.max(10, options.sweepEveryMs ?? 5_000)
    // A sweep that failed unexpectedly must not end the sweeping.
    const forever = (effect: Effect.Effect<unknown>, ms: number) =>
      Effect.forkScoped(Effect.forever(Effect.andThen(Effect.sleep(ms), Effect.catchCause(effect, (cause) => (Cause.hasInterruptsOnly(cause) ? Effect.failCause(cause) : Effect.logError("interact sweep failed", cause))))))
    yield* forever(sweep, every)
    yield* forever(purge, purgeEvery)
    // The server stopping ends every session the way DELETE would, profiles saved; the records stay.
    yield* Effect.addFinalizer(() =>
      Effect.forEach([...entries.values()], (entry) => (entry.session === undefined ? Effect.void : close(entry, entry.session)), { discard: true })
    )

    return Interactions.of({ remember, execute, stop })
  })
