/**
 * POST /v2/scrape: reads a JSON body (content type checked, size capped while reading), validates
 * it once (decoded with the contract's defaults, unsupported options refused), hands the decoded
 * request to the pipeline under the team's limits and billing (Metering.ts), and answers
 * `{ success: true, data }` or the mapped error.
 */
import { ChangeTrackingTeam, defaultTeamId, Pipeline, validateScrapeRequest } from "@strata/core"
import { ByteSize, Effect, Stream } from "effect"
import { HttpIncomingMessage, HttpServerRequest } from "effect/http"
import { parseJsonText } from "./JsonText.ts"
import { catalogRoute, domainToolsOf, isCatalogBody, listingDomainTools } from "./CatalogRoute.ts"
import { badRequest, catalogErrorReply, payloadTooLarge, scrapeErrorReply } from "./ErrorReply.ts"
import { metered, meteredStream } from "./Metering.ts"
import { wantsNdjson } from "./NdjsonReply.ts"
import { respondError } from "./Reply.ts"
import { RequestContext } from "./RequestContext.ts"
import { withoutCredentials } from "./RequestLog.ts"
import { ServerSettings } from "./ServerSettings.ts"

/** `application/json` and structured `+json` types, with any parameters. */
const isJsonContentType = (header: string | undefined): boolean => {
  const essence = (header ?? "").split(";")[0].trim().toLowerCase()
  return essence === "application/json" || /^application\/[a-z0-9.+-]+\+json$/.test(essence)
}

/** Whether the request asked for zero data retention (its URL must then stay out of logs, as its team's ZDR setting does). */
const retainsNothing = (body: unknown): boolean =>
  typeof body === "object" && body !== null &&
  ((body as Record<string, unknown>).zeroDataRetention === true || (body as Record<string, unknown>).lockdown === true)

export const scrapeRoute = Effect.gen(function*() {
  const request = yield* HttpServerRequest.HttpServerRequest
  const { config } = yield* ServerSettings
  const context = yield* RequestContext
  const served = yield* Pipeline

  if (!isJsonContentType(request.headers["content-type"])) {
    return yield* respondError(badRequest("The request body must be JSON, sent with Content-Type: application/json"))
  }
  const declared = Number(request.headers["content-length"] ?? "0")
  if (declared > config.maxJsonBytes) {
    return yield* respondError(payloadTooLarge("The request body", config.maxJsonBytes), { connection: "close" })
  }
  const text = yield* request.text.pipe(
    Effect.provideService(HttpIncomingMessage.MaxBodySize, ByteSize.bytes(config.maxJsonBytes)),
    Effect.map((text) => ({ _tag: "Read" as const, text })),
    Effect.catch((error) =>
      Effect.succeed({
        _tag: "Failed" as const,
        tooLarge: error.reason._tag === "RequestParseError" && error.reason.reason === "BodyTooLarge"
      })
    )
  )
  if (text._tag === "Failed") {
    return yield* respondError(
      text.tooLarge ? payloadTooLarge("The request body", config.maxJsonBytes) : badRequest("The request body could not be read"),
      { connection: "close" }
    )
  }
  const parsed = parseJsonText(text.text)
  if (!parsed.ok) return yield* respondError(badRequest(`The request body is not valid JSON: ${parsed.message}`))
  // A catalog request runs tools instead of a scrape (CatalogRoute.ts).
  if (isCatalogBody(parsed.value)) return yield* catalogRoute(parsed.value as Record<string, unknown>)
  const tools = domainToolsOf(parsed.value, context.team, retainsNothing(parsed.value))
  if (tools._tag === "Refused") return yield* respondError(catalogErrorReply(tools.error, undefined))
  const body = tools.body
  const pipeline = tools._tag === "Listed" ? yield* listingDomainTools(served) : served
  if (context.team?.zdr !== true && !retainsNothing(body) && typeof (body as { url?: unknown } | null)?.url === "string") {
    context.logFields.target = withoutCredentials((body as { url: string }).url)
  }
  // Validation and the option gate run before anything streams, so their errors keep their HTTP status.
  const streaming = wantsNdjson(request.headers.accept)
  return yield* validateScrapeRequest(body).pipe(
    // Back on the decoded request, so that an x-request-id reused with and without it is two requests.
    Effect.map((scrape) => (tools._tag === "Listed" ? { ...scrape, domainTools: true } : scrape)),
    // A team with zero data retention: its requests run as if each asked for it (no cache row).
    Effect.map((scrape) => (context.team?.zdr === true ? { ...scrape, zeroDataRetention: true, storeInCache: false } : scrape)),
    // What this server cannot serve (an option that needs the browser, with STRATA_BROWSER=off) is
    // refused here too, before metering and before an NDJSON stream sends its 200.
    Effect.tap((scrape) => pipeline.admit(scrape)),
    Effect.flatMap((scrape) => {
      const request = { route: "scrape" as const, params: scrape, options: scrape, url: scrape.url }
      // changeTracking's history is the caller's team's.
      const team = context.team?.id ?? defaultTeamId
      return streaming
        ? meteredStream(request, (timeout) => Stream.provideService(pipeline.scrapeStream({ ...scrape, timeout }), ChangeTrackingTeam, team))
        : metered(request, (timeout) => Effect.provideService(pipeline.scrape({ ...scrape, timeout }), ChangeTrackingTeam, team))
    }),
    Effect.catchTag("ScrapeError", (error) => respondError(scrapeErrorReply(error, "scrape")))
  )
})
