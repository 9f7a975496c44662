/**
 * What the state store can fail with. `StoreError` is the store itself failing (the database is
 * down, a statement failed, the schema could not be migrated): the request cannot be decided, so
 * the HTTP adapter answers it as unavailable (`billing_unavailable` where credits were at stake).
 * The other errors are answers about the data: a team that does not exist, a balance too small.
 * Only `packages/http/src/ErrorReply.ts` turns any of them into a status.
 */
import { Schema } from "effect"

/** The database could not be reached or a statement failed; `operation` names the store method. */
export class StoreUnavailable extends Schema.TaggedError<StoreUnavailable>()("StoreUnavailable", {
  operation: Schema.String,
  message: Schema.String
}) {}

/** The schema could not be brought up to date when the store started. */
export class MigrationFailed extends Schema.TaggedError<MigrationFailed>()("MigrationFailed", {
  migration: Schema.String,
  message: Schema.String
}) {}

export class StoreError extends Schema.TaggedError<StoreError>()("StoreError", {
  reason: Schema.Union([StoreUnavailable, MigrationFailed])
}) {
  override get message(): string {
    return this.reason.message
  }

  /** A statement that failed may work on the next try; a failed migration will not. */
  get isRetryable(): boolean {
    return this.reason._tag === "StoreUnavailable"
  }
}

/** No team with this id. */
export class UnknownTeam extends Schema.TaggedError<UnknownTeam>()("UnknownTeam", {
  teamId: Schema.String
}) {
  override get message(): string {
    return `No team "${this.teamId}"`
  }
}

/** A charge larger than the team's balance: nothing was charged. */
export class InsufficientCredits extends Schema.TaggedError<InsufficientCredits>()("InsufficientCredits", {
  teamId: Schema.String,
  balance: Schema.Number,
  needed: Schema.Number
}) {
  override get message(): string {
    return `Team "${this.teamId}" has ${this.balance} credits; ${this.needed} are needed`
  }
}
