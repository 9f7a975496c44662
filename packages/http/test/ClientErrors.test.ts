/**
 * Requests Node's parser refuses before any route runs get a complete HTTP/1.1 answer in the
 * contract's error shape: a 20 KB header (over Node's 16 KB) is a 431 with a JSON body, sent on
 * a raw socket to the real server on loopback; garbage that is not HTTP is a JSON 400.
 */
import type { AddressInfo } from "node:net"
import { connect } from "node:net"
import { Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { clientErrorReply, createJsonServer, rawReply } from "../src/ClientErrors.ts"
import { pipelineDouble, startTestServer, type TestServer } from "./support.ts"

/** Writes `request` on a fresh connection and reads until the server closes it. */
const rawExchange = (port: number, request: string): Promise<string> =>
  new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1")
    const parts: Array<Buffer> = []
    socket.on("data", (chunk: Buffer) => parts.push(chunk))
    socket.on("end", () => resolve(Buffer.concat(parts).toString("utf8")))
    socket.on("error", (error) => (parts.length > 0 ? resolve(Buffer.concat(parts).toString("utf8")) : reject(error)))
    socket.setTimeout(4000, () => socket.destroy(new Error("no answer")))
    socket.write(request)
  })

const parseRaw = (raw: string) => {
  const split = raw.indexOf("\r\n\r\n")
  const head = raw.slice(0, split).split("\r\n")
  const headers = Object.fromEntries(head.slice(1).map((line) => [line.slice(0, line.indexOf(":")).toLowerCase(), line.slice(line.indexOf(":") + 1).trim()]))
  return { statusLine: head[0], headers, body: raw.slice(split + 4) }
}

describe("clientErrorReply", () => {
  it("maps parser error codes as Node's default handler picks the status", () => {
    expect(clientErrorReply("HPE_HEADER_OVERFLOW", 16 * 1024)).toEqual({
      status: 431,
      body: { success: false, code: "REQUEST_HEADER_FIELDS_TOO_LARGE", error: "The request's headers are larger than the limit of 16 KB" }
    })
    expect(clientErrorReply("ERR_HTTP_REQUEST_TIMEOUT", 16 * 1024).status).toBe(408)
    expect(clientErrorReply("HPE_INVALID_METHOD", 16 * 1024)).toMatchObject({ status: 400, body: { success: false, code: "BAD_REQUEST" } })
  })

  it("frames a complete response with the body's byte length", () => {
    const raw = rawReply({ status: 400, body: { success: false, code: "BAD_REQUEST", error: "é" } })
    const { statusLine, headers, body } = parseRaw(raw)
    expect(statusLine).toBe("HTTP/1.1 400 Bad Request")
    expect(Number(headers["content-length"])).toBe(Buffer.byteLength(body))
    expect(headers.connection).toBe("close")
  })
})

describe("the running server", () => {
  let server: TestServer
  beforeAll(async () => {
    server = await startTestServer(pipelineDouble({
      scrape: () => Effect.succeed({ markdown: "# ok" }),
      parse: () => Effect.succeed({ markdown: "" })
    }))
  })
  afterAll(() => server.close())

  it("answers a 20 KB header with 431 and a JSON body in the contract's shape", async () => {
    const raw = await rawExchange(server.port, `GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: ${"a".repeat(20 * 1024)}\r\n\r\n`)
    const { statusLine, headers, body } = parseRaw(raw)
    expect(statusLine).toBe("HTTP/1.1 431 Request Header Fields Too Large")
    expect(headers["content-type"]).toBe("application/json; charset=utf-8")
    expect(JSON.parse(body)).toEqual({
      success: false,
      code: "REQUEST_HEADER_FIELDS_TOO_LARGE",
      error: "The request's headers are larger than the limit of 16 KB"
    })
  })

  it("answers fetch's oversized header the same way, and keeps serving", async () => {
    const response = await fetch(`${server.url}/health`, { headers: { "x-big": "b".repeat(20 * 1024) } })
    expect(response.status).toBe(431)
    expect(await response.json()).toMatchObject({ success: false, code: "REQUEST_HEADER_FIELDS_TOO_LARGE" })
    const health = await fetch(`${server.url}/health`)
    expect(health.status).toBe(200)
  })

  it("answers bytes that are not HTTP with a JSON 400", async () => {
    const { statusLine, body } = parseRaw(await rawExchange(server.port, "NOT HTTP AT ALL\r\n\r\n"))
    expect(statusLine).toBe("HTTP/1.1 400 Bad Request")
    expect(JSON.parse(body)).toMatchObject({ success: false, code: "BAD_REQUEST" })
  })
})

describe("a request before the routes are attached", () => {
  it("gets 503 SERVER_STARTING with Retry-After instead of no answer, and the routes answer once attached", async () => {
    const server = createJsonServer()
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/health`
    try {
      // Node alone leaves this request unanswered: the timeout would end it.
      const early = await fetch(url, { signal: AbortSignal.timeout(4000) })
      expect(early.status).toBe(503)
      expect(early.headers.get("retry-after")).toBe("1")
      expect(await early.json()).toEqual({ success: false, code: "SERVER_STARTING", error: "The server is still starting (opening its store). Retry shortly." })
      server.on("request", (_request, response) => response.writeHead(200, { "content-type": "text/plain" }).end("routes"))
      const late = await fetch(url, { signal: AbortSignal.timeout(4000) })
      expect(late.status).toBe(200)
      expect(await late.text()).toBe("routes")
      expect(server.listenerCount("request")).toBe(1)
    } finally {
      server.closeAllConnections()
      await new Promise((resolve) => server.close(resolve))
    }
  })
})
