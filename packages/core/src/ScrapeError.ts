/**
 * The one typed error of the scrape and parse pipelines. `reason` says what went wrong in
 * the pipeline's own words; only the HTTP adapter turns reasons into status codes and the
 * contract's error codes.
 */
import { Schema } from "effect"

/** The request broke a rule of the contract. `details` lists the validation issues (path + message). */
export class InvalidRequest extends Schema.TaggedError<InvalidRequest>()("InvalidRequest", {
  message: Schema.String,
  details: Schema.Array(Schema.Struct({ path: Schema.Array(Schema.Union([Schema.String, Schema.Number])), message: Schema.String }))
}) {}

/** A valid option this server does not implement (yet): never silently ignored. */
export class NotSupported extends Schema.TaggedError<NotSupported>()("NotSupported", {
  option: Schema.String,
  message: Schema.String
}) {}

/** The target resolves to a loopback, private, link-local or metadata address (SSRF protection). */
export class UrlBlocked extends Schema.TaggedError<UrlBlocked>()("UrlBlocked", {
  url: Schema.String,
  message: Schema.String
}) {}

/** The target could not be fetched at all (DNS, connection, TLS, protocol, size cap, redirect loop). */
export class FetchFailed extends Schema.TaggedError<FetchFailed>()("FetchFailed", {
  kind: Schema.Literals(["dns", "connection", "tls", "protocol", "too_large", "redirects", "decode"]),
  url: Schema.String,
  message: Schema.String
}) {}

/** The request's `timeout` budget ran out. */
export class TimedOut extends Schema.TaggedError<TimedOut>()("TimedOut", {
  message: Schema.String
}) {}

/** The content is of a type the service does not read (by sniffing, extension and content type). */
export class UnsupportedFileType extends Schema.TaggedError<UnsupportedFileType>()("UnsupportedFileType", {
  message: Schema.String
}) {}

/** A document could not be read: encrypted, corrupt, or a component (LibreOffice, ...) is missing. */
export class DocumentUnreadable extends Schema.TaggedError<DocumentUnreadable>()("DocumentUnreadable", {
  kind: Schema.Literals(["encrypted", "corrupt", "missing_component", "limit", "unsupported"]),
  message: Schema.String
}) {}

/** A pipeline stage (layout, redaction, a user's own) failed for the whole request. */
export class StageFailed extends Schema.TaggedError<StageFailed>()("StageFailed", {
  stage: Schema.String,
  message: Schema.String
}) {}

/** The server is at capacity (every document reader busy and the queue full); `retryAfterSeconds` says when to try again. */
export class Overloaded extends Schema.TaggedError<Overloaded>()("Overloaded", {
  message: Schema.String,
  retryAfterSeconds: Schema.Number
}) {}

/**
 * The browser engine failed: Chromium could not start (`launch`), exited while rendering
 * (`crashed`: the next request gets a new one), or an action failed (`action`, with its index
 * and type). A click with no match is not a failure.
 */
export class BrowserFailed extends Schema.TaggedError<BrowserFailed>()("BrowserFailed", {
  kind: Schema.Literals(["launch", "crashed", "action"]),
  message: Schema.String,
  action: Schema.optionalKey(Schema.Struct({ index: Schema.Int, type: Schema.String }))
}) {}

/**
 * A cache-only request (`lockdown`, or `minAge`) found no stored page that fits: nothing was
 * fetched. `kind` says which option asked for the cache alone (the two have their own codes).
 */
export class NoCachedData extends Schema.TaggedError<NoCachedData>()("NoCachedData", {
  kind: Schema.Literals(["lockdown", "minAge"]),
  message: Schema.String
}) {}

/** A cache-only request could not read the cache (the store failed): whether a copy exists is unknown. */
export class CacheUnavailable extends Schema.TaggedError<CacheUnavailable>()("CacheUnavailable", {
  message: Schema.String
}) {}

export class ScrapeError extends Schema.TaggedError<ScrapeError>()("ScrapeError", {
  reason: Schema.Union([
    InvalidRequest,
    NotSupported,
    UrlBlocked,
    FetchFailed,
    TimedOut,
    UnsupportedFileType,
    DocumentUnreadable,
    StageFailed,
    Overloaded,
    BrowserFailed,
    NoCachedData,
    CacheUnavailable
  ])
}) {
  override get message(): string {
    return this.reason.message
  }
}

/** Shorthand: `fail(new TimedOut({...}))` style constructors that wrap a reason. */
export const scrapeError = (reason: ScrapeError["reason"]): ScrapeError => new ScrapeError({ reason })
