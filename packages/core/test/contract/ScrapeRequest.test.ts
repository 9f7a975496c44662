/** /v2/scrape body validation: defaults, every limit's edges, unknown keys, URL rules, cross-field rules. */
import { describe, expect, it } from "vitest"
import { hasFormat, imageParser, LOCKDOWN_MAX_AGE_MS, pdfParser } from "../../src/contract/index.ts"
import { issues, ok, rejectsAt, scrape, URL_, withUrl } from "./decode.ts"

describe("decodeScrapeRequest defaults", () => {
  it("applies every default of the contract", () => {
    const r = ok(scrape({ url: URL_ }))
    expect(r).toEqual({
      kind: "url",
      url: URL_,
      formats: [{ type: "markdown" }],
      onlyMainContent: true,
      parsers: [{ type: "pdf", mode: "auto", pageMarkers: false, pages: false, blocks: false }],
      removeBase64Images: true,
      skipTlsVerification: true,
      blockAds: true,
      timeout: 60_000,
      zeroDataRetention: false,
      domainTools: false,
      lockdown: false,
      maxAge: 172_800_000,
      mobile: false,
      onlyCleanContent: false,
      proxy: "auto",
      storeInCache: true,
      waitFor: 0,
      toolDetail: "summary"
    })
    expect(hasFormat(r, "markdown")).toBe(true)
    expect(hasFormat(r, "html")).toBe(false)
    expect(pdfParser(r)?.mode).toBe("auto")
    expect(imageParser(r)).toBeUndefined()
  })

  it("keeps explicit values over defaults", () => {
    const explicit = {
      onlyMainContent: false,
      removeBase64Images: false,
      skipTlsVerification: false,
      blockAds: false,
      timeout: 1000,
      mobile: true,
      proxy: "basic",
      waitFor: 500,
      maxAge: 0,
      minAge: 1,
      storeInCache: false,
      includeTags: ["article"],
      excludeTags: [".ad"],
      toolDetail: "full"
    }
    expect(ok(scrape(withUrl(explicit)))).toMatchObject(explicit)
  })

  it("lockdown makes maxAge default to 2 years and implies zero data retention", () => {
    const r = ok(scrape(withUrl({ lockdown: true })))
    expect(r.maxAge).toBe(LOCKDOWN_MAX_AGE_MS)
    expect(LOCKDOWN_MAX_AGE_MS).toBe(63_072_000_000)
    expect(r.zeroDataRetention).toBe(true)
    expect(r.storeInCache).toBe(false)
    expect(ok(scrape(withUrl({ lockdown: true, maxAge: 5 }))).maxAge).toBe(5)
  })

  it("sensitive parameters force storeInCache off", () => {
    expect(ok(scrape(withUrl({ headers: { cookie: "a=b" } }))).storeInCache).toBe(false)
    expect(ok(scrape(withUrl({ actions: [{ type: "scrape" }] }))).storeInCache).toBe(false)
    expect(ok(scrape(withUrl({ zeroDataRetention: true }))).storeInCache).toBe(false)
  })

  it("normalises location, profile, redactPII and proxy", () => {
    const r = ok(scrape(withUrl({
      location: { languages: ["de-DE"] },
      profile: { name: "p" },
      redactPII: true,
      proxy: "stealth"
    })))
    expect(r.location).toEqual({ country: "US", languages: ["de-DE"] })
    expect(r.profile).toEqual({ name: "p", saveChanges: true })
    expect(r.redactPII).toEqual({ mode: "accurate", replaceStyle: "tag" })
    expect(r.proxy).toBe("enhanced")
    expect(ok(scrape(withUrl({ redactPII: false }))).redactPII).toBeUndefined()
    expect(ok(scrape(withUrl({ redactPII: { mode: "fast", entities: ["EMAIL"], replaceStyle: "mask" } }))).redactPII)
      .toEqual({ mode: "fast", entities: ["EMAIL"], replaceStyle: "mask" })
  })
})

