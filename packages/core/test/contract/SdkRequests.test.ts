/**
 * What the official SDK really sends validates: the SDK talks to a real HTTP server on a
 * loopback port that records each request body, and the recorded bodies go through our
 * decoders. The server answers with bodies that our response Schemas accept, so the round
 * trip also shows the SDK reads our response shape.
 */
import { Firecrawl } from "@mendable/firecrawl-js"
import { Schema } from "effect"
import { createServer, type IncomingMessage, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { ScrapeResponse } from "../../src/contract/index.ts"
import { body, ok, parse } from "./decode.ts"

interface Recorded {
  readonly path: string
  readonly contentType: string
  readonly raw: Buffer
}

const recorded: Array<Recorded> = []
let server: Server
let client: Firecrawl

const readAll = async (req: IncomingMessage): Promise<Buffer> => {
  const chunks: Array<Buffer> = []
  for await (const chunk of req) chunks.push(chunk as Buffer)
  return Buffer.concat(chunks)
}

const scrapeReply = Schema.encodeSync(ScrapeResponse)({
  success: true,
  data: {
    markdown: "# Hello",
    links: ["https://example.com/a"],
    metadata: { title: "Hello", sourceURL: "https://example.com", url: "https://example.com/", statusCode: 200, ogLocaleAlternate: [], "og:type": "website" },
    pages: [{ pageNumber: 1, markdown: "# Hello" }],
    blocks: [{
      pageNumber: 1,
      status: "ok",
      width: 612,
      height: 792,
      items: [{
        id: "p1.b0",
        type: "title",
        label: null,
        content: "# Hello",
        bbox: [0.1, 0.1, 0.9, 0.2],
        markdownSpan: [0, 7],
        readingOrder: 0,
        source: "native_text",
        confidence: { layout: null, ocr: null }
      }]
    }]
  }
})

/** The last recorded body of `path`, as the server received it. */
const lastJson = (path: string): unknown => {
  const hit = recorded.filter((r) => r.path === path).at(-1)
  if (!hit) throw new Error(`no request to ${path}`)
  return JSON.parse(hit.raw.toString("utf8"))
}

/** The `options` part of the last multipart /v2/parse request, read with the platform's parser. */
const lastParseOptions = async (): Promise<{ options: unknown; fileName: string | undefined }> => {
  const hit = recorded.filter((r) => r.path === "/v2/parse").at(-1)
  if (!hit) throw new Error("no parse request")
  const form = await new Response(new Uint8Array(hit.raw), { headers: { "content-type": hit.contentType } }).formData()
  const file = form.get("file")
  return { options: form.get("options"), fileName: file instanceof File ? file.name : undefined }
}

beforeAll(async () => {
  server = createServer(async (req, res) => {
    const raw = await readAll(req)
    recorded.push({ path: req.url ?? "", contentType: req.headers["content-type"] ?? "", raw })
    res.setHeader("content-type", "application/json")
    if (req.url === "/v2/scrape" && raw.toString().includes("\"alexandria\"")) {
      res.end(JSON.stringify({ success: true, scrape_id: "s1", data: { alexandria: [], catalog: [], creditsCost: 0 } }))
    } else {
      res.end(JSON.stringify(scrapeReply))
    }
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const { port } = server.address() as AddressInfo
  client = new Firecrawl({ apiKey: "fc-test", apiUrl: `http://127.0.0.1:${port}`, maxRetries: 1 })
})

afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()))
})

