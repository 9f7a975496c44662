/**
 * The browser engine end to end: `Strata.layer` (fetch engine, browser engine with real
 * Chromium) behind the real server on a random loopback port, driven by raw HTTP and by the
 * official `@mendable/firecrawl-js` SDK, against pages this test serves on 127.0.0.1.
 * Screenshots and PDFs come back as the server's signed artifact links, fetched here.
 */
import Firecrawl from "@mendable/firecrawl-js"
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startTestServer, type TestServer } from "./support.ts"

const KEY = "browser-e2e-key"

const page = (body: string) => `<!doctype html><html><head><meta charset="utf-8"><title>Harbour</title></head><body>${body}</body></html>`

const routes: Record<string, { type: string; body: string }> = {
  "/spa": { type: "text/html; charset=utf-8", body: page(`<div id="root"></div><script src="/app.js"></script>`) },
  "/app.js": {
    type: "text/javascript",
    body: `fetch("/api/boats").then((r) => r.json()).then((boats) => {
      const root = document.getElementById("root")
      root.innerHTML = "<main><h1>Harbour boats</h1><p>Boats moored in the harbour this week, as the harbour master lists them.</p><ul>" +
        boats.map((b) => "<li>" + b + "</li>").join("") + "</ul></main>"
    })`
  },
  "/script": {
    type: "text/html; charset=utf-8",
    body: page(`<div id="out">static placeholder</div><script>document.getElementById("out").innerHTML = "<h1>Tide table</h1><p>High water at 06:12 and 18:40, written by the page's script.</p>"</script>`)
  },
  "/api/boats": { type: "application/json", body: JSON.stringify(["Kestrel", "Marigold", "Osprey"]) },
  "/form": {
    type: "text/html; charset=utf-8",
    body: page(`<main><h1>Sign the log</h1><input id="name">
      <button id="go" onclick="document.getElementById('out').textContent = 'Logged: ' + document.getElementById('name').value">Log</button>
      <p id="out">Nobody logged yet.</p></main>`)
  },
  "/article": {
    type: "text/html; charset=utf-8",
    body: page(`<article><h1>Tides</h1><p>${"The harbour empties and fills twice a day with the tide. ".repeat(30)}</p></article><script src="/app.js"></script>`)
  }
}

let site: Server
let siteUrl: string
let server: TestServer

const scrape = async (body: Record<string, unknown>) => {
  const response = await fetch(`${server.url}/v2/scrape`, {
    method: "POST",
    headers: { authorization: `Bearer ${KEY}`, "content-type": "application/json" },
    body: JSON.stringify(body)
  })
  return { status: response.status, body: await response.json() as Record<string, any> }
}

const download = async (url: string) => {
  const response = await fetch(url)
  expect(response.status).toBe(200)
  return { type: response.headers.get("content-type"), bytes: new Uint8Array(await response.arrayBuffer()) }
}

const pngSize = (bytes: Uint8Array) => {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  return { width: view.getUint32(16), height: view.getUint32(20) }
}

beforeAll(async () => {
  site = createServer((request, response) => {
    // Never answers: the request's deadline must end the navigation.
    if (request.url === "/hang") return
    const route = routes[(request.url ?? "/").split("?")[0]]
    if (route === undefined) return void response.writeHead(404).end()
    response.writeHead(200, { "content-type": route.type }).end(route.body)
  })
  await new Promise<void>((resolve) => site.listen(0, "127.0.0.1", resolve))
  siteUrl = `http://127.0.0.1:${(site.address() as AddressInfo).port}`
  const { Strata } = await import("strata")
  server = await startTestServer(
    Strata.layer({ fetch: { allowPrivateUrls: false, allowedOrigins: [siteUrl] }, browser: { concurrency: 2 }, ocr: false, isolation: false }),
    { apiKeys: [KEY] }
  )
})

afterAll(async () => {
  await server?.close()
  site?.closeAllConnections()
  await new Promise((resolve) => site?.close(resolve))
})

