/**
 * `branding`, `audio` and `video` end to end: `Strata.layer` (fetch engine, real Chromium, real
 * ffmpeg) behind the real server on a random loopback port, against pages this test serves on
 * 127.0.0.1 with media ffmpeg made for it. The media come back as the server's signed artifact
 * links, expiring in an hour, fetched and probed here. A second server has a language model (a
 * small OpenAI-compatible server started here) for branding's `personality`.
 */
import Firecrawl from "@mendable/firecrawl-js"
import { OpenAiCompatible } from "@strata/core"
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { makeMedia, type MediaSite, probe, removeMedia, serveMedia } from "../../core/test/media/MediaFixtures.ts"
import { startTestServer, type TestServer } from "./support.ts"

const KEY = "branding-media-key"

const brand = `<!doctype html><html><head><meta charset="utf-8"><title>Kiln | Potters' supplies</title>
<style>
body { margin: 0; background: #fffaf5; color: #292524; font-family: "Work Sans", sans-serif; font-size: 17px; line-height: 1.5 }
h1 { font-size: 44px; line-height: 1.1; color: #292524 } a { color: #c2410c }
.button { display: inline-block; background: #c2410c; color: #fff7ed; padding: 12px 24px; border-radius: 4px; text-decoration: none }
</style></head><body>
<header><a href="/"><img src="/media/none.png" alt="Kiln logo" width="96" height="32"></a></header>
<main><h1>Clay, glazes and kilns</h1><p>Everything a studio potter needs, delivered. Read our <a href="/guide">firing guide</a>.</p>
<a class="button" href="/shop">Shop clay</a></main></body></html>`

const page = (body: string) => `<!doctype html><html><head><meta charset="utf-8"><title>Media</title></head><body>${body}</body></html>`

let dir: string
let site: MediaSite
let server: TestServer
let withModel: TestServer
let fake: Server
/** What the fake model received, and what it answers next (JSON text). */
const received: Array<Record<string, any>> = []
let answer = ""

const scrape = async (body: Record<string, unknown>, on: TestServer = server) => {
  const response = await fetch(`${on.url}/v2/scrape`, {
    method: "POST",
    headers: { authorization: `Bearer ${KEY}`, "content-type": "application/json" },
    body: JSON.stringify(body)
  })
  return { status: response.status, body: await response.json() as Record<string, any> }
}

const download = async (url: string) => {
  const response = await fetch(url)
  expect(response.status).toBe(200)
  return { type: response.headers.get("content-type"), bytes: new Uint8Array(await response.arrayBuffer()) }
}

beforeAll(async () => {
  dir = makeMedia()
  site = await serveMedia(dir, {
    "/brand": brand,
    "/hls": page(`<h1>A clip</h1><video controls><source src="/media/hls/index.m3u8" type="application/vnd.apple.mpegurl"></video>`),
    "/plain": page(`<h1>Words only</h1><p>This page has no media at all.</p>`)
  })
  fake = createServer((request, response) => {
    let body = ""
    request.on("data", (chunk) => (body += chunk))
    request.on("end", () => {
      received.push(JSON.parse(body))
      response.writeHead(200, { "content-type": "application/json" })
      response.end(JSON.stringify({ id: "c1", model: "fake-model-1", choices: [{ index: 0, message: { role: "assistant", content: answer } }], usage: { prompt_tokens: 120, completion_tokens: 20 } }))
    })
  })
  await new Promise<void>((resolve) => fake.listen(0, "127.0.0.1", resolve))
  const { Strata } = await import("strata")
  const base = { fetch: { allowPrivateUrls: false, allowedOrigins: [site.url] }, browser: { concurrency: 1 }, ocr: false, isolation: false } as const
  server = await startTestServer(Strata.layer({ ...base, languageModel: false }), { apiKeys: [KEY] })
  withModel = await startTestServer(
    Strata.layer({
      ...base,
      languageModel: OpenAiCompatible.layer({ baseUrl: `http://127.0.0.1:${(fake.address() as AddressInfo).port}/v1`, model: "fake-model", timeoutMs: 5000, maxRetries: 0 })
    }),
    { apiKeys: [KEY] }
  )
})

afterAll(async () => {
  await server?.close()
  await withModel?.close()
  fake?.closeAllConnections()
  await new Promise((resolve) => fake?.close(resolve))
  await site?.close()
  if (dir !== undefined) removeMedia(dir)
})

