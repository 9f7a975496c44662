/**
 * Answers the requests Node's HTTP parser refuses before any route sees them. Node's own answer
 * to a header block over `maxHeaderSize` is a bare `431` with no body; clients of this API expect
 * the contract's error shape on every failure, so the answer is written on the socket here: a
 * complete HTTP/1.1 response with a JSON body, then the connection is closed (the parser cannot
 * go on after such an error).
 *
 * Also the requests that come before the routes are attached: effect's server binds its port
 * when its layer is built and attaches the routes once every other layer is (the store opened
 * and migrated, the pipeline made), and Node leaves a request with no `request` listener
 * unanswered for ever. On Postgres that window is long (the connection, the migration lock that
 * a replica starting beside it holds): the two-process test's first /health hung 4 runs in 13.
 * Such a request gets 503 `SERVER_STARTING` with `Retry-After: 1`.
 */
import { createServer, type IncomingMessage, maxHeaderSize, type Server, type ServerResponse } from "node:http"
import type { Duplex } from "node:stream"
import { badRequest, type ErrorReply, headerFieldsTooLarge, requestTimedOut, serverStarting } from "./ErrorReply.ts"

const reasonPhrases: Record<number, string> = {
  400: "Bad Request",
  408: "Request Timeout",
  413: "Payload Too Large",
  431: "Request Header Fields Too Large"
}

/** The reply for a parser error code, as Node's default handler picks the status. */
export const clientErrorReply = (code: string | undefined, headerLimitBytes: number): ErrorReply => {
  switch (code) {
    case "HPE_HEADER_OVERFLOW":
      return headerFieldsTooLarge(headerLimitBytes)
    case "ERR_HTTP_REQUEST_TIMEOUT":
      return requestTimedOut()
    default:
      return badRequest("The request is not valid HTTP/1.1")
  }
}

/** The raw bytes of a complete response for `reply`, closing the connection. */
export const rawReply = (reply: ErrorReply): string => {
  const body = JSON.stringify(reply.body)
  return [
    `HTTP/1.1 ${reply.status} ${reasonPhrases[reply.status] ?? "Error"}`,
    "Content-Type: application/json; charset=utf-8",
    `Content-Length: ${Buffer.byteLength(body)}`,
    "Connection: close",
    "",
    body
  ].join("\r\n")
}

/** Installs the `clientError` answer on `server` (which then no longer writes Node's default). */
export const answerClientErrors = <S extends Server>(server: S, headerLimitBytes = maxHeaderSize): S => {
  server.on("clientError", (error: NodeJS.ErrnoException, socket: Duplex) => {
    // A reset connection cannot be answered; a response already begun on it must not be followed by another.
    const started = (socket as { _httpMessage?: { headersSent?: boolean } })._httpMessage?.headersSent === true
    if (error.code === "ECONNRESET" || !socket.writable || started) {
      socket.destroy()
      return
    }
    socket.end(rawReply(clientErrorReply(error.code, headerLimitBytes)))
  })
  return server
}

/** Installs the 503 answer to requests that come before any other `request` listener is attached; it steps aside once one is. */
export const answerWhileStarting = <S extends Server>(server: S): S => {
  const starting = (_request: IncomingMessage, response: ServerResponse) => {
    const reply = serverStarting()
    response.writeHead(reply.status, { "content-type": "application/json", "retry-after": String(reply.retryAfterSeconds) }).end(JSON.stringify(reply.body))
  }
  const attached = (event: string | symbol) => {
    if (event !== "request") return
    server.off("request", starting)
    server.off("newListener", attached)
  }
  server.on("request", starting)
  server.on("newListener", attached)
  return server
}

/** `http.createServer` with the JSON answers to parser errors and to requests while starting (for effect's `NodeHttpServer.layerServer`). */
export const createJsonServer = (): Server => answerWhileStarting(answerClientErrors(createServer()))
