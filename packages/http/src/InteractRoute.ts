/**
 * `POST /v2/scrape/{scrapeId}/interact` and `DELETE` (stop), over core's `Interactions`, which
 * the browser engine's layer provides beside the pipeline.
 *
 * - POST runs `code` in the scrape's browser session and answers Firecrawl's flat body
 *   `{ success, sessionId, result?, stdout, stderr, exitCode, killed, truncated?, error? }` (not under
 *   `data`): a run that threw or timed out is still HTTP 200 with `success: false`, as
 *   Firecrawl's SDKs expect. `prompt` is not run yet: 400, whose message says whether a
 *   language model is configured (the pipeline's layer puts it beside the pipeline).
 * - Each POST is metered as a scrape is (`Metering.ts`): it holds one of the team's concurrency
 *   slots while it runs, a team short of what the call may cost gets 402 before anything runs,
 *   and the call is charged once when it ends, for its browser time (`interactCost` in
 *   Billing.ts), reported as `creditsUsed` in its answer. A refused call (unknown scrape, locked
 *   profile, too many sessions) costs nothing.
 * - DELETE answers `{ success, sessionId, sessionDurationMs, creditsBilled, cleanupQueued }`;
 *   stopping costs nothing (`creditsBilled: 0`): the calls were billed as they ran.
 * - `rememberScrapes` wraps POST /v2/scrape: every scrape it serves is remembered under its
 *   `metadata.scrapeId` with the caller's key and team, and a `profile` is read from the team's
 *   own profiles (`ProfileTeam`).
 *
 * There is no CDP or live-view URL: the page is reachable only through this endpoint, so the
 * SSRF proxy and the time limits hold for everything the session does.
 */
import {
  type CodeOutcome,
  defaultTeamId,
  decodeInteractRequest,
  type InteractionError,
  type InteractionOwner,
  Interactions,
  type InteractionsService,
  LanguageModel,
  NotSupported,
  Pipeline,
  ProfileTeam,
  scrapeError
} from "@strata/core"
import { ByteSize, Effect, Option, Result, Stream } from "effect"
import { HttpIncomingMessage, HttpRouter, HttpServerRequest, HttpServerResponse } from "effect/http"
import { interactBilling, interactCost, interactLeast } from "./Billing.ts"
import { badRequest, type ErrorReply, payloadTooLarge, scrapeErrorReply } from "./ErrorReply.ts"
import { parseJsonText } from "./JsonText.ts"
import { meteredWork } from "./Metering.ts"
import { respondError } from "./Reply.ts"
import { RequestContext } from "./RequestContext.ts"
import { ServerSettings } from "./ServerSettings.ts"

/** `/v2/scrape/{scrapeId}/interact`, for the middleware's list of known paths. */
export const isInteractPath = (path: string): boolean => /^\/v2\/scrape\/[^/]+\/interact$/.test(path)

const errorReply = (status: number, code: string, error: string): ErrorReply => ({ status, body: { success: false, code, error } })

const unavailable = errorReply(
  501,
  "INTERACT_UNAVAILABLE",
  "Interact needs the browser engine, which is off on this server (STRATA_BROWSER=off, or the server was built without it)"
)

/** Statuses for interact failures: the contract's shapes, Firecrawl's statuses. */
export const interactErrorReply = (error: InteractionError): ErrorReply => {
  const reason = error.reason
  switch (reason._tag) {
    case "UnknownScrape":
      return errorReply(404, "SCRAPE_NOT_FOUND", reason.message)
    case "NotRetained":
      return errorReply(409, "SCRAPE_NOT_RETAINED", reason.message)
    case "ProfileLocked":
      return errorReply(409, "PROFILE_LOCKED", reason.message)
    case "SessionElsewhere":
      return errorReply(409, "SESSION_ON_OTHER_SERVER", reason.message)
    case "RecordUnreadable":
      // The servers are set up wrongly (their secrets differ), not the request.
      return errorReply(500, "SCRAPE_RECORD_UNREADABLE", reason.message)
    case "StoreUnavailable":
      return {
        ...errorReply(503, "INTERACT_STORE_UNAVAILABLE", "Interact cannot look up scrapes right now (the state store is unavailable). Retry shortly."),
        retryAfterSeconds: 5
      }
    case "TooManySessions":
      // The contract's 429 body is `{ error }` alone.
      return { status: 429, body: { error: reason.message }, retryAfterSeconds: 30 }
    case "ReplayFailed": {
      const inner = scrapeErrorReply(reason.error, "scrape")
      return { ...inner, body: { ...inner.body, error: reason.message } }
    }
  }
}