describe("branding, audio and video through the server", () => {
  it("answers branding from the browser", async () => {
    const { status, body } = await scrape({ url: `${site.url}/brand`, formats: ["branding"] })
    expect(status).toBe(200)
    const branding = body.data.branding
    expect(body.data.metadata.engine).toBe("browser")
    expect(branding.colorScheme).toBe("light")
    expect(branding.colors).toMatchObject({ primary: "#c2410c", background: "#fffaf5", textPrimary: "#292524", link: "#c2410c" })
    expect(branding.typography.fontFamilies.primary).toBe("Work Sans")
    expect(branding.typography.fontSizes).toMatchObject({ h1: "44px", body: "17px" })
    expect(branding.components.buttonPrimary).toEqual({ background: "#c2410c", textColor: "#fff7ed", borderRadius: "4px" })
    expect(branding.logo).toBe(`${site.url}/media/none.png`)
    // No model on this server: no personality, and nothing said about one.
    expect(branding.personality).toBeUndefined()
    expect(body.data.warning).toBeUndefined()
  })

  it("adds a personality from the language model when one is configured, and leaves it out with a warning when its answer does not fit", async () => {
    answer = JSON.stringify({ tone: "warm and practical", energy: "medium", targetAudience: "studio potters" })
    const { status, body } = await scrape({ url: `${site.url}/brand`, formats: ["branding"] }, withModel)
    expect(status).toBe(200)
    expect(body.data.branding.personality).toEqual({ tone: "warm and practical", energy: "medium", targetAudience: "studio potters" })
    expect(body.data.branding.colors.primary).toBe("#c2410c")
    expect(body.data.metadata.brandingPersonalityBy).toBe("model")
    // The model got the page's text and the schema; the client did not ask for markdown and gets none.
    const sent = received.at(-1)!
    expect(JSON.stringify(sent.messages)).toContain("Clay, glazes and kilns")
    expect(JSON.stringify(sent.response_format)).toContain("targetAudience")
    expect(body.data.markdown).toBeUndefined()

    answer = "I think the brand is friendly."
    const again = await scrape({ url: `${site.url}/brand`, formats: ["branding"] }, withModel)
    expect(again.status).toBe(200)
    expect(again.body.data.branding.personality).toBeUndefined()
    expect(again.body.data.branding.colors.primary).toBe("#c2410c")
    expect(again.body.data.warning).toMatch(/branding: personality left out, the language model's answer did not fit its schema/)
  })

  it("answers audio and video of an HLS page as signed links that expire in an hour", async () => {
    const { status, body } = await scrape({ url: `${site.url}/hls`, formats: ["markdown", "audio", "video"] })
    expect(status).toBe(200)
    expect(body.data.warning).toBeUndefined()
    expect(body.data.markdown).toContain("# A clip")
    for (const [field, extension] of [["audio", "mp3"], ["video", "mp4"]] as const) {
      const link = new URL(body.data[field])
      expect(`${link.origin}`).toBe(server.url)
      expect(link.pathname).toMatch(new RegExp(`^/v2/artifacts/[0-9a-f]{32}\\.${extension}$`))
      const lifetime = Number(link.searchParams.get("expires")) - Date.now() / 1000
      expect(lifetime).toBeGreaterThan(3500)
      expect(lifetime).toBeLessThanOrEqual(3600)
    }
    const audio = await download(body.data.audio)
    expect(audio.type).toBe("audio/mpeg")
    expect(probe(audio.bytes).streams.map((s) => s.codec_name)).toEqual(["mp3"])
    const video = await download(body.data.video)
    expect(video.type).toBe("video/mp4")
    expect(probe(video.bytes).streams.map((s) => s.codec_type).sort()).toEqual(["audio", "video"])
  })

  it("answers the official SDK's branding, audio and video requests", async () => {
    const firecrawl = new Firecrawl({ apiKey: KEY, apiUrl: server.url })
    const brand = await firecrawl.scrape(`${site.url}/brand`, { formats: ["branding"] })
    expect(brand.branding?.colors?.primary).toBe("#c2410c")
    expect(brand.branding?.colorScheme).toBe("light")
    const media = await firecrawl.scrape(`${site.url}/hls`, { formats: ["audio", "video"] }) as { audio?: string; video?: string }
    expect(media.audio).toMatch(/\/v2\/artifacts\/[0-9a-f]{32}\.mp3\?expires=/)
    expect(media.video).toMatch(/\/v2\/artifacts\/[0-9a-f]{32}\.mp4\?expires=/)
  })

  it("answers a page without media with null and a warning, not a failure", async () => {
    const { status, body } = await scrape({ url: `${site.url}/plain`, formats: ["markdown", "audio", "video"] })
    expect(status).toBe(200)
    expect(body.success).toBe(true)
    expect(body.data.audio).toBeNull()
    expect(body.data.video).toBeNull()
    expect(body.data.warning).toMatch(/audio: the page has no audio or video/)
    expect(body.data.markdown).toContain("This page has no media at all.")
  })

  it("refuses branding, audio and video in /v2/parse, which has no page to render", async () => {
    const form = new FormData()
    form.append("file", new Blob(["<p>hello</p>"], { type: "text/html" }), "a.html")
    form.append("options", JSON.stringify({ formats: ["branding"] }))
    const response = await fetch(`${server.url}/v2/parse`, { method: "POST", headers: { authorization: `Bearer ${KEY}` }, body: form })
    expect(response.status).toBe(400)
    expect(await response.text()).toMatch(/formats\[0\]: Unknown format name/)
  })
})
