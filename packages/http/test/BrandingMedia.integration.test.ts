/**
 * `branding`, `audio` and `video` end to end: `Strata.layer` (fetch engine, real Chromium, real
 * ffmpeg) behind the real server on a random loopback port, against pages this test serves on
 * 127.0.0.1 with media ffmpeg made for it. The media come back as the server's signed artifact
 * links, expiring in an hour, fetched and probed here.
 */
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

const scrape = async (body: Record<string, unknown>) => {
  const response = await fetch(`${server.url}/v2/scrape`, {
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
  const { Strata } = await import("strata")
  server = await startTestServer(
    Strata.layer({ fetch: { allowPrivateUrls: false, allowedOrigins: [site.url] }, browser: { concurrency: 1 }, ocr: false, isolation: false }),
    { apiKeys: [KEY] }
  )
})

afterAll(async () => {
  await server?.close()
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
