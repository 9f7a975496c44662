/**
 * The engine choice in the pipeline, with a browser engine double: the fetch engine first, the
 * browser for options that need it and for pages that need JavaScript, `metadata.engine`, and
 * what the browser's outputs become in `data` (screenshots and PDFs as `data:` URLs without an
 * artifact store, `data.actions` in action order).
 */
import { afterAll, assert, beforeAll, describe, expect, it } from "vitest"
import { Effect, Layer, Result } from "effect"
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import {
  type ActionOutput,
  BrowserEngine,
  BrowserFailed,
  type BrowserPage,
  type BrowserRequest,
  DocumentReaders,
  Fetcher,
  Pipeline,
  type ScrapeError,
  scrapeError,
  TimedOut,
  validateScrapeRequest
} from "../../src/index.ts"

const shell = `<!doctype html><html><head><title>App</title></head><body><div id="root"></div><script src="/app.js"></script></body></html>`
const article = `<!doctype html><html><head><title>Article</title><script src="/analytics.js"></script></head><body><article><h1>Tides</h1><p>${"Real text of a real article about tides. ".repeat(40)}</p></article></body></html>`

let server: Server
let base = ""

beforeAll(async () => {
  server = createServer((request, response) => {
    if (request.url === "/data.json") return void response.writeHead(200, { "content-type": "application/json" }).end(`{"tide":"high"}`)
    response.writeHead(200, { "content-type": "text/html; charset=utf-8" })
    response.end(request.url === "/app" ? shell : article)
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
})

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())))

const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47])

/** A browser that renders every page as "Rendered" and produces one output per output action. */
const browserDouble = (calls: Array<BrowserRequest>) =>
  Layer.succeed(BrowserEngine, BrowserEngine.of({
    render: (request) =>
      Effect.sync((): BrowserPage => {
        calls.push(request)
        const json = request.url.endsWith(".json")
        return {
          url: request.url,
          status: 200,
          headers: { "content-type": json ? "application/json" : "text/html; charset=utf-8" },
          contentType: json ? "application/json" : "text/html",
          body: new TextEncoder().encode(`<html><body><main><h1>Rendered</h1><p>Rendered by the browser double.</p></main></body></html>`),
          outputs: request.actions.flatMap((action, index): Array<ActionOutput> =>
            action.type === "screenshot" ? [{ _tag: "Screenshot" as const, index, file: { bytes: png, contentType: "image/png" } }]
            : action.type === "executeJavascript" ? [{ _tag: "JavascriptReturn" as const, index, type: "number", value: 42 }]
            : action.type === "scrape" ? [{ _tag: "Scrape" as const, index, url: request.url, html: "<p>snap</p>" }]
            : action.type === "pdf" ? [{ _tag: "Pdf" as const, index, file: { bytes: new Uint8Array([0x25, 0x50]), contentType: "application/pdf" } }]
            : []
          ),
          screenshot: request.screenshot === undefined ? undefined : { bytes: png, contentType: "image/png" }
        }
      })
  }))

const scrape = (raw: unknown, calls: Array<BrowserRequest>) =>
  Effect.runPromise(
    Effect.flatMap(validateScrapeRequest(raw), (request) => Pipeline.use((p) => p.scrape(request))).pipe(
      Effect.provide(Pipeline.layer.pipe(Layer.provide([Fetcher.layerWith({ allowPrivate: true }), DocumentReaders.layer([]), browserDouble(calls)])))
    )
  )

const scrapeFailure = (raw: unknown) =>
  Effect.runPromise(
    Effect.flatMap(validateScrapeRequest(raw), (request) => Pipeline.use((p) => p.scrape(request))).pipe(
      Effect.flip,
      Effect.provide(Pipeline.layer.pipe(Layer.provide([Fetcher.layerWith({ allowPrivate: true }), DocumentReaders.layer([])])))
    )
  ).then((error: ScrapeError) => error.reason)

