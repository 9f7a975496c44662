/**
 * The memo of rendered hits: which requests may reuse a rendering, what its key ignores (timeout,
 * maxAge, minAge, storeInCache) and keeps (formats, the URL as asked, content options), and the
 * byte bound with the least recently used copy going first.
 */
import { Effect } from "effect"
import { describe, expect, it } from "vitest"
import { decodeScrapeRequest, type ScrapeData, type ScrapeRequest } from "../../src/contract/index.ts"
import { makeRenderedCopies, renderedKey, reusable } from "../../src/store/RenderedCopies.ts"

const decode = (body: Record<string, unknown>): ScrapeRequest =>
  Effect.runSync(decodeScrapeRequest({ url: "https://example.com/page", ...body }))

const data = (markdown: string): ScrapeData => ({ markdown, metadata: {} })

describe("RenderedCopies", () => {
  it("reuses only renderings of the page alone, never for zero data retention or redaction", () => {
    expect(reusable(decode({}))).toBe(true)
    expect(reusable(decode({ formats: ["markdown", "html", "links", "rawHtml"] }))).toBe(true)
    expect(reusable(decode({ zeroDataRetention: true }))).toBe(false)
    expect(reusable(decode({ lockdown: true }))).toBe(false)
    expect(reusable(decode({ formats: [{ type: "json", prompt: "x" }] }))).toBe(false)
    expect(reusable(decode({ redactPII: true }))).toBe(false)
  })

  it("keys by the stored page and the content options, not the budget or cache options", () => {
    const key = renderedKey("k@1", decode({}))
    expect(renderedKey("k@1", decode({ timeout: 5000, maxAge: 10, storeInCache: false }))).toBe(key)
    expect(renderedKey("k@2", decode({}))).not.toBe(key)
    expect(renderedKey("k@1", decode({ onlyMainContent: false }))).not.toBe(key)
    expect(renderedKey("k@1", decode({ formats: ["html"] }))).not.toBe(key)
    expect(renderedKey("k@1", decode({ url: "https://example.com/page#top" }))).not.toBe(key)
  })

  it("stays within its bound, least recently used first out", () => {
    // Each copy is about 1 KB + 2 bytes a character: three of 1,000 characters fit in 10 KB.
    const copies = makeRenderedCopies(10_000)
    copies.set("a", data("a".repeat(1000)))
    copies.set("b", data("b".repeat(1000)))
    copies.set("c", data("c".repeat(1000)))
    expect(copies.get("a")?.markdown).toHaveLength(1000)
    copies.set("d", data("d".repeat(1000)))
    expect(copies.get("b")).toBeUndefined()
    expect(copies.get("a")).toBeDefined()
    expect(copies.get("c")).toBeDefined()
    expect(copies.get("d")).toBeDefined()
    // One copy over half the bound is not kept at all.
    copies.set("big", data("x".repeat(3000)))
    expect(copies.get("big")).toBeUndefined()
    expect(copies.get("d")).toBeDefined()
  })
})
