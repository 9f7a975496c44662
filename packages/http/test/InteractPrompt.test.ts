/**
 * `prompt` on `POST /v2/scrape/{scrapeId}/interact`: not run yet, refused with 400 by a message
 * true to the server: "no language model is configured" without one, "not implemented" with one
 * (from `STRATA_LLM_BASE_URL` or the `languageModel` option), and the model is not asked. The
 * refusal comes before any session, so the browser engine is on but Chromium never starts.
 */
import { OpenAiCompatible } from "@strata/core"
import { ConfigProvider, Layer } from "effect"
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startTestServer, tempDir, type TestServer } from "./support.ts"

const KEY = "prompt-key"

/** A language model endpoint that counts what it is asked: the refusals must ask it nothing. */
let model: Server
let modelUrl = ""
let modelHits = 0
const servers: Array<TestServer> = []

/** A server with the browser on and the language model from `env` (the server's defaults) or `languageModel`. */
const serverWith = async (env: Record<string, string>, languageModel?: "option") => {
  const { Strata } = await import("strata")
  const pipeline = Strata.layer({
    browser: { concurrency: 1, dataDir: tempDir("strata-prompt-profiles-") },
    ocr: false,
    isolation: false,
    ...(languageModel === "option" ? { languageModel: OpenAiCompatible.layer({ baseUrl: modelUrl, model: "fake-model", maxRetries: 0 }) } : {})
  }).pipe(Layer.provide(ConfigProvider.layer(ConfigProvider.fromEnv({ env }))))
  const server = await startTestServer(pipeline, { apiKeys: [KEY] })
  servers.push(server)
  return server
}

const prompt = async (server: TestServer) => {
  const response = await fetch(`${server.url}/v2/scrape/${crypto.randomUUID()}/interact`, {
    method: "POST",
    headers: { authorization: `Bearer ${KEY}`, "content-type": "application/json" },
    body: JSON.stringify({ prompt: "Click the add button" })
  })
  return { status: response.status, body: await response.json() as Record<string, unknown> }
}

beforeAll(async () => {
  model = createServer((_request, response) => {
    modelHits++
    response.writeHead(500).end()
  })
  await new Promise<void>((resolve) => model.listen(0, "127.0.0.1", resolve))
  modelUrl = `http://127.0.0.1:${(model.address() as AddressInfo).port}/v1`
})

afterAll(async () => {
  for (const server of servers) await server.close()
  model?.closeAllConnections()
  await new Promise((resolve) => model?.close(resolve))
})

describe("interact prompt", () => {
  it("says no language model is configured when none is", async () => {
    const reply = await prompt(await serverWith({}))
    expect(reply.status).toBe(400)
    expect(reply.body).toMatchObject({ success: false, code: "BAD_REQUEST" })
    expect(reply.body.error).toContain("`prompt` is not supported by this server yet: no language model is configured")
    expect(reply.body.error).toContain("Send `code`")
  })

  it("says prompt-driven interaction is not implemented when a model is configured, and asks the model nothing", async () => {
    for (const server of [await serverWith({ STRATA_LLM_BASE_URL: modelUrl }), await serverWith({}, "option")]) {
      const reply = await prompt(server)
      expect(reply.status).toBe(400)
      expect(reply.body).toMatchObject({ success: false, code: "BAD_REQUEST" })
      expect(reply.body.error).toContain("prompt-driven interaction is not implemented, although a language model is configured")
      expect(reply.body.error).not.toContain("no language model")
      expect(reply.body.error).toContain("Send `code`")
    }
    expect(modelHits).toBe(0)
  })
})
