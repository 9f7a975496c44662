/**
 * The text-derived formats (summary, question -> answer, highlights, json) end to end: the real
 * pipeline behind the real server, scraping pages served on loopback. Offline (no model) and
 * through a small OpenAI-compatible server started here, which records every request and answers
 * as each test scripts it: well, with invalid JSON, with 429, or too late.
 */
import Firecrawl from "@mendable/firecrawl-js"
import { OpenAiCompatible } from "@strata/core"
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest"
import { startTestServer, type TestServer } from "./support.ts"

const KEY = "derived-key"

const ARTICLE = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>The Harbour Lighthouse</title>
  <meta name="description" content="History of the harbour lighthouse.">
  <meta property="og:site_name" content="Coastal Heritage">
  <script type="application/ld+json">{"@context":"https://schema.org","@type":"Article","headline":"The Harbour Lighthouse","author":{"@type":"Person","name":"Mara Quint"},"datePublished":"2024-05-02"}</script>
</head>
<body>
  <main><article>
    <h1>The Harbour Lighthouse</h1>
    <p>The harbour lighthouse was built in 1889 to guide fishing boats past the northern reef. It stands 34 metres tall and its lamp can be seen from 22 nautical miles away.</p>
    <p>The tower was designed by the engineer Alan Stevenson, who also designed several lighthouses in Scotland. Its keepers lived in a cottage at the foot of the tower until the light was automated in 1968.</p>
    <p>Today the lighthouse is a museum. Visitors can climb the 127 steps to the lantern room between April and October.</p>
    <table><tr><th>Height</th><td>34 m</td></tr><tr><th>Range</th><td>22 nautical miles</td></tr></table>
  </article></main>
</body>
</html>`

const CONTACT = `<!doctype html><html><head><title>Contact</title>
<script type="application/ld+json">{"@context":"https://schema.org","@type":"Person","name":"Jane Doe","email":"jane.doe@example.com","telephone":"+1 415 555 0132"}</script>
</head><body><main><h1>Contact us</h1><p>Write to the harbour office for visits and group tours of the lighthouse.</p></main></body></html>`

interface Recorded {
  readonly body: Record<string, unknown>
  readonly authorization: string | undefined
}

type Reply = (response: ServerResponse, body: Record<string, unknown>) => void

const completion = (content: string, usage = { prompt_tokens: 100, completion_tokens: 10 }): Reply => (response) => {
  response.writeHead(200, { "content-type": "application/json" })
  response.end(JSON.stringify({ id: "c1", model: "fake-model-1", choices: [{ index: 0, message: { role: "assistant", content } }], usage }))
}

let site: Server
let siteUrl: string
let fake: Server
let fakeUrl: string
let recorded: Array<Recorded> = []
/** Replies for the next requests, in order; after them, `fallbackReply`. */
let script: Array<Reply> = []
const fallbackReply: Reply = (response, body) => {
  const system = String((body.messages as Array<{ content: string }>)[0]?.content ?? "")
  if (system.includes("summarise")) return completion("A lighthouse built in 1889, now a museum.")(response, body)
  if (system.includes("Answer the question")) return completion("1889")(response, body)
  return completion("{}")(response, body)
}

let offline: TestServer
let withModel: TestServer
let slowModel: TestServer

const readBody = (request: IncomingMessage) =>
  new Promise<string>((resolve) => {
    const parts: Array<Buffer> = []
    request.on("data", (chunk: Buffer) => parts.push(chunk))
    request.on("end", () => resolve(Buffer.concat(parts).toString("utf8")))
  })

beforeAll(async () => {
  site = createServer((request, response) => {
    response.writeHead(200, { "content-type": "text/html; charset=utf-8" })
    response.end(request.url === "/contact" ? CONTACT : ARTICLE)
  })
  await new Promise<void>((resolve) => site.listen(0, "127.0.0.1", resolve))
  siteUrl = `http://127.0.0.1:${(site.address() as AddressInfo).port}/lighthouse`

  fake = createServer(async (request, response) => {
    const body = JSON.parse(await readBody(request)) as Record<string, unknown>
    recorded.push({ body, authorization: request.headers.authorization })
    const reply = script.shift() ?? fallbackReply
    reply(response, body)
  })
  await new Promise<void>((resolve) => fake.listen(0, "127.0.0.1", resolve))
  fakeUrl = `http://127.0.0.1:${(fake.address() as AddressInfo).port}/v1`

  const { Strata } = await import("strata")
  const base = { browser: false, isolation: false, fetch: { allowPrivateUrls: true } } as const
  offline = await startTestServer(Strata.layer({ ...base, languageModel: false }), { apiKeys: [KEY] })
  withModel = await startTestServer(
    Strata.layer({
      ...base,
      languageModel: OpenAiCompatible.layer({ baseUrl: fakeUrl, apiKey: "sk-test", model: "fake-model", timeoutMs: 5000, maxRetries: 2, backoffMs: 10 })
    }),
    { apiKeys: [KEY] }
  )
  slowModel = await startTestServer(
    Strata.layer({
      ...base,
      languageModel: OpenAiCompatible.layer({ baseUrl: fakeUrl, model: "fake-model", timeoutMs: 300, maxRetries: 0 })
    }),
    { apiKeys: [KEY] }
  )
})

