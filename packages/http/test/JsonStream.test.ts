/**
 * Large answers are written piece by piece: the pieces join to exactly `JSON.stringify`'s text
 * (property test, long and astral strings included), and a real server answers a large result
 * as one valid JSON body while /health keeps answering.
 */
import { Effect } from "effect"
import fc from "fast-check"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { jsonPieces, largerThan } from "../src/JsonStream.ts"
import { pipelineDouble, startTestServer, type TestServer } from "./support.ts"

const joined = (value: unknown) => [...jsonPieces(value)].join("")

/** Strings long enough to be sliced, with astral characters that a slice may split. */
const longString = fc.tuple(fc.string({ unit: "grapheme", maxLength: 40 }), fc.integer({ min: 1, max: 3000 }))
  .map(([unit, times]) => unit.repeat(times))

describe("jsonPieces", () => {
  it("joins to exactly JSON.stringify's text", () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        expect(joined(value)).toBe(JSON.stringify(value))
      }),
      { numRuns: 300 }
    )
  })

  it("slices long strings, split surrogate pairs included, to text that parses back to the same string", () => {
    fc.assert(
      fc.property(longString, (text) => {
        const out = joined({ markdown: text, pages: [text] })
        expect(JSON.parse(out)).toEqual({ markdown: text, pages: [text] })
      }),
      { numRuns: 60 }
    )
    const astral = "😀".repeat(40_000) + "x" + "😀".repeat(40_000)
    expect(JSON.parse(joined(astral))).toBe(astral)
  })

  it("follows JSON.stringify on undefined, functions, non-finite numbers and toJSON", () => {
    const value = { a: undefined, b: () => 1, c: [undefined, () => 1, Number.NaN, Infinity], d: new Date(0), e: { toJSON: (key: string) => `key:${key}` } }
    expect(joined(value)).toBe(JSON.stringify(value))
    expect(joined(undefined)).toBe("")
  })

  it("yields pieces of bounded size", () => {
    const value = { markdown: "x".repeat(1_000_000), pages: Array.from({ length: 2000 }, (_, i) => ({ pageNumber: i, markdown: "line ".repeat(100) })) }
    const pieces = [...jsonPieces(value)]
    expect(pieces.length).toBeGreaterThan(10)
    expect(Math.max(...pieces.map((p) => p.length))).toBeLessThan(200 * 1024)
  })
})

describe("largerThan", () => {
  it("counts string lengths and stops early", () => {
    expect(largerThan({ markdown: "x".repeat(100) }, 1000)).toBe(false)
    expect(largerThan({ pages: [{ markdown: "x".repeat(600) }, { markdown: "y".repeat(600) }] }, 1000)).toBe(true)
  })
})

describe("a large answer on the real server", () => {
  const pages = Array.from({ length: 3000 }, (_, i) => ({ pageNumber: i + 1, markdown: `# Page ${i + 1}\n\n${"Lorem ipsum dolor sit amet. ".repeat(80)}` }))
  const data = { markdown: pages.map((p) => p.markdown).join("\n\n"), pages, metadata: { numPages: pages.length } }
  let server: TestServer
  beforeAll(async () => {
    server = await startTestServer(pipelineDouble({ scrape: () => Effect.succeed(data), parse: () => Effect.succeed(data) }), { apiKeys: ["k"] })
  })
  afterAll(() => server.close())

  it("is streamed as one valid JSON body equal to the data", async () => {
    const response = await fetch(`${server.url}/v2/scrape`, {
      method: "POST",
      headers: { authorization: "Bearer k", "content-type": "application/json" },
      body: JSON.stringify({ url: "https://example.com/" })
    })
    expect(response.status).toBe(200)
    expect(response.headers.get("content-type")).toMatch(/^application\/json/)
    expect(response.headers.get("content-length")).toBeNull()
    const body = await response.json()
    expect(body).toEqual({ success: true, data })
  })

  it("small answers keep a Content-Length", async () => {
    const small = await startTestServer(pipelineDouble({ scrape: () => Effect.succeed({ markdown: "hi" }), parse: () => Effect.succeed({}) }), { apiKeys: ["k"] })
    try {
      const response = await fetch(`${small.url}/v2/scrape`, {
        method: "POST",
        headers: { authorization: "Bearer k", "content-type": "application/json" },
        body: JSON.stringify({ url: "https://example.com/" })
      })
      expect(response.headers.get("content-length")).not.toBeNull()
      expect(await response.json()).toEqual({ success: true, data: { markdown: "hi" } })
    } finally {
      await small.close()
    }
  })
})
