/**
 * The error a page-level stage (Layout, Tables, ReadingOrder, Redaction, a user's own) fails with.
 * Readers record a page whose stage failed as `failed` data and go on with the document: one odd
 * page never takes the document down.
 */
import { Effect, Schema } from "effect"
import { thrownKind } from "../ReadFailure.ts"

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

/** Our wording for what a stage step threw: its own text names internals and never reaches a client. */
const thrownMessage = (cause: unknown): string => {
  switch (thrownKind(cause)) {
    case "nesting":
      return "the page nests its content too deeply to process"
    case "size":
      return "the page holds more content than can be processed"
    case "other":
      return "the step failed unexpectedly"
  }
}

/**
 * Runs a synchronous stage step: a thrown exception becomes a `StageError` for that page, worded
 * by us; the exception itself goes to the debug log.
 */
export const stageStep = <A>(stage: string, page: number | undefined, step: () => A): Effect.Effect<A, StageError> =>
  Effect.try({ try: step, catch: (cause) => cause }).pipe(Effect.catch((cause) =>
    Effect.logDebug(`the ${stage} stage threw`, cause).pipe(Effect.andThen(Effect.fail(
      new StageError({ stage, message: thrownMessage(cause), ...(page !== undefined ? { page } : {}) })
    )))
  ))