describe("decodeScrapeRequest url", () => {
  it("requires url (or catalog)", () => rejectsAt(scrape({}), "url", /Missing required key "url"/))

  it("accepts http and https as written, reads a bare host as http", () => {
    expect(ok(scrape({ url: "http://a.example/x?y=1" })).url).toBe("http://a.example/x?y=1")
    expect(ok(scrape({ url: "HTTPS://Example.com" })).url).toBe("HTTPS://Example.com")
    expect(ok(scrape({ url: "example.com/path" })).url).toBe("http://example.com/path")
    expect(ok(scrape({ url: "  https://example.com  " })).url).toBe("https://example.com")
    expect(ok(scrape({ url: "localhost:8080/a" })).url).toBe("http://localhost:8080/a")
    expect(ok(scrape({ url: "[::1]:8080" })).url).toBe("http://[::1]:8080")
  })

  it.each(["ftp://example.com/a", "javascript:alert(1)", "file:///etc/passwd", "", "http://", "data:text/html,hi"])(
    "rejects %j",
    (url) => rejectsAt(scrape({ url }), "url", /http or https URL/)
  )

  it.each(["not-a-valid-url", "http://example", "https://intranet:8080/a", "http://example.c/a", "http://a_b/"])(
    "rejects %j: no top-level domain, as Firecrawl does",
    (url) => rejectsAt(scrape({ url }), "url", /valid top-level domain/)
  )

  it("accepts IP literals, localhost and a trailing dot without a top-level domain", () => {
    for (const url of ["http://127.0.0.1:8080/", "http://127.1/", "http://[::1]/", "http://localhost/", "http://app.localhost:3000/", "https://example.com./", "http://xn--e1afmkfd.xn--p1ai/", "http://пример.рф/"]) {
      expect(ok(scrape({ url })).url).toBe(url)
    }
  })

  it("rejects non-string url and non-object bodies", () => {
    rejectsAt(scrape({ url: 42 }), "url")
    for (const junk of [null, 1, "https://example.com", [], true]) expect(issues(scrape(junk))[0].path).toBe("")
  })
})

describe("decodeScrapeRequest limits", () => {
  const edges: Array<[string, unknown, boolean]> = [
    ["timeout", 999, false],
    ["timeout", 1000, true],
    ["timeout", 300_000, true],
    ["timeout", 300_001, false],
    ["timeout", 1500.5, false],
    ["timeout", "60000", false],
    ["waitFor", -1, false],
    ["waitFor", 0, true],
    ["maxAge", -1, false],
    ["maxAge", 0, true],
    ["minAge", -1, false],
    ["minAge", 1, true]
  ]
  it.each(edges)("%s = %j valid: %s", (key, value, valid) => {
    const outcome = scrape(withUrl({ [key]: value }))
    if (valid) ok(outcome)
    else rejectsAt(outcome, key)
  })

  it("waitFor may be at most half of timeout", () => {
    rejectsAt(scrape(withUrl({ timeout: 5000, waitFor: 2501 })), "waitFor", /half of timeout/)
    rejectsAt(scrape(withUrl({ waitFor: 30_001 })), "waitFor", /half of timeout/)
    ok(scrape(withUrl({ timeout: 5000, waitFor: 2500 })))
  })

  it("allows at most 50 actions and 60 s of waiting in all", () => {
    const click = { type: "click", selector: "a" }
    ok(scrape(withUrl({ actions: Array(50).fill(click) })))
    rejectsAt(scrape(withUrl({ actions: Array(51).fill(click) })), "actions", /at most 50 actions/)
    ok(scrape(withUrl({ timeout: 120_000, waitFor: 20_000, actions: [{ type: "wait", milliseconds: 39_000 }, { type: "wait", selector: "#x" }] })))
    rejectsAt(
      scrape(withUrl({ timeout: 120_000, waitFor: 20_000, actions: [{ type: "wait", milliseconds: 39_000 }, { type: "wait", selector: "#x" }, { type: "wait", selector: "#y" }] })),
      "actions",
      /total wait/
    )
  })

  it("location.country is two upper-case letters", () => {
    ok(scrape(withUrl({ location: { country: "DE" } })))
    for (const country of ["de", "DEU", "D", "1A"]) rejectsAt(scrape(withUrl({ location: { country } })), "location.country")
  })

  it("profile.name is 1 to 128 characters", () => {
    ok(scrape(withUrl({ profile: { name: "a".repeat(128), saveChanges: false } })))
    rejectsAt(scrape(withUrl({ profile: { name: "" } })), "profile.name")
    rejectsAt(scrape(withUrl({ profile: { name: "a".repeat(129) } })), "profile.name")
    rejectsAt(scrape(withUrl({ profile: {} })), "profile.name", /Missing required key/)
  })

  it("auditMetadata.username is at most 1024 characters and required", () => {
    ok(scrape(withUrl({ auditMetadata: { username: "u".repeat(1024) } })))
    rejectsAt(scrape(withUrl({ auditMetadata: { username: "u".repeat(1025) } })), "auditMetadata.username")
    rejectsAt(scrape(withUrl({ auditMetadata: {} })), "auditMetadata.username")
  })

  it("proxy is basic, enhanced, auto (or the SDK's stealth)", () => {
    for (const proxy of ["basic", "enhanced", "auto", "stealth"]) ok(scrape(withUrl({ proxy })))
    rejectsAt(scrape(withUrl({ proxy: "residential" })), "proxy")
  })

  it("redactPII is a boolean or its options object", () => {
    rejectsAt(scrape(withUrl({ redactPII: "yes" })), "redactPII")
    rejectsAt(scrape(withUrl({ redactPII: { mode: "loose" } })), "redactPII.mode")
    rejectsAt(scrape(withUrl({ redactPII: { entities: ["SSN"] } })), "redactPII.entities.0")
  })

  it("threatProtection takes the SDK's override fields with their bounds", () => {
    ok(scrape(withUrl({
      threatProtection: { mode: "normal", riskScoreThreshold: 100, blacklist: ["*.bad.test"], whitelist: [], blockedTlds: ["zip"], failurePolicy: "closed" }
    })))
    rejectsAt(scrape(withUrl({ threatProtection: { riskScoreThreshold: 101 } })), "threatProtection.riskScoreThreshold")
    rejectsAt(scrape(withUrl({ threatProtection: { blockedTlds: Array(1001).fill("x") } })), "threatProtection.blockedTlds")
    rejectsAt(scrape(withUrl({ threatProtection: { mode: "max" } })), "threatProtection.mode")
  })

  it("headers are a string map of valid names and single-line values", () => {
    ok(scrape(withUrl({ headers: { "User-Agent": "x", Cookie: "a=b; c=d", "x-empty": "" } })))
    rejectsAt(scrape(withUrl({ headers: { "X-N": 1 } })), "headers.X-N")
    rejectsAt(scrape(withUrl({ headers: { "Bad Name": "x" } })), "headers.Bad Name", /header name/)
    rejectsAt(scrape(withUrl({ headers: { "X-A": "a\r\nX-Injected: 1" } })), "headers.X-A", /CR, LF/)
  })

  it("onlyCleanContent is not supported with zero data retention", () => {
    ok(scrape(withUrl({ onlyCleanContent: true })))
    rejectsAt(scrape(withUrl({ onlyCleanContent: true, zeroDataRetention: true })), "onlyCleanContent", /zero data retention/)
  })
})

