/**
 * Turns `ErrorReply` values and successful results into HTTP responses, and records the error
 * code on the request's log line.
 *
 * Every error body of the contract's `{ success, code, error }` shape answered to a team's request
 * that sent an `x-request-id` carries its `chargeId` (the one its charge would have, derived from
 * the team and the id), whichever step refused it: a bad body, the queue, the pipeline, a defect.
 */
import { chargeIdFor } from "@strata/core"
import { HttpServerResponse } from "effect/http"
import { type ErrorReply, withChargeId } from "./ErrorReply.ts"
import { jsonStream, largerThan } from "./JsonStream.ts"
import { RequestContext } from "./RequestContext.ts"

export const toResponse = (reply: ErrorReply, headers?: Record<string, string>): HttpServerResponse.HttpServerResponse =>
  HttpServerResponse.jsonUnsafe(reply.body, {
    status: reply.status,
    headers: reply.retryAfterSeconds === undefined ? headers : { ...headers, "retry-after": String(reply.retryAfterSeconds) }
  })

/** The reply with the request's `chargeId`, when a team sent it with an `x-request-id`. */
export const charged = (reply: ErrorReply, context: RequestContext): ErrorReply =>
  context.team === undefined || context.idempotencyKey === undefined
    ? reply
    : withChargeId(reply, chargeIdFor(context.team.id, context.idempotencyKey))

/** Like `toResponse`, with the request's `chargeId`, and notes the code on the log line. */
export const respondError = (reply: ErrorReply, headers?: Record<string, string>) =>
  RequestContext.useSync((context) => {
    const code = reply.body.code
    if (typeof code === "string") context.logFields.code = code
    return toResponse(charged(reply, context), headers)
  })

/** Answers above this many characters are written piece by piece (JsonStream.ts). */
const STREAM_ABOVE = 1024 * 1024

export const respondData = (data: unknown): HttpServerResponse.HttpServerResponse =>
  largerThan(data, STREAM_ABOVE)
    ? HttpServerResponse.stream(jsonStream({ success: true, data }), { contentType: "application/json" })
    : HttpServerResponse.jsonUnsafe({ success: true, data })
