/**
 * GET /v2/artifacts/{file}?expires=…&sig=…: serves a screenshot or PDF the scrape stored. The
 * link is the credential (a signed, expiring capability, as Firecrawl's screenshot URLs are), so
 * this route asks for no API key: the link goes into responses that clients hand to browsers,
 * `<img>` tags and other services that have no key. The store checks name, signature (in
 * constant time) and expiry; the file is streamed from disk, cacheable privately until it expires.
 */
import { artifactPathPrefix, ArtifactStore } from "@strata/core"
import { Clock, Effect } from "effect"
import { HttpServerRequest, HttpServerResponse } from "effect/http"
import { artifactErrorReply } from "./ErrorReply.ts"
import { respondError } from "./Reply.ts"

/** The raw (undecoded) file name and query of the request: the store accepts only its own plain names. */
const linkOf = (url: string) => {
  const queryAt = url.indexOf("?")
  const path = queryAt === -1 ? url : url.slice(0, queryAt)
  const query = new URLSearchParams(queryAt === -1 ? "" : url.slice(queryAt + 1))
  return {
    fileName: path.startsWith(artifactPathPrefix) ? path.slice(artifactPathPrefix.length) : "",
    expires: query.get("expires") ?? undefined,
    sig: query.get("sig") ?? undefined
  }
}

export const artifactRoute = Effect.gen(function*() {
  const request = yield* HttpServerRequest.HttpServerRequest
  const store = yield* ArtifactStore
  const opened = yield* Effect.result(store.open(linkOf(request.url)))
  if (opened._tag === "Failure") return yield* respondError(artifactErrorReply(opened.failure))
  const file = opened.success
  const now = yield* Clock.currentTimeMillis
  const remaining = Math.max(0, Math.floor((file.expiresAt - now) / 1000))
  return HttpServerResponse.stream(file.stream, {
    contentType: file.contentType,
    contentLength: file.size,
    headers: {
      "cache-control": `private, max-age=${remaining}`,
      // The type is the store's (png, jpeg, webp or pdf only), never one a browser guesses.
      "x-content-type-options": "nosniff",
      "content-disposition": `inline; filename="${file.fileName}"`
    }
  })
})
