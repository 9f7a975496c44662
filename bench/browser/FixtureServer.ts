/**
 * The loopback HTTP server that serves the corpus (`Pages.ts`) to Strata and to the bare
 * Playwright loop alike. Routes are matched on the path alone, so a scrape can add a query string
 * of its own (a nonce that keeps every scrape out of the cache). `Connection: close` is not
 * forced: both engines keep connections alive as they would with a real site.
 */
import { createServer, type Server } from "node:http"
import type { Page, Route } from "./Pages.ts"

export interface FixtureServer {
  readonly origin: string
  /** The URL of `path` (its `#hash` kept) with a nonce of its own (`?n=1`, `?n=2`, ...), so no render is answered from a cache. */
  readonly url: (path: string) => string
  /** Requests answered so far. */
  readonly served: () => number
  readonly close: () => Promise<void>
}

export const startFixtureServer = (pages: ReadonlyArray<Page>, extra: Readonly<Record<string, Route>> = {}): Promise<FixtureServer> => {
  const routes = new Map<string, Route>(Object.entries(extra))
  for (const page of pages) for (const [path, route] of Object.entries(page.routes)) routes.set(path, route)
  let served = 0
  let nonce = 0
  const server: Server = createServer((request, response) => {
    const path = (request.url ?? "/").split("?")[0]
    const route = routes.get(path)
    served++
    const answer = () => {
      if (response.destroyed) return
      if (route === undefined) {
        response.writeHead(404, { "content-type": "text/plain" }).end("not found")
        return
      }
      response.writeHead(200, { "content-type": route.contentType, "cache-control": "no-store" }).end(route.body)
    }
    if (route?.delayMs !== undefined && route.delayMs > 0) setTimeout(answer, route.delayMs)
    else answer()
  })
  return new Promise((done, fail) => {
    server.once("error", fail)
    server.listen(0, "127.0.0.1", () => {
      const address = server.address()
      const port = typeof address === "object" && address !== null ? address.port : 0
      done({
        origin: `http://127.0.0.1:${port}`,
        url: (path) => {
          const [base, hash] = path.split("#")
          return `http://127.0.0.1:${port}${base}?n=${++nonce}${hash === undefined ? "" : `#${hash}`}`
        },
        served: () => served,
        close: () => new Promise((closed) => {
          server.closeAllConnections()
          server.close(() => closed())
        })
      })
    })
  })
}