afterAll(async () => {
  await Promise.all([offline?.close(), withModel?.close(), slowModel?.close()])
  for (const server of [site, fake]) {
    server?.closeAllConnections()
    await new Promise((resolve) => server?.close(resolve))
  }
})

beforeEach(() => {
  recorded = []
  script = []
})

const scrape = async (server: TestServer, body: Record<string, unknown>) => {
  const response = await fetch(`${server.url}/v2/scrape`, {
    method: "POST",
    headers: { authorization: `Bearer ${KEY}`, "content-type": "application/json" },
    body: JSON.stringify({ url: siteUrl, ...body })
  })
  return { status: response.status, body: (await response.json()) as { success: boolean; data: Record<string, any>; code?: string; error?: string } }
}

describe("derived formats offline (no language model)", () => {
  it("summarises, answers, highlights and fills a schema from the page alone", async () => {
    const { status, body } = await scrape(offline, {
      formats: [
        "summary",
        { type: "question", question: "When was the lighthouse built?" },
        { type: "highlights", query: "museum visitors steps" },
        { type: "json", schema: { type: "object", properties: { headline: { type: "string" }, author: { type: "string" }, height: { type: "string" }, keeperName: { type: "string" } } } }
      ]
    })
    expect(status).toBe(200)
    const data = body.data
    expect(data.markdown).toBeUndefined()
    expect(data.summary).toContain("The harbour lighthouse was built in 1889")
    expect(data.answer).toBe("1889")
    expect(data.highlights).toBe("Today the lighthouse is a museum.\n\nVisitors can climb the 127 steps to the lantern room between April and October.")
    expect(data.json).toEqual({ headline: "The Harbour Lighthouse", author: "Mara Quint", height: "34 m" })
    expect(data.warning).toContain("json: no value found on the page for keeperName")
    expect(data.metadata).toMatchObject({ summaryBy: "extractive", answerBy: "extractive", highlightsBy: "extractive", jsonBy: "structured-data" })
    expect(data.metadata.llmCalls).toBeUndefined()
  })

  it("works through the official SDK, unchanged", async () => {
    const firecrawl = new Firecrawl({ apiKey: KEY, apiUrl: offline.url })
    const document = await firecrawl.scrape(siteUrl, {
      formats: [
        "summary",
        { type: "question", question: "Who designed the tower?" },
        { type: "highlights", query: "lantern room" },
        { type: "json", schema: { type: "object", properties: { headline: { type: "string" }, datePublished: { type: "string" } } } }
      ]
    })
    expect(document.summary).toContain("built in 1889")
    expect(document.answer).toBe("Alan Stevenson")
    expect(document.highlights).toContain("lantern room")
    expect(document.json).toEqual({ headline: "The Harbour Lighthouse", datePublished: "2024-05-02" })
    expect(document.metadata?.summaryBy).toBe("extractive")
  })

  it("answers a quantity with its unit, and keeps markdown when it is asked for too", async () => {
    const { body } = await scrape(offline, { formats: ["markdown", { type: "question", question: "How many steps lead to the lantern room?" }] })
    expect(body.data.answer).toBe("127 steps")
    expect(body.data.markdown).toContain("# The Harbour Lighthouse")
  })

  it("gives no answer, with a warning, when nothing on the page matches", async () => {
    const { status, body } = await scrape(offline, { formats: [{ type: "question", question: "What is the capital of Peru?" }] })
    expect(status).toBe(200)
    expect(body.data.answer).toBeNull()
    expect(body.data.warning).toContain("answer: nothing on the page answers the question")
  })

  it("json read from the page's HTML goes through redactPII like the markdown", async () => {
    const schema = { type: "object", properties: { name: { type: "string" }, email: { type: "string" }, telephone: { type: "string" } } }
    const url = siteUrl.replace("/lighthouse", "/contact")
    const plain = await scrape(offline, { url, formats: [{ type: "json", schema }] })
    expect(plain.body.data.json).toEqual({ name: "Jane Doe", email: "jane.doe@example.com", telephone: "+1 415 555 0132" })
    const redacted = await scrape(offline, { url, redactPII: true, formats: [{ type: "json", schema }] })
    expect(redacted.status).toBe(200)
    const text = JSON.stringify(redacted.body.data.json)
    expect(text).not.toContain("jane.doe@example.com")
    expect(text).not.toContain("555 0132")
    expect(redacted.body.data.json.email).toBeTypeOf("string")
  })

  it("refuses a json format with neither schema nor prompt, and a blank question, with 400", async () => {
    const json = await scrape(offline, { formats: [{ type: "json" }] })
    expect(json.status).toBe(400)
    expect(json.body.success).toBe(false)
    const blank = await scrape(offline, { formats: [{ type: "question", question: "  " }] })
    expect(blank.status).toBe(400)
    const long = "x".repeat(10_001)
    for (const format of [{ type: "question", question: long }, { type: "highlights", query: long }, { type: "json", prompt: long }]) {
      const reply = await scrape(offline, { formats: [format] })
      expect(reply.status).toBe(400)
      expect(reply.body.success).toBe(false)
    }
    expect((await scrape(offline, { formats: [{ type: "question", question: "x".repeat(10_000) }] })).status).toBe(200)
  })
})

