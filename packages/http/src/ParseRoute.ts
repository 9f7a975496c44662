/**
 * POST /v2/parse: a multipart upload with a `file` part and an optional `options` JSON part.
 * A declared body over the limit is refused before reading a byte; an undeclared (chunked) one
 * is cut off by the parser as soon as the file crosses 50 MB. `metadata.sourceURL` is the
 * uploaded file's name (the pipeline sets it from `fileName`).
 */
import { Pipeline, validateParseOptions } from "@strata/core"
import { Effect } from "effect"
import { HttpServerRequest } from "effect/http"
import { badRequest, payloadTooLarge, scrapeErrorReply } from "./ErrorReply.ts"
import { parseJsonText } from "./JsonText.ts"
import { readUpload } from "./MultipartUpload.ts"
import { ndjsonResponse, wantsNdjson } from "./NdjsonReply.ts"
import { respondData, respondError } from "./Reply.ts"
import { ServerSettings } from "./ServerSettings.ts"

/** Multipart framing, the options part and part headers fit easily in this much beyond the file. */
const overheadBytes = 1024 * 1024

export const parseRoute = Effect.gen(function*() {
  const request = yield* HttpServerRequest.HttpServerRequest
  const { config } = yield* ServerSettings
  const pipeline = yield* Pipeline

  const contentType = (request.headers["content-type"] ?? "").toLowerCase()
  if (!contentType.startsWith("multipart/form-data")) {
    return yield* respondError(
      badRequest("The request body must be multipart/form-data with a `file` part and an optional `options` part")
    )
  }
  const declared = Number(request.headers["content-length"] ?? "0")
  if (declared > config.maxUploadBytes + overheadBytes) {
    return yield* respondError(payloadTooLarge("The uploaded file", config.maxUploadBytes), { connection: "close" })
  }
  const upload = yield* readUpload(request, { maxFileBytes: config.maxUploadBytes, overheadBytes }).pipe(
    Effect.map((upload) => ({ _tag: "Read" as const, upload })),
    Effect.catch((problem) => Effect.succeed(problem))
  )
  switch (upload._tag) {
    case "TooLarge":
      return yield* respondError(payloadTooLarge("The uploaded file", config.maxUploadBytes), { connection: "close" })
    case "Malformed":
      return yield* respondError(badRequest(upload.message), { connection: "close" })
  }
  const { file, options } = upload.upload
  if (file === undefined) {
    return yield* respondError(badRequest("The multipart body has no `file` part"))
  }
  if (file.bytes.length === 0) {
    return yield* respondError(badRequest("The uploaded file is empty"))
  }
  let parsedOptions: unknown = undefined
  if (options !== undefined && options.trim() !== "") {
    const parsed = parseJsonText(options)
    if (!parsed.ok) return yield* respondError(badRequest(`The \`options\` part is not valid JSON: ${parsed.message}`))
    parsedOptions = parsed.value
  }
  const uploaded = { bytes: file.bytes, fileName: file.fileName, contentType: file.contentType }
  // Validated once, before anything streams, so its errors keep their HTTP status.
  const streaming = wantsNdjson(request.headers.accept)
  return yield* validateParseOptions(parsedOptions).pipe(
    Effect.flatMap((parse) =>
      streaming
        ? Effect.succeed(ndjsonResponse(pipeline.parseStream(uploaded, parse), "parse"))
        : Effect.map(pipeline.parse(uploaded, parse), respondData)
    ),
    Effect.catchTag("ScrapeError", (error) => respondError(scrapeErrorReply(error, "parse")))
  )
})
