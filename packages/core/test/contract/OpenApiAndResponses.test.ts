/** The generated OpenAPI 3.0.0 document and the response/error body Schemas. */
import { Schema } from "effect"
import { describe, expect, it } from "vitest"
import {
  CatalogResponse,
  DocumentMetadata,
  ErrorBody,
  MessageOnlyErrorBody,
  openApiDocument,
  ParseOptionsBody,
  ScrapeRequestBody,
  ScrapeData,
  ScrapeResponse
} from "../../src/contract/index.ts"
import { makeBlock, writeMarkdown } from "../../src/index.ts"

type Json = Record<string, any>

const walk = (node: unknown, visit: (node: Json, path: string) => void, path = "#"): void => {
  if (Array.isArray(node)) node.forEach((n, i) => walk(n, visit, `${path}/${i}`))
  else if (typeof node === "object" && node !== null) {
    visit(node as Json, path)
    for (const [k, v] of Object.entries(node)) walk(v, visit, `${path}/${k}`)
  }
}

const resolvePointer = (doc: Json, ref: string): unknown =>
  ref.slice(2).split("/").reduce<any>((at, key) => (at === undefined ? undefined : at[key.replace(/~1/g, "/").replace(/~0/g, "~")]), doc)

describe("openApiDocument", () => {
  const doc = openApiDocument() as Json

  it("is OpenAPI 3.0.0, version v2, with bearer security", () => {
    expect(doc.openapi).toBe("3.0.0")
    expect(doc.info.version).toBe("v2")
    expect(typeof doc.info.title).toBe("string")
    expect(doc.components.securitySchemes.bearerAuth).toEqual({ type: "http", scheme: "bearer" })
    expect(doc.security).toEqual([{ bearerAuth: [] }])
    expect(doc.paths["/health"].get.security).toEqual([])
  })

  it("describes every path with its request and responses", () => {
    const scrape = doc.paths["/v2/scrape"].post
    expect(scrape.requestBody.content["application/json"].schema).toEqual({ $ref: "#/components/schemas/ScrapeRequest" })
    expect(Object.keys(scrape.responses).sort()).toEqual(["200", "400", "402", "403", "404", "409", "422", "429", "500", "503"])
    expect(scrape.responses["429"].content["application/json"].schema).toEqual({ $ref: "#/components/schemas/MessageOnlyErrorBody" })
    expect(scrape.responses["400"].content["application/json"].schema).toEqual({ $ref: "#/components/schemas/ErrorBody" })
    expect(scrape.parameters[0].name).toBe("x-request-id")

    const parse = doc.paths["/v2/parse"].post
    const multipart = parse.requestBody.content["multipart/form-data"]
    expect(multipart.schema.required).toEqual(["file"])
    expect(multipart.schema.properties.file).toMatchObject({ type: "string", format: "binary" })
    expect(multipart.schema.properties.options).toEqual({ $ref: "#/components/schemas/ParseOptions" })
    expect(multipart.encoding.options.contentType).toBe("application/json")
    expect(Object.keys(parse.responses).sort()).toEqual(["200", "400", "402", "422", "429", "500"])
    expect(parse.responses["402"].content["application/json"].schema).toEqual({ $ref: "#/components/schemas/MessageOnlyErrorBody" })

    expect(doc.paths["/health"].get.responses["200"]).toBeDefined()
  })

  it("every $ref resolves, and only components refs are used", () => {
    let refs = 0
    walk(doc, (node, path) => {
      if (typeof node.$ref !== "string") return
      refs++
      expect(node.$ref, path).toMatch(/^#\/components\/schemas\/[A-Za-z0-9._-]+$/)
      expect(resolvePointer(doc, node.$ref), `${path} -> ${node.$ref}`).toBeDefined()
    })
    expect(refs).toBeGreaterThan(30)
  })

  it("uses only the OpenAPI 3.0 schema dialect", () => {
    const forbidden = ["const", "prefixItems", "$defs", "$schema", "propertyNames", "patternProperties", "examples", "$id"]
    let nodes = 0
    walk(doc.components.schemas, (node, path) => {
      // A `properties` map holds property names, not schema keywords.
      if (path.endsWith("/properties")) return
      nodes++
      for (const key of forbidden) expect(key in node, `${path} has ${key}`).toBe(false)
      expect(Array.isArray(node.type), `type array at ${path}`).toBe(false)
      expect(node.type, path).not.toBe("null")
      if ("items" in node) expect(Array.isArray(node.items), path).toBe(false)
      // 3.0 ignores keys beside $ref, so none may be there.
      if ("$ref" in node) expect(Object.keys(node), path).toEqual(["$ref"])
    })
    expect(nodes).toBeGreaterThan(200)
  })

  it("documents every request key, with limits and defaults", () => {
    const request = doc.components.schemas.ScrapeRequest
    expect(Object.keys(request.properties).sort()).toEqual(Object.keys(ScrapeRequestBody.fields).sort())
    expect(request.additionalProperties).toBe(false)
    expect(request.properties.timeout).toMatchObject({ type: "integer", minimum: 1000, maximum: 300000, default: 60000 })
    expect(request.properties.onlyMainContent.default).toBe(true)
    expect(request.properties.url.format).toBe("uri")
    const parse = doc.components.schemas.ParseOptions
    expect(Object.keys(parse.properties).sort()).toEqual(Object.keys(ParseOptionsBody.fields).sort())
    expect(doc.components.schemas.PdfParser.properties.maxPages).toMatchObject({ minimum: 1, maximum: 10000 })
    expect(doc.components.schemas.BlockItem.properties.label.nullable).toBe(true)
  })

  it("lists only sendable format names in the string enum", () => {
    const strings = doc.components.schemas.FormatOption.anyOf.find((m: Json) => m.type === "string")
    expect(strings.enum).toContain("markdown")
    expect(strings.enum).toContain("changeTracking")
    expect(strings.enum).not.toContain("json")
    expect(strings.enum).not.toContain("question")
    const parseStrings = doc.components.schemas.ParseFormatOption.anyOf.find((m: Json) => m.type === "string")
    expect(parseStrings.enum).not.toContain("screenshot")
    expect(parseStrings.enum).not.toContain("json")
  })

  it("returns a fresh copy each call", () => {
    const a = openApiDocument() as Json
    a.info.version = "changed"
    expect((openApiDocument() as Json).info.version).toBe("v2")
  })
})

describe("response Schemas", () => {
  const decode = <S extends Schema.Top>(schema: S) => (u: unknown) =>
    Schema.decodeUnknownExit(schema as any)(u, { onExcessProperty: "error" })._tag

  it("accept a full scrape response", () => {
    expect(decode(ScrapeResponse)({
      success: true,
      data: {
        markdown: "# T",
        html: null,
        links: [],
        summary: "s",
        answer: "a",
        highlights: "h",
        screenshot: "https://cdn.example/s.png",
        warning: null,
        actions: { javascriptReturns: [{ type: "number", value: 1 }], pdfs: [], scrapes: [{ html: "<p>", url: "https://e.x" }], screenshots: [] },
        pages: [{ pageNumber: 1, markdown: "# T" }],
        blocks: [{ pageNumber: 1, status: "partial", width: null, height: null, items: [] }],
        metadata: { title: "T", language: null, statusCode: 200, numPages: 2, totalPages: 3, concurrencyLimited: true, concurrencyQueueDurationMs: 12.5, "twitter:card": "summary", ogLocaleAlternate: ["de_DE"], keywords: ["a", "b"] },
        changeTracking: { changeStatus: "changed", previousScrapeAt: null, visibility: "visible", diff: "--- a\n+++ b" },
        menu: { isMenu: true, sections: [{ name: "Mains", items: [{ name: "Soup", price: { amount: 4.5, currency: "EUR" } }] }] },
        product: { title: "P", url: "https://shop.example/p", variants: [{ availability: { inStock: true }, sale: { originalPrice: { amount: 10 } } }] },
        branding: { colorScheme: "dark", colors: { primary: "#000" }, fonts: [{ family: "Inter" }], logo: null }
      }
    })).toBe("Success")
  })

  it("reject wrong block shapes and unknown status", () => {
    const block = { id: "p1.b0", type: "novel_type", label: null, content: "", bbox: [0, 0, 1, 1], markdownSpan: null, readingOrder: 0, source: null, confidence: { layout: 0.5, ocr: null } }
    const data = (items: Array<unknown>, status = "ok") => ({ success: true, data: { blocks: [{ pageNumber: 1, status, width: 1, height: 1, items }] } })
    expect(decode(ScrapeResponse)(data([block]))).toBe("Success")
    expect(decode(ScrapeResponse)(data([{ ...block, bbox: [0, 0, 1] }]))).toBe("Failure")
    expect(decode(ScrapeResponse)(data([{ ...block, bbox: [0, 0, 1, 2] }]))).toBe("Failure")
    expect(decode(ScrapeResponse)(data([block], "weird"))).toBe("Failure")
    expect(decode(ScrapeResponse)({ success: true, data: { pages: [{ pageNumber: 0, markdown: "" }] } })).toBe("Failure")
  })

  it("accept the pages and blocks the shared markdown writer produces", () => {
    const out = writeMarkdown([
      { pageNumber: 1, status: "ok", width: 612, height: 792, blocks: [makeBlock("title", "# T"), makeBlock("text", "Body"), makeBlock("page_number", "1")] },
      { pageNumber: 2, status: "ok", width: 612, height: 792, blocks: [makeBlock("table", "| a |\n| - |\n| 1 |")] }
    ], { pageMarkers: true })
    expect(out.blocks.flatMap((p) => p.items)).toHaveLength(4)
    expect(decode(ScrapeData)({ markdown: out.markdown, pages: out.pages, blocks: out.blocks })).toBe("Success")
  })

  it("metadata takes extra string keys but not other shapes", () => {
    expect(decode(DocumentMetadata)({ "og:image": "x", "article:tag": ["a"] })).toBe("Success")
    expect(decode(DocumentMetadata)({ statusCode: "200" })).toBe("Failure")
    expect(decode(DocumentMetadata)({ extra: { nested: 1 } })).toBe("Failure")
  })

  it("error bodies follow the Errors table", () => {
    expect(decode(ErrorBody)({ success: false, error: "bad", code: "BAD_REQUEST", details: [{ path: ["formats", 0], message: "m" }] })).toBe("Success")
    expect(decode(ErrorBody)({
      success: false,
      error: "terms",
      code: "THIRD_PARTY_DATA_TERMS_REQUIRED",
      chargeId: "c1",
      requiresAction: { type: "accept_terms", terms: "prov", version: "1", url: "https://dash.example/terms" }
    })).toBe("Success")
    expect(decode(ErrorBody)({ success: true, error: "x", code: "y" })).toBe("Failure")
    expect(decode(ErrorBody)({ success: false, error: "x" })).toBe("Failure")
    expect(decode(MessageOnlyErrorBody)({ error: "slow down" })).toBe("Success")
    expect(decode(CatalogResponse)({ success: true, scrape_id: "s", data: { catalog: [{ provider: "p", capability: "c", creditsCost: 1, data: {} }], creditsCost: 1 } })).toBe("Success")
    expect(decode(CatalogResponse)({ success: true, data: { catalog: [], creditsCost: 0 } })).toBe("Failure")
  })
})
