/**
 * Interact sessions (core's `Interactions`): what each scrape needs to be replayed, and the
 * browser sessions opened from it.
 *
 * - A scrape is remembered by its `metadata.scrapeId`, with its key and team, for `recordTtlMs`
 *   (at most `maxRecords`, oldest first out). Another key asking for it gets the same 404 as an
 *   id never seen, so ids cannot be probed.
 * - The first code run opens a session: its own browser context replays the scrape (URL,
 *   headers, device, place, `waitFor`, actions other than screenshot, pdf and scrape, which only
 *   produce output), with the scrape's profile loaded. Later runs reuse the page; runs on one
 *   session go one at a time.
 * - A session ends after `ttlMs` (10 min), `idleMs` without a run (5 min), on DELETE, or when
 *   the server stops; its context is closed on every path, and the id is forgotten (404 after).
 *   With `saveChanges`, its cookies and localStorage are written to the profile first; only one
 *   open session may hold a profile for saving (a second gets `ProfileLocked`). A session opened
 *   or stopped by a caller under zero data retention saves nothing, and its stop says so in
 *   `warning` (a scrape made under it cannot be interacted with at all: `NotRetained`).
 * - At most `maxSessions` are open at once (`TooManySessions` beyond).
 */
import {
  type BrowserRequest,
  browserRequestOf,
  type CodeRun,
  type InteractionOwner,
  interactionError,
  Interactions,
  type InteractionsService,
  NotRetained,
  ProfileLocked,
  ProfileTeam,
  ReplayFailed,
  scrapeError,
  type ScrapeError,
  type ScrapeRequest,
  type SessionSummary,
  StageFailed,
  TooManySessions,
  UnknownScrape
} from "@strata/core"
import { Cause, Effect, Exit, Scope, Semaphore } from "effect"
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
  /** Scrapes remembered at once. Default 10,000. */
  readonly maxRecords?: number | undefined
  /** How often expiry is checked, ms. Default 5,000. */
  readonly sweepEveryMs?: number | undefined
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
  /** The profile key it saves to when it stops. */
  readonly savesTo: string | undefined
  /** It was opened under zero data retention: its profile is not saved. */
  readonly keepsNothing: boolean
  lastUsed: number
  running: number
  closed: boolean
}

interface Entry {
  readonly scrapeId: string
  readonly owner: InteractionOwner
  /** Undefined when the scrape kept no data (zero data retention). */
  readonly request: BrowserRequest | undefined
  readonly profile: { readonly name: string; readonly saveChanges: boolean } | undefined
  readonly rememberedAt: number
  readonly gate: Semaphore.Semaphore
  session: Session | undefined
}

const unknownScrape = (scrapeId: string) =>
  interactionError(new UnknownScrape({
    scrapeId,
    message: `No scrape ${scrapeId} to interact with: the id is unknown to this server, belongs to another API key, or its session ended (stopped or expired). Scrape the page again for a new id.`
  }))

