/**
 * The language model the derived formats (summary, answer, highlights, json) use when one is
 * configured: a core contract, one chat completion at a time, with engines elsewhere
 * (`llm/OpenAiCompatible.ts` talks to any OpenAI-compatible endpoint). Without one in the
 * context every derived format takes its offline path.
 *
 * Why not effect's `effect/ai` `LanguageModel`: its structured output takes an effect `Schema`
 * and writes the JSON Schema from it, while the `json` format brings the user's JSON Schema at run
 * time and must send it to the endpoint as it came (`response_format.json_schema`). The contract
 * here is the few calls the formats make, so an engine is a page of code.
 */
import { Context, Schema } from "effect"

/** Token counts the endpoint reported for one completion. */
export interface Usage {
  readonly promptTokens: number
  readonly completionTokens: number
}

export interface CompletionRequest {
  /** What the model is for (the instructions). */
  readonly system: string
  /** The page and the question or task. */
  readonly user: string
  /**
   * `text` (the default), `json` (any JSON object), or `schema`: JSON that fits the given JSON
   * Schema, sent to the endpoint as structured output.
   */
  readonly output?:
    | { readonly type: "text" }
    | { readonly type: "json" }
    | { readonly type: "schema"; readonly name: string; readonly schema: Record<string, unknown> }
    | undefined
  /** At most this many tokens in the answer (default: the engine's). */
  readonly maxOutputTokens?: number | undefined
}

export interface Completion {
  readonly text: string
  readonly usage: Usage
  /** The model that answered, as the endpoint named it. */
  readonly model: string
}

export class RateLimited extends Schema.TaggedClass<RateLimited>()("RateLimited", {
  message: Schema.String
}) {}

export class ModelTimedOut extends Schema.TaggedClass<ModelTimedOut>()("ModelTimedOut", {
  message: Schema.String,
  timeoutMs: Schema.Number
}) {}

/** The endpoint answered with an error status other than 429. */
export class EndpointFailed extends Schema.TaggedClass<EndpointFailed>()("EndpointFailed", {
  message: Schema.String,
  status: Schema.optional(Schema.Number)
}) {}

/** The endpoint answered 2xx with a body that is not a chat completion. */
export class MalformedResponse extends Schema.TaggedClass<MalformedResponse>()("MalformedResponse", {
  message: Schema.String
}) {}

export const LanguageModelErrorReason = Schema.Union([RateLimited, ModelTimedOut, EndpointFailed, MalformedResponse])

export class LanguageModelError extends Schema.TaggedError<LanguageModelError>()("LanguageModelError", {
  reason: LanguageModelErrorReason
}) {
  get isRetryable(): boolean {
    const reason = this.reason
    return reason._tag === "RateLimited" || reason._tag === "ModelTimedOut" ||
      (reason._tag === "EndpointFailed" && (reason.status === undefined || reason.status >= 500))
  }

  override get message(): string {
    return this.reason.message
  }
}

export interface LanguageModelShape {
  /** The model asked for (`STRATA_LLM_MODEL`). */
  readonly model: string
  /** Most tokens of page text one request may send: longer pages are trimmed, with a warning. */
  readonly maxInputTokens: number
  /** Most tokens one answer may have (left out: the engine's default, 2048 for OpenAiCompatible). */
  readonly maxOutputTokens?: number | undefined
  readonly complete: (request: CompletionRequest) => import("effect").Effect.Effect<Completion, LanguageModelError>
}

export class LanguageModel extends Context.Service<LanguageModel, LanguageModelShape>()("@strata/core/LanguageModel") {}

/** A rough token count (4 characters a token for English, the usual rule): budgets, not billing. */
export const estimateTokens = (text: string): number => Math.ceil(text.length / 4)