/** The caller, as the middleware verified it. */
const ownerOf = (context: RequestContext): InteractionOwner => ({
  key: context.keyId ?? "",
  team: context.team?.id ?? defaultTeamId,
  zeroDataRetention: context.team?.zdr === true
})

const isJsonContentType = (header: string | undefined): boolean => {
  const essence = (header ?? "").split(";")[0].trim().toLowerCase()
  return essence === "application/json" || /^application\/[a-z0-9.+-]+\+json$/.test(essence)
}

/** The JSON body, size-capped while read, or the reply that refuses it (closing the connection when the body was not read through). */
const readJson = Effect.gen(function*() {
  const request = yield* HttpServerRequest.HttpServerRequest
  const { config } = yield* ServerSettings
  if (!isJsonContentType(request.headers["content-type"])) {
    return { ok: false as const, close: false, reply: badRequest("The request body must be JSON, sent with Content-Type: application/json") }
  }
  if (Number(request.headers["content-length"] ?? "0") > config.maxJsonBytes) {
    return { ok: false as const, close: true, reply: payloadTooLarge("The request body", config.maxJsonBytes) }
  }
  const text = yield* request.text.pipe(
    Effect.provideService(HttpIncomingMessage.MaxBodySize, ByteSize.bytes(config.maxJsonBytes)),
    Effect.map(Option.some),
    Effect.catch(() => Effect.succeed(Option.none<string>()))
  )
  if (Option.isNone(text)) return { ok: false as const, close: true, reply: badRequest("The request body could not be read (or is larger than the limit)") }
  const parsed = parseJsonText(text.value)
  if (!parsed.ok) return { ok: false as const, close: false, reply: badRequest(`The request body is not valid JSON: ${parsed.message}`) }
  return { ok: true as const, value: parsed.value }
})

/** The 400 for `prompt`, true to whether this server has a language model. */
const promptRefused = (model: boolean) =>
  scrapeError(new NotSupported({
    option: "prompt",
    message: model
      ? "The option `prompt` is not supported by this server yet: prompt-driven interaction is not implemented, although a language model is configured. Send `code` (JavaScript run in the page) instead."
      : "The option `prompt` is not supported by this server yet: no language model is configured. Send `code` (JavaScript run in the page) instead."
  }))

const scrapeIdOf = Effect.map(HttpRouter.params, (params) => params.scrapeId ?? "")

export const interactRoute = Effect.gen(function*() {
  const context = yield* RequestContext
  const interactions = yield* Effect.serviceOption(Interactions)
  if (Option.isNone(interactions)) return yield* respondError(unavailable)
  const body = yield* readJson
  if (!body.ok) return yield* respondError(body.reply, body.close ? { connection: "close" } : undefined)
  const scrapeId = yield* scrapeIdOf
  const decoded = yield* Effect.result(decodeInteractRequest(body.value))
  if (Result.isFailure(decoded)) return yield* respondError(scrapeErrorReply(decoded.failure, "scrape"))
  const call = decoded.success
  if (call.kind === "prompt") {
    const model = yield* Effect.serviceOption(LanguageModel)
    return yield* respondError(scrapeErrorReply(promptRefused(Option.isSome(model)), "scrape"))
  }
  const execute = interactions.value.execute
  const price = ({ durationMs }: Ran) => interactCost(durationMs, call.timeoutMs)
  return yield* meteredWork(
    {
      route: "scrape",
      endpoint: "/v2/scrape/{scrapeId}/interact",
      params: { interact: scrapeId, code: call.code, timeoutMs: call.timeoutMs },
      options: interactBilling(call.timeoutMs),
      least: interactLeast(call.timeoutMs)
    },
    (timeoutMs) =>
      Effect.gen(function*() {
        const started = Date.now()
        const outcome = yield* execute(scrapeId, ownerOf(context), { code: call.code, timeoutMs: Math.min(call.timeoutMs, timeoutMs) })
        return { outcome, durationMs: Date.now() - started }
      }).pipe(Effect.mapError(interactErrorReply)),
    price,
    (ran) => flatBody(ran.outcome, price(ran))
  )
})

