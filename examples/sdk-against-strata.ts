/**
 * The official Firecrawl SDK pointed at a Strata server, unchanged: start the server in-process on
 * a free loopback port, serve a page beside it, and scrape that page through the SDK.
 */
import Firecrawl from "@mendable/firecrawl-js"
import { startServer } from "@strata/http"
import { Strata } from "strata"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"

// The page lives on loopback, which Strata refuses by default (SSRF protection).
process.env.STRATA_ALLOW_PRIVATE_URLS = "1"

const site = createServer((_request, response) => {
  response.setHeader("content-type", "text/html; charset=utf-8")
  response.end(`<html><head><title>Hello from Strata</title></head><body>
    <nav><a href="/">Home</a></nav>
    <article><h1>Hello</h1><p>This page was scraped through the Firecrawl SDK by a Strata server.</p></article>
  </body></html>`)
})
await new Promise<void>((resolve) => site.listen(0, "127.0.0.1", resolve))
const pageUrl = `http://127.0.0.1:${(site.address() as AddressInfo).port}/`

const server = await startServer({ pipeline: Strata.StrataLive, config: { apiKeys: ["example-key"], port: 0, writeLog: () => {} } })
try {
  const firecrawl = new Firecrawl({ apiKey: "example-key", apiUrl: server.url })
  const document = await firecrawl.scrape(pageUrl, { formats: ["markdown", "links"] })
  console.log(document.metadata?.title)
  console.log(document.markdown)
} finally {
  await server.close()
  site.close()
}
