/**
 * The adapter's own behaviour on a real server: routes, request ids, body handling, the error
 * table and log lines. The pipeline here is a scripted double that fails with whichever
 * ScrapeError reason the request names, so every mapping is checked on the wire; the real
 * pipeline is exercised in EndToEnd.test.ts.
 */
import {
  chargeIdFor,
  defaultTeamId,
  DocumentUnreadable,
  FetchFailed,
  InvalidRequest,
  NotSupported,
  scrapeError,
  StageFailed,
  TimedOut,
  UnsupportedFileType,
  UrlBlocked
} from "@strata/core"
import { Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { pipelineDouble, startTestServer, type TestServer } from "./support.ts"

const KEY = "test-key-1"

const reasons = {
  InvalidRequest: () => new InvalidRequest({ message: "Bad Request", details: [{ path: ["formats", 0], message: "unknown format" }] }),
  NotSupported: () => new NotSupported({ option: "actions", message: "actions are not supported by this server" }),
  UrlBlocked: () => new UrlBlocked({ url: "http://10.0.0.1/", message: "Refusing to fetch a private address" }),
  FetchDns: () => new FetchFailed({ kind: "dns", url: "https://nope.invalid/", message: "DNS resolution failed for nope.invalid" }),
  FetchTls: () => new FetchFailed({ kind: "tls", url: "https://self-signed/", message: "certificate rejected" }),
  FetchConnection: () => new FetchFailed({ kind: "connection", url: "https://down/", message: "connection refused" }),
  TimedOut: () => new TimedOut({ message: "timed out after 1000 ms" }),
  UnsupportedFileType: () => new UnsupportedFileType({ message: "zip archives are not supported" }),
  Encrypted: () => new DocumentUnreadable({ kind: "encrypted", message: "the PDF is encrypted" }),
  MissingComponent: () => new DocumentUnreadable({ kind: "missing_component", message: "LibreOffice is not installed" }),
  TooComplex: () => new DocumentUnreadable({ kind: "limit", message: "docx: the document nests elements too deeply to read" }),
  StageFailed: () => new StageFailed({ stage: "Redaction", message: "the detector failed" })
} as const

let interruptedScrapes = 0

/**
 * Fails with the reason named in `origin` (a free-form option the contract passes through),
 * throws for `defect`, hangs for `slow`, else echoes. The route validates requests before the
 * pipeline sees them, so the scenario has to travel in a valid option.
 */
const scripted = pipelineDouble({
  scrape: (request) => {
    const simulate = request.origin
    if (simulate === "slow") {
      return Effect.as(Effect.sleep("10 seconds"), {}).pipe(Effect.onInterrupt(() => Effect.sync(() => interruptedScrapes++)))
    }
    if (simulate === "defect") return Effect.die(new Error("secret internal detail at /srv/app.ts:42"))
    if (simulate !== undefined) return Effect.fail(scrapeError(reasons[simulate as keyof typeof reasons]()))
    return Effect.succeed({ markdown: "# ok", metadata: { sourceURL: request.url, statusCode: 200 } })
  },
  parse: (file, options) => {
    const simulate = options.origin
    if (simulate !== undefined) return Effect.fail(scrapeError(reasons[simulate as keyof typeof reasons]()))
    return Effect.succeed({
      markdown: new TextDecoder().decode(file.bytes),
      metadata: { sourceURL: file.fileName, contentType: file.contentType ?? null, options }
    })
  }
})

let server: TestServer
beforeAll(async () => {
  server = await startTestServer(scripted, { apiKeys: [KEY], maxJsonBytes: 64 * 1024 })
})
afterAll(() => server.close())

const scrape = (body: unknown, headers: Record<string, string> = {}) =>
  fetch(`${server.url}/v2/scrape`, {
    method: "POST",
    headers: { authorization: `Bearer ${KEY}`, "content-type": "application/json", ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body)
  })

describe("routes", () => {
  it("serves /health without a key", async () => {
    const response = await fetch(`${server.url}/health`)
    expect(response.status).toBe(200)
    expect(await response.json()).toMatchObject({ status: "ok" })
  })

  it("answers unknown routes with a clear 404, key or not", async () => {
    for (const headers of [{}, { authorization: `Bearer ${KEY}` }] as Array<Record<string, string>>) {
      const response = await fetch(`${server.url}/v2/crawl`, { method: "POST", headers })
      expect(response.status).toBe(404)
      const body = await response.json()
      expect(body).toMatchObject({ success: false, code: "NOT_FOUND" })
      expect(body.error).toContain("POST /v2/crawl")
    }
  })

  it("answers a known path with the wrong method with the same 404 shape", async () => {
    const response = await fetch(`${server.url}/v2/scrape`, { headers: { authorization: `Bearer ${KEY}` } })
    expect(response.status).toBe(404)
    expect(await response.json()).toMatchObject({ success: false, code: "NOT_FOUND" })
  })

  it("serves the OpenAPI 3.0 document", async () => {
    const response = await fetch(`${server.url}/v2/openapi.json`)
    expect(response.status).toBe(200)
    const document = await response.json()
    expect(document.openapi).toBe("3.0.0")
    expect(Object.keys(document.paths)).toEqual(expect.arrayContaining(["/v2/scrape", "/v2/parse"]))
  })
})

describe("request ids", () => {
  it("echoes a valid x-request-id and logs it", async () => {
    const response = await scrape({ url: "https://example.com/a?token=secret" }, { "x-request-id": "client-id.42:x_y-z" })
    expect(response.status).toBe(200)
    expect(response.headers.get("x-request-id")).toBe("client-id.42:x_y-z")
    const line = server.logs.find((entry) => entry.requestId === "client-id.42:x_y-z")
    expect(line).toMatchObject({ method: "POST", path: "/v2/scrape", status: 200, level: "info" })
    expect(typeof line?.ms).toBe("number")
  })

  it("replaces an invalid x-request-id with a generated one", async () => {
    const response = await scrape({ url: "https://example.com" }, { "x-request-id": "bad id with spaces" })
    const id = response.headers.get("x-request-id")
    expect(id).toMatch(/^[0-9a-f-]{36}$/)
  })

  it("gives every response, errors included, a request id", async () => {
    const unauthorized = await fetch(`${server.url}/v2/scrape`, { method: "POST" })
    const missing = await fetch(`${server.url}/nope`)
    expect(unauthorized.headers.get("x-request-id")).toBeTruthy()
    expect(missing.headers.get("x-request-id")).toBeTruthy()
  })
})

describe("scrape body", () => {
  it("passes the JSON body to the pipeline and wraps its data", async () => {
    const response = await scrape({ url: "https://example.com/page" })
    expect(await response.json()).toEqual({
      success: true,
      data: { markdown: "# ok", metadata: { sourceURL: "https://example.com/page", statusCode: 200 } }
    })
  })

  it("rejects malformed JSON with 400 BAD_REQUEST", async () => {
    const response = await scrape("{\"url\": ")
    expect(response.status).toBe(400)
    const body = await response.json()
    expect(body).toMatchObject({ success: false, code: "BAD_REQUEST" })
    expect(body.error).toMatch(/not valid JSON/)
  })

  it("rejects a non-JSON content type with 400 BAD_REQUEST", async () => {
    const response = await scrape(JSON.stringify({ url: "https://example.com" }), { "content-type": "text/plain" })
    expect(response.status).toBe(400)
    expect(await response.json()).toMatchObject({ success: false, code: "BAD_REQUEST" })
  })

  it("accepts a JSON content type with parameters", async () => {
    const response = await scrape({ url: "https://example.com" }, { "content-type": "application/json; charset=utf-8" })
    expect(response.status).toBe(200)
  })

  it("rejects a body over the JSON limit with 413, declared or chunked", async () => {
    const big = JSON.stringify({ url: "https://example.com", pad: "x".repeat(100 * 1024) })
    const declared = await scrape(big)
    expect(declared.status).toBe(413)
    expect(await declared.json()).toMatchObject({ success: false, code: "PAYLOAD_TOO_LARGE" })
    const encoder = new TextEncoder()
    const chunked = await fetch(`${server.url}/v2/scrape`, {
      method: "POST",
      headers: { authorization: `Bearer ${KEY}`, "content-type": "application/json" },
      body: new ReadableStream({
        start(controller) {
          controller.enqueue(encoder.encode(big))
          controller.close()
        }
      }),
      duplex: "half"
    } as RequestInit)
    expect(chunked.status).toBe(413)
    expect(await chunked.json()).toMatchObject({ success: false, code: "PAYLOAD_TOO_LARGE" })
  })
})

describe("error table", () => {
  const cases: Array<[keyof typeof reasons, number, string]> = [
    ["InvalidRequest", 400, "BAD_REQUEST"],
    ["NotSupported", 400, "BAD_REQUEST"],
    ["UrlBlocked", 403, "URL_BLOCKED"],
    ["FetchDns", 200, "SCRAPE_DNS_RESOLUTION_ERROR"],
    ["FetchTls", 500, "SCRAPE_SSL_ERROR"],
    ["FetchConnection", 500, "SCRAPE_SITE_ERROR"],
    ["TimedOut", 408, "SCRAPE_TIMEOUT"],
    ["UnsupportedFileType", 500, "SCRAPE_UNSUPPORTED_FILE_ERROR"],
    ["Encrypted", 422, "DOCUMENT_UNREADABLE"],
    ["MissingComponent", 500, "DOCUMENT_COMPONENT_MISSING"],
    ["TooComplex", 422, "DOCUMENT_TOO_COMPLEX"],
    ["StageFailed", 500, "SCRAPE_STAGE_FAILED"]
  ]
  it.each(cases)("scrape %s -> %i %s", async (simulate, status, code) => {
    const response = await scrape({ url: "https://example.com", origin: simulate })
    expect(response.status).toBe(status)
    const body = await response.json()
    expect(body.success).toBe(false)
    expect(body.code).toBe(code)
    expect(typeof body.error).toBe("string")
    expect(body.error.length).toBeGreaterThan(0)
  })

  it("carries validation issues in `details`", async () => {
    const body = await (await scrape({ url: "https://example.com", origin: "InvalidRequest" })).json()
    expect(body.details).toEqual([{ path: ["formats", 0], message: "unknown format" }])
    const notSupported = await (await scrape({ url: "https://example.com", origin: "NotSupported" })).json()
    expect(notSupported.details).toEqual([{ path: ["actions"], message: "actions are not supported by this server" }])
  })

  it("answers a defect with 500 UNKNOWN_ERROR, no internals, and logs the cause", async () => {
    const response = await scrape({ url: "https://example.com", origin: "defect" }, { "x-request-id": "defect-1" })
    expect(response.status).toBe(500)
    const text = await response.text()
    const body = JSON.parse(text)
    // The request sent an x-request-id, so its error carries the charge id, as every error does.
    expect(Object.keys(body).sort()).toEqual(["chargeId", "code", "error", "success"])
    expect(body).toMatchObject({ success: false, code: "UNKNOWN_ERROR", chargeId: chargeIdFor(defaultTeamId, "defect-1") })
    expect(body.error).toContain("defect-1")
    expect(text).not.toContain("secret internal detail")
    expect(text).not.toContain("app.ts")
    const line = server.logs.find((entry) => entry.requestId === "defect-1")
    expect(line).toMatchObject({ status: 500, level: "error", code: "UNKNOWN_ERROR" })
    expect(String(line?.failure)).toContain("secret internal detail")
  })

  it("maps parse-side reasons to 400 codes", async () => {
    for (const [simulate, code] of [["UnsupportedFileType", "UNSUPPORTED_FILE_TYPE"], ["Encrypted", "DOCUMENT_UNREADABLE"], ["InvalidRequest", "BAD_REQUEST"]]) {
      const form = new FormData()
      form.append("options", JSON.stringify({ origin: simulate }))
      form.append("file", new Blob(["data"]), "file.bin")
      const response = await fetch(`${server.url}/v2/parse`, { method: "POST", headers: { authorization: `Bearer ${KEY}` }, body: form })
      expect(response.status).toBe(400)
      expect(await response.json()).toMatchObject({ success: false, code })
    }
  })

  it("answers a document over a limit with 422 DOCUMENT_TOO_COMPLEX on both routes, our message and kind", async () => {
    const expected = { success: false, code: "DOCUMENT_TOO_COMPLEX", error: "docx: the document nests elements too deeply to read", details: { kind: "limit" } }
    const scraped = await scrape({ url: "https://example.com", origin: "TooComplex" })
    expect(scraped.status).toBe(422)
    expect(await scraped.json()).toEqual(expected)
    const form = new FormData()
    form.append("options", JSON.stringify({ origin: "TooComplex" }))
    form.append("file", new Blob(["data"]), "deep.docx")
    const parsed = await fetch(`${server.url}/v2/parse`, { method: "POST", headers: { authorization: `Bearer ${KEY}` }, body: form })
    expect(parsed.status).toBe(422)
    expect(await parsed.json()).toEqual(expected)
  })
})

describe("logs", () => {
  it("stops the pipeline and logs 499 when the client goes away", async () => {
    const controller = new AbortController()
    const aborted = fetch(`${server.url}/v2/scrape`, {
      method: "POST",
      headers: { authorization: `Bearer ${KEY}`, "content-type": "application/json", "x-request-id": "gone-2" },
      body: JSON.stringify({ url: "https://example.com", origin: "slow" }),
      signal: controller.signal
    }).catch((error: unknown) => error)
    setTimeout(() => controller.abort(), 100)
    expect(await aborted).toBeInstanceOf(Error)
    for (let i = 0; i < 100 && !server.logs.some((l) => l.requestId === "gone-2"); i++) {
      await new Promise((resolve) => setTimeout(resolve, 20))
    }
    expect(server.logs.find((l) => l.requestId === "gone-2")).toMatchObject({ status: 499, path: "/v2/scrape" })
    expect(server.logs.filter((l) => l.requestId === "gone-2")).toHaveLength(1)
    expect(interruptedScrapes).toBe(1)
  })

  it("writes one line per request without query strings, keys or zero-data-retention URLs", async () => {
    const before = server.logs.length
    await scrape({ url: "https://kept.example/", formats: ["markdown"] }, { "x-request-id": "log-kept" })
    await scrape({ url: "https://private.example/", zeroDataRetention: true }, { "x-request-id": "log-zdr" })
    await scrape({ url: "https://locked.example/", lockdown: true }, { "x-request-id": "log-lockdown" })
    await fetch(`${server.url}/health?probe=1`, { headers: { "x-request-id": "log-health" } })
    const lines = server.logs.slice(before)
    expect(lines).toHaveLength(4)
    expect(lines.find((l) => l.requestId === "log-kept")?.target).toBe("https://kept.example/")
    const all = JSON.stringify(lines)
    expect(all).not.toContain("private.example")
    expect(all).not.toContain("locked.example")
    expect(all).not.toContain("probe=1")
    expect(all).not.toContain(KEY)
    expect(lines.find((l) => l.requestId === "log-health")?.path).toBe("/health")
  })
})
