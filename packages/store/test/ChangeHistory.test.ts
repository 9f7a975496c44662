/**
 * changeTracking in the pipeline over the real backends, where the store fails: a history that
 * cannot be read or written leaves `changeTracking` out and says so in `warning`; the page is
 * still an answer, and the next scrape, with the store back, finds nothing was kept.
 */
import {
  DocumentReaders,
  Fetcher,
  Pipeline,
  Store,
  StoreError,
  StoreUnavailable,
  validateScrapeRequest
} from "@strata/core"
import { Effect, Layer } from "effect"
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { backends, setup, teardown } from "./support/Backends.ts"

let site: Server
let base = ""

beforeAll(async () => {
  await setup()
  site = createServer((_request, response) => {
    response.writeHead(200, { "content-type": "text/html; charset=utf-8" })
    response.end(`<html><head><title>Tides</title></head><body><main><h1>Tides</h1><p>High water at 06:12.</p></main></body></html>`)
  })
  await new Promise<void>((resolve) => site.listen(0, "127.0.0.1", resolve))
  base = `http://127.0.0.1:${(site.address() as AddressInfo).port}`
}, 120_000)

afterAll(async () => {
  teardown()
  site.closeAllConnections()
  await new Promise((resolve) => site.close(resolve))
})

describe.each(backends)("changeTracking over $name when the store fails", (backend) => {
  it("answers the page without changeTracking, with a warning, and keeps nothing", async () => {
    let down = true
    const database = backend.database()
    // The real store, its swap failing while `down` holds, as a database that went away mid-request.
    const flaky = Layer.effect(Store, Effect.map(Effect.service(Store), (store) => Store.of({
      ...store,
      changeSwap: (key, next) =>
        down
          ? Effect.fail(new StoreError({ reason: new StoreUnavailable({ operation: "changeSwap", message: "connection refused" }) }))
          : store.changeSwap(key, next)
    }))).pipe(Layer.provide(database.open()))
    const url = `${base}/tides-${backend.name}`
    const formats = ["markdown", { type: "changeTracking", modes: ["git-diff"] }]
    const data = await Effect.runPromise(
      Effect.gen(function*() {
        const pipeline = yield* Pipeline
        const scrape = Effect.flatMap(validateScrapeRequest({ url, formats }), pipeline.scrape)
        const failed = yield* scrape
        down = false
        const after = yield* scrape
        return { failed, after }
      }).pipe(
        Effect.provide(Pipeline.layer.pipe(Layer.provide([Fetcher.layerWith({ allowPrivate: true }), DocumentReaders.layer([]), flaky])))
      )
    )
    expect(data.failed.markdown).toContain("High water at 06:12.")
    expect(data.failed.changeTracking).toBeUndefined()
    expect(data.failed.warning).toContain("changeTracking: the page's history could not be read or written (connection refused)")
    expect(data.after.changeTracking?.changeStatus).toBe("new")
    expect(data.after.warning).toBeUndefined()
  })
})
