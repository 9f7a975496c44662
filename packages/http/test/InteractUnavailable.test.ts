/**
 * Interact on a server without the browser engine (a pipeline with no `Interactions`): a clear
 * 501 in the contract's error shape, and scrapes go on as before, read from the caller's team.
 */
import { ProfileTeam } from "@strata/core"
import { Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { pipelineDouble, startTestServer, type TestServer } from "./support.ts"

const KEY = "no-browser-key"
let server: TestServer

beforeAll(async () => {
  server = await startTestServer(
    pipelineDouble({
      // The team the scrape runs for, as the browser engine would read it for a profile.
      scrape: () => ProfileTeam.useSync((team) => ({ markdown: team, metadata: { scrapeId: "6d1f6a0e-0000-4000-8000-000000000000" } })),
      parse: () => Effect.succeed({})
    }),
    { apiKeys: [KEY] }
  )
})

afterAll(async () => {
  await server?.close()
})

const call = (method: string, path: string, body?: unknown) =>
  fetch(`${server.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${KEY}`, "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body)
  }).then(async (response) => ({ status: response.status, body: await response.json() as Record<string, any> }))

describe("interact without the browser engine", () => {
  it("answers 501 INTERACT_UNAVAILABLE to POST and DELETE, and scrapes still work", async () => {
    const scraped = await call("POST", "/v2/scrape", { url: "https://example.com/" })
    expect(scraped.status).toBe(200)
    expect(scraped.body.data.markdown).toBe("default")
    for (const method of ["POST", "DELETE"]) {
      const reply = await call(method, "/v2/scrape/6d1f6a0e-0000-4000-8000-000000000000/interact", method === "POST" ? { code: "return 1" } : undefined)
      expect(reply.status).toBe(501)
      expect(reply.body).toMatchObject({ success: false, code: "INTERACT_UNAVAILABLE" })
      expect(reply.body.error).toContain("browser engine")
    }
  })

  it("refuses other methods and deeper paths with the contract's 404", async () => {
    for (const [method, path] of [["GET", "/v2/scrape/x/interact"], ["POST", "/v2/scrape/x/interact/more"], ["POST", "/v2/scrape//interact"]]) {
      const reply = await call(method, path, method === "POST" ? { code: "return 1" } : undefined)
      expect(reply.status, `${method} ${path}`).toBe(404)
      expect(reply.body).toMatchObject({ success: false, code: "NOT_FOUND" })
    }
  })
})