describe("derived formats through an OpenAI-compatible model", () => {
  it("sends the model, the page and the schema, and reports which path and how many tokens", async () => {
    const schema = { type: "object", properties: { builtIn: { type: "integer" }, designer: { type: "string" } }, required: ["builtIn"] }
    const jsonReply = completion(JSON.stringify({ builtIn: 1889, designer: "Alan Stevenson" }))
    const replies = new Map<string, Reply>([["Extract", jsonReply]])
    script = Array.from({ length: 3 }, () => (response: ServerResponse, body: Record<string, unknown>) => {
      const system = String((body.messages as Array<{ content: string }>)[0]?.content ?? "")
      return (system.startsWith("Extract") ? replies.get("Extract")! : fallbackReply)(response, body)
    })
    const { status, body } = await scrape(withModel, {
      formats: ["summary", { type: "question", question: "When was it built?" }, { type: "json", schema, prompt: "when it was built and by whom" }]
    })
    expect(status).toBe(200)
    expect(body.data.summary).toBe("A lighthouse built in 1889, now a museum.")
    expect(body.data.answer).toBe("1889")
    expect(body.data.json).toEqual({ builtIn: 1889, designer: "Alan Stevenson" })
    expect(body.data.warning).toBeUndefined()
    expect(body.data.metadata).toMatchObject({
      summaryBy: "model",
      answerBy: "model",
      jsonBy: "model",
      llmModel: "fake-model",
      llmCalls: 3,
      llmPromptTokens: 300,
      llmCompletionTokens: 30
    })
    expect(recorded).toHaveLength(3)
    for (const request of recorded) {
      expect(request.body.model).toBe("fake-model")
      expect(request.authorization).toBe("Bearer sk-test")
      expect(typeof request.body.max_tokens).toBe("number")
      const user = String((request.body.messages as Array<{ role: string; content: string }>)[1]?.content)
      expect(user).toContain("It stands 34 metres tall")
      expect(user).toContain(`url="${siteUrl}"`)
    }
    const jsonRequest = recorded.find((r) => String((r.body.messages as Array<{ content: string }>)[0]?.content).startsWith("Extract"))!
    expect(jsonRequest.body.response_format).toEqual({ type: "json_schema", json_schema: { name: "extraction", schema, strict: false } })
    expect(String((jsonRequest.body.messages as Array<{ content: string }>)[0]?.content)).toContain("when it was built and by whom")
  })

  it("repairs invalid JSON once by asking again with the problem", async () => {
    script = [completion("Sure! Here is the data: {builtIn: eighteen-eighty-nine"), completion("```json\n{\"builtIn\": 1889}\n```")]
    const schema = { type: "object", properties: { builtIn: { type: "integer" } } }
    const { body } = await scrape(withModel, { formats: [{ type: "json", schema }] })
    expect(body.data.json).toEqual({ builtIn: 1889 })
    expect(recorded).toHaveLength(2)
    const repair = recorded[1]!.body.messages as Array<{ content: string }>
    expect(repair[0]!.content).toContain("repair JSON")
    expect(repair[1]!.content).toContain("{builtIn: eighteen-eighty-nine")
    expect(repair[1]!.content).toContain("not valid JSON")
    expect(body.data.metadata).toMatchObject({ jsonBy: "model", llmCalls: 2 })
  })

  it("asks again with json_object, then text, when the endpoint refuses structured output", async () => {
    const refuse: Reply = (response) => {
      response.writeHead(400, { "content-type": "application/json" })
      response.end(JSON.stringify({ error: { message: "response_format json_schema is not supported" } }))
    }
    script = [refuse, refuse, completion("{\"builtIn\": 1889}")]
    const schema = { type: "object", properties: { builtIn: { type: "integer" } } }
    const { body } = await scrape(withModel, { formats: [{ type: "json", schema }] })
    expect(recorded.map((r) => (r.body.response_format as { type?: string } | undefined)?.type)).toEqual(["json_schema", "json_object", undefined])
    expect(String((recorded[2]!.body.messages as Array<{ content: string }>)[0]!.content)).toContain(JSON.stringify(schema))
    expect(body.data.json).toEqual({ builtIn: 1889 })
    expect(body.data.metadata.jsonBy).toBe("model")
  })

  it("says so when checkPromptInjection is asked for, since nothing screens the page", async () => {
    script = [completion("{\"builtIn\": 1889}")]
    const { body } = await scrape(withModel, { formats: [{ type: "json", schema: { type: "object", properties: { builtIn: { type: "integer" } } }, checkPromptInjection: true }] })
    expect(body.data.json).toEqual({ builtIn: 1889 })
    expect(body.data.warning).toContain("json: checkPromptInjection is not implemented by this server")
  })

  it("keeps what is still invalid after the repair, and says so in warning", async () => {
    script = [completion("{\"builtIn\": \"long ago\"}"), completion("{\"builtIn\": \"still long ago\"}")]
    const schema = { type: "object", properties: { builtIn: { type: "integer" } } }
    const { body } = await scrape(withModel, { formats: [{ type: "json", schema }] })
    expect(recorded).toHaveLength(2)
    expect(String((recorded[1]!.body.messages as Array<{ content: string }>)[1]!.content)).toContain("$.builtIn: expected integer, got string")
    expect(body.data.json).toEqual({ builtIn: "still long ago" })
    expect(body.data.warning).toContain("json: does not fit the schema after one repair: $.builtIn: expected integer, got string")
  })

  it("tries again after 429, honouring Retry-After", async () => {
    script = [
      (response) => {
        response.writeHead(429, { "content-type": "application/json", "retry-after": "0" })
        response.end(JSON.stringify({ error: { message: "slow down" } }))
      },
      completion("A lighthouse built in 1889, now a museum.")
    ]
    const { body } = await scrape(withModel, { formats: ["summary"] })
    expect(recorded).toHaveLength(2)
    expect(body.data.summary).toBe("A lighthouse built in 1889, now a museum.")
    expect(body.data.metadata.summaryBy).toBe("model")
  })

  it("does not retry a 400 from the endpoint, and falls back to the offline path with a warning", async () => {
    script = [(response) => {
      response.writeHead(400, { "content-type": "application/json" })
      response.end(JSON.stringify({ error: { message: "unknown model" } }))
    }]
    const { status, body } = await scrape(withModel, { formats: [{ type: "question", question: "When was the lighthouse built?" }] })
    expect(status).toBe(200)
    expect(recorded).toHaveLength(1)
    expect(body.data.answer).toBe("1889")
    expect(body.data.metadata.answerBy).toBe("extractive")
    expect(body.data.warning).toContain("answer: the language model failed (the language model endpoint answered 400")
  })

  it("keeps only the highlights that occur in the page", async () => {
    script = [completion(JSON.stringify({
      highlights: ["Today the lighthouse is a museum.", "The lighthouse was painted red in 2001."]
    }))]
    const { body } = await scrape(withModel, { formats: [{ type: "highlights", query: "what is it now" }] })
    expect(recorded[0]!.body.response_format).toEqual({ type: "json_object" })
    expect(body.data.highlights).toBe("Today the lighthouse is a museum.")
    expect(body.data.warning).toContain("highlights: 1 quoted sentence(s) not found on the page were dropped")
  })

  it("sends nothing to the model under zero data retention: the offline paths answer", async () => {
    const { status, body } = await scrape(withModel, { zeroDataRetention: true, formats: ["summary", { type: "question", question: "When was the lighthouse built?" }] })
    expect(status).toBe(200)
    expect(recorded).toHaveLength(0)
    expect(body.data.answer).toBe("1889")
    expect(body.data.metadata).toMatchObject({ summaryBy: "extractive", answerBy: "extractive" })
    expect(body.data.metadata.llmCalls).toBeUndefined()
    expect(body.data.warning).toContain("zero data retention: the page was not sent to the language model")
  })

  it("gives the model only what the request's timeout leaves, then answers offline within it", async () => {
    script = [(response) => {
      const timer = setTimeout(() => completion("too late")(response, {}), 4000)
      response.on("close", () => clearTimeout(timer))
    }]
    const started = Date.now()
    const { status, body } = await scrape(withModel, { timeout: 2500, formats: ["summary"] })
    expect(status).toBe(200)
    expect(Date.now() - started).toBeLessThan(2500)
    expect(body.data.summary).toContain("The harbour lighthouse was built in 1889")
    expect(body.data.metadata.summaryBy).toBe("extractive")
    expect(body.data.warning).toMatch(/summary: the language model failed \(the request's timeout left it \d+ ms\)/)
  })

  it("a model that does not answer in time gives the offline summary and a warning naming the time-out", async () => {
    script = [(response) => {
      const timer = setTimeout(() => completion("too late")(response, {}), 3000)
      response.on("close", () => clearTimeout(timer))
    }]
    const started = Date.now()
    const { status, body } = await scrape(slowModel, { formats: ["summary"] })
    expect(status).toBe(200)
    expect(Date.now() - started).toBeLessThan(2500)
    expect(body.data.summary).toContain("The harbour lighthouse was built in 1889")
    expect(body.data.metadata.summaryBy).toBe("extractive")
    expect(body.data.warning).toContain("summary: the language model failed (the language model did not answer within 300 ms)")
  })
})
