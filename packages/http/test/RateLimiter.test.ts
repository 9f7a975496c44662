/** The token bucket with a controlled clock, and the 429 it produces on a real server. */
import { Effect } from "effect"
import { describe, expect, it } from "vitest"
import { makeRateLimiter, serverConfigFromEnv } from "../src/index.ts"
import { pipelineDouble, startTestServer } from "./support.ts"

describe("makeRateLimiter", () => {
  it("allows a burst of `perMinute`, then refills continuously, per key", () => {
    let now = 1_000_000
    const limiter = makeRateLimiter(60, () => now)
    for (let i = 0; i < 60; i++) expect(limiter.take("a").allowed).toBe(true)
    const refused = limiter.take("a")
    expect(refused).toEqual({ allowed: false, retryAfterSeconds: 1 })
    // Another key has its own bucket.
    expect(limiter.take("b").allowed).toBe(true)
    now += 999
    expect(limiter.take("a").allowed).toBe(false)
    now += 2
    expect(limiter.take("a").allowed).toBe(true)
    expect(limiter.take("a").allowed).toBe(false)
    // A long pause refills to capacity, never beyond.
    now += 10 * 60_000
    for (let i = 0; i < 60; i++) expect(limiter.take("a").allowed).toBe(true)
    expect(limiter.take("a").allowed).toBe(false)
  })

  it("is off at 0", () => {
    const limiter = makeRateLimiter(0)
    for (let i = 0; i < 10_000; i++) expect(limiter.take("a").allowed).toBe(true)
  })

  it("reads STRATA_RATE_LIMIT and rejects nonsense", () => {
    expect(serverConfigFromEnv({ STRATA_RATE_LIMIT: "120" }).rateLimitPerMinute).toBe(120)
    expect(serverConfigFromEnv({}).rateLimitPerMinute).toBe(0)
    expect(() => serverConfigFromEnv({ STRATA_RATE_LIMIT: "lots" })).toThrow(/STRATA_RATE_LIMIT/)
  })
})

describe("429 on the wire", () => {
  it("answers `{ error }` only, with Retry-After, once a key's bucket is empty", async () => {
    const pipeline = pipelineDouble({
      scrape: () => Effect.succeed({ markdown: "ok" }),
      parse: () => Effect.succeed({ markdown: "ok" })
    })
    const server = await startTestServer(pipeline, { apiKeys: ["one", "two"], rateLimitPerMinute: 3 })
    try {
      const call = (key: string) =>
        fetch(`${server.url}/v2/scrape`, {
          method: "POST",
          headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
          body: "{\"url\":\"https://example.com\"}"
        })
      for (let i = 0; i < 3; i++) expect((await call("one")).status).toBe(200)
      const limited = await call("one")
      expect(limited.status).toBe(429)
      const body = await limited.json()
      expect(Object.keys(body)).toEqual(["error"])
      expect(body.error).toMatch(/Rate limit exceeded/)
      expect(Number(limited.headers.get("retry-after"))).toBeGreaterThanOrEqual(1)
      expect((await call("two")).status).toBe(200)
      // /health is not rate limited or authenticated.
      for (let i = 0; i < 5; i++) expect((await fetch(`${server.url}/health`)).status).toBe(200)
    } finally {
      await server.close()
    }
  })
})
