/**
 * `onlyCleanContent` through a language model, end to end: the real server scrapes a page served
 * on loopback and sends its markdown to a small OpenAI-compatible server started here, which
 * records each request and answers as each test scripts it. A faithful rewrite is used; one that
 * invents text or URLs, a 429, a time-out, and markdown over the model's limits all fall back to
 * the offline classifier with a warning, and `metadata.cleanContentBy` says which path ran.
 */
import { OpenAiCompatible } from "@strata/core"
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest"
import { startTestServer, type TestServer } from "./support.ts"

const KEY = "clean-key"

const paragraph = (n: number) =>
  `<p>The council voted on Tuesday to extend the river path by two kilometres, paying for it from the parks budget. Work on section ${n} begins in spring, and residents say the new stretch will link the old mill to the station.</p>`
const PAGE = `<!doctype html><html><head><title>River path</title></head><body><article>
<h1>River path to grow</h1>${paragraph(1)}
<ul><li>Length: 2 km</li><li>Budget: <a href="https://council.example/parks">parks fund</a></li></ul>
<img src="https://council.example/map.png" alt="Map of the path">
${paragraph(2)}
<p><a href="https://f.example/share">Facebook</a> <a href="https://t.example/share">Twitter</a></p>
</article></body></html>`
const LONG_PAGE = `<!doctype html><html><head><title>Long</title></head><body><article><h1>Long read</h1>${
  Array.from({ length: 40 }, (_, i) => paragraph(i + 1)).join("\n")
}</article></body></html>`

type Reply = (response: ServerResponse, body: Record<string, unknown>) => void

const completion = (content: string): Reply => (response) => {
  response.writeHead(200, { "content-type": "application/json" })
  response.end(JSON.stringify({ id: "c1", model: "fake-model", choices: [{ index: 0, message: { role: "assistant", content } }], usage: { prompt_tokens: 300, completion_tokens: 120 } }))
}
const status429: Reply = (response) => {
  response.writeHead(429, { "content-type": "application/json" })
  response.end(JSON.stringify({ error: { message: "slow down" } }))
}
const never: Reply = () => {
  // No answer: the client's time-out ends it.
}

let site: Server
let siteUrl: string
let fake: Server
let recorded: Array<Record<string, unknown>> = []
let script: Array<Reply> = []
let withModel: TestServer
let smallModel: TestServer
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
    response.end(request.url === "/long" ? LONG_PAGE : PAGE)
  })
  await new Promise<void>((resolve) => site.listen(0, "127.0.0.1", resolve))
  siteUrl = `http://127.0.0.1:${(site.address() as AddressInfo).port}/story`
  fake = createServer(async (request, response) => {
    const body = JSON.parse(await readBody(request)) as Record<string, unknown>
    recorded.push(body)
    ;(script.shift() ?? completion(""))(response, body)
  })
  await new Promise<void>((resolve) => fake.listen(0, "127.0.0.1", resolve))
  const fakeUrl = `http://127.0.0.1:${(fake.address() as AddressInfo).port}/v1`
  const { Strata } = await import("strata")
  const base = { browser: false, isolation: false, fetch: { allowPrivateUrls: true } } as const
  const model = (options: Partial<OpenAiCompatible.OpenAiCompatibleOptions>) =>
    Strata.layer({ ...base, languageModel: OpenAiCompatible.layer({ baseUrl: fakeUrl, model: "fake-model", timeoutMs: 5000, maxRetries: 1, backoffMs: 10, ...options }) })
  withModel = await startTestServer(model({}), { apiKeys: [KEY] })
  smallModel = await startTestServer(model({ maxOutputTokens: 200 }), { apiKeys: [KEY] })
  slowModel = await startTestServer(model({ timeoutMs: 300, maxRetries: 0 }), { apiKeys: [KEY] })
})

afterAll(async () => {
  await Promise.all([withModel?.close(), smallModel?.close(), slowModel?.close()])
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
    body: JSON.stringify({ url: siteUrl, formats: ["markdown"], onlyCleanContent: true, maxAge: 0, ...body })
  })
  return { status: response.status, body: (await response.json()) as { success: boolean; data: Record<string, any> } }
}

/** The page's markdown as the model was sent it (between the page tags). */
const sentMarkdown = (request: Record<string, unknown>) => {
  const user = String((request.messages as Array<{ content: string }>)[1]?.content)
  return /<page[^>]*>\n([\s\S]*)\n<\/page>/.exec(user)![1]!
}