/** The service, with its expiry sweep and its sessions tied to the calling scope. */
export const makeInteractions = (open: OpenSession, profiles: ProfileStore, options: SessionOptions): Effect.Effect<InteractionsService, never, Scope.Scope> =>
  Effect.gen(function*() {
    const ttlMs = options.ttlMs ?? 600_000
    const idleMs = options.idleMs ?? 300_000
    const recordTtlMs = options.recordTtlMs ?? 3_600_000
    const maxRecords = Math.max(1, options.maxRecords ?? 10_000)
    const maxSessions = Math.max(1, options.maxSessions)
    const entries = new Map<string, Entry>()
    /** Profile keys held for saving, and by which session. */
    const saving = new Map<string, string>()
    let live = 0

    /**
     * Saves the profile when asked (unless the session, or the caller stopping it, keeps no data),
     * then closes the context; safe to call twice, and not cut short by an interruption.
     */
    const close = (entry: Entry, session: Session, stopper?: InteractionOwner): Effect.Effect<SessionSummary> =>
      Effect.uninterruptible(Effect.gen(function*() {
        const summary = { sessionId: session.id, sessionDurationMs: Date.now() - session.startedAt }
        if (session.closed) return summary
        session.closed = true
        if (entry.session === session) entry.session = undefined
        let warning: string | undefined
        if (entry.profile?.saveChanges === true && (session.keepsNothing || stopper?.zeroDataRetention === true)) {
          warning = `The profile "${entry.profile.name}" was not saved: zero data retention is on for this team, so nothing the session changed is kept`
        } else if (session.savesTo !== undefined && entry.profile !== undefined) {
          const state = yield* probe(() => session.context.storageState(), undefined)
          const outcome = state === undefined
            ? { saved: false as const, problem: `The profile "${entry.profile.name}" was not saved: the browser session had already ended` }
            : yield* profiles.save(entry.owner.team, entry.profile.name, state)
          if (!outcome.saved) warning = outcome.problem
        }
        yield* Scope.close(session.scope, Exit.void)
        live--
        if (session.savesTo !== undefined && saving.get(session.savesTo) === session.id) saving.delete(session.savesTo)
        return warning === undefined ? summary : { ...summary, warning }
      }))

    /** The caller's entry: missing and another key's look the same. */
    const find = (scrapeId: string, owner: InteractionOwner) =>
      Effect.suspend(() => {
        const entry = entries.get(scrapeId)
        if (entry === undefined || entry.owner.key !== owner.key) return Effect.fail(unknownScrape(scrapeId))
        if (entry.request === undefined) {
          return Effect.fail(interactionError(new NotRetained({
            scrapeId,
            message: `Scrape ${scrapeId} ran with zero data retention: its URL and options were not kept, so it cannot be replayed for interaction`
          })))
        }
        return Effect.succeed({ entry, request: entry.request })
      })

    const openFor = (entry: Entry, request: BrowserRequest, caller: InteractionOwner) =>
      Effect.gen(function*() {
        if (live >= maxSessions) {
          return yield* Effect.fail(interactionError(new TooManySessions({
            limit: maxSessions,
            message: `You have reached the maximum number of concurrent browser sessions (${maxSessions}). Stop one (DELETE /v2/scrape/{scrapeId}/interact) or wait for one to expire.`
          })))
        }
        // Under zero data retention the session writes nothing, so it holds no profile for writing either.
        const keepsNothing = caller.zeroDataRetention === true
        const saver = entry.profile?.saveChanges === true && !keepsNothing ? entry.profile : undefined
        const savesTo = saver === undefined ? undefined : profiles.keyOf(entry.owner.team, saver.name)
        if (saver !== undefined && savesTo !== undefined && saving.has(savesTo)) {
          return yield* Effect.fail(interactionError(new ProfileLocked({
            profile: saver.name,
            message: `Another session is currently writing to the profile "${saver.name}". Only one writer is allowed at a time. You can still read it with saveChanges: false.`
          })))
        }
        const id = randomUUID()
        live++
        if (savesTo !== undefined) saving.set(savesTo, id)
        const scope = yield* Scope.make()
        const release = Effect.gen(function*() {
          yield* Scope.close(scope, Exit.void)
          live--
          if (savesTo !== undefined) saving.delete(savesTo)
        })
        const opened = yield* open(request, Date.now() + replayBudgetMs(request)).pipe(
          Effect.provideService(ProfileTeam, entry.owner.team),
          Scope.provide(scope),
          Effect.flatMap(({ page, context }) =>
            Effect.tryPromise({
              try: () => context.newCDPSession(page),
              catch: (error) => scrapeError(new StageFailed({ stage: "browser", message: `The session's page could not be attached: ${messageOf(error)}` }))
            }).pipe(Effect.map((cdp) => ({ page, context, cdp })))),
          // Failure and interruption alike.
          Effect.onError(() => release),
          Effect.mapError((error) => interactionError(new ReplayFailed({ error, message: `The session could not replay scrape ${entry.scrapeId}: ${error.message}` })))
        )
        const now = Date.now()
        const session: Session = { id, scope, ...opened, startedAt: now, savesTo, keepsNothing, lastUsed: now, running: 0, closed: false }
        entry.session = session
        return session
      })

    const remember = (scrapeId: string, request: ScrapeRequest, owner: InteractionOwner) =>
      Effect.sync(() => {
        // Ids are random; one with a session already is kept as it is (its session is never orphaned).
        if (entries.get(scrapeId)?.session !== undefined) return
        const browser = browserRequestOf(request)
        const replay: BrowserRequest = { ...browser, screenshot: undefined, actions: browser.actions.filter((action) => !outputOnly.has(action.type)) }
        entries.set(scrapeId, {
          scrapeId,
          owner,
          request: request.zeroDataRetention ? undefined : replay,
          profile: request.profile,
          rememberedAt: Date.now(),
          gate: Semaphore.makeUnsafe(1),
          session: undefined
        })
        // Oldest first; a scrape with an open session stays until the session ends.
        for (const [id, entry] of entries) {
          if (entries.size <= maxRecords) break
          if (entry.session === undefined) entries.delete(id)
        }
      })

    const execute = (scrapeId: string, owner: InteractionOwner, run: CodeRun) =>
      Effect.gen(function*() {
        const { entry, request } = yield* find(scrapeId, owner)
        return yield* entry.gate.withPermit(Effect.gen(function*() {
          // Stopped or expired while this run waited its turn.
          if (entries.get(scrapeId) !== entry) return yield* Effect.fail(unknownScrape(scrapeId))
          const session = entry.session ?? (yield* openFor(entry, request, owner))
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
        }))
      })

    const stop = (scrapeId: string, owner: InteractionOwner) =>
      Effect.gen(function*() {
        const entry = entries.get(scrapeId)
        if (entry === undefined || entry.owner.key !== owner.key) return yield* Effect.fail(unknownScrape(scrapeId))
        const session = entry.session
        if (session === undefined) {
          return yield* Effect.fail(interactionError(new UnknownScrape({
            scrapeId,
            message: `No interact session is open for scrape ${scrapeId}: POST /v2/scrape/${scrapeId}/interact opens one`
          })))
        }
        entries.delete(scrapeId)
        return yield* close(entry, session, owner)
      })

    const sweep = Effect.gen(function*() {
      const now = Date.now()
      for (const [id, entry] of entries) {
        const session = entry.session
        if (session === undefined) {
          if (now - entry.rememberedAt >= recordTtlMs) entries.delete(id)
          continue
        }
        if (now - session.startedAt >= ttlMs || (session.running === 0 && now - session.lastUsed >= idleMs)) {
          entries.delete(id)
          yield* close(entry, session)
        }
      }
    })
    const every = Math.max(10, options.sweepEveryMs ?? 5_000)
    // A sweep that failed unexpectedly must not end the sweeping.
    yield* Effect.forkScoped(Effect.forever(Effect.andThen(Effect.sleep(every), Effect.catchCause(sweep, (cause) => (Cause.hasInterruptsOnly(cause) ? Effect.failCause(cause) : Effect.logError("interact sweep failed", cause))))))
    // The server stopping ends every session the way DELETE would, profiles saved.
    yield* Effect.addFinalizer(() =>
      Effect.forEach([...entries.values()], (entry) => (entry.session === undefined ? Effect.void : close(entry, entry.session)), { discard: true })
    )

    return Interactions.of({ remember, execute, stop })
  })
