/**
 * The only place that knows HTTP status codes and the contract's error codes. Every failure the
 * adapter can answer with is built here, in the contract's shapes: `{ success: false, error,
 * code, details? }` for errors, `{ success: false, error }` for 401 and `{ error }` for 429.
 *
 * Scrape failures follow what Firecrawl v2 answers, so SDK users see familiar codes: an unknown
 * host is 200 with `success: false` and SCRAPE_DNS_RESOLUTION_ERROR, TLS failures are 500
 * SCRAPE_SSL_ERROR, other unreachable-site failures 500 SCRAPE_SITE_ERROR, timeouts 408.
 */
import type { ArtifactError, CatalogError, ScrapeError, ToolFailed } from "@strata/core"

export interface ErrorReply {
  readonly status: number
  readonly body: Record<string, unknown>
  /** Sent as `Retry-After` (503 when the server is at capacity). */
  readonly retryAfterSeconds?: number | undefined
}

export type RouteKind = "scrape" | "parse"

const reply = (status: number, code: string, error: string, details?: unknown): ErrorReply => ({
  status,
  body: details === undefined ? { success: false, code, error } : { success: false, code, error, details }
})

export const badRequest = (error: string, details?: unknown): ErrorReply => reply(400, "BAD_REQUEST", error, details)

export const payloadTooLarge = (what: string, limitBytes: number): ErrorReply =>
  reply(413, "PAYLOAD_TOO_LARGE", `${what} is larger than the limit of ${formatBytes(limitBytes)}`)

/** Node refused the request's header block (over `maxHeaderSize`) before any route ran. */
export const headerFieldsTooLarge = (limitBytes: number): ErrorReply =>
  reply(431, "REQUEST_HEADER_FIELDS_TOO_LARGE", `The request's headers are larger than the limit of ${formatBytes(limitBytes)}`)

/** The request's headers or body did not arrive within the server's request timeout. */
export const requestTimedOut = (): ErrorReply => reply(408, "REQUEST_TIMEOUT", "The request was not received in time")

export const unauthorized = (kind: "Missing" | "Invalid"): ErrorReply => ({
  status: 401,
  body: {
    success: false,
    error: kind === "Missing"
      ? "Unauthorized: missing API key. Send it as \"Authorization: Bearer <key>\"."
      : "Unauthorized: invalid API key."
  }
})

/** The state store could not be asked whether a key is good: nothing ran, a retry may work. */
export const authUnavailable = (): ErrorReply => ({
  ...reply(503, "AUTH_UNAVAILABLE", "The server cannot check API keys right now (its state store is unavailable). Retry shortly."),
  retryAfterSeconds: 5
})

export const rateLimited = (perMinute: number, retryAfterSeconds: number): ErrorReply => ({
  status: 429,
  body: {
    error: `Rate limit exceeded: at most ${perMinute} requests per minute per API key. Retry after ${retryAfterSeconds} s.`
  }
})

/** A team over its own requests-per-minute (`strata teams set T --rate-limit R`): `{ error }` only. */
export const teamRateLimited = (perMinute: number, retryAfterSeconds: number): ErrorReply => ({
  status: 429,
  body: {
    error: `Rate limit exceeded: your team may send ${perMinute} requests per minute. Retry after ${retryAfterSeconds} s.`
  },
  retryAfterSeconds
})

/** Too many of the team's requests already wait for one of its concurrency slots: `{ error }` only. */
export const queueFull = (concurrency: number, queued: number): ErrorReply => ({
  status: 429,
  body: {
    error: `Concurrency limit reached: your team may run ${concurrency} requests at once and ${queued} are already waiting. Retry later.`
  },
  retryAfterSeconds: 1
})

/** The wait for a concurrency slot took two thirds of the request's timeout. */
export const queueTimedOut = (waitedMs: number, timeoutMs: number): ErrorReply =>
  reply(
    408,
    "SCRAPE_TIMEOUT",
    `The request waited ${waitedMs} ms for one of your team's concurrency slots, past two thirds of its ${timeoutMs} ms timeout`
  )

/** A request that came while the server was still starting (its port bound, its routes not yet attached). */
export const serverStarting = (): ErrorReply => ({
  ...reply(503, "SERVER_STARTING", "The server is still starting (opening its store). Retry shortly."),
  retryAfterSeconds: 1
})

/** The store holding the concurrency queue could not be asked: nothing ran. */
export const limitsUnavailable = (): ErrorReply => ({
  ...reply(503, "LIMITS_UNAVAILABLE", "The server cannot check your team's limits right now (its state store is unavailable). Retry shortly."),
  retryAfterSeconds: 5
})

