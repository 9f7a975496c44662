/**
 * POST /v2/parse: a multipart upload with a `file` part and an optional `options` JSON part.
 * A declared body over the limit is refused before reading a byte; an undeclared (chunked) one
 * is cut off by the parser as soon as the file crosses 50 MB. `metadata.sourceURL` is the
 * uploaded file's name (the pipeline sets it from `fileName`). The parse runs under the team's
 * limits and billing (Metering.ts).
 *
 * On a replica of a fleet (a `QueuedParse` in the context: STRATA_DATABASE_URL set), a document
 * over STRATA_QUEUE_ABOVE_PAGES pages is read by a `strata worker` instead of this process; the
 * answer, the charge and the timeout are the same as inline. NDJSON streams are read inline (a
 * worker's answer comes whole, and a stream's point is its pages as they come).
 */
import { type ParseOptions, Pipeline, QueuedParse, type UploadedFile, validateParseOptions } from "@strata/core"
import { Effect, Option } from "effect"
import { HttpServerRequest } from "effect/http"
import { createHash } from "node:crypto"
import { badRequest, payloadTooLarge, scrapeErrorReply } from "./ErrorReply.ts"
import { parseJsonText } from "./JsonText.ts"
import { readUpload } from "./MultipartUpload.ts"
import { metered, meteredStream } from "./Metering.ts"
import { wantsNdjson } from "./NdjsonReply.ts"
import { respondError } from "./Reply.ts"
import { ServerSettings } from "./ServerSettings.ts"

/** Multipart framing, the options part and part headers fit easily in this much beyond the file. */
const overheadBytes = 1024 * 1024

export const parseRoute = Effect.gen(function*() {
  const request = yield* HttpServerRequest.HttpServerRequest
  const { config } = yield* ServerSettings
  const pipeline = yield* Pipeline
  const queued = yield* Effect.serviceOption(QueuedParse)
  const parseOnce = (file: UploadedFile, options: ParseOptions) =>
    Option.match(queued, {
      onNone: () => pipeline.parse(file, options),
      onSome: (queued) => Effect.flatMap(queued.takes(file), (taken) => taken ? queued.parse(file, options) : pipeline.parse(file, options))
    })

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
    Effect.flatMap((parse) => {
      // An `x-request-id` reuse is the same request when the file's bytes and name and the options are.
      const params = { file: createHash("sha256").update(file.bytes).digest("hex"), fileName: file.fileName, options: parse }
      const request = { route: "parse" as const, params, options: parse }
      return streaming
        ? meteredStream(request, (timeout) => pipeline.parseStream(uploaded, { ...parse, timeout }))
        : metered(request, (timeout) => parseOnce(uploaded, { ...parse, timeout }))
    }),
    Effect.catchTag("ScrapeError", (error) => respondError(scrapeErrorReply(error, "parse")))
  )
})
