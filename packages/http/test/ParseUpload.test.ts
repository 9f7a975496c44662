/**
 * /v2/parse framing on a real server: which parts are read, how options arrive, and the limits.
 * The pipeline double reports what it was handed, so these tests see exactly what the adapter
 * passes on; EndToEnd.test.ts parses real uploads with the real pipeline.
 */
import { Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { defaultMaxUploadBytes } from "../src/index.ts"
import { multipartBody, pipelineDouble, postStreaming, startTestServer, type TestServer } from "./support.ts"

const KEY = "parse-key"
let calls = 0

const reporting = pipelineDouble({
  scrape: () => Effect.succeed({}),
  parse: (file, options) => {
    calls++
    return Effect.succeed({
      metadata: { sourceURL: file.fileName, contentType: file.contentType ?? null },
      size: file.bytes.length,
      head: new TextDecoder().decode(file.bytes.subarray(0, 32)),
      options
    })
  }
})

let server: TestServer
beforeAll(async () => {
  server = await startTestServer(reporting, { apiKeys: [KEY] })
})
afterAll(() => server.close())

const auth = { authorization: `Bearer ${KEY}` }
const boundary = "----strata-test-boundary"
const multipartHeaders = { ...auth, "content-type": `multipart/form-data; boundary=${boundary}` }

const postForm = (form: FormData) => fetch(`${server.url}/v2/parse`, { method: "POST", headers: auth, body: form })

describe("parts", () => {
  it("hands the file, its name and the decoded options to the pipeline (the SDK's framing)", async () => {
    const form = new FormData()
    form.append("options", JSON.stringify({ formats: ["markdown"], origin: "js-sdk@test" }))
    form.append("file", new Blob(["<h1>Hello</h1>"], { type: "text/html" }), "hello.html")
    const response = await postForm(form)
    expect(response.status).toBe(200)
    expect(await response.json()).toEqual({
      success: true,
      data: {
        metadata: { sourceURL: "hello.html", contentType: "text/html" },
        size: 14,
        head: "<h1>Hello</h1>",
        options: expect.objectContaining({ formats: [{ type: "markdown" }], origin: "js-sdk@test" })
      }
    })
  })

  it("accepts the file before the options, an application/json options part, and drops octet-stream", async () => {
    const body = multipartBody(boundary, [
      { name: "file", fileName: "report.pdf", contentType: "application/octet-stream", data: "%PDF-1.7 test" },
      { name: "ignored", data: "whatever" },
      { name: "options", contentType: "application/json", data: "{\"parsers\":[{\"type\":\"pdf\",\"maxPages\":2}]}" }
    ])
    const response = await fetch(`${server.url}/v2/parse`, { method: "POST", headers: multipartHeaders, body })
    expect(response.status).toBe(200)
    const { data } = await response.json()
    expect(data.metadata).toEqual({ sourceURL: "report.pdf", contentType: null })
    expect(data.options).toMatchObject({ parsers: [{ type: "pdf", maxPages: 2 }] })
  })

  it("reads options sent as a file part (curl -F options=@opts.json)", async () => {
    const body = multipartBody(boundary, [
      { name: "options", fileName: "opts.json", contentType: "application/octet-stream", data: "{\"timeout\":5000}" },
      { name: "file", fileName: "a.csv", contentType: "text/csv", data: "a,b\n1,2\n" }
    ])
    const response = await fetch(`${server.url}/v2/parse`, { method: "POST", headers: multipartHeaders, body })
    expect(response.status).toBe(200)
    expect((await response.json()).data.options).toMatchObject({ timeout: 5000 })
  })

  it("passes every default when there is no options part", async () => {
    const form = new FormData()
    form.append("file", new Blob(["x"]), "x.txt")
    const { data } = await (await postForm(form)).json()
    expect(data.options).toMatchObject({ formats: [{ type: "markdown" }], onlyMainContent: true, timeout: 60_000 })
  })
})

describe("bad requests", () => {
  const expectBadRequest = async (response: Response, pattern: RegExp) => {
    expect(response.status).toBe(400)
    const body = await response.json()
    expect(body).toMatchObject({ success: false, code: "BAD_REQUEST" })
    expect(body.error).toMatch(pattern)
  }

  it("400 when the file part is missing", async () => {
    const form = new FormData()
    form.append("options", "{}")
    await expectBadRequest(await postForm(form), /no `file` part/)
  })

  it("400 when the file is empty", async () => {
    const form = new FormData()
    form.append("file", new Blob([]), "empty.pdf")
    await expectBadRequest(await postForm(form), /empty/)
  })

  it("400 when the options part is not JSON", async () => {
    const form = new FormData()
    form.append("options", "{formats: markdown}")
    form.append("file", new Blob(["x"]), "x.html")
    await expectBadRequest(await postForm(form), /options.*not valid JSON/)
  })

  it("400 when the body is not multipart", async () => {
    const response = await fetch(`${server.url}/v2/parse`, {
      method: "POST",
      headers: { ...auth, "content-type": "application/json" },
      body: "{}"
    })
    await expectBadRequest(response, /multipart\/form-data/)
  })

  it("400 when the multipart body is truncated (no closing boundary)", async () => {
    const before = calls
    const whole = multipartBody(boundary, [{ name: "file", fileName: "t.html", data: "<p>cut short</p>" }], { close: false })
    const truncated = whole.subarray(0, whole.length - 6)
    const response = await fetch(`${server.url}/v2/parse`, { method: "POST", headers: multipartHeaders, body: truncated })
    await expectBadRequest(response, /malformed or truncated/)
    expect(calls).toBe(before)
  })

  it("400 when the boundary is missing from the content type", async () => {
    const body = multipartBody(boundary, [{ name: "file", fileName: "t.html", data: "<p>x</p>" }])
    const response = await fetch(`${server.url}/v2/parse`, {
      method: "POST",
      headers: { ...auth, "content-type": "multipart/form-data" },
      body
    })
    await expectBadRequest(response, /malformed or truncated/)
  })

  it("survives a client that disconnects mid-upload", async () => {
    const { request } = await import("node:http")
    await new Promise<void>((resolve) => {
      const req = request(`${server.url}/v2/parse`, {
        method: "POST",
        headers: { ...multipartHeaders, "content-length": "100000" }
      })
      req.on("error", () => resolve())
      req.write(multipartBody(boundary, [{ name: "file", fileName: "a.html", data: "<p>" }], { close: false }))
      setTimeout(() => {
        req.destroy()
        resolve()
      }, 50)
    })
    const health = await fetch(`${server.url}/health`)
    expect(health.status).toBe(200)
  })
})

describe("the 50 MB limit", () => {
  const mb = 1024 * 1024

  it("accepts a file of exactly the limit", async () => {
    const before = calls
    const form = new FormData()
    form.append("file", new Blob([new Uint8Array(defaultMaxUploadBytes).fill(65)]), "max.pdf")
    const response = await postForm(form)
    expect(response.status).toBe(200)
    expect((await response.json()).data.size).toBe(defaultMaxUploadBytes)
    expect(calls).toBe(before + 1)
  })

  it("refuses a file one byte over the limit", async () => {
    const form = new FormData()
    form.append("file", new Blob([new Uint8Array(defaultMaxUploadBytes + 1)]), "over.pdf")
    const response = await postForm(form)
    expect(response.status).toBe(413)
    expect(await response.json()).toMatchObject({ success: false, code: "PAYLOAD_TOO_LARGE" })
  })

  it("refuses a declared oversized body before reading it", async () => {
    const started = performance.now()
    const response = await postStreaming(`${server.url}/v2/parse`, {
      headers: multipartHeaders,
      contentLength: 200 * mb,
      chunks: (function*() {
        for (let i = 0; i < 200; i++) yield new Uint8Array(mb)
      })()
    })
    expect(response.status).toBe(413)
    expect(JSON.parse(response.body)).toMatchObject({ success: false, code: "PAYLOAD_TOO_LARGE" })
    // The answer came while the client had sent only a small part of the 200 MB.
    expect(response.bytesWrittenAtResponse).toBeLessThan(20 * mb)
    expect(performance.now() - started).toBeLessThan(10_000)
  })

  it("cuts off a chunked upload as soon as the file passes the limit", async () => {
    const before = calls
    const head = multipartBody(boundary, [{ name: "options", data: "{}" }], { close: false })
    const fileHead = Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="huge.pdf"\r\n\r\n`)
    const heapBefore = process.memoryUsage().arrayBuffers
    const response = await postStreaming(`${server.url}/v2/parse`, {
      headers: multipartHeaders,
      chunks: (function*() {
        yield head
        yield fileHead
        // 150 MB if the server kept reading; it must answer near 50 MB.
        for (let i = 0; i < 150; i++) yield new Uint8Array(mb).fill(66)
      })()
    })
    expect(response.status).toBe(413)
    expect(JSON.parse(response.body)).toMatchObject({ success: false, code: "PAYLOAD_TOO_LARGE" })
    expect(response.bytesWrittenAtResponse).toBeGreaterThan(defaultMaxUploadBytes)
    expect(response.bytesWrittenAtResponse).toBeLessThan(80 * mb)
    expect(calls).toBe(before)
    // What the server held is released: no 150 MB (nor 50 MB) left behind after the request.
    globalThis.gc?.()
    expect(process.memoryUsage().arrayBuffers - heapBefore).toBeLessThan(120 * mb)
  })
})
