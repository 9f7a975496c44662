/**
 * The scrape and parse pipelines end to end, in-process, against pages served on loopback:
 * content routing (HTML, JSON, text, unsupported types), status codes as data, the option gate
 * (run once, before the pipeline), the timeout budget and uploads. Document readers are registered per test (core ships none).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { Effect, Layer, Stream } from "effect"
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import {
  DocumentReaders,
  Fetcher,
  makeBlock,
  Pipeline,
  type Reader,
  type ScrapeError,
  type UploadedFile,
  validateParseOptions,
  validateScrapeRequest
} from "../../src/index.ts"

const pages: Record<string, { type: string; body: string | Buffer; status?: number; delay?: number }> = {
  "/article": {
    type: "text/html; charset=utf-8",
    body: `<!doctype html><html lang="en"><head><title>The Title</title><meta name="description" content="A page"><meta property="og:title" content="OG"></head>
<body><header><nav><a href="/home">Home</a> <a href="/about">About</a></nav></header>
<main><article><h1>Heading</h1><p>${"A sentence of real article text, with commas, that goes on. ".repeat(12)}</p>
<p>See <a href="/more#section">more</a> or <a href="mailto:a@b.c">mail</a>.</p></article></main>
<footer>© Footer text <a href="/legal">Legal</a></footer></body></html>`
  },
  "/data.json": { type: "application/json", body: `{"name":"strata","n":[1,2]}` },
  "/notes.txt": { type: "text/plain; charset=utf-8", body: "plain *text* stays as is" },
  "/missing": { type: "text/html", body: "<html><body><h1>Not here</h1><p>Gone.</p></body></html>", status: 404 },
  "/image.png": { type: "image/png", body: Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]) },
  "/slow": { type: "text/html", body: "<p>late</p>", delay: 3000 },
  "/doc.pdf": { type: "application/pdf", body: "%PDF-1.4\n%fake but sniffable\n" }
}

let server: Server
let base = ""

/** A reader standing in for @strata/pdf: two pages, furniture on each, so the projection is visible. */
const fakePdf: Reader = {
  name: "test-pdf",
  formats: ["pdf"],
  read: () =>
    Effect.succeed({
      info: { numPages: 2, totalPages: 3, metadata: { title: "PDF title" } },
      pages: Stream.fromIterable([1, 2].map((n) => ({
        pageNumber: n,
        status: "ok" as const,
        width: 612,
        height: 792,
        blocks: [makeBlock("page_header", "Running head"), makeBlock(n === 1 ? "title" : "text", n === 1 ? "# Report" : "Body [link](https://example.com/x).")],
        diagnostics: n === 2 ? [{ severity: "warning" as const, code: "no_text", message: "had no usable text" }] : []
      })))
    })
}

// The pipeline takes decoded requests: the test's JSON is validated once first, as the HTTP routes do.
const scrapeWith = (p: Pipeline["Service"], raw: unknown) => Effect.flatMap(validateScrapeRequest(raw), p.scrape)
const scrapeStreamWith = (p: Pipeline["Service"], raw: unknown) => Stream.unwrap(Effect.map(validateScrapeRequest(raw), p.scrapeStream))
const parseWith = (p: Pipeline["Service"], file: UploadedFile, raw: unknown) =>
  Effect.flatMap(validateParseOptions(raw), (options) => p.parse(file, options))

const run = <A>(effect: (p: Pipeline["Service"]) => Effect.Effect<A, ScrapeError>) =>
  Effect.runPromise(
    Pipeline.use(effect).pipe(
      Effect.provide(Pipeline.layer.pipe(Layer.provide([Fetcher.layer, DocumentReaders.layer([fakePdf])])))
    )
  )

const fails = async (effect: (p: Pipeline["Service"]) => Effect.Effect<unknown, ScrapeError>) => {
  const error = await Effect.runPromise(
    Pipeline.use(effect).pipe(
      Effect.flip,
      Effect.provide(Pipeline.layer.pipe(Layer.provide([Fetcher.layer, DocumentReaders.layer([fakePdf])])))
    )
  )
  return error.reason
}