/** What a faithful model answers: the page without its share bar, the paragraphs re-flowed. */
const faithful = (markdown: string) => markdown.split("\n\n").filter((block) => !block.includes("f.example/share")).join("\n\n")

describe("onlyCleanContent through a language model", () => {
  it("sends the page's markdown with the cleaning instructions, and uses a faithful rewrite", async () => {
    script = [(response, body) => completion(faithful(sentMarkdown(body)))(response, body)]
    const { status, body } = await scrape(withModel, {})
    expect(status).toBe(200)
    expect(recorded).toHaveLength(1)
    const request = recorded[0]!
    expect(request.model).toBe("fake-model")
    const system = String((request.messages as Array<{ content: string }>)[0]?.content)
    expect(system).toContain("Delete the boilerplate")
    expect(system).toContain("every heading, paragraph, list, table, code block, image and link")
    expect(String((request.messages as Array<{ content: string }>)[1]?.content)).toContain(`url="${siteUrl}"`)
    const sent = sentMarkdown(request)
    expect(sent).toContain("# River path to grow")
    expect(sent).toContain("[Facebook](https://f.example/share)")
    expect(request.max_tokens).toBeLessThanOrEqual(2048)
    const markdown = body.data.markdown as string
    expect(markdown).not.toContain("Facebook")
    expect(markdown).toContain("[parks fund](https://council.example/parks)")
    expect(markdown).toContain("![Map of the path](https://council.example/map.png)")
    expect(body.data.metadata).toMatchObject({ cleanContentBy: "model", cleanContentLlmPromptTokens: 300, cleanContentLlmCompletionTokens: 120 })
    expect(body.data.warning).toBeUndefined()
  })

  it("falls back to the classifier when the rewrite invents a line", async () => {
    script = [completion("# River path to grow\n\nThe mayor called the path a triumph for the whole town.")]
    const { body } = await scrape(withModel, {})
    expect(body.data.markdown).not.toContain("triumph")
    expect(body.data.markdown).toContain("Work on section 2 begins")
    expect(body.data.metadata.cleanContentBy).toBe("classifier")
    expect(body.data.warning).toContain("onlyCleanContent: the language model's rewrite has 1 line(s) that are not on the page")
  })

  it("falls back when the rewrite changes a link's target, or is empty", async () => {
    script = [completion("Budget: [parks fund](https://elsewhere.example/parks)")]
    const changed = await scrape(withModel, {})
    expect(changed.body.data.metadata.cleanContentBy).toBe("classifier")
    expect(changed.body.data.warning).toContain("1 link or image target(s) that are not on the page")
    script = [completion("   ")]
    const empty = await scrape(withModel, {})
    expect(empty.body.data.metadata.cleanContentBy).toBe("classifier")
    expect(empty.body.data.warning).toContain("the language model's rewrite was empty")
  })

  it("falls back with a warning after 429s, tried again first", async () => {
    script = [status429, status429]
    const { status, body } = await scrape(withModel, {})
    expect(status).toBe(200)
    expect(recorded).toHaveLength(2)
    expect(body.data.metadata.cleanContentBy).toBe("classifier")
    expect(body.data.warning).toContain("onlyCleanContent: the language model failed (the language model endpoint answered 429")
    expect(body.data.markdown).toContain("Work on section 1 begins")
  })

  it("falls back with a warning when the model does not answer in time", async () => {
    script = [never]
    const { status, body } = await scrape(slowModel, {})
    expect(status).toBe(200)
    expect(body.data.metadata.cleanContentBy).toBe("classifier")
    expect(body.data.warning).toContain("did not answer within 300 ms")
  })

  it("skips markdown over the model's output limit, with a warning, and sends nothing", async () => {
    const { body } = await scrape(smallModel, { url: siteUrl.replace("/story", "/long") })
    expect(recorded).toHaveLength(0)
    expect(body.data.metadata.cleanContentBy).toBe("classifier")
    expect(body.data.warning).toMatch(/onlyCleanContent: the markdown \(about \d+ tokens\) is over the language model's output limit \(200 tokens\)/)
    expect(body.data.markdown).toContain("Work on section 40 begins")
  })

  it("is refused under zero data retention, so nothing goes to the model", async () => {
    const { status } = await scrape(withModel, { zeroDataRetention: true })
    expect(status).toBe(400)
    expect(recorded).toHaveLength(0)
  })
})
