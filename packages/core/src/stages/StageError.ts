/**
 * The error a page-level stage (Layout, Tables, ReadingOrder, Redaction, a user's own) fails with.
 * Readers record a page whose stage failed as `failed` data and go on with the document: one odd
 * page never takes the document down.
 */
import { Effect, Schema } from "effect"

export class StageError extends Schema.TaggedError<StageError>()("StageError", {
  /** The stage's service name (`Layout`, `Tables`, ...). */
  stage: Schema.String,
  message: Schema.String,
  page: Schema.optional(Schema.Number)
}) {
  get isRetryable(): boolean {
    return false
  }
}

/** Runs a synchronous stage step: a thrown exception becomes a `StageError` for that page. */
export const stageStep = <A>(stage: string, page: number | undefined, step: () => A): Effect.Effect<A, StageError> =>
  Effect.try({
    try: step,
    catch: (cause) =>
      new StageError({ stage, message: cause instanceof Error ? cause.message : String(cause), ...(page !== undefined ? { page } : {}) })
  })
