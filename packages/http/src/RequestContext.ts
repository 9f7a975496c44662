/**
 * Per-request facts shared between the middleware and the route handlers: the request id, the
 * authenticated key's id and team, and fields handlers add to the request's log line (the target
 * URL, the error code). A `Context.Reference`, so handlers need no extra requirement in their type.
 */
import type { Team } from "@strata/core"
import { Context } from "effect"

export interface RequestContext {
  readonly requestId: string
  /** The client's own valid `x-request-id` (its idempotency key); undefined when it sent none. */
  readonly idempotencyKey?: string | undefined
  /** Set once the key is verified. */
  keyId: string | undefined
  /** The key's team and its limits, set once the key is verified. */
  team?: Team | undefined
  /** Set once the request's audit event is Metering.ts's to send (else the middleware sends one). */
  audited?: boolean | undefined
  /** Extra log fields; never secrets, never URLs of zero-data-retention requests. */
  readonly logFields: Record<string, unknown>
}

export const RequestContext = Context.Reference<RequestContext>("@strata/http/RequestContext", {
  defaultValue: () => ({ requestId: "unknown", keyId: undefined, logFields: {} })
})

/** 1 to 128 characters of letters, digits, `.`, `_`, `:`, `-` (the contract's rule). */
export const isValidRequestId = (value: string | undefined): value is string =>
  value !== undefined && /^[A-Za-z0-9._:-]{1,128}$/.test(value)
