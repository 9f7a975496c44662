/** Pages the browser tests serve on 127.0.0.1, and a second server that records whether anything reached it. */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"

export interface Site {
  readonly url: string
  readonly hits: Array<string>
  /** TCP connections accepted so far (a blocked request must not even connect). */
  readonly connections: () => number
  readonly close: () => Promise<void>
}

type Handler = (request: IncomingMessage, response: ServerResponse) => void

export const html = (body: string, head = "") => `<!doctype html><html><head><meta charset="utf-8"><title>Test page</title>${head}</head><body>${body}</body></html>`

export const serve = async (routes: Record<string, string | Handler>): Promise<Site> => {
  const hits: Array<string> = []
  const server: Server = createServer((request, response) => {
    hits.push(request.url ?? "")
    const path = (request.url ?? "/").split("?")[0]
    const route = routes[path]
    if (route === undefined) {
      response.writeHead(404, { "content-type": "text/plain" }).end("not here")
      return
    }
    if (typeof route === "function") return route(request, response)
    response.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(route)
  })
  let connections = 0
  server.on("connection", () => connections++)
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    hits,
    connections: () => connections,
    close: () => new Promise((resolve) => {
      server.closeAllConnections()
      server.close(() => resolve())
    })
  }
}

/** A page whose text exists only once its script ran. */
export const scriptRendered = html(`<div id="out">static placeholder</div>
<script>document.getElementById("out").textContent = "Rendered by script: the tide comes in twice a day."</script>`)

/** A single-page app: an empty root filled after a fetch of its data. */
export const singlePageApp = html(`<div id="root"></div><script src="/app.js"></script>`)
export const singlePageAppScript = `
fetch("/api/items").then((r) => r.json()).then((items) => {
  const list = document.createElement("ul")
  for (const item of items) { const li = document.createElement("li"); li.textContent = item; list.appendChild(li) }
  const h = document.createElement("h1"); h.textContent = "Inventory"
  document.getElementById("root").append(h, list)
})`
