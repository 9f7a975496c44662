/**
 * Test helpers: start the real server on a random loopback port (in this process, or as its own
 * process from bin.ts), collect its log lines or output, serve pages for it to scrape, send
 * raw requests when `fetch` would hide what is being tested (chunked uploads, truncation), and
 * make text PDFs of any number of pages.
 */
import { spawn } from "node:child_process"
import { mkdtempSync, readdirSync, statSync } from "node:fs"
import { createServer, request as httpRequest } from "node:http"
import type { AddressInfo } from "node:net"
import { tmpdir } from "node:os"
import { join, relative } from "node:path"
import { fileURLToPath } from "node:url"
import { type ArtifactStore, Pipeline, type Store } from "@strata/core"
import { Effect, Layer, Stream } from "effect"
import { pdfDocument, type PdfObject } from "../../../bench/reliability/PdfBytes.ts"
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

export interface PageServer {
  readonly url: string
  readonly close: () => Promise<void>
}

/** A loopback server answering every request with `page(path)` as HTML: pages for a server process to scrape. */
export const servePages = async (page: (path: string) => string): Promise<PageServer> => {
  const pages = createServer((request, response) => {
    response.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(page((request.url ?? "/").split("?")[0]))
  })
  await new Promise<void>((resolve) => pages.listen(0, "127.0.0.1", resolve))
  return {
    url: `http://127.0.0.1:${(pages.address() as AddressInfo).port}`,
    close: async () => {
      pages.closeAllConnections()
      await new Promise((resolve) => pages.close(resolve))
    }
  }
}

/** A port free on the loopback just now (the OS picks it; a process started next binds it). */
export const freePort = (): Promise<number> =>
  new Promise((resolve) => {
    const probe = createServer().listen(0, "127.0.0.1", () => {
      const { port } = probe.address() as AddressInfo
      probe.close(() => resolve(port))
    })
  })

export interface ServerProcess {
  readonly url: string
  /** Everything the process has written to stdout and stderr so far. */
  readonly output: () => string
  /** Kills the process (SIGKILL) if it still runs. */
  readonly stop: () => void
  /** Stops it as an operator would (SIGTERM): resolves once it has exited. */
  readonly terminate: () => Promise<void>
}

/**
 * The server's bin.ts in a process of its own on a free loopback port, over `dataDir`, with private
 * URLs allowed, no supervisor, no API keys or database URL from this environment, and `env` on
 * top; resolves once /health answers (within 60 s).
 */
export const startServerProcess = async (dataDir: string, env: Record<string, string>): Promise<ServerProcess> => {
  const node = fileURLToPath(new URL("../../../node_modules/.bin/node", import.meta.url))
  const bin = fileURLToPath(new URL("../src/bin.ts", import.meta.url))
  const port = await freePort()
  const { STRATA_API_KEYS: _keys, STRATA_DATABASE_URL: _db, ...base } = process.env
  const child = spawn(node, ["--conditions=@strata/source", bin], {
    env: { ...base, HOST: "127.0.0.1", PORT: String(port), STRATA_ALLOW_PRIVATE_URLS: "1", STRATA_SUPERVISE: "0", STRATA_DATA_DIR: dataDir, ...env },
    stdio: ["ignore", "pipe", "pipe"]
  })
  let output = ""
  child.stdout?.on("data", (chunk: Buffer) => (output += chunk.toString("utf8")))
  child.stderr?.on("data", (chunk: Buffer) => (output += chunk.toString("utf8")))
  const stop = () => {
    if (child.exitCode === null) child.kill("SIGKILL")
  }
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()))
  const terminate = () => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM")
    return exited
  }
  const url = `http://127.0.0.1:${port}`
  const deadline = Date.now() + 60_000
  while (!(await fetch(`${url}/health`).then((r) => r.ok, () => false))) {
    if (Date.now() > deadline) {
      stop()
      throw new Error(`the server did not start:\n${output}`)
    }
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  return { url, output: () => output, stop, terminate }
}

/** POST /v2/scrape with `key` and an `x-request-id`: the status and the parsed body. */
export const postScrape = async (serverUrl: string, key: string, body: Record<string, unknown>, requestId: string) => {
  const response = await fetch(`${serverUrl}/v2/scrape`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json", "x-request-id": requestId },
    body: JSON.stringify(body)
  })
  return { status: response.status, body: (await response.json()) as any }
}

/** A JSON request to a server process with `key`: the status and the parsed body. */
export const callServer = async (server: ServerProcess, key: string, method: string, path: string, body?: unknown) => {
  const response = await fetch(`${server.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body)
  })
  return { status: response.status, body: (await response.json()) as Record<string, any> }
}

/** Scrapes through a server process with `key`; the answer's `scrapeId` (throws unless it is a 200). */
export const scrapeIdFrom = async (server: ServerProcess, key: string, body: Record<string, unknown>): Promise<string> => {
  const reply = await callServer(server, key, "POST", "/v2/scrape", body)
  if (reply.status !== 200) throw new Error(`expected 200 from /v2/scrape, got ${reply.status}: ${JSON.stringify(reply.body)}`)
  return reply.body.data.metadata.scrapeId as string
}

/** Every file under `dir`, by path relative to it. */
export const filesIn = (dir: string): Array<string> =>
  readdirSync(dir, { recursive: true, encoding: "utf8" })
    .filter((name) => statSync(join(dir, name)).isFile())
    .map((name) => relative(dir, join(dir, name)))
    .sort()

/**
 * A text PDF of `pages` pages, each with 12 numbered lines ("Page 3 line 7: ..."); `title`, when
 * given, opens every page (so that two documents differ in their content hash).
 */
export const textPdf = (pages: number, title?: string): Buffer => {
  const objects: Array<PdfObject> = ["<< /Type /Catalog /Pages 2 0 R >>", "", "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>"]
  const kids: Array<string> = []
  for (let p = 1; p <= pages; p++) {
    const ref = objects.length + 1
    kids.push(`${ref} 0 R`)
    objects.push(`<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents ${ref + 1} 0 R /Resources << /Font << /F1 3 0 R >> >> >>`)
    let text = "BT /F1 11 Tf 14 TL 72 740 Td\n"
    if (title !== undefined) text += `(${title} page ${p}) Tj T*\n`
    for (let line = 1; line <= 12; line++) text += `(Page ${p} line ${line}: the tide comes in over the quay and goes out again.) Tj T*\n`
    objects.push({ dict: "<< >>", stream: Buffer.from(`${text}ET\n`, "latin1") })
  }
  objects[1] = `<< /Type /Pages /Kids [${kids.join(" ")}] /Count ${pages} >>`
  return pdfDocument(objects)
}
