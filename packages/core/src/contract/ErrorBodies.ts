/**
 * The error bodies of the contract's Errors table: which body each status of /v2/scrape and
 * /v2/parse carries, and the codes the table names. The HTTP adapter maps ScrapeError
 * reasons to these; the OpenAPI document lists them per path.
 */
import { Schema } from "effect"

export const RequiresAction = Schema.Struct({
  type: Schema.Literal("accept_terms"),
  terms: Schema.String.annotate({ description: "The provider whose terms need acceptance." }),
  version: Schema.String,
  url: Schema.String.annotate({ format: "uri", description: "Dashboard page where a person accepts the terms." })
}).annotate({ identifier: "RequiresAction" })

/** One validation problem of a 400: where (path of keys and indexes) and what. */
export const ValidationIssue = Schema.Struct({
  path: Schema.Array(Schema.Union([Schema.String, Schema.Finite])),
  message: Schema.String
}).annotate({ identifier: "ValidationIssue" })

/** The body of every scrape error except 429; `details` lists validation issues on a 400. */
export const ErrorBody = Schema.Struct({
  success: Schema.Literal(false),
  error: Schema.String,
  code: Schema.String,
  chargeId: Schema.optionalKey(Schema.String),
  requiresAction: Schema.optionalKey(RequiresAction),
  details: Schema.optionalKey(Schema.Array(ValidationIssue))
}).annotate({ identifier: "ErrorBody" })
export type ErrorBody = typeof ErrorBody.Type

/** 429 (and parse's 402): only a message. */
export const MessageOnlyErrorBody = Schema.Struct({
  error: Schema.String
}).annotate({ identifier: "MessageOnlyErrorBody" })
export type MessageOnlyErrorBody = typeof MessageOnlyErrorBody.Type

/** The error codes named by the contract. */
export const ErrorCodes = {
  badRequest: "BAD_REQUEST",
  unknownError: "UNKNOWN_ERROR",
  insufficientCredits: "insufficient_credits",
  thirdPartyTermsRequired: "THIRD_PARTY_DATA_TERMS_REQUIRED",
  unknownProvider: "unknown_provider",
  lockdownCacheMiss: "SCRAPE_LOCKDOWN_CACHE_MISS",
  noCachedData: "SCRAPE_NO_CACHED_DATA",
  duplicateRequest: "duplicate_request",
  requestInFlight: "request_in_flight",
  requestUnresolved: "request_unresolved",
  billingUnavailable: "billing_unavailable",
  /** Ours, beyond the contract: a document over a size, nesting or cell budget. */
  documentTooComplex: "DOCUMENT_TOO_COMPLEX",
  /** Ours: the team's catalog access is off (`strata teams set T --catalog off`). */
  catalogNotEnabled: "CATALOG_NOT_ENABLED",
  /** Ours: catalog tools and domainTools under zero data retention. */
  catalogZdrUnsupported: "CATALOG_ZDR_UNSUPPORTED",
  /** Ours: the accepted provider terms could not be read from the store. */
  termsUnavailable: "TERMS_UNAVAILABLE"
} as const

export interface ErrorStatus {
  readonly status: number
  readonly description: string
  readonly body: "error" | "message"
  readonly codes: ReadonlyArray<string>
}

/** Ours, on both routes: the document is well formed but larger or deeper than the server reads. */
const documentTooComplex: ErrorStatus = {
  status: 422,
  description: "The document is over one of the server's limits (decoded size, nesting depth, cells); the message says which.",
  body: "error",
  codes: [ErrorCodes.documentTooComplex]
}

/** Scrape error statuses of the contract's Errors table. */
export const scrapeErrorStatuses: ReadonlyArray<ErrorStatus> = [
  {
    status: 400,
    description: "Invalid request (rule violation, unknown key, catalog combined with scrape options).",
    body: "error",
    codes: [ErrorCodes.badRequest]
  },
  { status: 402, description: "Payment required.", body: "error", codes: [ErrorCodes.insufficientCredits] },
  {
    status: 403,
    description: "Catalog or domainTools not enabled, zero data retention on, or third-party terms not accepted.",
    body: "error",
    codes: [ErrorCodes.thirdPartyTermsRequired, ErrorCodes.catalogNotEnabled, ErrorCodes.catalogZdrUnsupported]
  },
  {
    status: 404,
    description: "Unknown catalog provider, lockdown cache miss, or no cached data for minAge.",
    body: "error",
    codes: [ErrorCodes.unknownProvider, ErrorCodes.lockdownCacheMiss, ErrorCodes.noCachedData]
  },
  { status: 409, description: "x-request-id reused.", body: "error", codes: [ErrorCodes.duplicateRequest, ErrorCodes.requestInFlight] },
  documentTooComplex,
  { status: 429, description: "Request rate limit exceeded.", body: "message", codes: [] },
  { status: 500, description: "Unexpected server error.", body: "error", codes: [ErrorCodes.unknownError] },
  {
    status: 503,
    description: "In-flight catalog result unknown, billing unavailable, or accepted provider terms unreadable.",
    body: "error",
    codes: [ErrorCodes.requestUnresolved, ErrorCodes.billingUnavailable, ErrorCodes.termsUnavailable]
  }
]

/** Parse error statuses: 400 and 500 carry a code; 402 and 429 only `error`. */
export const parseErrorStatuses: ReadonlyArray<ErrorStatus> = [
  { status: 400, description: "Invalid multipart body or options.", body: "error", codes: [ErrorCodes.badRequest] },
  { status: 402, description: "Payment required.", body: "message", codes: [] },
  documentTooComplex,
  { status: 429, description: "Request rate limit exceeded.", body: "message", codes: [] },
  { status: 500, description: "Unexpected server error.", body: "error", codes: [ErrorCodes.unknownError] }
]
