/**
 * The SSRF proxy on its own, driven with raw HTTP: a name is checked after DNS (`localhost`
 * resolves to loopback), an IP literal and another protocol's port before connecting, for plain
 * requests and CONNECT tunnels alike; an allowed origin passes; refusals are remembered; a
 * request without the proxy's credential is refused with 407 before anything else.
 */
import { Effect, Exit, Scope } from "effect"
import { request as httpRequest } from "node:http"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type GuardProxy, startGuardProxy } from "../src/GuardProxy.ts"
import { serve, type Site } from "./Pages.ts"

let site: Site
let scope: Scope.Closeable
let proxy: GuardProxy

/** `Proxy-Authorization` with the proxy's own credential, or with another. */
const basic = (username: string, password: string) => `Basic ${Buffer.from(`${username}:${password}`).toString("base64")}`
const authorization = () => basic(proxy.credentials.username, proxy.credentials.password)

/** A plain-HTTP request through the proxy (absolute URL in the request line). */
const viaProxy = (target: string, auth: string | null = authorization()) =>
  new Promise<{ status: number; headers: Record<string, unknown>; body: string }>((resolve, reject) => {
    const url = new URL(proxy.url)
    const headers = { host: new URL(target).host, ...(auth === null ? {} : { "proxy-authorization": auth }) }
    const req = httpRequest({ host: url.hostname, port: url.port, path: target, method: "GET", headers }, (res) => {
      let body = ""
      res.setEncoding("utf8").on("data", (chunk) => (body += chunk)).on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }))
    })
    req.on("error", reject).end()
  })

/** A CONNECT through the proxy: the status line it answers. */
const tunnel = (hostPort: string, auth: string | null = authorization()) =>
  new Promise<number>((resolve, reject) => {
    const url = new URL(proxy.url)
    const req = httpRequest({ host: url.hostname, port: url.port, method: "CONNECT", path: hostPort, headers: auth === null ? {} : { "proxy-authorization": auth } })
    req.on("connect", (res, socket) => {
      socket.destroy()
      resolve(res.statusCode ?? 0)
    })
    req.on("error", reject).end()
  })

beforeAll(async () => {
  site = await serve({ "/": "<p>internal</p>" })
  scope = Effect.runSync(Scope.make())
  proxy = await Effect.runPromise(Scope.provide(scope)(startGuardProxy({ allowPrivate: false, allowedOrigins: ["http://allowed.invalid:1"] })))
})

afterAll(async () => {
  await Effect.runPromise(Scope.close(scope, Exit.void))
  await site.close()
})

describe("GuardProxy", () => {
  it("refuses a name that resolves to loopback, after DNS, for plain HTTP and tunnels", async () => {
    const port = new URL(site.url).port
    const plain = await viaProxy(`http://localhost:${port}/`)
    expect(plain.status).toBe(403)
    expect(String(plain.headers["x-strata-blocked"])).toMatch(/localhost resolves to .*loopback/)
    expect(await tunnel(`localhost:${port}`)).toBe(403)
    expect(proxy.refusalFor(`localhost:${port}`)?.kind).toBe("blocked")
    expect(site.connections()).toBe(0)
  })

  it("refuses an internal IP literal and another protocol's port before connecting", async () => {
    expect((await viaProxy(`${site.url}/`)).status).toBe(403)
    expect(await tunnel("10.0.0.1:443")).toBe(403)
    expect(proxy.refuses(new URL("http://example.com:25/"))?.message).toMatch(/port 25/)
    expect(site.connections()).toBe(0)
  })

  it("passes an allowed origin through", async () => {
    const scope2 = Effect.runSync(Scope.make())
    const open = await Effect.runPromise(Scope.provide(scope2)(startGuardProxy({ allowPrivate: false, allowedOrigins: [site.url] })))
    const saved = proxy
    proxy = open
    try {
      const plain = await viaProxy(`${site.url}/`)
      expect(plain.status).toBe(200)
      expect(plain.body).toContain("internal")
      expect(await tunnel(new URL(site.url).host)).toBe(200)
    } finally {
      proxy = saved
      await Effect.runPromise(Scope.close(scope2, Exit.void))
    }
  })

  it("answers 407 to a request without its credential, or with another, and connects nowhere", async () => {
    const scope4 = Effect.runSync(Scope.make())
    // Open to private addresses: what a local process would use it to reach.
    const open = await Effect.runPromise(Scope.provide(scope4)(startGuardProxy({ allowPrivate: true })))
    const saved = proxy
    proxy = open
    try {
      const before = site.connections()
      const bare = await viaProxy(`${site.url}/`, null)
      expect(bare.status).toBe(407)
      expect(String(bare.headers["proxy-authenticate"])).toMatch(/^Basic /)
      expect(bare.body).not.toContain("internal")
      expect((await viaProxy(`${site.url}/`, basic("strata", "guessed"))).status).toBe(407)
      expect(await tunnel(new URL(site.url).host, null)).toBe(407)
      expect(await tunnel(new URL(site.url).host, basic(open.credentials.username, `${open.credentials.password}x`))).toBe(407)
      expect(site.connections()).toBe(before)
      // With it, the same requests go through; another proxy's credential is another.
      expect((await viaProxy(`${site.url}/`)).body).toContain("internal")
      expect(await tunnel(new URL(site.url).host)).toBe(200)
      expect(open.credentials.password).not.toBe(saved.credentials.password)
    } finally {
      proxy = saved
      await Effect.runPromise(Scope.close(scope4, Exit.void))
    }
  })

  it("resolves a mapped host name to its address, which still passes the policy", async () => {
    const port = new URL(site.url).port
    const hosts = { "ads.mapped.example": "127.0.0.1" }
    const saved = proxy
    for (const allowPrivate of [false, true]) {
      const scope5 = Effect.runSync(Scope.make())
      proxy = await Effect.runPromise(Scope.provide(scope5)(startGuardProxy({ allowPrivate, hosts })))
      try {
        const answer = await viaProxy(`http://ads.mapped.example:${port}/`)
        if (allowPrivate) expect(answer.body).toContain("internal")
        else {
          expect(answer.status).toBe(403)
          expect(String(answer.headers["x-strata-blocked"])).toMatch(/ads\.mapped\.example resolves to 127\.0\.0\.1/)
          expect(await tunnel(`ads.mapped.example:${port}`)).toBe(403)
        }
      } finally {
        proxy = saved
        await Effect.runPromise(Scope.close(scope5, Exit.void))
      }
    }
  })

  it("answers 502 with the failure's kind when the target cannot be reached", async () => {
    const scope3 = Effect.runSync(Scope.make())
    const open = await Effect.runPromise(Scope.provide(scope3)(startGuardProxy({ allowPrivate: true })))
    const saved = proxy
    proxy = open
    try {
      const failed = await viaProxy("http://no-such-host.invalid/")
      expect(failed.status).toBe(502)
      expect(failed.headers["x-strata-proxy-error"]).toBe("dns")
    } finally {
      proxy = saved
      await Effect.runPromise(Scope.close(scope3, Exit.void))
    }
  })
})
