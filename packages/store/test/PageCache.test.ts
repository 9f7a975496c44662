/**
 * The pipeline's page cache over the real backends (SQLite and Postgres), with a browser engine
 * double: a browser-rendered page is kept with its engine and served from the store without the
 * browser; a page the automatic choice sent to a browser that then crashed comes back as fetched,
 * with a warning, and is not kept (the next scrape tries again).
 */
import {
  BrowserEngine,
  BrowserFailed,
  type BrowserRequest,
  cacheKey,
  DocumentReaders,
  Fetcher,
  Pipeline,
  type ScrapeData,
  scrapeError,
  Store,
  validateScrapeRequest
} from "@strata/core"
import { Effect, Layer, Option } from "effect"
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { backends, setup, teardown } from "./support/Backends.ts"

const shell = `<!doctype html><html><head><title>App</title></head><body><div id="root"></div><script src="/app.js"></script></body></html>`

let site: Server
let base = ""
const hits = new Map<string, number>()

beforeAll(async () => {
  await setup()
  site = createServer((request, response) => {
    hits.set(request.url ?? "/", (hits.get(request.url ?? "/") ?? 0) + 1)
    response.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(shell)
  })
  await new Promise<void>((resolve) => site.listen(0, "127.0.0.1", resolve))
  base = `http://127.0.0.1:${(site.address() as AddressInfo).port}`
}, 120_000)

afterAll(async () => {
  teardown()
  await new Promise((resolve) => site?.close(resolve))
})

/** Renders every page as the app would, or fails as a crashed Chromium does. */
const browser = (calls: Array<BrowserRequest>, crash: () => boolean) =>
  Layer.succeed(BrowserEngine, BrowserEngine.of({
    render: (request) =>
      crash()
        ? Effect.fail(scrapeError(new BrowserFailed({ kind: "crashed", message: "Chromium exited while rendering" })))
        : Effect.sync(() => {
          calls.push(request)
          return {
            url: request.url,
            status: 200,
            headers: { "content-type": "text/html; charset=utf-8" },
            contentType: "text/html",
            body: new TextEncoder().encode(`<html><body><main><h1>Rendered</h1><p>The app's own text, rendered in the browser.</p></main></body></html>`),
            outputs: []
          }
        })
  }))

describe.each(backends)("the page cache over $name", (backend) => {
  const run = <A>(
    crash: () => boolean,
    calls: Array<BrowserRequest>,
    body: (scrape: (url: string) => Effect.Effect<ScrapeData, unknown>, store: Store["Service"]) => Effect.Effect<A, unknown>
  ) =>
    Effect.runPromise(
      Effect.gen(function*() {
        const pipeline = yield* Pipeline
        const store = yield* Store
        const scrape = (url: string) => Effect.flatMap(validateScrapeRequest({ url, formats: ["markdown"] }), pipeline.scrape)
        return yield* body(scrape, store)
      }).pipe(
        Effect.provide(Pipeline.layer.pipe(
          Layer.provide([Fetcher.layerWith({ allowPrivate: true }), DocumentReaders.layer([]), browser(calls, crash)]),
          Layer.provideMerge(backend.fresh())
        ))
      )
    )

  const rowOf = (store: Store["Service"], url: string) =>
    Effect.flatMap(validateScrapeRequest({ url }), (request) => store.cacheGet(cacheKey(request)))

  it("keeps a browser-rendered page and serves it without the browser", async () => {
    const calls: Array<BrowserRequest> = []
    const url = `${base}/rendered-${backend.name}`
    await run(() => false, calls, (scrape, store) =>
      Effect.gen(function*() {
        const first = yield* scrape(url)
        expect(first.metadata).toMatchObject({ engine: "browser", cacheState: "miss" })
        let row = yield* rowOf(store, url)
        for (let i = 0; Option.isNone(row) && i < 100; i++) {
          yield* Effect.sleep(20)
          row = yield* rowOf(store, url)
        }
        expect(Option.getOrThrow(row).meta.engine).toBe("browser")
        const second = yield* scrape(url)
        expect(second.metadata).toMatchObject({ engine: "browser", cacheState: "hit" })
        expect(second.markdown).toContain("The app's own text")
      }))
    expect(calls).toHaveLength(1)
    expect(hits.get(`/rendered-${backend.name}`)).toBe(1)
  })

  it("does not keep the fetched page when the browser crashed on it, and says so", async () => {
    const url = `${base}/crashed-${backend.name}`
    await run(() => true, [], (scrape, store) =>
      Effect.gen(function*() {
        const first = yield* scrape(url)
        expect(first.metadata).toMatchObject({ engine: "fetch", cacheState: "miss" })
        expect(first.warning).toContain("may need JavaScript")
        yield* Effect.sleep(300)
        expect(Option.isNone(yield* rowOf(store, url))).toBe(true)
        const second = yield* scrape(url)
        expect(second.metadata?.cacheState).toBe("miss")
      }))
    expect(hits.get(`/crashed-${backend.name}`)).toBe(2)
  })
})
