/**
 * Test helpers: start the real server on a random loopback port, collect its log lines, and
 * send raw requests when `fetch` would hide what is being tested (chunked uploads, truncation).
 */
import { mkdtempSync } from "node:fs"
import { request as httpRequest } from "node:http"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { type ArtifactStore, Pipeline, type Store } from "@strata/core"
import { Effect, Layer, Stream } from "effect"
import { type CatalogProviders, startServer, type RunningServer, type ServerConfig } from "../src/index.ts"

/** A double's method: the pipeline's arguments, and any record as `data` (the adapter only serialises it). */
type Loosely<F> = F extends (...args: infer A) => Effect.Effect<unknown, infer E> ? (...args: A) => Effect.Effect<Record<string, unknown>, E> : never

/**
 * A Pipeline double for tests of the adapter itself: `scrape` and `parse` as given; the
 * streaming variants (used only for NDJSON requests, which these tests do not send) die if called.
 */
export const pipelineDouble = (
  methods: { readonly [K in "scrape" | "parse"]: Loosely<Pipeline["Service"][K]> }
): Layer.Layer<Pipeline> =>
  Layer.succeed(Pipeline, Pipeline.of({
    ...(methods as Pick<Pipeline["Service"], "scrape" | "parse">),
    admit: () => Effect.void,
    scrapeStream: () => Stream.die(new Error("scrapeStream was not expected in this test")),
    parseStream: () => Stream.die(new Error("parseStream was not expected in this test"))
  }))

export interface TestServer extends RunningServer {
  readonly logs: Array<Record<string, unknown>>
  readonly announced: Array<string>
}

export const tempDir = (prefix = "strata-http-"): string => mkdtempSync(join(tmpdir(), prefix))

export const startTestServer = async <E>(
  pipeline: Layer.Layer<Pipeline, E, ArtifactStore | Store>,
  config: Partial<ServerConfig> = {},
  catalog?: CatalogProviders
): Promise<TestServer> => {
  const logs: Array<Record<string, unknown>> = []
  const announced: Array<string> = []
  const server = await startServer({
    pipeline,
    catalog,
    config: {
      host: "127.0.0.1",
      port: 0,
      dataDir: tempDir(),
      writeLog: (line) => logs.push(JSON.parse(line)),
      announceKey: (key) => announced.push(key),
      ...config
    }
  })
  return { ...server, logs, announced }
}

export interface RawResponse {
  readonly status: number
  readonly headers: Record<string, string | Array<string> | undefined>
  readonly body: string
  /** Request body bytes the client had written when the response headers arrived. */
  readonly bytesWrittenAtResponse: number
}

/**
 * POSTs a body produced chunk by chunk (chunked transfer unless `contentLength` is given),
 * honouring backpressure and stopping as soon as the server answers or closes the connection.
 */
export const postStreaming = (
  url: string,
  options: {
    readonly headers: Record<string, string>
    readonly chunks: Iterable<Uint8Array>
    readonly contentLength?: number
  }
): Promise<RawResponse> =>
  new Promise((resolve, reject) => {
    let written = 0
    let answered = false
    const headers = { ...options.headers, ...(options.contentLength === undefined ? {} : { "content-length": String(options.contentLength) }) }
    const req = httpRequest(url, { method: "POST", headers }, (res) => {
      answered = true
      const at = written
      const parts: Array<Buffer> = []
      res.on("data", (chunk: Buffer) => parts.push(chunk))
      res.on("end", () =>
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(parts).toString("utf8"), bytesWrittenAtResponse: at }))
      res.on("error", reject)
    })
    req.on("error", (error) => {
      if (!answered) reject(error)
    })
    const iterator = options.chunks[Symbol.iterator]()
    const pump = () => {
      while (!answered && !req.destroyed) {
        const next = iterator.next()
        if (next.done) {
          req.end()
          return
        }
        written += next.value.length
        if (!req.write(next.value)) {
          req.once("drain", pump)
          return
        }
      }
    }
    pump()
  })

/** Multipart framing for hand-built bodies. */
export const multipartBody = (
  boundary: string,
  parts: ReadonlyArray<{ name: string; fileName?: string; contentType?: string; data: string | Uint8Array }>,
  options: { readonly close?: boolean } = {}
): Uint8Array<ArrayBuffer> => {
  const chunks: Array<Buffer> = []
  for (const part of parts) {
    let head = `--${boundary}\r\nContent-Disposition: form-data; name="${part.name}"`
    if (part.fileName !== undefined) head += `; filename="${part.fileName}"`
    head += "\r\n"
    if (part.contentType !== undefined) head += `Content-Type: ${part.contentType}\r\n`
    chunks.push(Buffer.from(head + "\r\n"), Buffer.from(part.data), Buffer.from("\r\n"))
  }
  if (options.close !== false) chunks.push(Buffer.from(`--${boundary}--\r\n`))
  return new Uint8Array(Buffer.concat(chunks))
}
