/**
 * A `LanguageModel` engine for any OpenAI-compatible Chat Completions endpoint (OpenAI, vLLM,
 * llama.cpp's server, Ollama's `/v1`, LiteLLM...), on effect's `HttpClient`. Each attempt has
 * its own timeout; 429, 5xx, time-outs and dropped connections are tried again with exponential
 * backoff (a `Retry-After` of up to 30 s is honoured), other errors are not.
 *
 * Configured from `STRATA_LLM_BASE_URL` (e.g. `http://127.0.0.1:8000/v1`), `STRATA_LLM_API_KEY`,
 * `STRATA_LLM_MODEL`, `STRATA_LLM_TIMEOUT_MS` (60000), `STRATA_LLM_MAX_RETRIES` (3),
 * `STRATA_LLM_MAX_INPUT_TOKENS` (24000) and `STRATA_LLM_MAX_OUTPUT_TOKENS` (2048).
 */
import { Config, Duration, Effect, Layer, Option, Redacted } from "effect"
import { FetchHttpClient, HttpClient, HttpClientRequest } from "effect/http"
import {
  type Completion,
  type CompletionRequest,
  EndpointFailed,
  LanguageModel,
  LanguageModelError,
  MalformedResponse,
  ModelTimedOut,
  RateLimited
} from "../LanguageModel.ts"

export interface OpenAiCompatibleOptions {
  /** The API's base, up to and including `/v1`: requests go to `<baseUrl>/chat/completions`. */
  readonly baseUrl: string
  readonly apiKey?: Redacted.Redacted<string> | string | undefined
  readonly model: string
  /** Per attempt (default 60,000 ms). */
  readonly timeoutMs?: number | undefined
  /** Attempts after the first on 429, 5xx and time-outs (default 3). */
  readonly maxRetries?: number | undefined
  /** First backoff; doubled each retry (default 500 ms). */
  readonly backoffMs?: number | undefined
  /** Page text sent at most (default 24,000 tokens). */
  readonly maxInputTokens?: number | undefined
  /** `max_tokens` when the request does not say (default 2,048). */
  readonly maxOutputTokens?: number | undefined
}

const fail = (reason: LanguageModelError["reason"]) => Effect.fail(new LanguageModelError({ reason }))

/** The request body: the messages, the output format, and the limits. */
export const chatBody = (options: OpenAiCompatibleOptions, request: CompletionRequest): Record<string, unknown> => {
  const output = request.output ?? { type: "text" }
  return {
    model: options.model,
    messages: [{ role: "system", content: request.system }, { role: "user", content: request.user }],
    temperature: 0,
    max_tokens: request.maxOutputTokens ?? options.maxOutputTokens ?? 2048,
    ...(output.type === "json" ? { response_format: { type: "json_object" } } : {}),
    ...(output.type === "schema"
      ? { response_format: { type: "json_schema", json_schema: { name: output.name, schema: output.schema, strict: false } } }
      : {})
  }
}

const retryAfterMs = (header: string | undefined): number | undefined => {
  if (header === undefined) return undefined
  const seconds = Number(header)
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000)
  const at = Date.parse(header)
  return Number.isNaN(at) ? undefined : Math.max(0, at - Date.now())
}

