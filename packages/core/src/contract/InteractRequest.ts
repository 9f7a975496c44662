/**
 * The body of `POST /v2/scrape/{scrapeId}/interact`, as Firecrawl's SDKs send it: `code` or
 * `prompt`, `language` (default `node`), `timeout` in seconds (1 to 300, default 30), and the
 * SDK's `origin` and `integration`. Unknown keys are refused, as in every body here.
 *
 * When both `code` and `prompt` come, `code` runs (Firecrawl does the same). `code` is
 * JavaScript run in the scrape's page, so `language` must be `node`; `python` and `bash` (which
 * Firecrawl runs in a sandbox beside the browser) are refused by name.
 */
import { Effect, Schema } from "effect"
import { NotSupported, scrapeError, type ScrapeError } from "../ScrapeError.ts"
import { invalidRequest, issuesFromSchema, type RequestIssue } from "./Issues.ts"
import { IntBetween, StringBetween } from "./Primitives.ts"

export const INTERACT_MAX_CODE_CHARS = 100_000
export const INTERACT_MAX_PROMPT_CHARS = 10_000
export const INTERACT_DEFAULT_TIMEOUT_S = 30
export const INTERACT_MAX_TIMEOUT_S = 300

export const InteractRequestBody = Schema.Struct({
  code: Schema.optionalKey(StringBetween(1, INTERACT_MAX_CODE_CHARS).annotate({ description: "JavaScript run in the page, as the body of an async function (`return` gives the result)." })),
  prompt: Schema.optionalKey(StringBetween(1, INTERACT_MAX_PROMPT_CHARS).annotate({ description: "What to do, in words, for a language model to carry out." })),
  language: Schema.optionalKey(Schema.Literals(["node", "python", "bash"]).annotate({ default: "node" })),
  timeout: Schema.optionalKey(IntBetween(1, INTERACT_MAX_TIMEOUT_S).annotate({ description: "Seconds the code may run.", default: INTERACT_DEFAULT_TIMEOUT_S })),
  origin: Schema.optionalKey(Schema.String),
  integration: Schema.optionalKey(Schema.String)
}).annotate({ identifier: "InteractRequest" })

/** A decoded interact call: code to run (the only kind this server runs), or a prompt. */
export type InteractRequest =
  | { readonly kind: "code"; readonly code: string; readonly timeoutMs: number }
  | { readonly kind: "prompt"; readonly prompt: string; readonly timeoutMs: number }

const isRecord = (u: unknown): u is Record<string, unknown> => typeof u === "object" && u !== null && !Array.isArray(u)

/** Validates an interact body; InvalidRequest lists every issue, NotSupported names a language this server cannot run. */
export const decodeInteractRequest = (input: unknown): Effect.Effect<InteractRequest, ScrapeError> =>
  Effect.suspend((): Effect.Effect<InteractRequest, ScrapeError> => {
    if (!isRecord(input)) return Effect.fail(invalidRequest("interact request", [{ path: [], message: "Expected a JSON object" }]))
    const result = Schema.decodeUnknownResult(InteractRequestBody)(input, { onExcessProperty: "error", errors: "all" })
    if (result._tag === "Failure") return Effect.fail(invalidRequest("interact request", issuesFromSchema(result.failure.issue)))
    const body = result.success
    const timeoutMs = (body.timeout ?? INTERACT_DEFAULT_TIMEOUT_S) * 1000
    if (body.code !== undefined) {
      const language = body.language ?? "node"
      if (language !== "node") {
        return Effect.fail(scrapeError(new NotSupported({
          option: "language",
          message: `The option \`language: ${language}\` is not supported by this server: code runs as JavaScript in the scrape's page, so language must be "node"`
        })))
      }
      return Effect.succeed({ kind: "code", code: body.code, timeoutMs })
    }
    if (body.prompt !== undefined) return Effect.succeed({ kind: "prompt", prompt: body.prompt, timeoutMs })
    const missing: RequestIssue = { path: ["code"], message: "Send `code` (JavaScript to run in the page) or `prompt`" }
    return Effect.fail(invalidRequest("interact request", [missing]))
  })
