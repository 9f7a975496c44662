/**
 * Turns `ErrorReply` values and successful results into HTTP responses, and records the error
 * code on the request's log line.
 */
import { HttpServerResponse } from "effect/http"
import type { ErrorReply } from "./ErrorReply.ts"
import { jsonStream, largerThan } from "./JsonStream.ts"
import { RequestContext } from "./RequestContext.ts"

export const toResponse = (reply: ErrorReply, headers?: Record<string, string>): HttpServerResponse.HttpServerResponse =>
  HttpServerResponse.jsonUnsafe(reply.body, {
    status: reply.status,
    headers: reply.retryAfterSeconds === undefined ? headers : { ...headers, "retry-after": String(reply.retryAfterSeconds) }
  })

/** Like `toResponse`, and notes the code on the log line. */
export const respondError = (reply: ErrorReply, headers?: Record<string, string>) =>
  RequestContext.useSync((context) => {
    const code = reply.body.code
    if (typeof code === "string") context.logFields.code = code
    return toResponse(reply, headers)
  })

/** Answers above this many characters are written piece by piece (JsonStream.ts). */
const STREAM_ABOVE = 1024 * 1024

export const respondData = (data: unknown): HttpServerResponse.HttpServerResponse =>
  largerThan(data, STREAM_ABOVE)
    ? HttpServerResponse.stream(jsonStream({ success: true, data }), { contentType: "application/json" })
    : HttpServerResponse.jsonUnsafe({ success: true, data })