describe("requests built by the official SDK", () => {
  it("a bare scrape(url) validates and keeps the SDK's origin", async () => {
    const doc = await client.scrape("https://example.com")
    expect(doc.markdown).toBe("# Hello")
    expect(doc.blocks?.[0].items[0].id).toBe("p1.b0")
    const sent = lastJson("/v2/scrape") as Record<string, unknown>
    expect(String(sent.origin)).toMatch(/^js-sdk@/)
    const r = ok(body(sent))
    expect(r).toMatchObject({ kind: "url", url: "https://example.com", formats: [{ type: "markdown" }] })
  })

  it("a scrape with every option the SDK types allow validates", async () => {
    await client.scrape("https://example.com/docs", {
      formats: [
        "markdown",
        "html",
        "rawHtml",
        "links",
        "images",
        "screenshot",
        "summary",
        "changeTracking",
        "branding",
        "product",
        "menu",
        "audio",
        "video",
        { type: "json", prompt: "extract", schema: { type: "object", properties: { title: { type: "string" } } } },
        { type: "screenshot", fullPage: true, quality: 50, viewport: { width: 1024, height: 768 } },
        { type: "changeTracking", modes: ["git-diff", "json"], schema: { type: "object" }, prompt: "p", tag: "t" },
        { type: "attributes", selectors: [{ selector: "a", attribute: "href" }] },
        { type: "question", question: "What is it?" },
        { type: "highlights", query: "pricing" },
        { type: "query", prompt: "p", mode: "directQuote" }
      ],
      headers: { "User-Agent": "test" },
      includeTags: ["main"],
      excludeTags: ["nav"],
      onlyMainContent: false,
      timeout: 30_000,
      waitFor: 1000,
      mobile: true,
      parsers: ["pdf", { type: "pdf", mode: "ocr", maxPages: 5, pages: true, blocks: true, pageMarkers: true, pageMarkdown: true }, { type: "image" }],
      actions: [
        { type: "wait", milliseconds: 500 },
        { type: "wait", selector: "#x" },
        { type: "screenshot", fullPage: true, quality: 80, viewport: { width: 800, height: 600 } },
        { type: "click", selector: "button" },
        { type: "write", text: "hi" },
        { type: "press", key: "Enter" },
        { type: "scroll", direction: "down", selector: ".list" },
        { type: "scrape" },
        { type: "executeJavascript", script: "return document.title" },
        { type: "pdf", format: "A4", landscape: false, scale: 1 }
      ],
      location: { country: "DE", languages: ["de-DE", "en"] },
      skipTlsVerification: false,
      removeBase64Images: false,
      fastMode: true,
      blockAds: false,
      proxy: "stealth",
      maxAge: 0,
      minAge: 1,
      storeInCache: false,
      lockdown: false,
      redactPII: { mode: "aggressive", entities: ["PERSON", "EMAIL"], replaceStyle: "mask" },
      threatProtection: { mode: "manual-only", riskScoreThreshold: 70, blacklist: ["*.bad.test"], whitelist: ["ok.test"], blockedTlds: ["zip"], failurePolicy: "open" },
      auditMetadata: { username: "alice" },
      profile: { name: "session-1", saveChanges: false },
      integration: "test-suite",
      domainTools: true,
      toolDetail: "compact"
    })
    const r = ok(body(lastJson("/v2/scrape")))
    if (r.kind !== "url") throw new Error("expected a URL scrape")
    expect(r.formats).toHaveLength(20)
    expect(r.actions).toHaveLength(10)
    expect(r.parsers).toHaveLength(3)
    expect(r).toMatchObject({ proxy: "enhanced", domainTools: true, toolDetail: "compact", integration: "test-suite" })
  })

  it("a catalog call (SDK key `alexandria`) and findTools validate", async () => {
    await client.scrape({ alexandria: [{ provider: "service", capability: "find-tools", options: { level: "tools", limit: 5 } }], timeout: 20_000 })
    expect(ok(body(lastJson("/v2/scrape")))).toMatchObject({
      kind: "catalog",
      calls: [{ provider: "service", capability: "find-tools", options: { level: "tools", limit: 5 } }],
      timeout: 20_000
    })
    const before = recorded.length
    // Our stub answers with an empty page the SDK may reject; only the request matters here.
    await client.findTools({ level: "tools", expand: ["options", "response"], limit: 3, providers: ["x"] }).catch(() => undefined)
    expect(recorded.length).toBe(before + 1)
    expect(ok(body(lastJson("/v2/scrape")))).toMatchObject({
      kind: "catalog",
      // The SDK names the discovery provider by the service's real name.
      calls: [{ capability: "find-tools", options: { level: "tools", expand: ["options", "response"], limit: 3, providers: ["x"] } }]
    })
  })

  it("parse(file) without options validates (the SDK adds origin)", async () => {
    const doc = await client.parse({ data: Buffer.from("<h1>Hi</h1>"), filename: "page.html", contentType: "text/html" })
    expect(doc.markdown).toBe("# Hello")
    const { options, fileName } = await lastParseOptions()
    expect(fileName).toBe("page.html")
    expect(typeof options).toBe("string")
    const r = ok(parse(options))
    expect(r.origin).toMatch(/^js-sdk@/)
    expect(r.formats).toEqual([{ type: "markdown" }])
  })

  it("parse(file, options) with every ParseOptions key validates", async () => {
    await client.parse({ data: new Uint8Array([37, 80, 68, 70]), filename: "doc.pdf", contentType: "application/pdf" }, {
      formats: ["markdown", "html", "rawHtml", "links", "images", "summary", "product", "menu", { type: "json", prompt: "p" }, { type: "question", question: "q?" }, { type: "highlights", query: "q" }, { type: "attributes", selectors: [] }],
      headers: { a: "b" },
      includeTags: ["main"],
      excludeTags: ["nav"],
      onlyMainContent: true,
      timeout: 120_000,
      parsers: [{ type: "pdf", mode: "fast", maxPages: 2, pages: true }],
      skipTlsVerification: true,
      removeBase64Images: true,
      fastMode: false,
      blockAds: true,
      proxy: "basic",
      redactPII: true,
      auditMetadata: { username: "bob" },
      integration: "x",
      domainTools: false
    })
    const r = ok(parse((await lastParseOptions()).options))
    expect(r.formats).toHaveLength(12)
    expect(r).toMatchObject({ timeout: 120_000, proxy: "basic", redactPII: { mode: "accurate", replaceStyle: "tag" } })
  })
})