describe("the browser engine through the server", () => {
  it("renders a single-page app through the automatic engine choice (firecrawl-js, no browser option asked)", async () => {
    const firecrawl = new Firecrawl({ apiKey: KEY, apiUrl: server.url })
    const document = await firecrawl.scrape(`${siteUrl}/spa`, { formats: ["markdown"] })
    expect(document.markdown).toContain("# Harbour boats")
    expect(document.markdown).toMatch(/[-*] Marigold/)
    expect(document.metadata?.engine).toBe("browser")
  })

  it("renders a script-written page through the automatic engine choice", async () => {
    const { status, body } = await scrape({ url: `${siteUrl}/script`, formats: ["markdown"] })
    expect(status).toBe(200)
    expect(body.data.markdown).toContain("High water at 06:12 and 18:40")
    expect(body.data.markdown).not.toContain("static placeholder")
    expect(body.data.metadata.engine).toBe("browser")
  })

  it("keeps a page that shows its text with the fetch engine", async () => {
    const { status, body } = await scrape({ url: `${siteUrl}/article` })
    expect(status).toBe(200)
    expect(body.data.metadata.engine).toBe("fetch")
  })

  it("runs actions and returns screenshots and a PDF as signed links", async () => {
    const { status, body } = await scrape({
      url: `${siteUrl}/form`,
      formats: ["markdown", { type: "screenshot", viewport: { width: 800, height: 600 } }],
      actions: [
        { type: "click", selector: "#name" },
        { type: "write", text: "Marigold" },
        { type: "click", selector: "#go" },
        { type: "screenshot" },
        { type: "executeJavascript", script: "return document.getElementById('out').textContent" },
        { type: "scrape" },
        { type: "pdf", format: "A4" }
      ]
    })
    expect(status).toBe(200)
    const data = body.data
    expect(data.markdown).toContain("Logged: Marigold")
    expect(data.metadata.engine).toBe("browser")
    expect(data.actions.javascriptReturns).toEqual([{ type: "string", value: "Logged: Marigold" }])
    expect(data.actions.scrapes[0].html).toContain("Logged: Marigold")
    const shot = await download(data.screenshot)
    expect(shot.type).toBe("image/png")
    expect(pngSize(shot.bytes)).toEqual({ width: 800, height: 600 })
    expect(data.actions.screenshots).toHaveLength(1)
    expect(pngSize((await download(data.actions.screenshots[0])).bytes)).toEqual({ width: 1366, height: 900 })
    const pdf = await download(data.actions.pdfs[0])
    expect(new TextDecoder().decode(pdf.bytes.subarray(0, 5))).toBe("%PDF-")
  })

  it("answers a failing action with 500 SCRAPE_ACTION_ERROR naming it", async () => {
    const { status, body } = await scrape({ url: `${siteUrl}/form`, actions: [{ type: "wait", milliseconds: 10 }, { type: "executeJavascript", script: "throw new Error('no boats')" }] })
    expect(status).toBe(500)
    expect(body.code).toBe("SCRAPE_ACTION_ERROR")
    expect(body.details).toEqual({ index: 1, type: "executeJavascript" })
    expect(body.error).toContain("Action 1 (executeJavascript) failed")
  })

  it("streams a browser-rendered page as NDJSON", async () => {
    const response = await fetch(`${server.url}/v2/scrape`, {
      method: "POST",
      headers: { authorization: `Bearer ${KEY}`, "content-type": "application/json", accept: "application/x-ndjson" },
      body: JSON.stringify({ url: `${siteUrl}/spa` })
    })
    const lines = (await response.text()).trim().split("\n").map((line) => JSON.parse(line))
    const done = lines[lines.length - 1]
    expect(done.type).toBe("done")
    expect(done.data.markdown).toContain("Osprey")
    expect(done.data.metadata.engine).toBe("browser")
  })

  it("ends a navigation that never finishes at the request's timeout with 408", async () => {
    const { status, body } = await scrape({ url: `${siteUrl}/hang`, mobile: true, timeout: 3000 })
    expect(status).toBe(408)
    expect(body.code).toBe("SCRAPE_TIMEOUT")
    // The browser is still there for the next request.
    expect((await scrape({ url: `${siteUrl}/form`, mobile: true })).status).toBe(200)
  })

  it("refuses waitFor beyond half of the timeout with 400", async () => {
    const { status, body } = await scrape({ url: `${siteUrl}/form`, timeout: 10_000, waitFor: 6000 })
    expect(status).toBe(400)
    expect(JSON.stringify(body)).toContain("half of timeout")
  })

  it("refuses a private address outside the allowed origins, in the browser as in the fetch engine", async () => {
    const { status, body } = await scrape({ url: "http://127.0.0.1:9/", mobile: true })
    expect(status).toBe(403)
    expect(body.code).toBe("URL_BLOCKED")
  })
})

describe("documents through the browser", () => {
  it("reads a PDF that a browser option sent to the browser, shown inline or as an attachment", async () => {
    const { PDFDocument, StandardFonts } = await import("pdf-lib")
    const pdf = await PDFDocument.create()
    const font = await pdf.embedFont(StandardFonts.Helvetica)
    pdf.addPage([612, 792]).drawText("Harbour dues for the winter season.", { x: 72, y: 700, size: 14, font })
    const bytes = await pdf.save()
    const hits: Array<string> = []
    const files = createServer((q, r) => hits.push(q.url ?? "") && r.writeHead(200, {
      "content-type": "application/pdf",
      ...(q.url === "/attachment.pdf" ? { "content-disposition": "attachment; filename=dues.pdf" } : {})
    }).end(Buffer.from(bytes)))
    await new Promise<void>((resolve) => files.listen(0, "127.0.0.1", resolve))
    const filesUrl = `http://127.0.0.1:${(files.address() as AddressInfo).port}`
    const { Strata } = await import("strata")
    const open = await startTestServer(Strata.layer({ fetch: { allowPrivateUrls: true }, browser: { concurrency: 1 }, ocr: false, isolation: false }), { apiKeys: [KEY] })
    try {
      for (const path of ["/inline.pdf", "/attachment.pdf"]) {
        const response = await fetch(`${open.url}/v2/scrape`, {
          method: "POST",
          headers: { authorization: `Bearer ${KEY}`, "content-type": "application/json" },
          body: JSON.stringify({ url: `${filesUrl}${path}`, location: { country: "DE" } })
        })
        const body = await response.json() as Record<string, any>
        expect(response.status, path).toBe(200)
        expect(body.data.markdown, path).toContain("Harbour dues for the winter season.")
        // Both are the browser's bytes, read as they were served: an inline PDF's response is kept
        // before Chromium's viewer replaces it (DocumentCapture), an attachment's is its download.
        // Fetched once each, not twice.
        expect(body.data.metadata.engine, path).toBe("browser")
        expect(body.data.metadata.numPages, path).toBe(1)
        expect(hits.filter((hit) => hit === path).length, path).toBe(1)
      }
    } finally {
      await open.close()
      files.closeAllConnections()
      await new Promise((resolve) => files.close(resolve))
    }
  })
})
