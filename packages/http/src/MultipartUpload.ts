/**
 * Reads a /v2/parse upload: the `file` part (kept in memory, at most `maxFileBytes`) and the
 * optional `options` part (JSON text). Limits are enforced by the multipart parser while the
 * body streams in, so an oversized upload fails as soon as it crosses the limit instead of after
 * being buffered. Problems come back as data for the route to answer.
 */
import { ByteSize, Effect, Stream } from "effect"
import { HttpIncomingMessage, type HttpServerRequest, Multipart } from "effect/http"

export interface UploadedPart {
  readonly bytes: Uint8Array
  readonly fileName: string
  readonly contentType: string | undefined
}

export interface Upload {
  readonly file: UploadedPart | undefined
  readonly options: string | undefined
}

export type UploadProblem =
  | { readonly _tag: "TooLarge" }
  | { readonly _tag: "Malformed"; readonly message: string }

export interface UploadLimits {
  readonly maxFileBytes: number
  /** Room for the other parts, headers and boundaries on top of the file. */
  readonly overheadBytes: number
}

const maxOptionsBytes = 1024 * 1024

/**
 * The parser counts a part's headers into its size; this much room for them keeps a file of
 * exactly the limit acceptable. `collect` then holds the file itself to the exact limit.
 */
const partHeaderAllowance = 64 * 1024

/** Reads a part fully, failing past `limit` bytes of content (the parser already stopped it near there). */
const collect = (content: Stream.Stream<Uint8Array, Multipart.MultipartError>, limit: number) =>
  Stream.runFold(
    content,
    () => ({ chunks: new Array<Uint8Array>(), size: 0 }),
    (acc, chunk) => {
      acc.chunks.push(chunk)
      acc.size += chunk.length
      return acc
    }
  ).pipe(
    Effect.flatMap((acc) =>
      acc.size > limit
        ? Effect.fail(Multipart.MultipartError.fromReason("FileTooLarge"))
        : Effect.succeed(Buffer.concat(acc.chunks, acc.size))
    )
  )

const problemOf = (error: Multipart.MultipartError): UploadProblem => {
  switch (error.reason._tag) {
    case "FileTooLarge":
    case "BodyTooLarge":
    case "FieldTooLarge":
      return { _tag: "TooLarge" }
    case "TooManyParts":
      return { _tag: "Malformed", message: "The multipart body has too many parts" }
    default:
      return { _tag: "Malformed", message: "The multipart body is malformed or truncated" }
  }
}

/** Octet-stream says nothing about the type; leave detection to the bytes and the file name. */
const usefulContentType = (contentType: string): string | undefined => {
  const essence = contentType.split(";")[0].trim().toLowerCase()
  return essence === "" || essence === "application/octet-stream" ? undefined : contentType
}

export const readUpload = (
  request: HttpServerRequest.HttpServerRequest,
  limits: UploadLimits
): Effect.Effect<Upload, UploadProblem> => {
  let file: UploadedPart | undefined
  let options: string | undefined
  const onPart = (part: Multipart.Part): Effect.Effect<void, Multipart.MultipartError> => {
    if (part._tag === "Field") {
      if (part.key === "options") options = part.value
      return Effect.void
    }
    if (part._tag !== "File") return Effect.void
    if (part.key === "file" && file === undefined) {
      return Effect.map(collect(part.content, limits.maxFileBytes), (bytes) => {
        file = { bytes, fileName: part.name, contentType: usefulContentType(part.contentType) }
      })
    }
    if (part.key === "options" && options === undefined) {
      // Sent as a file (curl -F options=@opts.json): same JSON, read as UTF-8 text.
      return Effect.map(collect(part.content, maxOptionsBytes), (bytes) => {
        options = new TextDecoder().decode(bytes)
      })
    }
    // Parts we do not use must still be read for the parser to move on.
    return Stream.runDrain(part.content)
  }
  return Stream.runForEach(request.multipartStream, onPart).pipe(
    Effect.provideService(Multipart.MaxFileSize, ByteSize.bytes(limits.maxFileBytes + partHeaderAllowance)),
    Effect.provideService(Multipart.MaxFieldSize, ByteSize.bytes(maxOptionsBytes)),
    Effect.provideService(Multipart.MaxParts, 16),
    Effect.provideService(HttpIncomingMessage.MaxBodySize, ByteSize.bytes(limits.maxFileBytes + limits.overheadBytes)),
    Effect.mapError(problemOf),
    Effect.map((): Upload => ({ file, options }))
  )
}
