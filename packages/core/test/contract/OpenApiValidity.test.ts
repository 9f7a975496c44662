/**
 * The OpenAPI document checked by independent tools: an OpenAPI 3.0 schema validator for the
 * document itself, and a JSON Schema (draft-04, OpenAPI 3.0's base) validator that checks the
 * published component schemas agree with our decoders on real requests and responses.
 */
import { Validator } from "@seriousme/openapi-schema-validator"
import AjvModule from "ajv-draft-04"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { openApiDocument } from "../../src/contract/index.ts"
import { body, parse } from "./decode.ts"

const doc = openApiDocument() as { components: { schemas: Record<string, unknown> } }

// A CommonJS module: its class is both the module and its `default`.
const Ajv = AjvModule.default
const ajv = new Ajv({ strict: false, allErrors: true, validateFormats: false })
ajv.addVocabulary(["example", "deprecated"])
ajv.addSchema(
  JSON.parse(JSON.stringify({ definitions: doc.components.schemas }).replaceAll("#/components/schemas/", "#/definitions/")),
  "api"
)
const schemaOf = (name: string) => {
  const validate = ajv.getSchema(`api#/definitions/${name}`)
  if (!validate) throw new Error(`no schema ${name}`)
  return (value: unknown) => ({ valid: validate(value) as boolean, errors: JSON.stringify(validate.errors) })
}

describe("OpenAPI document validity", () => {
  it("passes the OpenAPI 3.0 schema", async () => {
    const validator = new Validator()
    const result = await validator.validate(openApiDocument() as never)
    expect(result.errors ?? []).toEqual([])
    expect(result.valid).toBe(true)
    expect(validator.version).toBe("3.0")
  })

  it("the published request schema accepts what the decoder accepts", () => {
    const scrapeRequest = schemaOf("ScrapeRequest")
    const accepted = [
      { url: "https://example.com", origin: "js-sdk@4.42.0" },
      {
        url: "https://example.com",
        formats: ["markdown", { type: "json", prompt: "p" }, { type: "screenshot", fullPage: true }],
        actions: [{ type: "wait", milliseconds: 10 }, { type: "click", selector: "a", all: true }, { type: "pdf", scale: 1.5 }],
        parsers: ["pdf", { type: "pdf", mode: "ocr", maxPages: 3 }],
        location: { country: "FR" },
        redactPII: { mode: "fast" },
        headers: { Cookie: "a=b" }
      },
      { catalog: { provider: "service", capability: "find-tools", options: { limit: 2 } }, timeout: 5000 }
    ]
    for (const request of accepted) {
      expect(body(request).ok).toBe(true)
      const check = scrapeRequest(request)
      expect(check.valid, check.errors).toBe(true)
    }
  })

  it("the published request schema rejects unknown keys and broken limits like the decoder", () => {
    const scrapeRequest = schemaOf("ScrapeRequest")
    const rejected = [
      { url: "https://example.com", bogus: 1 },
      { url: "https://example.com", timeout: 999 },
      { url: "https://example.com", formats: ["markdwn"] },
      { url: "https://example.com", formats: ["json"] },
      { url: "https://example.com", actions: [{ type: "hover" }] },
      { url: "https://example.com", parsers: [{ type: "pdf", maxPages: 0 }] },
      { url: "https://example.com", location: { country: "fr" } },
      { url: "https://example.com", actions: [{ type: "wait", milliseconds: 5, selector: "a" }] },
      { url: "https://example.com", actions: [{ type: "wait" }] },
      { url: "https://example.com", formats: [{ type: "json" }] },
      { url: "https://example.com", formats: [{ type: "question", question: " " }] },
      { catalog: [] }
    ]
    for (const request of rejected) {
      expect(body(request).ok).toBe(false)
      expect(scrapeRequest(request).valid, JSON.stringify(request)).toBe(false)
    }
  })

  it("agrees with decodeParseOptions on generated option objects", () => {
    const parseOptions = schemaOf("ParseOptions")
    const options = fc.record(
      {
        formats: fc.array(fc.constantFrom("markdown", "html", "links", "summary", "screenshot", "json", "bogus")),
        timeout: fc.integer({ min: 0, max: 400_000 }),
        onlyMainContent: fc.boolean(),
        proxy: fc.constantFrom("basic", "auto", "enhanced"),
        parsers: fc.array(fc.oneof(fc.constantFrom("pdf", "image", "docx"), fc.record({ type: fc.constant("pdf"), maxPages: fc.integer({ min: -1, max: 10_001 }) }))),
        redactPII: fc.oneof(fc.boolean(), fc.record({ replaceStyle: fc.constantFrom("tag", "mask", "blur") }))
      },
      { requiredKeys: [] }
    )
    fc.assert(
      fc.property(options, (value) => {
        expect(parseOptions(value).valid, JSON.stringify(value)).toBe(parse(value).ok)
      }),
      { numRuns: 300 }
    )
  })

  it("the published response schema takes a full response and null fields", () => {
    const scrapeResponse = schemaOf("ScrapeResponse")
    const good = {
      success: true,
      data: {
        markdown: null,
        actions: null,
        changeTracking: null,
        metadata: { title: "x", language: null, error: null, statusCode: 200, "og:x": "y", keywords: ["a"] },
        blocks: [{ pageNumber: 1, status: "ok", width: null, height: null, items: [] }]
      }
    }
    const check = scrapeResponse(good)
    expect(check.valid, check.errors).toBe(true)
    expect(scrapeResponse({ success: true, data: { markdown: 5 } }).valid).toBe(false)
    expect(scrapeResponse({ success: true, data: { blocks: [{ pageNumber: 1, status: "ok", width: 1, height: 1, items: [], x: 1 }] } }).valid).toBe(false)
  })
})