describe("engine choice", () => {
  it("keeps a page that shows its content with the fetch engine", async () => {
    const calls: Array<BrowserRequest> = []
    const data = await scrape({ url: `${base}/article` }, calls)
    expect(calls).toEqual([])
    expect(data.metadata?.engine).toBe("fetch")
    expect(data.markdown).toContain("Real text of a real article")
  })

  it("renders a page that needs JavaScript in the browser, without being asked", async () => {
    const calls: Array<BrowserRequest> = []
    const data = await scrape({ url: `${base}/app` }, calls)
    expect(calls.map((c) => c.url)).toEqual([`${base}/app`])
    expect(data.metadata?.engine).toBe("browser")
    expect(data.markdown).toContain("Rendered by the browser double.")
  })

  it("goes straight to the browser for options that need it, with the request's settings", async () => {
    const calls: Array<BrowserRequest> = []
    const data = await scrape({ url: `${base}/article`, mobile: true, waitFor: 100, location: { country: "DE" }, formats: ["markdown", { type: "screenshot", fullPage: true }] }, calls)
    expect(calls).toHaveLength(1)
    expect(calls[0]).toMatchObject({ mobile: true, waitFor: 100, location: { country: "DE" }, screenshot: { fullPage: true } })
    expect(data.metadata?.engine).toBe("browser")
    expect(data.screenshot).toBe(`data:image/png;base64,${Buffer.from(png).toString("base64")}`)
    expect(data.actions).toBeUndefined()
  })

  it("sends a profile's scrape to the browser even for a page the fetch engine serves, with the profile's name", async () => {
    const calls: Array<BrowserRequest> = []
    const data = await scrape({ url: `${base}/article`, profile: { name: "shop", saveChanges: false } }, calls)
    expect(calls).toHaveLength(1)
    expect(calls[0].profile).toEqual({ name: "shop" })
    expect(data.metadata?.engine).toBe("browser")
    expect(data.markdown).toContain("Rendered by the browser double.")
  })

  it("sends branding to the browser, and answers null with a warning when the page gave no style samples", async () => {
    const calls: Array<BrowserRequest> = []
    const data = await scrape({ url: `${base}/article`, formats: ["markdown", "branding"] }, calls)
    expect(calls[0]).toMatchObject({ branding: true })
    expect(data.metadata?.engine).toBe("browser")
    expect(data.branding).toBeNull()
    expect(data.warning).toContain("branding: the browser returned no style samples")
  })

  it("answers branding null with a warning for a file the browser handed to the fetch engine", async () => {
    const data = await scrape({ url: `${base}/data.json`, formats: ["markdown", "branding"] }, [])
    expect(data.markdown).toContain("tide")
    expect(data.branding).toBeNull()
    expect(data.warning).toContain("branding: the URL is a file, not a web page")
  })

  it("returns what the actions produced in action order, as data.actions", async () => {
    const calls: Array<BrowserRequest> = []
    const data = await scrape({
      url: `${base}/article`,
      actions: [{ type: "screenshot" }, { type: "click", selector: "a" }, { type: "executeJavascript", script: "return 42" }, { type: "scrape" }, { type: "pdf" }, { type: "screenshot" }]
    }, calls)
    expect(data.actions?.screenshots).toHaveLength(2)
    expect(data.actions?.javascriptReturns).toEqual([{ type: "number", value: 42 }])
    expect(data.actions?.scrapes).toEqual([{ url: `${base}/article`, html: "<p>snap</p>" }])
    expect(data.actions?.pdfs[0]).toMatch(/^data:application\/pdf;base64,/)
  })

  it("leaves data.actions out when the actions produced nothing", async () => {
    const data = await scrape({ url: `${base}/article`, actions: [{ type: "click", selector: "a" }] }, [])
    expect(data.actions).toBeUndefined()
    expect(data.metadata?.engine).toBe("browser")
  })

  it("refuses the options that need a browser when there is none, naming them", async () => {
    for (const [request, option] of [
      [{ actions: [{ type: "wait", milliseconds: 10 }] }, "actions"],
      [{ formats: ["screenshot"] }, "formats: screenshot"],
      [{ formats: ["branding"] }, "formats: branding"],
      [{ waitFor: 100 }, "waitFor"],
      [{ mobile: true }, "mobile"],
      [{ profile: { name: "shop" } }, "profile"]
    ] as const) {
      const reason = await scrapeFailure({ url: `${base}/article`, ...request })
      expect(reason._tag).toBe("NotSupported")
      expect(reason.message).toContain(option)
    }
  })

  it("admit refuses up front what scrape refuses without a browser, and lets it through with one", async () => {
    const admit = (browser: Array<Layer.Layer<BrowserEngine>>) =>
      Effect.runPromise(
        Effect.flatMap(validateScrapeRequest({ url: `${base}/article`, profile: { name: "shop" }, mobile: true }), (request) => Pipeline.use((p) => p.admit(request))).pipe(
          Effect.result,
          Effect.provide(Pipeline.layer.pipe(Layer.provide([Fetcher.layerWith({ allowPrivate: true }), DocumentReaders.layer([]), ...browser])))
        )
      )
    const refused = await admit([])
    assert(Result.isFailure(refused))
    expect(refused.failure.reason._tag).toBe("NotSupported")
    expect(refused.failure.message).toContain("(mobile, profile)")
    const calls: Array<BrowserRequest> = []
    expect(Result.isSuccess(await admit([browserDouble(calls)]))).toBe(true)
    expect(calls).toEqual([])
  })

  it("without a browser, serves a page that needs JavaScript as fetched", async () => {
    const data = await Effect.runPromise(
      Effect.flatMap(validateScrapeRequest({ url: `${base}/app`, formats: ["rawHtml"] }), (request) => Pipeline.use((p) => p.scrape(request))).pipe(
        Effect.provide(Pipeline.layer.pipe(Layer.provide([Fetcher.layerWith({ allowPrivate: true }), DocumentReaders.layer([])])))
      )
    )
    expect(data.metadata?.engine).toBe("fetch")
    expect(data.rawHtml).toContain(`<div id="root"></div>`)
  })

  it("serves the page as fetched with a warning when the browser fails on a page that needs JavaScript", async () => {
    const crashing = Layer.succeed(BrowserEngine, BrowserEngine.of({
      render: () => Effect.fail(scrapeError(new BrowserFailed({ kind: "crashed", message: "Chromium exited while rendering" })))
    }))
    const data = await Effect.runPromise(
      Effect.flatMap(validateScrapeRequest({ url: `${base}/app`, formats: ["rawHtml"] }), (request) => Pipeline.use((p) => p.scrape(request))).pipe(
        Effect.provide(Pipeline.layer.pipe(Layer.provide([Fetcher.layerWith({ allowPrivate: true }), DocumentReaders.layer([]), crashing])))
      )
    )
    expect(data.metadata?.engine).toBe("fetch")
    expect(data.rawHtml).toContain(`<div id="root"></div>`)
    expect(data.warning).toContain("may need JavaScript")
    expect(data.warning).toContain("Chromium exited while rendering")
  })

  it("fails with the timeout when the browser runs out of time on a page that needs JavaScript", async () => {
    const late = Layer.succeed(BrowserEngine, BrowserEngine.of({
      render: () => Effect.fail(scrapeError(new TimedOut({ message: "navigation ran past the deadline" })))
    }))
    const reason = await Effect.runPromise(
      Effect.flatMap(validateScrapeRequest({ url: `${base}/app` }), (request) => Pipeline.use((p) => p.scrape(request))).pipe(
        Effect.flip,
        Effect.provide(Pipeline.layer.pipe(Layer.provide([Fetcher.layerWith({ allowPrivate: true }), DocumentReaders.layer([]), late])))
      )
    )
    expect(reason.reason._tag).toBe("TimedOut")
  })
})
