/** The fetcher against real local servers: headers, redirects, status as data, timeouts, size caps, content encodings, TLS. */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Fiber } from "effect"
import type { Socket } from "node:net"
import { Fetcher } from "../../src/fetch/Fetcher.ts"
import { DEFAULT_MAX_DOCUMENT_BYTES, DEFAULT_MAX_PAGE_BYTES, defaultMaxBytes } from "../../src/fetch/ResponseBody.ts"
import zlib from "node:zlib"
import { closedPort, startServer } from "./TestServer.ts"
import { failureOf, fetchWith, open, text } from "./FetchHarness.ts"

const html = "<!doctype html><html><head><title>T</title></head><body><p>Hello, world.</p></body></html>"

describe("Fetcher", () => {
  it.live("returns status, final URL, headers, content type and body", () =>
    Effect.gen(function*() {
      const server = yield* startServer((_req, res) => {
        res.writeHead(200, { "content-type": "Text/HTML; charset=UTF-8", "x-thing": "a" })
        res.end(html)
      })
      const response = yield* fetchWith(open, `${server.origin}/page?q=1`)
      assert.strictEqual(response.status, 200)
      assert.strictEqual(response.url, `${server.origin}/page?q=1`)
      assert.strictEqual(response.contentType, "text/html")
      assert.strictEqual(response.headers["x-thing"], "a")
      assert.strictEqual(text(response.body), html)
    }))

  it.live("sends browser-like defaults with the caller's headers merged over them", () =>
    Effect.gen(function*() {
      const server = yield* startServer((_req, res) => res.end("ok"))
      yield* fetchWith(open, `${server.origin}/`, { headers: { "User-Agent": "StrataTest/1.0", "X-Api-Key": "k1", Host: "evil.example" } })
      const sent = server.requests[0].headers
      assert.strictEqual(sent["user-agent"], "StrataTest/1.0")
      assert.strictEqual(sent["x-api-key"], "k1")
      assert.strictEqual(sent.host, `127.0.0.1:${server.port}`)
      assert.match(String(sent.accept), /text\/html/)
      assert.match(String(sent["accept-language"]), /^en/)
      assert.match(String(sent["accept-encoding"]), /gzip.*br.*zstd/)
      yield* fetchWith(open, `${server.origin}/`)
      assert.match(String(server.requests[1].headers["user-agent"]), /Mozilla\/5\.0 .*Chrome\//)
    }))

  it.live("sends the location's languages as Accept-Language, unless the caller's headers set one", () =>
    Effect.gen(function*() {
      const server = yield* startServer((req, res) => res.end(String(req.headers["accept-language"])))
      const got = (options: Parameters<typeof fetchWith>[2]) => Effect.map(fetchWith(open, `${server.origin}/`, options), (r) => text(r.body))
      assert.strictEqual(yield* got({ location: { country: "US", languages: ["de-DE", "en"] } }), "de-DE,en;q=0.9")
      assert.strictEqual(yield* got({ location: { country: "DE" } }), "de-DE,de;q=0.9,en;q=0.8")
      assert.strictEqual(yield* got({ location: { country: "DE" }, headers: { "accept-language": "fr" } }), "fr")
      assert.strictEqual(yield* got({}), "en-US,en;q=0.9")
    }))

  it.live("rejects headers HTTP cannot carry as an invalid request", () =>
    Effect.gen(function*() {
      const server = yield* startServer((_req, res) => res.end("ok"))
      const cases: Array<Record<string, string>> = [{ "x-evil": "a\r\nInjected: yes" }, { "bad name": "v" }, { "x-emoji": "\u{1F600}" }]
      for (const headers of cases) {
        const reason = yield* failureOf(open, `${server.origin}/`, { headers })
        assert.strictEqual(reason._tag, "InvalidRequest")
        assert.deepStrictEqual(reason._tag === "InvalidRequest" && reason.details[0].path, ["headers", Object.keys(headers)[0]])
      }
      assert.strictEqual(server.connections(), 0)
    }))

  it.live("reuses keep-alive connections and retries once when a pooled socket was dropped", () =>
    Effect.gen(function*() {
      const seen = new Map<Socket, number>()
      let dropped = 0
      const server = yield* startServer((req, res) => {
        const count = (seen.get(req.socket) ?? 0) + 1
        seen.set(req.socket, count)
        // The second request on a connection finds it closed, as after a server's idle timeout.
        if (count === 2 && dropped === 0) {
          dropped++
          return req.socket.destroy()
        }
        res.end(`n${server.requests.length}`)
      })
      const [first, second, third] = yield* Effect.gen(function*() {
        const fetcher = yield* Fetcher
        const get = fetcher.fetch(`${server.origin}/`, { deadline: Date.now() + 5000, skipTlsVerification: true })
        return [yield* get, yield* get, yield* get]
      }).pipe(Effect.provide(Fetcher.layerWith(open)))
      assert.strictEqual(text(first.body), "n1")
      assert.strictEqual(text(second.body), "n3")
      assert.strictEqual(text(third.body), "n4")
      assert.strictEqual(dropped, 1)
      assert.strictEqual(server.connections(), 2)
    }))

  it.live("returns a non-2xx status as data, with its body", () =>
    Effect.gen(function*() {
      const server = yield* startServer((req, res) => {
        res.writeHead(req.url === "/gone" ? 404 : 503, { "content-type": "text/html" })
        res.end(`<h1>${req.url}</h1>`)
      })
      const missing = yield* fetchWith(open, `${server.origin}/gone`)
      assert.strictEqual(missing.status, 404)
      assert.strictEqual(text(missing.body), "<h1>/gone</h1>")
      const down = yield* fetchWith(open, `${server.origin}/busy`)
      assert.strictEqual(down.status, 503)
    }))

  it.live("follows a redirect chain with relative and absolute Locations and reports the final URL", () =>
    Effect.gen(function*() {
      const server = yield* startServer((req, res) => {
        const go = (status: number, location: string) => {
          res.writeHead(status, { location })
          res.end("moved")
        }
        if (req.url === "/start") return go(301, "/dir/next")
        if (req.url === "/dir/next") return go(302, "after?x=1")
        if (req.url === "/dir/after?x=1") return go(303, "../final")
        if (req.url === "/final") return go(307, `http://127.0.0.1:${(req.socket.localPort)}/really-final`)
        if (req.url === "/really-final") return go(308, "//127.0.0.1:" + req.socket.localPort + "/end")
        res.end(`at ${req.url}`)
      })
      const response = yield* fetchWith(open, `${server.origin}/start`)
      assert.strictEqual(response.status, 200)
      assert.strictEqual(response.url, `${server.origin}/end`)
      assert.strictEqual(text(response.body), "at /end")
      assert.deepStrictEqual(server.requests.map((r) => r.path), ["/start", "/dir/next", "/dir/after?x=1", "/final", "/really-final", "/end"])
    }))

  it.live("detects a redirect loop", () =>
    Effect.gen(function*() {
      const server = yield* startServer((req, res) => {
        res.writeHead(302, { location: req.url === "/a" ? "/b" : "/a" })
        res.end()
      })
      const reason = yield* failureOf(open, `${server.origin}/a`)
      assert.strictEqual(reason._tag, "FetchFailed")
      assert.strictEqual(reason._tag === "FetchFailed" && reason.kind, "redirects")
      assert.match(reason.message, /loop/i)
      assert.strictEqual(server.requests.length, 2)
    }))

  it.live("gives up after too many redirects", () =>
    Effect.gen(function*() {
      const server = yield* startServer((req, res) => {
        const n = Number(req.url?.slice(1))
        res.writeHead(301, { location: `/${n + 1}` })
        res.end()
      })
      const reason = yield* failureOf(open, `${server.origin}/0`)
      assert.strictEqual(reason._tag === "FetchFailed" && reason.kind, "redirects")
      assert.strictEqual(server.requests.length, 11)
      const short = yield* fetchWith({ allowPrivate: true, maxRedirects: 3 }, `${server.origin}/0`).pipe(Effect.flip)
      assert.match(short.message, /more than 3/)
    }))

  it.live("sends back cookies set on a redirect, so set-cookie-and-reload is not a loop", () =>
    Effect.gen(function*() {
      const server = yield* startServer((req, res) => {
        if (!String(req.headers.cookie ?? "").includes("consent=yes")) {
          res.writeHead(302, { location: req.url ?? "/", "set-cookie": "consent=yes; Path=/; HttpOnly" })
          return res.end()
        }
        res.end(`welcome ${req.headers.cookie}`)
      })
      const response = yield* fetchWith(open, `${server.origin}/page`, { headers: { cookie: "mine=1" } })
      assert.strictEqual(text(response.body), "welcome mine=1; consent=yes")
      assert.strictEqual(server.requests.length, 2)
    }))

  it.live("times out on a server that never answers, within the budget", () =>
    Effect.gen(function*() {
      const server = yield* startServer(() => {
        // never responds
      })
      const started = Date.now()
      const reason = yield* failureOf(open, `${server.origin}/`, { deadline: Date.now() + 300 })
      const elapsed = Date.now() - started
      assert.strictEqual(reason._tag, "TimedOut")
      assert.isTrue(elapsed >= 250 && elapsed < 2000, `elapsed ${elapsed} ms`)
    }))

  it.live("times out on a body that trickles past the deadline (the budget covers the body)", () =>
    Effect.gen(function*() {
      const server = yield* startServer((_req, res) => {
        res.writeHead(200, { "content-type": "text/plain" })
        const timer = setInterval(() => res.write("."), 50)
        res.on("close", () => clearInterval(timer))
      })
      const started = Date.now()
      const reason = yield* failureOf(open, `${server.origin}/`, { deadline: Date.now() + 400 })
      assert.strictEqual(reason._tag, "TimedOut")
      assert.isBelow(Date.now() - started, 2000)
    }))

  it.live("fails at once when the deadline has already passed", () =>
    Effect.gen(function*() {
      const server = yield* startServer((_req, res) => res.end("late"))
      const reason = yield* failureOf(open, `${server.origin}/`, { deadline: Date.now() - 1 })
      assert.strictEqual(reason._tag, "TimedOut")
      assert.strictEqual(server.connections(), 0)
    }))

  it.live("aborts the request when the fiber is interrupted", () =>
    Effect.gen(function*() {
      const server = yield* startServer(() => {
        // hangs until the client goes away
      })
      const fiber = yield* Effect.forkChild(fetchWith(open, `${server.origin}/`))
      while (server.requests.length === 0) yield* Effect.sleep(10)
      yield* Fiber.interrupt(fiber)
      for (let i = 0; i < 100 && server.aborted() === 0; i++) yield* Effect.sleep(10)
      assert.strictEqual(server.aborted(), 1)
    }))

  it.live("caps the body size, by Content-Length and while streaming", () =>
    Effect.gen(function*() {
      const big = Buffer.alloc(300_000, 120)
      const server = yield* startServer((req, res) => {
        if (req.url === "/declared") {
          res.writeHead(200, { "content-length": String(big.length) })
          return res.end(big)
        }
        res.writeHead(200, { "content-type": "text/html" })
        res.write(big.subarray(0, 150_000))
        setTimeout(() => res.end(big.subarray(150_000)), 20)
      })
      const declared = yield* failureOf(open, `${server.origin}/declared`, { maxBytes: 100_000 })
      assert.strictEqual(declared._tag === "FetchFailed" && declared.kind, "too_large")
      const streamed = yield* failureOf(open, `${server.origin}/chunked`, { maxBytes: 100_000 })
      assert.strictEqual(streamed._tag === "FetchFailed" && streamed.kind, "too_large")
      const fits = yield* fetchWith(open, `${server.origin}/chunked`, { maxBytes: 300_000 })
      assert.strictEqual(fits.body.byteLength, 300_000)
    }))

  it.effect("gives pages a smaller default cap than documents and untyped bodies", () =>
    Effect.sync(() => {
      for (const t of ["text/html", "text/plain", "application/xhtml+xml", "application/json", "application/rss+xml"]) assert.strictEqual(defaultMaxBytes(t), DEFAULT_MAX_PAGE_BYTES, t)
      for (const t of ["application/pdf", "application/octet-stream", undefined]) assert.strictEqual(defaultMaxBytes(t), DEFAULT_MAX_DOCUMENT_BYTES, t)
    }))

  it.live("caps the decoded size too: a small gzip bomb is refused", () =>
    Effect.gen(function*() {
      const bomb = zlib.gzipSync(Buffer.alloc(5_000_000))
      const server = yield* startServer((_req, res) => {
        res.writeHead(200, { "content-encoding": "gzip", "content-type": "text/html" })
        res.end(bomb)
      })
      assert.isBelow(bomb.byteLength, 100_000)
      const reason = yield* failureOf(open, `${server.origin}/`, { maxBytes: 1_000_000 })
      assert.strictEqual(reason._tag === "FetchFailed" && reason.kind, "too_large")
    }))

  it.live("decodes gzip, deflate (zlib and raw), brotli, zstd and stacked encodings", () =>
    Effect.gen(function*() {
      const page = `<p>${"Compressed text with ümlauts. ".repeat(200)}</p>`
      const raw = Buffer.from(page)
      const bodies: Record<string, [string, Buffer]> = {
        "/gzip": ["gzip", zlib.gzipSync(raw)],
        "/deflate": ["deflate", zlib.deflateSync(raw)],
        "/rawdeflate": ["deflate", zlib.deflateRawSync(raw)],
        "/br": ["br", zlib.brotliCompressSync(raw)],
        "/zstd": ["zstd", zlib.zstdCompressSync(raw)],
        "/stacked": ["gzip, br", zlib.brotliCompressSync(zlib.gzipSync(raw))],
        "/truncated": ["gzip", zlib.gzipSync(raw).subarray(0, -8)]
      }
      const server = yield* startServer((req, res) => {
        const [encoding, body] = bodies[req.url ?? ""]
        res.writeHead(200, { "content-encoding": encoding, "content-type": "text/html; charset=utf-8" })
        res.end(body)
      })
      for (const path of Object.keys(bodies)) {
        const response = yield* fetchWith(open, `${server.origin}${path}`)
        assert.strictEqual(text(response.body), page, path)
      }
    }))

  it.live("fails with kind decode on an unknown content encoding", () =>
    Effect.gen(function*() {
      const server = yield* startServer((_req, res) => {
        res.writeHead(200, { "content-encoding": "compress" })
        res.end("xx")
      })
      const reason = yield* failureOf(open, `${server.origin}/`)
      assert.strictEqual(reason._tag === "FetchFailed" && reason.kind, "decode")
    }))

  it.live("reports a refused connection as kind connection", () =>
    Effect.gen(function*() {
      const port = yield* closedPort
      const reason = yield* failureOf(open, `http://127.0.0.1:${port}/`)
      assert.strictEqual(reason._tag === "FetchFailed" && reason.kind, "connection")
    }))

  it.live("accepts a self-signed certificate only when skipTlsVerification is true", () =>
    Effect.gen(function*() {
      const server = yield* startServer((_req, res) => res.end("secure"), { tls: true })
      const ok = yield* fetchWith(open, `${server.origin}/`, { skipTlsVerification: true })
      assert.strictEqual(text(ok.body), "secure")
      const reason = yield* failureOf(open, `https://localhost:${server.port}/`, { skipTlsVerification: false })
      assert.strictEqual(reason._tag === "FetchFailed" && reason.kind, "tls")
      assert.match(reason.message, /skipTlsVerification/)
    }))
})
