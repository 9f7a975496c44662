/**
 * The server opens one state store and shares it: a pipeline built by the server gets the very
 * store the keys are checked against (a key it creates there authenticates the next request), and
 * the database closes with the server.
 */
import { defaultTeamId, Pipeline, Store } from "@strata/core"
import { Effect, Layer, Option, Stream } from "effect"
import { describe, expect, it } from "vitest"
import { startTestServer } from "./support.ts"

/** A pipeline whose scrape makes a key in the store it was built with and answers with it. */
const keyMakingPipeline = Layer.effect(
  Pipeline,
  Effect.gen(function*() {
    const store = yield* Effect.serviceOption(Store)
    const scrape = () =>
      Option.match(store, {
        onNone: () => Effect.succeed({ markdown: "no store", metadata: {} }),
        onSome: (store) =>
          store.createKey(defaultTeamId).pipe(
            Effect.map((created) => ({ markdown: created.key, metadata: { backend: store.backend } })),
            Effect.orDie
          )
      })
    return Pipeline.of({
      scrape: scrape as never,
      admit: () => Effect.void,
      parse: () => Effect.die(new Error("not expected")),
      scrapeStream: () => Stream.die(new Error("not expected")),
      parseStream: () => Stream.die(new Error("not expected"))
    })
  })
)

const scrape = (server: string, key: string) =>
  fetch(`${server}/v2/scrape`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${key}` },
    body: JSON.stringify({ url: "https://example.com" })
  })

describe("the server's one store", () => {
  it("is the pipeline's store too: a key the pipeline creates in it authenticates", async () => {
    const server = await startTestServer(keyMakingPipeline, { apiKeys: ["env-key"] })
    try {
      const first = await scrape(server.url, "env-key")
      expect(first.status).toBe(200)
      const body = await first.json() as { data: { markdown: string; metadata: { backend: string } } }
      expect(body.data.metadata.backend).toBe(process.env.STRATA_DATABASE_URL === undefined ? "sqlite" : "pg")
      const created = body.data.markdown
      expect(created).toMatch(/^sk-strata-/)
      expect((await scrape(server.url, created)).status).toBe(200)
      expect((await scrape(server.url, `${created}x`)).status).toBe(401)
    } finally {
      await server.close()
    }
  })
})
