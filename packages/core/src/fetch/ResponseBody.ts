/**
 * Reads a response body under a size cap and undoes its Content-Encoding.
 *
 * The cap applies twice: to the bytes on the wire (stopping the download as soon as it is
 * passed) and to the decoded bytes (a small gzip bomb cannot expand past it either). Decoding
 * is lenient like a browser's: a truncated gzip or brotli stream yields what it holds, raw
 * deflate is accepted where zlib-wrapped deflate was announced, and a body labelled gzip that
 * is not gzip is passed through.
 */
import type { IncomingMessage } from "node:http"
import zlib from "node:zlib"
import { FetchFailed, scrapeError, type ScrapeError } from "../ScrapeError.ts"

/** Default cap for pages (HTML, XML, JSON, text). */
export const DEFAULT_MAX_PAGE_BYTES = 25 * 1024 * 1024
/** Default cap for documents (PDF, office files, anything not text). */
export const DEFAULT_MAX_DOCUMENT_BYTES = 60 * 1024 * 1024

/** The cap used when the caller gives none: documents (and untyped bodies, which may be documents) may be larger than pages. */
export const defaultMaxBytes = (contentType: string | undefined): number =>
  contentType !== undefined && /^text\/|\+(xml|json)$|^application\/(xml|json)$/.test(contentType)
    ? DEFAULT_MAX_PAGE_BYTES
    : DEFAULT_MAX_DOCUMENT_BYTES

const megabytes = (n: number): string => `${(n / (1024 * 1024)).toFixed(n < 1024 * 1024 ? 3 : 1)} MB`

export const tooLarge = (url: string, maxBytes: number, detail: string): ScrapeError =>
  scrapeError(new FetchFailed({ kind: "too_large", url, message: `The response from ${url} ${detail}, over the ${megabytes(maxBytes)} limit` }))

/** Collects the raw (still encoded) body, destroying the stream once it passes `maxBytes`. */
const collect = async (response: IncomingMessage, url: string, maxBytes: number, signal: AbortSignal): Promise<Buffer> => {
  const declared = Number(response.headers["content-length"])
  if (Number.isFinite(declared) && declared > maxBytes) {
    response.destroy()
    throw tooLarge(url, maxBytes, `declares ${declared} bytes`)
  }
  // Listen only while reading: the deadline signal outlives the fetch and must not hold the response.
  const abort = () => response.destroy(signal.reason instanceof Error ? signal.reason : new Error("aborted"))
  if (signal.aborted) abort()
  signal.addEventListener("abort", abort, { once: true })
  try {
    const chunks: Array<Buffer> = []
    let total = 0
    for await (const chunk of response as AsyncIterable<Buffer>) {
      total += chunk.byteLength
      if (total > maxBytes) {
        response.destroy()
        throw tooLarge(url, maxBytes, "is larger")
      }
      chunks.push(chunk)
    }
    return Buffer.concat(chunks, total)
  } finally {
    signal.removeEventListener("abort", abort)
  }
}

type Decoder = (input: Buffer, maxOutputLength: number) => Promise<Buffer>

const promisified = (
  run: (input: Buffer, options: zlib.ZlibOptions & zlib.BrotliOptions, callback: (error: Error | null, result: Buffer) => void) => void,
  options: zlib.ZlibOptions & zlib.BrotliOptions = {}
): Decoder =>
(input, maxOutputLength) =>
  new Promise((resolve, reject) => run(input, { ...options, maxOutputLength }, (error, result) => (error ? reject(error) : resolve(result))))

const lenientZlib = { finishFlush: zlib.constants.Z_SYNC_FLUSH }
const gunzip = promisified(zlib.gunzip, lenientZlib)
const inflate = promisified(zlib.inflate, lenientZlib)
const inflateRaw = promisified(zlib.inflateRaw, lenientZlib)
const brotli = promisified(zlib.brotliDecompress, { finishFlush: zlib.constants.BROTLI_OPERATION_FLUSH })
// Node 22.15+; on older releases zstd is not offered in Accept-Encoding (RequestHeaders.ts).
const zstdDecompress = (zlib as { zstdDecompress?: typeof zlib.gunzip }).zstdDecompress
const zstd: Decoder = zstdDecompress === undefined
  ? () => Promise.reject(new Error("zstd content encoding needs Node 22.15 or later"))
  : promisified(zstdDecompress)

/** Whether the bytes start with a zlib header (RFC 1950); servers often send raw deflate instead. */
const hasZlibHeader = (b: Buffer): boolean => b.length >= 2 && (b[0] & 0x0f) === 8 && ((b[0] << 8) | b[1]) % 31 === 0

const decoders: Record<string, Decoder> = {
  gzip: (input, max) => (input[0] === 0x1f && input[1] === 0x8b ? gunzip(input, max) : Promise.resolve(input)),
  "x-gzip": (input, max) => decoders.gzip(input, max),
  deflate: (input, max) => (hasZlibHeader(input) ? inflate(input, max) : inflateRaw(input, max)),
  br: brotli,
  zstd
}

/** The codings of a Content-Encoding header, in the order they were applied. */
const codings = (header: string | undefined): Array<string> =>
  (header ?? "").split(",").map((c) => c.trim().toLowerCase()).filter((c) => c !== "" && c !== "identity")

/** Reads the whole body: at most `maxBytes` on the wire and after decoding. */
export const readBody = async (response: IncomingMessage, url: string, maxBytes: number, signal: AbortSignal): Promise<Uint8Array> => {
  const applied = codings(response.headers["content-encoding"])
  const unknown = applied.find((c) => decoders[c] === undefined)
  if (unknown !== undefined) {
    response.destroy()
    throw scrapeError(new FetchFailed({ kind: "decode", url, message: `The response from ${url} uses the unsupported content encoding "${unknown}"` }))
  }
  let body = await collect(response, url, maxBytes, signal)
  if (body.byteLength === 0) return new Uint8Array(0)
  // Codings are listed in the order applied, so they are undone from last to first.
  for (const coding of applied.reverse()) {
    try {
      body = await decoders[coding](body, maxBytes)
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ERR_BUFFER_TOO_LARGE") throw tooLarge(url, maxBytes, "decompresses to more")
      throw scrapeError(new FetchFailed({ kind: "decode", url, message: `The ${coding} body from ${url} could not be decoded: ${(error as Error).message}` }))
    }
  }
  return new Uint8Array(body.buffer, body.byteOffset, body.byteLength)
}
