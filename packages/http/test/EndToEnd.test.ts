/**
 * End to end: the real pipeline (`StrataLive`: real fetcher, HTML stages, readers) behind the
 * real server, driven by raw HTTP and by the official `@mendable/firecrawl-js` SDK, unchanged,
 * against pages this test serves on 127.0.0.1.
 */
import Firecrawl from "@mendable/firecrawl-js"
import { PDFDocument, StandardFonts } from "pdf-lib"
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startTestServer, type TestServer } from "./support.ts"

const KEY = "e2e-key"

const ARTICLE = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>Tide Pools of the Northern Coast</title>
  <meta name="description" content="A field guide to tide pool life.">
  <meta property="og:title" content="Tide Pools">
</head>
<body>
  <header><nav><a href="/">Home</a> <a href="/about">About us</a> <a href="/shop">Shop</a></nav></header>
  <main>
    <article>
      <h1>Tide Pools of the Northern Coast</h1>
      <p>Tide pools form where the sea retreats twice a day and leaves behind small basins of water among the rocks.
      The animals that live there endure waves, sun, and sudden changes in salt and temperature.</p>
      <h2>Who lives there</h2>
      <p>Sea anemones close their tentacles at low tide to keep moisture in. Hermit crabs trade shells as they grow,
      and periwinkles graze the thin film of algae that covers every stone. See the <a href="/species/anemone">anemone page</a>.</p>
      <ul><li>Ochre sea stars</li><li>Purple urchins</li><li>Gooseneck barnacles</li></ul>
      <p>Visit at the lowest tide of the month, step only on bare rock, and put every stone back the way you found it.</p>
    </article>
  </main>
  <footer><p>Copyright 2026 Coastal Field Guides. All rights reserved.</p></footer>
</body>
</html>`

let site: Server
let siteUrl: string
let server: TestServer
let firecrawl: Firecrawl
const allowPrivateBefore = process.env.STRATA_ALLOW_PRIVATE_URLS

beforeAll(async () => {
  // The test pages live on loopback, which the fetcher refuses unless told otherwise.
  process.env.STRATA_ALLOW_PRIVATE_URLS = "1"
  site = createServer((request, response) => {
    if (request.url === "/slow") {
      const timer = setTimeout(() => response.end("late"), 10_000)
      response.on("close", () => clearTimeout(timer))
      return
    }
    if (request.url === "/language") {
      response.writeHead(200, { "content-type": "text/plain; charset=utf-8" })
      response.end(`Accept-Language: ${request.headers["accept-language"]}`)
      return
    }
    if (request.url === "/article") {
      response.writeHead(200, { "content-type": "text/html; charset=utf-8" })
      response.end(ARTICLE)
      return
    }
    response.writeHead(404, { "content-type": "text/plain" })
    response.end("not here")
  })
  await new Promise<void>((resolve) => site.listen(0, "127.0.0.1", resolve))
  siteUrl = `http://127.0.0.1:${(site.address() as AddressInfo).port}`
  const { Strata } = await import("strata")
  server = await startTestServer(Strata.StrataLive, { apiKeys: [KEY] })
  firecrawl = new Firecrawl({ apiKey: KEY, apiUrl: server.url })
})

afterAll(async () => {
  if (allowPrivateBefore === undefined) delete process.env.STRATA_ALLOW_PRIVATE_URLS
  else process.env.STRATA_ALLOW_PRIVATE_URLS = allowPrivateBefore
  await server?.close()
  site?.closeAllConnections()
  await new Promise((resolve) => site?.close(resolve))
})

describe("@mendable/firecrawl-js against this server", () => {
  it("scrape() returns the page's main content as markdown with metadata", async () => {
    const document = await firecrawl.scrape(`${siteUrl}/article`, { formats: ["markdown", "links"] })
    expect(document.markdown).toContain("# Tide Pools of the Northern Coast")
    expect(document.markdown).toContain("Sea anemones close their tentacles")
    expect(document.markdown).toMatch(/[-*] Ochre sea stars/)
    expect(document.markdown).not.toContain("All rights reserved")
    expect(document.metadata?.title).toBe("Tide Pools of the Northern Coast")
    expect(document.metadata?.description).toBe("A field guide to tide pool life.")
    expect(document.metadata?.sourceURL).toBe(`${siteUrl}/article`)
    expect(document.metadata?.statusCode).toBe(200)
    expect(document.links).toEqual(expect.arrayContaining([`${siteUrl}/species/anemone`]))
  })

  it("parse() turns an uploaded HTML file into markdown, named by its file name", async () => {
    const document = await firecrawl.parse(
      { data: ARTICLE, filename: "tide-pools.html", contentType: "text/html" },
      { formats: ["markdown"] }
    )
    expect(document.markdown).toContain("# Tide Pools of the Northern Coast")
    expect(document.markdown).toContain("Hermit crabs trade shells")
    expect(document.metadata?.sourceURL).toBe("tide-pools.html")
  })

  it("parse() reads an uploaded PDF through the PDF reader", async () => {
    const pdf = await PDFDocument.create()
    const font = await pdf.embedFont(StandardFonts.Helvetica)
    const page = pdf.addPage([612, 792])
    page.drawText("Quarterly Tide Survey", { x: 72, y: 700, size: 24, font })
    page.drawText("Anemone counts rose in every pool we measured this spring.", { x: 72, y: 660, size: 12, font })
    const bytes = await pdf.save()
    const document = await firecrawl.parse({ data: Buffer.from(bytes), filename: "survey.pdf", contentType: "application/pdf" })
    expect(document.markdown).toContain("Quarterly Tide Survey")
    expect(document.markdown).toContain("Anemone counts rose in every pool we measured this spring.")
    expect(document.metadata?.sourceURL).toBe("survey.pdf")
    expect(document.metadata?.numPages).toBe(1)
  })

  it("surfaces a wrong key as a 401 SdkError", async () => {
    const stranger = new Firecrawl({ apiKey: "not-a-key", apiUrl: server.url })
    await expect(stranger.scrape(`${siteUrl}/article`)).rejects.toMatchObject({ status: 401 })
  })

  it("surfaces the scrape timeout as 408 SCRAPE_TIMEOUT", async () => {
    const started = Date.now()
    await expect(firecrawl.scrape(`${siteUrl}/slow`, { timeout: 1000 })).rejects.toMatchObject({
      status: 408,
      code: "SCRAPE_TIMEOUT"
    })
    expect(Date.now() - started).toBeLessThan(8000)
  })
})

