/** Immediate refresh redirects (meta tag and Refresh header), bad ports, and lenient response parsing. */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import net, { type AddressInfo } from "node:net"
import { parseRefresh } from "../../src/fetch/MetaRefresh.ts"
import { failureOf, fetchWith, guarded, open, text } from "./FetchHarness.ts"
import { startServer } from "./TestServer.ts"

const refreshPage = (content: string, wrap = (tag: string) => tag): string =>
  `<html><head>${wrap(`<meta http-equiv="Refresh" content="${content}">`)}</head><body>Redirecting...</body></html>`

describe("refresh redirects", () => {
  it.effect("parses the refresh value forms browsers accept", () =>
    Effect.sync(() => {
      assert.strictEqual(parseRefresh("0; url=/next"), "/next")
      assert.strictEqual(parseRefresh("0;URL='/next?a=1'"), "/next?a=1")
      assert.strictEqual(parseRefresh(`1, "https://example.com/x"`), "https://example.com/x")
      assert.strictEqual(parseRefresh("0.5; url = /n"), "/n")
      assert.strictEqual(parseRefresh("0;/bare"), "/bare")
      assert.strictEqual(parseRefresh("30; url=/later"), undefined)
      assert.strictEqual(parseRefresh("0"), undefined)
      assert.strictEqual(parseRefresh("soon; url=/x"), undefined)
    }))

  it.live("follows an immediate meta refresh and the Refresh header, and reports the final URL", () =>
    Effect.gen(function*() {
      const server = yield* startServer((req, res) => {
        if (req.url === "/meta") return res.writeHead(200, { "content-type": "text/html" }).end(refreshPage("0; url=/header"))
        if (req.url === "/header") return res.writeHead(200, { "content-type": "text/html", refresh: "0;url=/final" }).end("<p>moved</p>")
        res.writeHead(200, { "content-type": "text/html" }).end(`<p>at ${req.url}</p>`)
      })
      const response = yield* fetchWith(open, `${server.origin}/meta`)
      assert.strictEqual(response.url, `${server.origin}/final`)
      assert.strictEqual(text(response.body), "<p>at /final</p>")
      const notFollowed = yield* fetchWith(open, `${server.origin}/meta`, { followRefresh: false })
      assert.strictEqual(notFollowed.url, `${server.origin}/meta`)
    }))

  it.live("stays on pages whose refresh is slow, inside noscript, to itself, or a loop", () =>
    Effect.gen(function*() {
      const pages: Record<string, string> = {
        "/slow": refreshPage("10; url=/elsewhere"),
        "/noscript": refreshPage("0; url=/enable-js", (tag) => `<noscript>${tag}</noscript>`),
        "/self": refreshPage("0; url=/self#top"),
        "/a": refreshPage("0; url=/b"),
        "/b": refreshPage("0; url=/a")
      }
      const server = yield* startServer((req, res) => res.writeHead(200, { "content-type": "text/html" }).end(pages[req.url ?? ""] ?? "other"))
      for (const path of ["/slow", "/noscript", "/self"]) {
        const response = yield* fetchWith(open, `${server.origin}${path}`)
        assert.strictEqual(response.url, `${server.origin}${path}`, path)
      }
      const loop = yield* fetchWith(open, `${server.origin}/a`)
      assert.strictEqual(loop.url, `${server.origin}/b`)
      assert.deepStrictEqual(server.requests.map((r) => r.path).slice(-2), ["/a", "/b"])
    }))

  it.live("applies the SSRF rules to a refresh target", () =>
    Effect.gen(function*() {
      const internal = yield* startServer((_req, res) => res.end("secret"))
      const front = yield* startServer((_req, res) =>
        res.writeHead(200, { "content-type": "text/html" }).end(refreshPage(`0; url=http://127.0.0.1:${internal.port}/`))
      )
      const reason = yield* failureOf({ allowPrivate: false, allowedOrigins: [front.origin] }, `${front.origin}/`)
      assert.strictEqual(reason._tag, "UrlBlocked")
      assert.strictEqual(internal.connections(), 0)
    }))
})

describe("ports and parsing", () => {
  it.live("refuses ports of other protocols before any lookup or connection", () =>
    Effect.gen(function*() {
      for (const url of ["http://mail.example.com:25/", "https://example.com:22/", "http://example.org:6667/"]) {
        const reason = yield* failureOf(guarded, url)
        assert.strictEqual(reason._tag, "UrlBlocked", url)
        assert.match(reason.message, /port/, url)
      }
    }))

  it.live("reads a sloppy response a browser would accept (bare LF line ends)", () =>
    Effect.gen(function*() {
      const port = yield* Effect.acquireRelease(
        Effect.promise(() =>
          new Promise<{ server: net.Server; port: number }>((resolve) => {
            const server = net.createServer((socket) => {
              socket.once("data", () => socket.end("HTTP/1.1 200 OK\nContent-Type: text/html\nX-Odd: a\u0001b\nContent-Length: 7\n\n<p>ok</p>".replace("7", "9")))
            })
            server.listen(0, "127.0.0.1", () => resolve({ server, port: (server.address() as AddressInfo).port }))
          })
        ),
        ({ server }) => Effect.sync(() => server.close())
      ).pipe(Effect.map(({ port }) => port))
      const response = yield* fetchWith(open, `http://127.0.0.1:${port}/`)
      assert.strictEqual(response.status, 200)
      assert.strictEqual(text(response.body), "<p>ok</p>")
    }))
})