const withCharge = (error: ErrorReply, chargeId: string | undefined): ErrorReply =>
  chargeId === undefined ? error : { ...error, body: { ...error.body, chargeId } }

/**
 * The team's balance is below what the request costs. Scrape answers the contract's
 * `{ success, error, code: insufficient_credits, chargeId? }`; parse answers `{ error }` only.
 */
export const insufficientCredits = (
  route: RouteKind,
  needed: number,
  balance: number,
  chargeId: string | undefined,
  ran = false
): ErrorReply => {
  const error = ran
    ? `Insufficient credits: this request cost ${needed} credits and your team has ${balance}; its result is withheld. Add credits and retry.`
    : `Insufficient credits to perform this request: it needs at least ${needed} credits and your team has ${balance}.`
  return route === "parse"
    ? { status: 402, body: { error } }
    : withCharge(reply(402, "insufficient_credits", error), chargeId)
}

/** The store could not charge (or check) credits: nothing is billed, a retry may work. */
export const billingUnavailable = (chargeId: string | undefined): ErrorReply => ({
  ...withCharge(reply(503, "billing_unavailable", "Credits cannot be charged right now (the state store is unavailable). Retry shortly."), chargeId),
  retryAfterSeconds: 5
})

/** The `x-request-id` is in use by a request still running. */
export const requestInFlight = (chargeId: string): ErrorReply =>
  withCharge(reply(409, "request_in_flight", "A request with this x-request-id is still running; retry once it has finished to get its response."), chargeId)

/** The `x-request-id` was used with other parameters (or its response was not kept). */
export const duplicateRequest = (chargeId: string, message?: string): ErrorReply =>
  withCharge(reply(409, "duplicate_request", message ?? "This x-request-id was already used for a request with other parameters."), chargeId)

/** A request with this `x-request-id` started and never finished: whether it ran cannot be known. */
export const requestUnresolved = (chargeId: string): ErrorReply => ({
  ...withCharge(
    reply(503, "request_unresolved", "The result of the earlier request with this x-request-id cannot be determined. Retry with the same x-request-id."),
    chargeId
  ),
  retryAfterSeconds: 30
})

/** Adds the request's `chargeId` to an error body that has the `{ success, code, error }` shape (not 429's `{ error }`). */
export const withChargeId = (error: ErrorReply, chargeId: string | undefined): ErrorReply =>
  error.body.success !== false || error.body.code === undefined ? error : withCharge(error, chargeId)

export const routeNotFound = (method: string, path: string): ErrorReply =>
  reply(
    404,
    "NOT_FOUND",
    `No route for ${method} ${path}. Routes: POST /v2/scrape, POST /v2/parse, GET /v2/openapi.json, GET /v2/artifacts/{file}, GET /health, GET /ready, GET /metrics.`
  )

/** Unexpected failures: the reference lets an operator find the log line; nothing else leaks. */
export const unknownError = (requestId: string): ErrorReply =>
  reply(500, "UNKNOWN_ERROR", `An unexpected error occurred. Quote this reference when reporting it: ${requestId}`)

/** Maps a pipeline failure to its status, code and message. */
export const scrapeErrorReply = (error: ScrapeError, route: RouteKind): ErrorReply => {
  const reason = error.reason
  switch (reason._tag) {
    case "InvalidRequest":
      return badRequest(reason.message, reason.details)
    case "NotSupported":
      return badRequest(reason.message, [{ path: [reason.option], message: reason.message }])
    case "UrlBlocked":
      return reply(403, "URL_BLOCKED", reason.message)
    case "FetchFailed":
      switch (reason.kind) {
        case "dns":
          return reply(200, "SCRAPE_DNS_RESOLUTION_ERROR", reason.message)
        case "tls":
          return reply(500, "SCRAPE_SSL_ERROR", reason.message)
        default:
          return reply(500, "SCRAPE_SITE_ERROR", reason.message, { kind: reason.kind })
      }
    case "TimedOut":
      return reply(408, "SCRAPE_TIMEOUT", reason.message)
    case "UnsupportedFileType":
      return route === "parse"
        ? reply(400, "UNSUPPORTED_FILE_TYPE", reason.message)
        : reply(500, "SCRAPE_UNSUPPORTED_FILE_ERROR", reason.message)
    case "DocumentUnreadable":
      switch (reason.kind) {
        case "missing_component":
          return reply(500, "DOCUMENT_COMPONENT_MISSING", reason.message)
        // Over a size, nesting or cell budget: the bytes are fine, the document is more than we read.
        case "limit":
          return reply(422, "DOCUMENT_TOO_COMPLEX", reason.message, { kind: reason.kind })
        default:
          return reply(route === "parse" ? 400 : 422, "DOCUMENT_UNREADABLE", reason.message, { kind: reason.kind })
      }
    case "StageFailed":
      return reply(500, "SCRAPE_STAGE_FAILED", `The ${reason.stage} stage failed: ${reason.message}`)
    case "Overloaded":
      return { ...reply(503, "SERVER_BUSY", reason.message), retryAfterSeconds: reason.retryAfterSeconds }
    case "BrowserFailed":
      // Firecrawl answers a failed action with 500 SCRAPE_ACTION_ERROR; the index and type say which.
      return reason.kind === "action"
        ? reply(500, "SCRAPE_ACTION_ERROR", reason.message, reason.action)
        : reply(500, "SCRAPE_BROWSER_ERROR", reason.message, { kind: reason.kind })
    case "NoCachedData":
      return reply(404, reason.kind === "lockdown" ? "SCRAPE_LOCKDOWN_CACHE_MISS" : "SCRAPE_NO_CACHED_DATA", reason.message)
    case "CacheUnavailable":
      return { ...reply(503, "SCRAPE_CACHE_UNAVAILABLE", reason.message), retryAfterSeconds: 5 }
  }
}