describe("SSRF guard through the server", () => {
  it("answers 403 URL_BLOCKED for a loopback target when private URLs are not allowed", async () => {
    const { Strata } = await import("strata")
    const strict = Strata.layer({ fetch: { allowPrivateUrls: false } })
    const guarded = await startTestServer(strict, { apiKeys: [KEY] })
    try {
      const response = await fetch(`${guarded.url}/v2/scrape`, {
        method: "POST",
        headers: { authorization: `Bearer ${KEY}`, "content-type": "application/json" },
        body: JSON.stringify({ url: `${siteUrl}/article` })
      })
      expect(response.status).toBe(403)
      expect(await response.json()).toMatchObject({ success: false, code: "URL_BLOCKED" })
    } finally {
      await guarded.close()
    }
  })
})

describe("contract validation through the real pipeline", () => {
  const post = (body: unknown) =>
    fetch(`${server.url}/v2/scrape`, {
      method: "POST",
      headers: { authorization: `Bearer ${KEY}`, "content-type": "application/json" },
      body: JSON.stringify(body)
    })

  it("rejects unknown keys with 400 BAD_REQUEST and details", async () => {
    const response = await post({ url: `${siteUrl}/article`, notAnOption: true })
    expect(response.status).toBe(400)
    const body = await response.json()
    expect(body).toMatchObject({ success: false, code: "BAD_REQUEST" })
    expect(Array.isArray(body.details)).toBe(true)
    expect(JSON.stringify(body.details)).toContain("notAnOption")
  })

  it("rejects a missing url with 400 BAD_REQUEST and details", async () => {
    const response = await post({ formats: ["markdown"] })
    expect(response.status).toBe(400)
    const body = await response.json()
    expect(body.code).toBe("BAD_REQUEST")
    expect(body.details.length).toBeGreaterThan(0)
  })

  it("rejects a url without a top-level domain with 400 BAD_REQUEST, as Firecrawl does", async () => {
    for (const url of ["not-a-valid-url", "http://intranet/page"]) {
      const response = await post({ url })
      expect(response.status).toBe(400)
      const body = await response.json()
      expect(body.code).toBe("BAD_REQUEST")
      expect(JSON.stringify(body.details)).toContain("valid top-level domain")
    }
  })

  it("accepts location and sends its languages, or the country's, as Accept-Language", async () => {
    const sent = async (location: unknown) => {
      const response = await post({ url: `${siteUrl}/language`, location, formats: ["rawHtml"] })
      expect(response.status).toBe(200)
      return (await response.json()).data.rawHtml
    }
    expect(await sent({ country: "DE" })).toBe("Accept-Language: de-DE,de;q=0.9,en;q=0.8")
    expect(await sent({ country: "FR", languages: ["fr-CA", "en"] })).toBe("Accept-Language: fr-CA,en;q=0.9")
  })

  it("parses an upload sent without options", async () => {
    const form = new FormData()
    form.append("file", new Blob([ARTICLE], { type: "text/html" }), "page.htm")
    const response = await fetch(`${server.url}/v2/parse`, { method: "POST", headers: { authorization: `Bearer ${KEY}` }, body: form })
    expect(response.status).toBe(200)
    const { data } = await response.json()
    expect(data.markdown).toContain("Tide Pools of the Northern Coast")
    expect(data.metadata.sourceURL).toBe("page.htm")
  })

  it("answers an unsupported upload with 400 UNSUPPORTED_FILE_TYPE", async () => {
    const form = new FormData()
    form.append("file", new Blob([new Uint8Array([0x50, 0x4b, 0x03, 0x04, 1, 2, 3, 4])]), "archive.zip")
    const response = await fetch(`${server.url}/v2/parse`, { method: "POST", headers: { authorization: `Bearer ${KEY}` }, body: form })
    expect(response.status).toBe(400)
    expect((await response.json()).code).toMatch(/UNSUPPORTED_FILE_TYPE|BAD_REQUEST/)
  })
})
