/**
 * NDJSON streaming (`Accept: application/x-ndjson`), an extension beyond the contract: a PDF
 * upload and a PDF URL come back one line per page and a `done` line; early errors keep their
 * HTTP status (an option that needs the browser on a server without one included), and a failure
 * after the stream started is the last line.
 */
import { PDFDocument, StandardFonts } from "pdf-lib"
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startTestServer, type TestServer } from "./support.ts"

const KEY = "ndjson-key"
let server: TestServer
let site: Server
let siteUrl = ""
let pdf: Uint8Array

/** Distinct text on each page, placed differently, so no line looks like a running header. */
const SENTENCES = [
  "Alpha opens the report with a plain sentence.",
  "Bravo follows on the second page, a little lower down.",
  "Charlie closes the document near the middle of its page."
]

const makePdf = async () => {
  const doc = await PDFDocument.create()
  const font = await doc.embedFont(StandardFonts.Helvetica)
  SENTENCES.forEach((sentence, i) => {
    doc.addPage([612, 792]).drawText(sentence, { x: 72, y: 700 - i * 150, size: 12, font })
  })
  return doc.save()
}

const lines = (text: string) => text.trim().split("\n").map((l) => JSON.parse(l) as Record<string, unknown>)

beforeAll(async () => {
  process.env.STRATA_ALLOW_PRIVATE_URLS = "1"
  pdf = await makePdf()
  site = createServer((request, response) => {
    if (request.url === "/doc.pdf") {
      response.writeHead(200, { "content-type": "application/pdf" })
      response.end(Buffer.from(pdf))
      return
    }
    response.writeHead(200, { "content-type": "text/html" })
    response.end("<html><body><article><h1>Web</h1><p>Just a page.</p></article></body></html>")
  })
  await new Promise<void>((resolve) => site.listen(0, "127.0.0.1", resolve))
  siteUrl = `http://127.0.0.1:${(site.address() as AddressInfo).port}`
  const { Strata } = await import("strata")
  server = await startTestServer(Strata.StrataLive, { apiKeys: [KEY] })
})

afterAll(async () => {
  await server?.close()
  site?.closeAllConnections()
  await new Promise((resolve) => site?.close(resolve))
})

const post = (path: string, body: BodyInit, contentType?: string) =>
  fetch(`${server.url}${path}`, {
    method: "POST",
    headers: { authorization: `Bearer ${KEY}`, accept: "application/x-ndjson", ...(contentType ? { "content-type": contentType } : {}) },
    body
  })

describe("NDJSON streaming", () => {
  it("streams a PDF upload page by page, then done", async () => {
    const form = new FormData()
    form.append("file", new Blob([Buffer.from(pdf)], { type: "application/pdf" }), "three.pdf")
    form.append("options", JSON.stringify({ parsers: [{ type: "pdf", pageMarkers: true, blocks: true }] }))
    const response = await post("/v2/parse", form)
    expect(response.status).toBe(200)
    expect(response.headers.get("content-type")).toContain("application/x-ndjson")
    const events = lines(await response.text())
    expect(events.map((e) => e.type)).toEqual(["page", "page", "page", "done"])
    expect(events.slice(0, 3).map((e) => e.pageNumber)).toEqual([1, 2, 3])
    const markdown = events.slice(0, 3).map((e) => e.chunk).join("")
    expect(markdown).toContain(SENTENCES[0])
    expect(markdown).toContain("<!-- page 3 -->")
    expect(events[1].markdown).toContain(SENTENCES[1])
    expect((events[0].blocks as { pageNumber: number }).pageNumber).toBe(1)
    const done = events[3] as { success: boolean; data: { metadata: Record<string, unknown> } }
    expect(done.success).toBe(true)
    expect(done.data.metadata).toMatchObject({ numPages: 3, sourceURL: "three.pdf" })
  })

  it("streams a scraped PDF URL, and a web page as a single done line", async () => {
    const pdfEvents = lines(await (await post("/v2/scrape", JSON.stringify({ url: `${siteUrl}/doc.pdf` }), "application/json")).text())
    expect(pdfEvents.map((e) => e.type)).toEqual(["page", "page", "page", "done"])
    const webEvents = lines(await (await post("/v2/scrape", JSON.stringify({ url: `${siteUrl}/page` }), "application/json")).text())
    expect(webEvents).toHaveLength(1)
    expect((webEvents[0].data as { markdown: string }).markdown).toContain("# Web")
  })

  it("answers validation errors with their status before streaming", async () => {
    const response = await post("/v2/scrape", JSON.stringify({ url: `${siteUrl}/page`, nope: 1 }), "application/json")
    expect(response.status).toBe(400)
    expect(await response.json()).toMatchObject({ success: false, code: "BAD_REQUEST" })
  })

  it("refuses an option that needs the browser, on a server without one, with the plain request's 400 before streaming", async () => {
    const { Strata } = await import("strata")
    const bare = await startTestServer(Strata.layer({ browser: false, isolation: false, languageModel: false }), { apiKeys: [KEY] })
    try {
      for (const options of [{ mobile: true }, { profile: { name: "shop" } }]) {
        const body = JSON.stringify({ url: `${siteUrl}/page`, ...options })
        const answers = await Promise.all(["application/x-ndjson", "application/json"].map(async (accept) => {
          const response = await fetch(`${bare.url}/v2/scrape`, {
            method: "POST",
            headers: { authorization: `Bearer ${KEY}`, accept, "content-type": "application/json" },
            body
          })
          return { status: response.status, type: response.headers.get("content-type"), body: await response.json() as Record<string, unknown> }
        }))
        const [streamed, plain] = answers
        expect(streamed.status).toBe(400)
        expect(streamed.type).toContain("application/json")
        expect(streamed.body).toEqual(plain.body)
        expect(streamed.body).toMatchObject({ success: false, code: "BAD_REQUEST" })
        expect(streamed.body.error).toContain(`\`${Object.keys(options)[0]}\` is not supported by this server: it needs the browser engine`)
      }
    } finally {
      await bare.close()
    }
  })

  it("ends with an error line when the document turns out unreadable", async () => {
    const form = new FormData()
    form.append("file", new Blob([Buffer.from("%PDF-1.7\nthis is not really a pdf")], { type: "application/pdf" }), "broken.pdf")
    const response = await post("/v2/parse", form)
    const events = lines(await response.text())
    const last = events[events.length - 1]
    expect(last).toMatchObject({ type: "error", success: false })
    expect(typeof last.code).toBe("string")
  })
})