describe("decodeScrapeRequest unknown keys", () => {
  const cases: Array<[string, Record<string, unknown>]> = [
    ["bogus", { bogus: 1 }],
    ["location.city", { location: { country: "US", city: "x" } }],
    ["profile.ttl", { profile: { name: "p", ttl: 1 } }],
    ["auditMetadata.role", { auditMetadata: { username: "u", role: "x" } }],
    ["redactPII.level", { redactPII: { level: 1 } }],
    ["threatProtection.extra", { threatProtection: { extra: true } }],
    ["parsers.0.ocrEngine", { parsers: [{ type: "pdf", ocrEngine: "x" }] }],
    ["parsers.0.mode", { parsers: [{ type: "image", mode: "ocr" }] }],
    ["actions.0.delay", { actions: [{ type: "click", selector: "a", delay: 3 }] }],
    ["actions.0.viewport.depth", { actions: [{ type: "screenshot", viewport: { width: 1, height: 1, depth: 1 } }] }],
    ["formats.0.fullpage", { formats: [{ type: "screenshot", fullpage: true }] }],
    ["formats.0.extra", { formats: [{ type: "markdown", extra: 1 }] }],
    ["formats.0.selectors.0.all", { formats: [{ type: "attributes", selectors: [{ selector: "a", attribute: "href", all: 1 }] }] }]
  ]
  it.each(cases)("rejects %s", (path, extra) => rejectsAt(scrape(withUrl(extra)), path, /Unknown key|Missing|Expected/))

  it("treats __proto__ and constructor from JSON as plain unknown keys", () => {
    const parsed = JSON.parse('{"url":"https://a.example","__proto__":{"formats":["html"]},"constructor":1}')
    const found = issues(scrape(parsed))
    expect(found.map((i) => i.path).sort()).toEqual(["__proto__", "constructor"])
    expect(({} as Record<string, unknown>).formats).toBeUndefined()
  })

  it("names the unknown key and lists every issue", () => {
    const found = issues(scrape(withUrl({ foo: 1, bar: 2, timeout: 1 })))
    expect(found).toEqual(expect.arrayContaining([
      { path: "foo", message: "Unknown key \"foo\" is not allowed here" },
      { path: "bar", message: "Unknown key \"bar\" is not allowed here" },
      expect.objectContaining({ path: "timeout" })
    ]))
    const outcome = scrape(withUrl({ foo: 1 }))
    if (outcome.ok) throw new Error("expected failure")
    expect(outcome.error.message).toBe("Invalid scrape request: foo: Unknown key \"foo\" is not allowed here")
  })
})