/** What a call ran, and for how long (its price). */
interface Ran {
  readonly outcome: CodeOutcome
  readonly durationMs: number
}

/** Firecrawl's flat answer, with what the call cost. */
const flatBody = (outcome: CodeOutcome, creditsUsed: number) => {
  const success = outcome.exitCode === 0 && !outcome.killed
  return {
    success,
    sessionId: outcome.sessionId,
    // Absent when nothing was returned (the SDKs type it `result?: string`).
    ...(outcome.result === null ? {} : { result: outcome.result }),
    stdout: outcome.stdout,
    stderr: outcome.stderr,
    exitCode: outcome.exitCode,
    killed: outcome.killed,
    ...(outcome.truncated ? { truncated: true } : {}),
    ...(success ? {} : { error: outcome.stderr.trim() === "" ? "Execution failed" : outcome.stderr.trim() }),
    creditsUsed
  }
}

export const stopInteractRoute = Effect.gen(function*() {
  const context = yield* RequestContext
  const interactions = yield* Effect.serviceOption(Interactions)
  if (Option.isNone(interactions)) return yield* respondError(unavailable)
  const scrapeId = yield* scrapeIdOf
  return yield* interactions.value.stop(scrapeId, ownerOf(context)).pipe(
    Effect.map((summary) =>
      HttpServerResponse.jsonUnsafe({
        success: true,
        sessionId: summary.sessionId,
        sessionDurationMs: summary.sessionDurationMs,
        // The calls were billed as they ran (each answer's `creditsUsed`); stopping costs nothing.
        creditsBilled: 0,
        cleanupQueued: false,
        ...(summary.warning === undefined ? {} : { warning: summary.warning })
      })
    ),
    Effect.catchTag("InteractionError", (error) => respondError(interactErrorReply(error)))
  )
})

/** The pipeline, with every scrape it serves remembered for interact under `owner`. */
const remembering = (pipeline: Pipeline["Service"], interactions: InteractionsService, owner: InteractionOwner, zdr: boolean): Pipeline["Service"] => {
  const remember = (request: Parameters<Pipeline["Service"]["scrape"]>[0], scrapeId: string | undefined) =>
    scrapeId === undefined ? Effect.void : interactions.remember(scrapeId, zdr ? { ...request, zeroDataRetention: true } : request, owner)
  return Pipeline.of({
    ...pipeline,
    scrape: (request) => Effect.tap(pipeline.scrape(request), (data) => remember(request, data.metadata?.scrapeId)),
    scrapeStream: (request) =>
      pipeline.scrapeStream(request).pipe(Stream.tap((event) => (event.type === "done" ? remember(request, event.data.metadata?.scrapeId) : Effect.void)))
  })
}

/**
 * Wraps POST /v2/scrape: profiles are read from the caller's team, and (with the browser on)
 * each scrape served is remembered for interact.
 */
export const rememberScrapes = <E, R>(route: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>) =>
  Effect.gen(function*() {
    const context = yield* RequestContext
    const owner = ownerOf(context)
    const scoped = Effect.provideService(route, ProfileTeam, owner.team)
    const interactions = yield* Effect.serviceOption(Interactions)
    if (Option.isNone(interactions)) return yield* scoped
    const pipeline = yield* Pipeline
    return yield* Effect.provideService(scoped, Pipeline, remembering(pipeline, interactions.value, owner, context.team?.zdr === true))
  })
