/** Catalog requests (exclusivity, limits, alias) and /v2/parse options. */
import { describe, expect, it } from "vitest"
import { body, issues, ok, parse, rejectsAt, scrape } from "./decode.ts"

const call = { provider: "service", capability: "find-tools" }

describe("catalog", () => {
  it("accepts one call or an array of 1 to 10, with options defaulting to {}", () => {
    expect(ok(body({ catalog: call }))).toEqual({
      kind: "catalog",
      calls: [{ ...call, options: {} }],
      timeout: 60_000
    })
    const ten = Array.from({ length: 10 }, (_, i) => ({ provider: `p${i}`, capability: "c", options: { limit: i } }))
    const r = ok(body({ catalog: ten, timeout: 5000, origin: "js-sdk@4", integration: "x" }))
    expect(r).toMatchObject({ kind: "catalog", timeout: 5000, origin: "js-sdk@4", integration: "x" })
    if (r.kind === "catalog") expect(r.calls[9]).toEqual({ provider: "p9", capability: "c", options: { limit: 9 } })
  })

  it("rejects 0 or 11 calls and bad provider/capability lengths", () => {
    rejectsAt(body({ catalog: [] }), "catalog")
    rejectsAt(body({ catalog: Array(11).fill(call) }), "catalog")
    rejectsAt(body({ catalog: { provider: "", capability: "c" } }), "catalog.provider")
    rejectsAt(body({ catalog: { provider: "p", capability: "c".repeat(201) } }), "catalog.capability")
    ok(body({ catalog: { provider: "p".repeat(200), capability: "c" } }))
    rejectsAt(body({ catalog: { provider: "p" } }), "catalog.capability", /Missing/)
    rejectsAt(body({ catalog: { ...call, options: [] } }), "catalog.options")
  })

  it("rejects unknown keys inside a call", () => {
    rejectsAt(body({ catalog: [{ ...call, args: {} }] }), "catalog.0.args", /Unknown key/)
  })

  it.each([
    ["url", "https://example.com"],
    ["formats", ["markdown"]],
    ["onlyMainContent", true],
    ["zeroDataRetention", false],
    ["domainTools", true],
    ["nonsense", 1]
  ])("cannot be combined with %s", (key, value) => {
    rejectsAt(body({ catalog: call, [key]: value }), key, /cannot be combined with catalog/)
  })

  it("still validates the allowed siblings", () => rejectsAt(body({ catalog: call, timeout: 10 }), "timeout"))

  it("accepts the SDK's `alexandria` key as an alias, but not both", () => {
    expect(ok(body({ alexandria: [call], origin: "js-sdk@4.42.0" }))).toMatchObject({ kind: "catalog", calls: [{ ...call, options: {} }] })
    rejectsAt(body({ alexandria: [call], catalog: [call] }), "alexandria")
  })

  it("decodeScrapeRequest answers a valid catalog request with NotSupported, an invalid one with InvalidRequest", () => {
    const outcome = scrape({ catalog: call })
    expect(outcome.ok).toBe(false)
    if (!outcome.ok) expect(outcome.error.reason._tag).toBe("NotSupported")
    rejectsAt(scrape({ catalog: call, url: "https://example.com" }), "url")
  })
})

describe("decodeParseOptions", () => {
  const defaults = {
    formats: [{ type: "markdown" }],
    onlyMainContent: true,
    parsers: [{ type: "pdf", mode: "auto", pageMarkers: false, pages: false, blocks: false }],
    removeBase64Images: true,
    skipTlsVerification: true,
    blockAds: true,
    timeout: 60_000,
    zeroDataRetention: false,
    domainTools: false,
    proxy: "auto"
  }

  it("no options, null, {} and empty text all give the defaults", () => {
    for (const input of [undefined, null, {}, "", "  "]) expect(ok(parse(input))).toEqual(defaults)
  })

  it("accepts the JSON text of the options part", () => {
    expect(ok(parse(JSON.stringify({ formats: ["html"], timeout: 2000 })))).toMatchObject({ formats: [{ type: "html" }], timeout: 2000 })
    rejectsAt(parse("{not json"), "", /not valid JSON/)
    rejectsAt(parse("[1]"), "", /JSON object/)
  })

  it("takes every parse key of the spec", () => {
    const r = ok(parse({
      blockAds: false,
      excludeTags: ["nav"],
      formats: ["markdown", "html", "rawHtml", "links", "summary", { type: "json", prompt: "p" }],
      headers: { a: "b" },
      includeTags: ["main"],
      onlyMainContent: false,
      parsers: [{ type: "pdf", mode: "fast", maxPages: 3 }],
      redactPII: { replaceStyle: "remove" },
      removeBase64Images: false,
      skipTlsVerification: false,
      timeout: 300_000,
      zeroDataRetention: true,
      integration: "zapier",
      origin: "js-sdk@4.42.0"
    }))
    expect(r).toMatchObject({
      blockAds: false,
      excludeTags: ["nav"],
      headers: { a: "b" },
      includeTags: ["main"],
      onlyMainContent: false,
      parsers: [{ type: "pdf", mode: "fast", maxPages: 3, pageMarkers: false, pages: false, blocks: false }],
      redactPII: { mode: "accurate", replaceStyle: "remove" },
      removeBase64Images: false,
      skipTlsVerification: false,
      timeout: 300_000,
      zeroDataRetention: true,
      integration: "zapier",
      origin: "js-sdk@4.42.0"
    })
    expect(r.formats).toHaveLength(6)
  })

  it("timeout has the same limits as scrape", () => {
    rejectsAt(parse({ timeout: 999 }), "timeout")
    rejectsAt(parse({ timeout: 300_001 }), "timeout")
  })

  it.each(["actions", "waitFor", "mobile", "location", "maxAge", "minAge", "lockdown", "storeInCache", "threatProtection", "url"])(
    "rejects the scrape-only option %s with a clear message",
    (key) => rejectsAt(parse({ [key]: 1 }), key, /is a \/v2\/scrape option; \/v2\/parse does not accept it/)
  )

  it("rejects formats parse cannot produce and unknown keys", () => {
    for (const f of ["screenshot", "changeTracking", "branding", "audio", "video"]) rejectsAt(parse({ formats: [f] }), "formats.0")
    rejectsAt(parse({ formats: [{ type: "screenshot", fullPage: true }] }), "formats.0")
    rejectsAt(parse({ bogus: true }), "bogus", /Unknown key "bogus"/)
    rejectsAt(parse({ parsers: [{ type: "pdf", x: 1 }] }), "parsers.0.x", /Unknown key/)
    rejectsAt(parse({ proxy: "enhanced" }), "proxy")
    expect(issues(parse({ a: 1, b: 2 }))).toHaveLength(2)
  })
})
