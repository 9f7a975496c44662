/**
 * Property tests of the validators: generated valid requests decode with their values kept,
 * and arbitrary junk never throws or dies: it always ends in a typed InvalidRequest that
 * lists its issues.
 */
import { Cause, Effect, Exit } from "effect"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { decodeParseOptions, decodeScrapeBody, SimpleFormatTypes } from "../../src/contract/index.ts"
import { ok, scrape } from "./decode.ts"

const action = fc.oneof(
  fc.record({ type: fc.constant("wait"), milliseconds: fc.integer({ min: 1, max: 9_000 }) }), // 6 waits of at most 9 s stay within the 60 s total
  fc.record({ type: fc.constant("wait"), selector: fc.string() }),
  fc.record(
    {
      type: fc.constant("screenshot"),
      fullPage: fc.boolean(),
      quality: fc.integer({ min: 1, max: 100 }),
      viewport: fc.record({ width: fc.integer({ min: 1, max: 4000 }), height: fc.integer({ min: 1, max: 4000 }) })
    },
    { requiredKeys: ["type"] }
  ),
  fc.record({ type: fc.constant("click"), selector: fc.string(), all: fc.boolean() }, { requiredKeys: ["type", "selector"] }),
  fc.record({ type: fc.constant("write"), text: fc.string() }),
  fc.record({ type: fc.constant("press"), key: fc.string() }),
  fc.record({ type: fc.constant("scroll"), direction: fc.constantFrom("up", "down"), selector: fc.string() }, { requiredKeys: ["type"] }),
  fc.constant({ type: "scrape" }),
  fc.record({ type: fc.constant("executeJavascript"), script: fc.string() }),
  fc.record(
    {
      type: fc.constant("pdf"),
      format: fc.constantFrom("A0", "A4", "Letter", "Legal", "Tabloid", "Ledger"),
      landscape: fc.boolean(),
      scale: fc.double({ min: 0.1, max: 2, noNaN: true })
    },
    { requiredKeys: ["type"] }
  )
)

const format = fc.oneof(
  fc.constantFrom(...SimpleFormatTypes, "screenshot", "changeTracking"),
  fc.constantFrom(...SimpleFormatTypes).map((type) => ({ type })),
  fc.record({ type: fc.constant("json"), prompt: fc.string() }),
  fc.record({ type: fc.constant("question"), question: fc.string().filter((s) => s.trim() !== "") }),
  fc.record({ type: fc.constant("changeTracking"), modes: fc.subarray(["git-diff", "json"]) })
)

const parser = fc.oneof(
  fc.constantFrom("pdf", "image"),
  fc.record(
    {
      type: fc.constant("pdf"),
      maxPages: fc.integer({ min: 1, max: 10_000 }),
      mode: fc.constantFrom("fast", "auto", "ocr"),
      pageMarkers: fc.boolean(),
      pages: fc.boolean(),
      blocks: fc.boolean()
    },
    { requiredKeys: ["type"] }
  )
)

const validRequest = fc.record(
  {
    url: fc.webUrl({ validSchemes: ["http", "https"] }),
    // changeTracking requires markdown beside it (a cross-field rule, tested in ActionsFormatsParsers.test.ts).
    formats: fc.array(format, { maxLength: 6 }).map((formats) =>
      formats.some((f) => (typeof f === "string" ? f : f.type) === "changeTracking") ? ["markdown", ...formats] : formats
    ),
    actions: fc.array(action, { maxLength: 6 }),
    parsers: fc.array(parser, { maxLength: 3 }),
    timeout: fc.integer({ min: 1000, max: 300_000 }),
    onlyMainContent: fc.boolean(),
    mobile: fc.boolean(),
    maxAge: fc.nat(),
    headers: fc.dictionary(fc.stringMatching(/^[A-Za-z0-9-]{1,20}$/), fc.string().filter((v) => !/[\r\n\0]/.test(v))),
    location: fc.record({ country: fc.stringMatching(/^[A-Z]{2}$/), languages: fc.array(fc.string()) }, { requiredKeys: [] }),
    proxy: fc.constantFrom("basic", "enhanced", "auto"),
    origin: fc.string(),
    redactPII: fc.oneof(fc.boolean(), fc.record({ mode: fc.constantFrom("accurate", "aggressive", "fast") }, { requiredKeys: [] }))
  },
  { requiredKeys: ["url"] }
)

