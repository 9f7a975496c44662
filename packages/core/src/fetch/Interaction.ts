/**
 * The interact contract: `POST /v2/scrape/{scrapeId}/interact` runs code in a browser session
 * that replays an earlier scrape, and `DELETE` stops it.
 *
 * The browser package provides `Interactions` beside its `BrowserEngine`; the HTTP adapter
 * remembers each scrape it served (`remember`) and hands interact calls to it. Core names the
 * shapes only. `ProfileTeam` says whose browser profiles a render reads: the server sets it to
 * the caller's team, so one team never sees another's profile of the same name.
 */
import { Context, type Effect, Schema } from "effect"
import { defaultTeamId } from "../store/Store.ts"
import { ScrapeError } from "../ScrapeError.ts"
import { StoreUnavailable } from "../store/StoreError.ts"
import type { ScrapeRequest } from "../contract/index.ts"
import { RecordUnreadable } from "./InteractRecords.ts"

/** The team whose browser profiles a render reads and writes; `default` outside the server. */
export const ProfileTeam = Context.Reference<string>("@strata/core/ProfileTeam", { defaultValue: () => defaultTeamId })

/** Who made a scrape: only the same key may interact with it; profiles belong to the team. */
export interface InteractionOwner {
  readonly key: string
  readonly team: string
  /**
   * The caller keeps no data now (its team's zero data retention, which may have been turned on
   * since the scrape): a session it opens or stops saves no profile.
   */
  readonly zeroDataRetention?: boolean | undefined
}

/** Code to run in the session's page, with its time limit. */
export interface CodeRun {
  /** JavaScript, the body of an async function: `return` gives the result. */
  readonly code: string
  readonly timeoutMs: number
}

/** What a code run did, in Firecrawl's terms (a failed run is data, not an error). */
export interface CodeOutcome {
  readonly sessionId: string
  /** The returned value: a string as it is, anything else as JSON; null when nothing was returned. */
  readonly result: string | null
  /** `console.log`, `info` and `debug` output, one line per call. */
  readonly stdout: string
  /** `console.warn` and `error` output, then the error the code threw, if any. */
  readonly stderr: string
  /** 0 when the code returned, 1 when it threw, 124 when it ran out of time. */
  readonly exitCode: number
  /** The time limit stopped it. */
  readonly killed: boolean
  /** The result or the console output was cut at its limit. */
  readonly truncated: boolean
}

/** A stopped session. */
export interface SessionSummary {
  readonly sessionId: string
  readonly sessionDurationMs: number
  /** A note on what could not be done (the profile was too large to save, say). */
  readonly warning?: string | undefined
}

/** No session can be had for this id: never scraped here, another key's, ended, or forgotten. */
export class UnknownScrape extends Schema.TaggedError<UnknownScrape>()("UnknownScrape", {
  scrapeId: Schema.String,
  message: Schema.String
}) {}

/** The scrape ran under zero data retention: its URL and options were not kept, so it cannot be replayed. */
export class NotRetained extends Schema.TaggedError<NotRetained>()("NotRetained", {
  scrapeId: Schema.String,
  message: Schema.String
}) {}

/** As many sessions are open as the server allows. */
export class TooManySessions extends Schema.TaggedError<TooManySessions>()("TooManySessions", {
  limit: Schema.Int,
  message: Schema.String
}) {}

/** Another session holds this profile for saving. */
export class ProfileLocked extends Schema.TaggedError<ProfileLocked>()("ProfileLocked", {
  profile: Schema.String,
  message: Schema.String
}) {}

/**
 * The scrape's session is open in another server process on the same store (a replica): its page
 * lives there, so this process can neither run code in it nor stop it. `expiresAt` is when that
 * process's lease lapses unless it renews it (it does while the session lives).
 */
export class SessionElsewhere extends Schema.TaggedError<SessionElsewhere>()("SessionElsewhere", {
  scrapeId: Schema.String,
  expiresAt: Schema.Number,
  message: Schema.String
}) {}

/** The session could not be opened: the replay of the scrape failed as a scrape would. */
export class ReplayFailed extends Schema.TaggedError<ReplayFailed>()("ReplayFailed", {
  error: ScrapeError,
  message: Schema.String
}) {}

export class InteractionError extends Schema.TaggedError<InteractionError>()("InteractionError", {
  reason: Schema.Union([UnknownScrape, NotRetained, TooManySessions, ProfileLocked, SessionElsewhere, RecordUnreadable, StoreUnavailable, ReplayFailed])
}) {
  override get message(): string {
    return this.reason.message
  }
}

export const interactionError = (reason: InteractionError["reason"]): InteractionError => new InteractionError({ reason })

export interface InteractionsService {
  /**
   * Keeps what replaying this scrape needs, for `owner` only (bounded, and forgotten after a
   * while), in the store when there is one; a store that fails is logged, and the scrape's answer
   * stands (only its interact is lost).
   */
  readonly remember: (scrapeId: string, request: ScrapeRequest, owner: InteractionOwner) => Effect.Effect<void>
  /** Runs code in the scrape's session, opening it (the scrape replayed) on the first call. */
  readonly execute: (scrapeId: string, owner: InteractionOwner, run: CodeRun) => Effect.Effect<CodeOutcome, InteractionError>
  /** Stops the scrape's session (saving its profile when asked to); the id is then forgotten. */
  readonly stop: (scrapeId: string, owner: InteractionOwner) => Effect.Effect<SessionSummary, InteractionError>
}

export class Interactions extends Context.Service<Interactions, InteractionsService>()("@strata/core/Interactions") {}