beforeAll(async () => {
  process.env.STRATA_ALLOW_PRIVATE_URLS = "1"
  server = createServer((req, res) => {
    const page = pages[req.url ?? ""]
    if (!page) {
      res.statusCode = 500
      res.end()
      return
    }
    const send = () => {
      res.statusCode = page.status ?? 200
      res.setHeader("content-type", page.type)
      res.end(page.body)
    }
    if (page.delay) setTimeout(send, page.delay).unref()
    else send()
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
})

afterAll(() => {
  server.closeAllConnections()
  server.close()
})

describe("Pipeline.scrape", () => {
  it("turns an HTML page into main-content markdown, cleaned html, raw html, links and metadata", async () => {
    const data = await run((p) => scrapeWith(p, { url: `${base}/article`, formats: ["markdown", "html", "rawHtml", "links"] }))
    const markdown = data.markdown as string
    expect(markdown).toContain("# Heading")
    expect(markdown).toContain("A sentence of real article text")
    expect(markdown).not.toContain("Footer text")
    expect(markdown).not.toContain("About")
    expect(data.html as string).not.toContain("<nav")
    expect(data.rawHtml as string).toContain("<nav>")
    expect(data.links).toEqual(expect.arrayContaining([`${base}/home`, `${base}/more`, "mailto:a@b.c", `${base}/legal`]))
    const metadata = data.metadata as Record<string, unknown>
    expect(metadata).toMatchObject({ title: "The Title", description: "A page", language: "en", sourceURL: `${base}/article`, url: `${base}/article`, statusCode: 200, error: null })
    expect(typeof metadata.scrapeId).toBe("string")
  })

  it("keeps the whole page when onlyMainContent is false", async () => {
    const data = await run((p) => scrapeWith(p, { url: `${base}/article`, onlyMainContent: false }))
    expect(data.markdown as string).toContain("Footer text")
  })

  it("returns only markdown by default", async () => {
    const data = await run((p) => scrapeWith(p, { url: `${base}/article` }))
    expect(Object.keys(data).sort()).toEqual(["markdown", "metadata"])
  })

  it("renders JSON as a fenced block and text as it is", async () => {
    const json = await run((p) => scrapeWith(p, { url: `${base}/data.json` }))
    expect(json.markdown).toBe("```json\n{\n  \"name\": \"strata\",\n  \"n\": [\n    1,\n    2\n  ]\n}\n```")
    const text = await run((p) => scrapeWith(p, { url: `${base}/notes.txt` }))
    expect(text.markdown).toBe("plain *text* stays as is")
  })

  it("reports the target's error status as data", async () => {
    const data = await run((p) => scrapeWith(p, { url: `${base}/missing` }))
    expect(data.metadata).toMatchObject({ statusCode: 404, error: "404 Not Found" })
    expect(data.markdown as string).toContain("Gone.")
  })

  it("refuses content it cannot read", async () => {
    const reason = await fails((p) => scrapeWith(p, { url: `${base}/image.png` }))
    expect(reason._tag).toBe("UnsupportedFileType")
  })

  it("hands PDFs to the document reader and projects pages, blocks, markdown and warnings", async () => {
    const data = await run((p) => scrapeWith(p, { url: `${base}/doc.pdf`, formats: ["markdown", "links"], parsers: [{ type: "pdf", pageMarkers: true, pages: true, blocks: true }] }))
    expect(data.markdown).toBe("# Report\n\n---\n\n<!-- page 2 -->\n\nBody [link](https://example.com/x).")
    expect(data.pages).toEqual([{ pageNumber: 1, markdown: "# Report" }, { pageNumber: 2, markdown: "Body [link](https://example.com/x)." }])
    expect(data.blocks?.[1].items.map((b) => b.id)).toEqual(["p2.b0", "p2.b1"])
    expect(data.links).toEqual(["https://example.com/x"])
    // The reader says 3 pages and gave 2: the cut is stated on the last page kept (DocumentRun's pagesTruncated).
    expect(data.warning).toBe("page 2: had no usable text; page 2: kept the first 2 of 3 pages, as maxPages asks; 1 page dropped")
    expect(data.metadata).toMatchObject({ numPages: 2, totalPages: 3, creditsUsed: 2, title: "PDF title" })
  })

  it("returns a PDF as Base64 for a flat credit with parsers: []", async () => {
    const data = await run((p) => scrapeWith(p, { url: `${base}/doc.pdf`, parsers: [] }))
    expect(Buffer.from(data.rawBase64 as string, "base64").toString()).toBe(pages["/doc.pdf"].body)
    expect(data.markdown).toBeUndefined()
    expect(data.metadata).toMatchObject({ creditsUsed: 1 })
  })

  it("honours the timeout budget", async () => {
    const started = Date.now()
    const reason = await fails((p) => scrapeWith(p, { url: `${base}/slow`, timeout: 1000 }))
    expect(reason._tag).toBe("TimedOut")
    expect(Date.now() - started).toBeLessThan(2500)
  })

  it("names options the server does not implement instead of ignoring them", async () => {
    for (const [request, option] of [
      [{ formats: ["screenshot"] }, "formats: screenshot"],
      [{ formats: ["branding"] }, "formats: branding"],
      [{ actions: [{ type: "wait", milliseconds: 10 }] }, "actions"],
      [{ minAge: 1 }, "minAge"]
    ] as const) {
      const reason = await fails((p) => scrapeWith(p, { url: `${base}/article`, ...request }))
      expect(reason._tag).toBe("NotSupported")
      expect(reason.message).toContain(option)
    }
  })

  it("rejects invalid requests with the validation issues", async () => {
    const reason = await fails((p) => scrapeWith(p, { url: `${base}/article`, bogus: true }))
    expect(reason._tag).toBe("InvalidRequest")
  })
})

describe("Pipeline.parse", () => {
  it("parses an uploaded HTML file, with the file name as sourceURL", async () => {
    const bytes = new TextEncoder().encode("<html><body><h2>Upload</h2><p>Uploaded content.</p></body></html>")
    const data = await run((p) => parseWith(p, { bytes, fileName: "page.html" }, { onlyMainContent: false }))
    expect(data.markdown).toBe("## Upload\n\nUploaded content.")
    expect(data.metadata).toMatchObject({ sourceURL: "page.html" })
  })

  it("refuses an upload of an unsupported type", async () => {
    const reason = await fails((p) => parseWith(p, { bytes: new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), fileName: "x.png" }, {}))
    expect(reason._tag).toBe("UnsupportedFileType")
  })
})

describe("Pipeline streams", () => {
  it("streams a document page by page, then the rest of data", async () => {
    const events = await Effect.runPromise(
      Pipeline.use((p) => Stream.runCollect(scrapeStreamWith(p, { url: `${base}/doc.pdf`, formats: ["markdown", "links"], parsers: [{ type: "pdf", pageMarkers: true }] }))).pipe(
        Effect.provide(Pipeline.layer.pipe(Layer.provide([Fetcher.layer, DocumentReaders.layer([fakePdf])])))
      )
    )
    const list = [...events]
    expect(list.map((e) => e.type)).toEqual(["page", "page", "done"])
    const chunks = list.flatMap((e) => (e.type === "page" ? [e.chunk] : []))
    expect(chunks.join("")).toBe("# Report\n\n---\n\n<!-- page 2 -->\n\nBody [link](https://example.com/x).")
    const done = list[2]
    if (done.type !== "done") throw new Error("expected done")
    expect(done.data.markdown).toBeUndefined()
    expect(done.data.links).toEqual(["https://example.com/x"])
    expect(done.data.metadata).toMatchObject({ numPages: 2, creditsUsed: 2 })
  })

  it("streams a web page as a single done event", async () => {
    const events = await Effect.runPromise(
      Pipeline.use((p) => Stream.runCollect(scrapeStreamWith(p, { url: `${base}/article` }))).pipe(
        Effect.provide(Pipeline.layer.pipe(Layer.provide([Fetcher.layer, DocumentReaders.layer([fakePdf])])))
      )
    )
    const list = [...events]
    expect(list).toHaveLength(1)
    expect(list[0].type === "done" && (list[0].data.markdown as string).includes("# Heading")).toBe(true)
  })
})

describe("Pipeline warnings", () => {
  it("reports an invalid includeTags selector as a warning instead of failing", async () => {
    const data = await run((p) => scrapeWith(p, { url: `${base}/article`, includeTags: ["h1", "p:::bad"] }))
    expect(data.markdown as string).toContain("# Heading")
    expect(typeof data.warning).toBe("string")
    expect(data.warning as string).toContain("p:::bad")
  })
})