/**
 * A catalog request refused before any tool ran: 404 `unknown_provider`; 403 when the team may
 * not call the catalog; 403 `THIRD_PARTY_DATA_TERMS_REQUIRED` with the contract's
 * `requiresAction` when a provider's terms are not accepted.
 */
export const catalogErrorReply = (error: CatalogError, chargeId: string | undefined): ErrorReply => {
  const reason = error.reason
  switch (reason._tag) {
    case "UnknownProvider":
      return withCharge(reply(404, "unknown_provider", reason.message, { index: reason.index }), chargeId)
    case "CatalogDenied":
      return withCharge(
        reply(403, reason.why === "no_access" ? "CATALOG_NOT_ENABLED" : "CATALOG_ZDR_UNSUPPORTED", reason.message),
        chargeId
      )
    case "TermsRequired": {
      const refused = withCharge(reply(403, "THIRD_PARTY_DATA_TERMS_REQUIRED", reason.message), chargeId)
      return {
        ...refused,
        body: { ...refused.body, requiresAction: { type: "accept_terms", terms: reason.provider, version: reason.version, url: reason.url } }
      }
    }
  }
}

/** The accepted terms could not be read: nothing ran, a retry may work. */
export const termsUnavailable = (chargeId: string | undefined): ErrorReply => ({
  ...withCharge(reply(503, "TERMS_UNAVAILABLE", "The server cannot check your team's accepted provider terms right now (its state store is unavailable). Retry shortly."), chargeId),
  retryAfterSeconds: 5
})

/** A catalog call that failed while it ran, as its result item's `error` (the request itself succeeds). */
export const toolErrorBody = (error: ToolFailed): { readonly code: string; readonly message: string; readonly status: number } => {
  switch (error.kind) {
    case "invalid_input":
      return { code: "INVALID_INPUT", message: error.message, status: 400 }
    case "blocked":
      return { code: "URL_BLOCKED", message: error.message, status: 403 }
    case "not_found":
      return { code: "NOT_FOUND", message: error.message, status: 404 }
    case "timeout":
      return { code: "TIMEOUT", message: error.message, status: 408 }
    case "unsupported":
      return { code: "UNSUPPORTED_CONTENT", message: error.message, status: 422 }
    case "upstream":
      return { code: "UPSTREAM_FAILED", message: error.message, status: 502 }
  }
}

const formatBytes = (bytes: number): string =>
  bytes % (1024 * 1024) === 0 ? `${bytes / (1024 * 1024)} MB` : bytes % 1024 === 0 ? `${bytes / 1024} KB` : `${bytes} bytes`

/**
 * A refused artifact link (GET /v2/artifacts/{file}). The name is checked before the signature
 * and the signature before the expiry, so only a genuine link learns that it expired: 410 Gone
 * then (it existed, and will not come back; a client should scrape again), 403 for a signature
 * that is missing or wrong, 404 for a name the store never hands out or a file no longer kept.
 */
export const artifactErrorReply = (error: ArtifactError): ErrorReply => {
  const reason = error.reason
  switch (reason._tag) {
    case "MalformedLink":
    case "ArtifactMissing":
      return reply(404, "ARTIFACT_NOT_FOUND", reason.message)
    case "BadSignature":
      return reply(403, "ARTIFACT_LINK_INVALID", reason.message)
    case "LinkExpired":
      return reply(410, "ARTIFACT_EXPIRED", `${reason.message} (at ${new Date(reason.expiredAt).toISOString()}); scrape the page again for a new link`)
  }
}
