/**
 * What a request costs (Billing.ts), on requests decoded as the server decodes them, against the
 * costs the notes record for Firecrawl (section 8.1) and the contract's PDF and lockdown rules.
 */
import { decodeScrapeRequest, type ScrapeData } from "@strata/core"
import { Effect } from "effect"
import { describe, expect, it } from "vitest"
import { costOf, failureCost, interactCost, interactLeast, minimumCost } from "../src/Billing.ts"

const decode = (body: Record<string, unknown>) => Effect.runSync(decodeScrapeRequest({ url: "https://example.com", ...body }))
const page: ScrapeData = { markdown: "# ok", metadata: { creditsUsed: 1 } }
const pdf = (pages: number): ScrapeData => ({ markdown: "# ok", metadata: { numPages: pages, creditsUsed: pages } })

describe("costOf", () => {
  it("charges a page 1 and a PDF 1 per page, as the pipeline reports it", () => {
    expect(costOf(decode({}), page, false)).toBe(1)
    expect(costOf(decode({}), pdf(7), false)).toBe(7)
    // parsers: [] returns the PDF as Base64: the pipeline reports 1 for it.
    expect(costOf(decode({ parsers: [] }), { metadata: { creditsUsed: 1 } }, false)).toBe(1)
    // No figure from the pipeline: the base.
    expect(costOf(decode({}), { markdown: "x" }, false)).toBe(1)
  })

  it("adds what the options cost", () => {
    expect(costOf(decode({ formats: [{ type: "json", prompt: "p" }] }), page, false)).toBe(5)
    expect(costOf(decode({ formats: [{ type: "json", prompt: "p" }] }), pdf(3), false)).toBe(7)
    expect(costOf(decode({ formats: ["markdown", { type: "changeTracking", modes: ["json"] }] }), page, false)).toBe(5)
    expect(costOf(decode({ formats: ["markdown", { type: "changeTracking", modes: ["git-diff"] }] }), page, false)).toBe(1)
    expect(costOf(decode({ formats: [{ type: "question", question: "q" }, { type: "highlights", query: "q" }] }), page, false)).toBe(9)
    expect(costOf(decode({ formats: ["summary", "branding", "screenshot", "links"] }), page, false)).toBe(1)
    expect(costOf(decode({ redactPII: true }), pdf(3), false)).toBe(3 + 4 + 8)
  })

  it("adds 1 for zero data retention, asked for or the team's, but not under lockdown, which costs 5 on a hit", () => {
    expect(costOf(decode({ zeroDataRetention: true }), page, false)).toBe(2)
    expect(costOf(decode({}), page, true)).toBe(2)
    expect(costOf(decode({ lockdown: true }), page, false)).toBe(5)
    expect(costOf(decode({ lockdown: true, zeroDataRetention: true }), page, true)).toBe(5)
  })
})

describe("minimumCost and failureCost", () => {
  it("knows the least a request costs before it runs", () => {
    expect(minimumCost(decode({}), false)).toBe(1)
    expect(minimumCost(decode({ formats: [{ type: "json", prompt: "p" }] }), true)).toBe(6)
    // A lockdown request may be a miss, which costs 1.
    expect(minimumCost(decode({ lockdown: true, formats: [{ type: "json", prompt: "p" }] }), false)).toBe(1)
  })

  it("charges a failure nothing, except a lockdown miss 1", () => {
    expect(failureCost("SCRAPE_SITE_ERROR")).toBe(0)
    expect(failureCost("SCRAPE_TIMEOUT")).toBe(0)
    expect(failureCost("SCRAPE_LOCKDOWN_CACHE_MISS")).toBe(1)
  })
})

describe("interactCost", () => {
  it("charges 2 credits per started minute of the call, at least one minute, at most its time limit's worth", () => {
    expect(interactCost(0, 30_000)).toBe(2)
    expect(interactCost(59_999, 300_000)).toBe(2)
    expect(interactCost(60_001, 300_000)).toBe(4)
    expect(interactCost(299_000, 300_000)).toBe(10)
    // Opening the session can take the call past its limit: the limit caps the price.
    expect(interactCost(95_000, 30_000)).toBe(2)
    expect(interactLeast(30_000)).toBe(2)
    expect(interactLeast(300_000)).toBe(10)
  })
})
