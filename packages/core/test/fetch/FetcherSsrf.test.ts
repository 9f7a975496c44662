/**
 * SSRF refusals: internal targets are refused before any connection is made, on the first
 * request and on every redirect hop, unless private addresses are allowed.
 */
import { assert, describe, it } from "@effect/vitest"
import { ConfigProvider, Effect } from "effect"
import { Fetcher } from "../../src/fetch/Fetcher.ts"
import { failureOf, fetchWith, guarded, text } from "./FetchHarness.ts"
import { startServer } from "./TestServer.ts"

describe("Fetcher SSRF protection", () => {
  it.live("refuses loopback targets by literal and by name, without connecting", () =>
    Effect.gen(function*() {
      const server = yield* startServer((_req, res) => res.end("internal"))
      for (const url of [`${server.origin}/`, `http://localhost:${server.port}/`, `http://127.1:${server.port}/`, `http://2130706433:${server.port}/`, `http://0x7f.0.0.1:${server.port}/`]) {
        const reason = yield* failureOf(guarded, url)
        assert.strictEqual(reason._tag, "UrlBlocked", url)
        assert.match(reason.message, /loopback/, url)
      }
      assert.strictEqual(server.connections(), 0)
    }))

  it.live("refuses metadata, unspecified, private, IPv6 and IPv4-mapped targets", () =>
    Effect.gen(function*() {
      const cases: Array<[string, RegExp]> = [
        ["http://169.254.169.254/latest/meta-data/", /metadata/],
        ["http://0.0.0.0/", /unspecified/],
        ["http://0/", /unspecified/],
        ["http://[::1]/", /loopback/],
        ["http://[::]/", /unspecified/],
        ["http://[::ffff:127.0.0.1]/", /loopback.*IPv4-mapped/],
        ["http://[::ffff:169.254.169.254]/", /metadata/],
        ["http://[fe80::1]/", /link-local/],
        ["http://[fd00::1]/", /unique local/],
        ["http://10.1.2.3/", /private/],
        ["http://172.20.0.1/", /private/],
        ["http://192.168.1.1/", /private/],
        ["http://100.100.100.200/", /carrier-grade NAT/],
        ["https://017700000001/", /loopback/],
        ["http://255.255.255.255/", /broadcast/],
        ["http://224.0.0.1/", /multicast/]
      ]
      for (const [url, why] of cases) {
        const started = Date.now()
        const reason = yield* failureOf(guarded, url)
        assert.strictEqual(reason._tag, "UrlBlocked", url)
        assert.match(reason.message, why, url)
        // Refused before any connection attempt: no TCP timeout was waited for.
        assert.isBelow(Date.now() - started, 500, url)
      }
    }))

  it.live("words the refusal as a sentence: the address is a range, once", () =>
    Effect.gen(function*() {
      const unspecified = yield* failureOf(guarded, "http://0.0.0.0/")
      assert.strictEqual(
        unspecified.message,
        "Refusing to fetch http://0.0.0.0/: 0.0.0.0 is an unspecified (this-network) address (0.0.0.0/8). Set STRATA_ALLOW_PRIVATE_URLS=1 to allow private addresses."
      )
      const loopback = yield* failureOf(guarded, "http://[::1]/")
      assert.match(loopback.message, /: ::1 is the loopback address \(::1\)\. /)
    }))

  it.live("refuses schemes other than http and https", () =>
    Effect.gen(function*() {
      for (const url of ["file:///etc/passwd", "ftp://example.com/", "data:text/html,hi", "gopher://127.0.0.1:70/"]) {
        const reason = yield* failureOf(guarded, url)
        assert.strictEqual(reason._tag, "UrlBlocked", url)
      }
      const invalid = yield* failureOf(guarded, "not a url")
      assert.strictEqual(invalid._tag, "InvalidRequest")
    }))

  it.live("checks every redirect hop: a redirect to an internal address is refused before connecting", () =>
    Effect.gen(function*() {
      const internal = yield* startServer((_req, res) => res.end("secret"))
      const targets: Record<string, string> = {
        "/to-literal": `http://127.0.0.1:${internal.port}/`,
        "/to-name": `http://localhost:${internal.port}/`,
        "/to-metadata": "http://169.254.169.254/latest/meta-data/",
        "/to-mapped": `http://[::ffff:7f00:1]:${internal.port}/`,
        "/to-file": "file:///etc/passwd"
      }
      const front = yield* startServer((req, res) => {
        res.writeHead(302, { location: targets[req.url ?? ""] })
        res.end()
      })
      // Only the front server's origin is trusted; everything it redirects to is judged on its own.
      const policy = { allowPrivate: false, allowedOrigins: [front.origin] }
      for (const path of Object.keys(targets)) {
        const reason = yield* failureOf(policy, `${front.origin}${path}`)
        assert.strictEqual(reason._tag, "UrlBlocked", path)
      }
      assert.strictEqual(front.requests.length, Object.keys(targets).length)
      assert.strictEqual(internal.connections(), 0)
    }))

  it.live("allowPrivate (per fetch, or in the layer) lifts the rule", () =>
    Effect.gen(function*() {
      const server = yield* startServer((_req, res) => res.end("local"))
      const perFetch = yield* fetchWith(guarded, `http://localhost:${server.port}/`, { allowPrivate: true })
      assert.strictEqual(text(perFetch.body), "local")
      const inLayer = yield* fetchWith({ allowPrivate: true }, `${server.origin}/`)
      assert.strictEqual(inLayer.status, 200)
      const overridden = yield* failureOf({ allowPrivate: true }, `${server.origin}/`, { allowPrivate: false })
      assert.strictEqual(overridden._tag, "UrlBlocked")
    }))

  it.live("Fetcher.layer reads STRATA_ALLOW_PRIVATE_URLS and STRATA_ALLOWED_ORIGINS", () =>
    Effect.gen(function*() {
      const server = yield* startServer((_req, res) => res.end("env"))
      const fetchUnder = (env: Record<string, string>) =>
        Effect.gen(function*() {
          const fetcher = yield* Fetcher
          return yield* fetcher.fetch(`${server.origin}/`, { deadline: Date.now() + 5000, skipTlsVerification: true })
        }).pipe(
          Effect.provide(Fetcher.layer),
          Effect.provide(ConfigProvider.layer(ConfigProvider.fromEnv({ env })))
        )
      const allowed = yield* fetchUnder({ STRATA_ALLOW_PRIVATE_URLS: "1" })
      assert.strictEqual(text(allowed.body), "env")
      const refused = yield* fetchUnder({}).pipe(Effect.flip)
      assert.strictEqual(refused.reason._tag, "UrlBlocked")
      const off = yield* fetchUnder({ STRATA_ALLOW_PRIVATE_URLS: "0" }).pipe(Effect.flip)
      assert.strictEqual(off.reason._tag, "UrlBlocked")
      const listed = yield* fetchUnder({ STRATA_ALLOWED_ORIGINS: `http://example.com, ${server.origin}/` })
      assert.strictEqual(text(listed.body), "env")
      const notListed = yield* fetchUnder({ STRATA_ALLOWED_ORIGINS: "http://127.0.0.1:1, not a url" }).pipe(Effect.flip)
      assert.strictEqual(notListed.reason._tag, "UrlBlocked")
      assert.strictEqual(server.connections(), 2)
    }))
})