/** Junk: known keys with arbitrary values, unknown keys, and non-objects. */
const knownKeys = ["url", "formats", "actions", "parsers", "timeout", "waitFor", "location", "catalog", "alexandria", "redactPII", "headers", "profile"]
const junk = fc.oneof(
  fc.anything(),
  fc.dictionary(fc.constantFrom(...knownKeys), fc.anything()),
  fc.dictionary(fc.oneof(fc.constantFrom(...knownKeys), fc.string()), fc.jsonValue()),
  fc.record({ url: fc.constant("https://example.com"), formats: fc.array(fc.jsonValue()), actions: fc.array(fc.jsonValue()) })
)

/** The decoder's outcome; a thrown exception or a defect fails the property. */
const outcome = <A>(effect: Effect.Effect<A, unknown>) => {
  const exit = Effect.runSyncExit(effect)
  if (Exit.isFailure(exit) && !Cause.hasFails(exit.cause)) throw new Error(`defect: ${Cause.pretty(exit.cause)}`)
  return exit
}

const expectTypedInvalidRequest = (exit: Exit.Exit<unknown, unknown>) => {
  if (Exit.isSuccess(exit)) return
  const error = Cause.squash(exit.cause) as { _tag?: string; reason?: { _tag: string; details: Array<{ path: Array<unknown>; message: string }> } }
  expect(error._tag).toBe("ScrapeError")
  expect(error.reason?._tag).toBe("InvalidRequest")
  expect(error.reason?.details.length).toBeGreaterThan(0)
  for (const d of error.reason?.details ?? []) {
    expect(Array.isArray(d.path)).toBe(true)
    expect(typeof d.message).toBe("string")
    expect(d.message.length).toBeGreaterThan(0)
  }
}

describe("validator properties", () => {
  it("generated valid scrape requests decode and keep their values", () => {
    fc.assert(
      fc.property(validRequest, (input) => {
        const r = ok(scrape(input))
        expect(r.kind).toBe("url")
        expect(r.timeout).toBe(input.timeout ?? 60_000)
        expect(r.formats).toHaveLength(input.formats?.length ?? 1)
        expect(r.actions?.length).toBe(input.actions?.length)
        expect(r.parsers).toHaveLength(input.parsers?.length ?? 1)
        for (const f of r.formats) expect(typeof f).toBe("object")
        expect(r.url.startsWith("http")).toBe(true)
      }),
      { numRuns: 300 }
    )
  })

  it("junk scrape bodies never throw: success or a typed InvalidRequest", () => {
    fc.assert(fc.property(junk, (input) => expectTypedInvalidRequest(outcome(decodeScrapeBody(input)))), { numRuns: 1000 })
  })

  it("junk parse options never throw: success or a typed InvalidRequest", () => {
    const parseJunk = fc.oneof(junk, fc.string(), fc.jsonValue().map((v) => JSON.stringify(v)))
    fc.assert(fc.property(parseJunk, (input) => expectTypedInvalidRequest(outcome(decodeParseOptions(input)))), { numRuns: 1000 })
  })

  it("decoding is deterministic", () => {
    fc.assert(
      fc.property(fc.oneof(validRequest, junk), (input) => {
        const a = Effect.runSyncExit(decodeScrapeBody(input))
        const b = Effect.runSyncExit(decodeScrapeBody(input))
        expect(JSON.stringify(a)).toBe(JSON.stringify(b))
      }),
      { numRuns: 200 }
    )
  })
})
