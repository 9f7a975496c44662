/**
 * The cache rules on requests decoded from real bodies: URL normalisation (properties with
 * fast-check: idempotent, blind to scheme, `www.`, default ports and plain fragments, keeping the
 * query as it is), what is and is not in the key, when the cache may be read and written, and
 * when a stored page fits (maxAge, minAge, waitFor as a minimum).
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import fc from "fast-check"
import { decodeScrapeRequest, type ScrapeRequest } from "../../src/contract/Request.ts"
import { cacheHitFits, cacheKey, cacheOnly, cacheUse, normalizeCacheUrl } from "../../src/store/CacheRules.ts"

const decode = (body: Record<string, unknown>): ScrapeRequest =>
  Effect.runSync(decodeScrapeRequest({ url: "https://example.com/page", ...body }))

describe("normalizeCacheUrl", () => {
  it("follows the index's rules", () => {
    const cases: Array<[string, string]> = [
      ["http://www.example.com:80/a/", "https://example.com/a"],
      ["https://example.com:443/", "https://example.com"],
      ["https://example.com:8443/x", "https://example.com:8443/x"],
      ["https://example.com/docs/index.html", "https://example.com/docs"],
      ["https://example.com/index.php?b=2&a=1", "https://example.com?b=2&a=1"],
      ["https://example.com/p#section", "https://example.com/p"],
      ["https://example.com/app#/route/1", "https://example.com/app#/route/1"],
      ["https://example.com/app#!/route", "https://example.com/app#!/route"],
      ["https://EXAMPLE.com/Case", "https://example.com/Case"]
    ]
    for (const [input, expected] of cases) assert.strictEqual(normalizeCacheUrl(input), expected, input)
  })

  const urls = fc.record({
    scheme: fc.constantFrom("http", "https"),
    www: fc.boolean(),
    host: fc.domain(),
    port: fc.constantFrom("", ":80", ":443", ":8080"),
    path: fc.webPath(),
    query: fc.webQueryParameters(),
    fragment: fc.webFragments()
  })
  const build = (u: { scheme: string; www: boolean; host: string; port: string; path: string; query: string; fragment: string }, withFragment = true) =>
    `${u.scheme}://${u.www ? "www." : ""}${u.host}${u.port}${u.path}${u.query === "" ? "" : `?${u.query}`}${withFragment && u.fragment !== "" ? `#${u.fragment}` : ""}`

  it("is idempotent", () => {
    fc.assert(fc.property(urls, (u) => {
      const once = normalizeCacheUrl(build(u))
      return normalizeCacheUrl(once) === once
    }))
  })

  it("does not see the scheme, www., default ports or a plain fragment", () => {
    fc.assert(fc.property(urls, (u) => {
      fc.pre(!u.fragment.startsWith("/") && !u.fragment.startsWith("!/") && !u.host.startsWith("www."))
      const plain = normalizeCacheUrl(build({ ...u, scheme: "https", www: false, port: u.port === ":8080" ? ":8080" : "" }, false))
      return normalizeCacheUrl(build(u)) === plain
    }))
  })

  it("keeps the query as it is", () => {
    assert.notStrictEqual(normalizeCacheUrl("https://example.com/?a=1&b=2"), normalizeCacheUrl("https://example.com/?b=2&a=1"))
  })
})

describe("cacheKey", () => {
  it("is the same for what does not change the fetched page", () => {
    const base = cacheKey(decode({}))
    for (const body of [
      { formats: ["html", "links"] },
      { onlyMainContent: false },
      { includeTags: ["main"] },
      { timeout: 20_000 },
      { waitFor: 2_000 },
      { url: "http://www.example.com/page/" },
      { url: "https://example.com/page#top" },
      { location: { country: "US", languages: [] } }
    ]) {
      // A location of US with no languages is not the default us-generic: only leaving it out is.
      if ("location" in body) assert.notStrictEqual(cacheKey(decode(body)), base)
      else assert.strictEqual(cacheKey(decode(body)), base, JSON.stringify(body))
    }
  })

  it("differs for what does", () => {
    const keys = [
      {},
      { mobile: true },
      { blockAds: false },
      { proxy: "enhanced" },
      { location: { country: "DE" } },
      { location: { country: "DE", languages: ["de", "en"] } },
      { formats: ["screenshot"] },
      { formats: [{ type: "screenshot", fullPage: true }] },
      { url: "https://example.com/page?x=1" }
    ].map((body) => cacheKey(decode(body)))
    assert.strictEqual(new Set(keys).size, keys.length)
    // Language order and repeats do not matter.
    assert.strictEqual(
      cacheKey(decode({ location: { country: "DE", languages: ["en", "de", "en"] } })),
      cacheKey(decode({ location: { country: "DE", languages: ["de", "en"] } }))
    )
  })
})

describe("cacheUse", () => {
  it("reads and writes a plain scrape", () => {
    assert.deepStrictEqual(cacheUse(decode({})), { read: true, write: true })
  })

  it("neither reads nor writes with headers, actions or a custom screenshot", () => {
    for (const body of [
      { headers: { cookie: "a=1" } },
      { actions: [{ type: "wait", milliseconds: 10 }] },
      { formats: [{ type: "screenshot", quality: 50 }] },
      { parsers: [{ type: "pdf", pages: true }] }
    ]) {
      assert.deepStrictEqual(cacheUse(decode(body)), { read: false, write: false }, JSON.stringify(body))
    }
  })

  it("maxAge 0 only writes; storeInCache false, zero data retention and lockdown only read", () => {
    assert.deepStrictEqual(cacheUse(decode({ maxAge: 0 })), { read: false, write: true })
    assert.deepStrictEqual(cacheUse(decode({ storeInCache: false })), { read: true, write: false })
    assert.deepStrictEqual(cacheUse(decode({ zeroDataRetention: true })), { read: true, write: false })
    assert.deepStrictEqual(cacheUse(decode({ lockdown: true })), { read: true, write: false })
    assert.isTrue(cacheOnly(decode({ lockdown: true })))
    assert.isTrue(cacheOnly(decode({ minAge: 1000 })))
    assert.isFalse(cacheOnly(decode({})))
  })
})

describe("cacheHitFits", () => {
  const now = 10_000_000_000
  it("takes a page younger than maxAge (2 days by default), older than minAge, waited at least waitFor", () => {
    const request = decode({})
    assert.isTrue(cacheHitFits(request, { fetchedAt: now - 3600_000 }, now))
    assert.isFalse(cacheHitFits(request, { fetchedAt: now - 3 * 86_400_000 }, now))
    assert.isFalse(cacheHitFits(decode({ minAge: 7200_000 }), { fetchedAt: now - 3600_000 }, now))
    assert.isTrue(cacheHitFits(decode({ minAge: 1800_000 }), { fetchedAt: now - 3600_000 }, now))
    const waits = decode({ waitFor: 2000 })
    assert.isFalse(cacheHitFits(waits, { fetchedAt: now, meta: { waitMs: 1000 } }, now))
    assert.isTrue(cacheHitFits(waits, { fetchedAt: now, meta: { waitMs: 3000 } }, now))
    assert.isTrue(cacheHitFits(decode({ lockdown: true }), { fetchedAt: now - 300 * 86_400_000 }, now))
  })
})
