/**
 * A `DecompressionStream` that inflates in one synchronous step when its input ends.
 *
 * pdf.js inflates every content stream and font file over 1 KB through the web
 * `DecompressionStream`, which Node runs on libuv's thread pool: each small stream costs a round
 * trip between threads, and on ordinary documents the reader sat idle for a sixth of its time
 * waiting for them. Always installed (PdfJs.ts); with no waits
 * left, the page stream gives the event loop a turn before each page (PageSource.ts) so that
 * V8's garbage-collection tasks still run.
 * pdf.js only looks the class up on the global object, so the global is
 * replaced (this process has no other user of it; the replacement is a real TransformStream with
 * the same formats and errors, so any other caller still works). Inputs over `SYNC_LIMIT` bytes go
 * to the native stream so the event loop is never blocked long.
 */
import { brotliDecompressSync, gunzipSync, inflateRawSync, inflateSync } from "node:zlib"

const SYNC_LIMIT = 8 * 1024 * 1024

type Format = "deflate" | "deflate-raw" | "gzip" | "brotli"

const inflate = (format: Format, input: Uint8Array): Uint8Array => {
  const out = format === "deflate"
    ? inflateSync(input)
    : format === "deflate-raw"
    ? inflateRawSync(input)
    : format === "gzip"
    ? gunzipSync(input)
    : brotliDecompressSync(input)
  return new Uint8Array(out.buffer, out.byteOffset, out.byteLength)
}

const concat = (chunks: Array<Uint8Array>, total: number): Uint8Array => {
  if (chunks.length === 1) return chunks[0]
  const all = new Uint8Array(total)
  let at = 0
  for (const c of chunks) {
    all.set(c, at)
    at += c.byteLength
  }
  return all
}

let installed = false

/** Replaces the global `DecompressionStream` once; later calls do nothing. */
export const installSyncDecompression = (): void => {
  const Native = globalThis.DecompressionStream
  if (installed || typeof Native !== "function") return
  installed = true
  class SyncDecompressionStream extends TransformStream<BufferSource, Uint8Array> {
    constructor(format: Format) {
      // The native class validates the format (and throws the same TypeError for an unknown one).
      void new Native(format as CompressionFormat)
      const chunks: Array<Uint8Array> = []
      let total = 0
      super({
        transform(chunk) {
          const bytes = ArrayBuffer.isView(chunk)
            ? new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength)
            : new Uint8Array(chunk)
          chunks.push(bytes)
          total += bytes.byteLength
        },
        async flush(controller) {
          const input = concat(chunks, total)
          chunks.length = 0
          if (input.byteLength <= SYNC_LIMIT) {
            controller.enqueue(inflate(format, input))
            return
          }
          const reader = new Blob([input as Uint8Array<ArrayBuffer>]).stream().pipeThrough(new Native(format as CompressionFormat)).getReader()
          for (;;) {
            const { value, done } = await reader.read()
            if (done) break
            controller.enqueue(value)
          }
        }
      })
    }
  }
  globalThis.DecompressionStream = SyncDecompressionStream as unknown as typeof DecompressionStream
}