export const make = (options: OpenAiCompatibleOptions) =>
  Effect.gen(function*() {
    const client = yield* HttpClient.HttpClient
    const url = `${options.baseUrl.replace(/\/+$/, "")}/chat/completions`
    const timeoutMs = options.timeoutMs ?? 60_000
    const maxRetries = options.maxRetries ?? 3
    const backoffMs = options.backoffMs ?? 500
    const apiKey = options.apiKey === undefined ? undefined : typeof options.apiKey === "string" ? options.apiKey : Redacted.value(options.apiKey)

    /** One attempt, with what to wait before the next when it may be tried again. */
    const attempt = (request: CompletionRequest): Effect.Effect<Completion, LanguageModelError & { retryAfterMs?: number }> =>
      Effect.gen(function*() {
        let httpRequest = HttpClientRequest.post(url).pipe(HttpClientRequest.acceptJson, HttpClientRequest.bodyJsonUnsafe(chatBody(options, request)))
        if (apiKey !== undefined && apiKey !== "") httpRequest = HttpClientRequest.bearerToken(httpRequest, apiKey)
        const response = yield* client.execute(httpRequest).pipe(
          Effect.mapError(() => new LanguageModelError({ reason: new EndpointFailed({ message: `the language model endpoint could not be reached at ${url}` }) }))
        )
        if (response.status === 429) {
          const error = new LanguageModelError({ reason: new RateLimited({ message: "the language model endpoint answered 429 (rate limited)" }) })
          const wait = retryAfterMs(response.headers["retry-after"])
          return yield* Effect.fail(Object.assign(error, wait === undefined ? {} : { retryAfterMs: wait }))
        }
        if (response.status < 200 || response.status >= 300) {
          const detail = yield* response.text.pipe(Effect.orElseSucceed(() => ""))
          return yield* fail(new EndpointFailed({
            message: `the language model endpoint answered ${response.status}${detail === "" ? "" : `: ${detail.slice(0, 200)}`}`,
            status: response.status
          }))
        }
        const body = yield* response.json.pipe(
          Effect.mapError(() => new LanguageModelError({ reason: new MalformedResponse({ message: "the language model endpoint answered with a body that is not JSON" }) }))
        )
        const record = body as { choices?: Array<{ message?: { content?: unknown } }>; usage?: Record<string, unknown>; model?: unknown }
        const content = record.choices?.[0]?.message?.content
        if (typeof content !== "string") {
          return yield* fail(new MalformedResponse({ message: "the language model endpoint's answer has no choices[0].message.content" }))
        }
        const usage = record.usage ?? {}
        return {
          text: content,
          model: typeof record.model === "string" ? record.model : options.model,
          usage: {
            promptTokens: typeof usage.prompt_tokens === "number" ? usage.prompt_tokens : 0,
            completionTokens: typeof usage.completion_tokens === "number" ? usage.completion_tokens : 0
          }
        }
      }).pipe(
        Effect.scoped,
        Effect.timeoutOrElse({
          duration: Duration.millis(timeoutMs),
          orElse: () => fail(new ModelTimedOut({ message: `the language model did not answer within ${timeoutMs} ms`, timeoutMs }))
        })
      )

    const complete = Effect.fn("LanguageModel.complete")(function*(request: CompletionRequest) {
      for (let retry = 0;; retry++) {
        const result = yield* Effect.result(attempt(request))
        if (result._tag === "Success") return result.success
        const error = result.failure
        if (!error.isRetryable || retry >= maxRetries) return yield* Effect.fail(new LanguageModelError({ reason: error.reason }))
        const backoff = backoffMs * 2 ** retry
        yield* Effect.sleep(Duration.millis(Math.min(30_000, Math.max(backoff, error.retryAfterMs ?? 0))))
      }
    })

    return LanguageModel.of({ model: options.model, maxInputTokens: options.maxInputTokens ?? 24_000, maxOutputTokens: options.maxOutputTokens ?? 2048, complete })
  })

/** The engine with the given options, over the platform's `fetch`. */
export const layer = (options: OpenAiCompatibleOptions): Layer.Layer<LanguageModel> =>
  Layer.effect(LanguageModel, make(options)).pipe(Layer.provide(FetchHttpClient.layer))

/** The options from `STRATA_LLM_*`, or none when `STRATA_LLM_BASE_URL` is not set. */
export const optionsFromConfig: Effect.Effect<Option.Option<OpenAiCompatibleOptions>, Config.ConfigError> = Effect.gen(function*() {
  const baseUrl = (yield* Config.String("STRATA_LLM_BASE_URL").pipe(Config.withDefault(""))).trim()
  if (baseUrl === "") return Option.none()
  const apiKey = yield* Config.Redacted("STRATA_LLM_API_KEY").pipe(Config.option)
  return Option.some({
    baseUrl,
    apiKey: Option.getOrUndefined(apiKey),
    model: yield* Config.String("STRATA_LLM_MODEL").pipe(Config.withDefault("gpt-4o-mini")),
    timeoutMs: yield* Config.Int("STRATA_LLM_TIMEOUT_MS").pipe(Config.withDefault(60_000)),
    maxRetries: yield* Config.Int("STRATA_LLM_MAX_RETRIES").pipe(Config.withDefault(3)),
    maxInputTokens: yield* Config.Int("STRATA_LLM_MAX_INPUT_TOKENS").pipe(Config.withDefault(24_000)),
    maxOutputTokens: yield* Config.Int("STRATA_LLM_MAX_OUTPUT_TOKENS").pipe(Config.withDefault(2048))
  })
})
