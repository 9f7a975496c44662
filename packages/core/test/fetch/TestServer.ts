/**
 * Real HTTP(S) servers on 127.0.0.1 random ports for the fetch tests, scoped so they close
 * (with every open connection) when the test ends. They count TCP connections so a test can
 * prove a refused URL was never connected to.
 */
import { readFileSync } from "node:fs"
import http, { type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from "node:http"
import https from "node:https"
import type { AddressInfo, Socket } from "node:net"
import { Effect, type Scope } from "effect"

export interface RecordedRequest {
  readonly path: string
  readonly headers: IncomingHttpHeaders
}

export interface TestServer {
  /** "http://127.0.0.1:PORT" (or https). */
  readonly origin: string
  readonly port: number
  readonly requests: Array<RecordedRequest>
  /** TCP connections accepted so far. */
  connections(): number
  /** Requests whose client went away before the response finished. */
  aborted(): number
}

export type Handler = (request: IncomingMessage, response: ServerResponse) => void

const fixture = (name: string): Buffer => readFileSync(new URL(`../fixtures/tls/${name}`, import.meta.url))

export const startServer = (handler: Handler, options: { tls?: boolean } = {}): Effect.Effect<TestServer, never, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.promise(() =>
      new Promise<{ server: http.Server; state: TestServer }>((resolve) => {
        const requests: Array<RecordedRequest> = []
        let connections = 0
        let aborted = 0
        const sockets = new Set<Socket>()
        const listener: Handler = (request, response) => {
          requests.push({ path: request.url ?? "", headers: request.headers })
          response.on("close", () => {
            if (!response.writableFinished) aborted++
          })
          handler(request, response)
        }
        const server = options.tls === true
          ? https.createServer({ key: fixture("key.pem"), cert: fixture("cert.pem") }, listener)
          : http.createServer(listener)
        server.on("connection", (socket: Socket) => {
          connections++
          sockets.add(socket)
          socket.on("close", () => sockets.delete(socket))
        })
        server.listen(0, "127.0.0.1", () => {
          const port = (server.address() as AddressInfo).port
          resolve({
            server,
            state: {
              origin: `${options.tls === true ? "https" : "http"}://127.0.0.1:${port}`,
              port,
              requests,
              connections: () => connections,
              aborted: () => aborted
            }
          })
        })
      })
    ),
    ({ server }) =>
      Effect.promise(() =>
        new Promise<void>((resolve) => {
          server.close(() => resolve())
          server.closeAllConnections()
        })
      )
  ).pipe(Effect.map(({ state }) => state))

/** A port nothing listens on (bound, then released). */
export const closedPort: Effect.Effect<number> = Effect.promise(() =>
  new Promise<number>((resolve) => {
    const server = http.createServer()
    server.listen(0, "127.0.0.1", () => {
      const port = (server.address() as AddressInfo).port
      server.close(() => resolve(port))
    })
  })
)
