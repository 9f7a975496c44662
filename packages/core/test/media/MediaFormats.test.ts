/**
 * The audio and video formats against real parts: media made by ffmpeg, served on loopback,
 * fetched by the real fetch engine, converted by the real ffmpeg and kept in a real artifact
 * store, whose links are read back and probed with ffprobe. Also: a page without media, a
 * missing ffmpeg, an address the fetch engine's rules refuse, and the download cap.
 */
import { Effect, Layer, ManagedRuntime, Option } from "effect"
import { existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { ArtifactStore } from "../../src/artifacts/ArtifactStore.ts"
import { decodeScrapeRequest, type ScrapeData } from "../../src/contract/index.ts"
import { withEngine } from "../../src/EngineChoice.ts"
import { Fetcher } from "../../src/fetch/Fetcher.ts"
import { DEFAULT_MEDIA_MAX_BYTES, withMedia } from "../../src/media/MediaFormats.ts"
import { makeFfmpeg } from "../../src/media/Transcoder.ts"
import { makeMedia, type MediaSite, probe, removeMedia, serveMedia } from "./MediaFixtures.ts"

const page = (body: string, head = "") => `<!doctype html><html><head><meta charset="utf-8"><title>Media</title>${head}</head><body>${body}</body></html>`

let dir: string
let dataDir: string
let site: MediaSite
let runtime: ManagedRuntime.ManagedRuntime<Fetcher | ArtifactStore, unknown>

const pages = () => ({
  "/tone": page(`<audio controls><source src="/media/tone.wav" type="audio/wav"></audio>`),
  "/clip": page(`<video controls src="/media/clip.mp4"></video>`),
  "/hls": page(`<video controls><source src="/media/hls/index.m3u8" type="application/x-mpegURL"></video>`),
  "/dash": page(`<p>A talk.</p>`, `<script type="application/ld+json">${JSON.stringify({ "@context": "https://schema.org", "@type": "VideoObject", name: "A talk", contentUrl: "/media/dash/manifest.mpd" })}</script>`),
  "/dash-numbered": page(`<video><source src="/media/dash-numbered/manifest.mpd" type="application/dash+xml"></video>`),
  "/og": page(`<p>A clip.</p>`, `<meta property="og:video" content="/media/clip.mp4"><meta property="og:video:type" content="video/mp4">`),
  "/sniffed": page(`<video src="/media/hls/stream"></video>`),
  "/plain": page(`<p>No media here, only words.</p>`),
  "/missing": page(`<video src="/media/gone.mp4"></video>`)
})

beforeAll(async () => {
  dir = makeMedia()
  dataDir = mkdtempSync(join(tmpdir(), "strata-media-store-"))
  site = await serveMedia(dir, pages())
  runtime = ManagedRuntime.make(Layer.mergeAll(
    Fetcher.layerWith({ allowPrivate: false, allowedOrigins: [site.url] }),
    ArtifactStore.layer({ dataDir, publicUrl: "http://127.0.0.1:3002" })
  ))
})

afterAll(async () => {
  await runtime?.dispose()
  await site?.close()
  removeMedia(dir)
  rmSync(dataDir, { recursive: true, force: true })
})

const media = (path: string, formats: Array<string>, options: { ffmpeg?: string; maxBytes?: number; url?: string } = {}) =>
  runtime.runPromise(Effect.gen(function*() {
    const url = options.url ?? `${site.url}${path}`
    const request = yield* decodeScrapeRequest({ url, formats })
    const html = yield* (yield* Fetcher).fetch(url, { deadline: Date.now() + 30_000, skipTlsVerification: false })
    const deps = {
      fetcher: yield* Fetcher,
      artifacts: Option.some(yield* ArtifactStore),
      transcoder: makeFfmpeg({ path: options.ffmpeg }),
      maxBytes: options.maxBytes ?? DEFAULT_MEDIA_MAX_BYTES
    }
    const data: ScrapeData = { metadata: {} }
    return yield* withMedia(deps, data, { html: new TextDecoder().decode(html.body), url }, request, Date.now() + 60_000)
  }))

const read = (url: string) => runtime.runPromise(ArtifactStore.use((store) => store.read(url)))

const expiresIn = (url: string) => Number(new URL(url).searchParams.get("expires")) - Date.now() / 1000

describe("audio and video", () => {
  it("extracts a page's <audio> to an MP3 behind a link that expires in an hour", async () => {
    const data = await media("/tone", ["audio"])
    expect(data.warning).toBeUndefined()
    expect(data.audio).toMatch(/^http:\/\/127\.0\.0\.1:3002\/v2\/artifacts\/[0-9a-f]{32}\.mp3\?expires=\d+&sig=[0-9a-f]{64}$/)
    expect(expiresIn(data.audio!)).toBeGreaterThan(3500)
    expect(expiresIn(data.audio!)).toBeLessThanOrEqual(3600)
    const file = await read(data.audio!)
    expect(file.contentType).toBe("audio/mpeg")
    const probed = probe(file.bytes)
    expect(probed.streams.map((s) => s.codec_name)).toEqual(["mp3"])
    expect(probed.duration).toBeGreaterThan(0.9)
    expect(probed.duration).toBeLessThan(1.2)
  })

  it("keeps an MP4 <video> as it came and takes the page's audio from its sound", async () => {
    const data = await media("/clip", ["video", "audio"])
    expect(data.warning).toBeUndefined()
    const video = await read(data.video!)
    expect(video.contentType).toBe("video/mp4")
    expect(probe(video.bytes).streams.map((s) => s.codec_type).sort()).toEqual(["audio", "video"])
    expect(expiresIn(data.video!)).toBeGreaterThan(3500)
    const audio = await read(data.audio!)
    expect(probe(audio.bytes).streams.map((s) => s.codec_name)).toEqual(["mp3"])
  })

  it("saves an HLS playlist's segments as one MP4, and its sound as an MP3", async () => {
    const data = await media("/hls", ["video", "audio"])
    expect(data.warning).toBeUndefined()
    const video = probe((await read(data.video!)).bytes)
    expect(video.streams.map((s) => s.codec_type).sort()).toEqual(["audio", "video"])
    expect(video.duration).toBeGreaterThan(0.8)
    expect(probe((await read(data.audio!)).bytes).streams.map((s) => s.codec_name)).toEqual(["mp3"])
  })

  it("reads a playlist served with no extension and no type by its first bytes", async () => {
    const data = await media("/sniffed", ["video"])
    expect(data.warning).toBeUndefined()
    expect(probe((await read(data.video!)).bytes).streams.map((s) => s.codec_type).sort()).toEqual(["audio", "video"])
  })

  it("saves a DASH manifest named by JSON-LD, muxing its video and audio sets", async () => {
    const data = await media("/dash", ["video"])
    expect(data.warning).toBeUndefined()
    const video = probe((await read(data.video!)).bytes)
    expect(video.streams.map((s) => s.codec_type).sort()).toEqual(["audio", "video"])
    expect(video.duration).toBeGreaterThan(0.8)
  })

  it("saves a DASH manifest whose segments are numbered by duration, and its sound as an MP3", async () => {
    const data = await media("/dash-numbered", ["video", "audio"])
    expect(data.warning).toBeUndefined()
    expect(probe((await read(data.video!)).bytes).streams.map((s) => s.codec_type).sort()).toEqual(["audio", "video"])
    expect(probe((await read(data.audio!)).bytes).streams.map((s) => s.codec_name)).toEqual(["mp3"])
  })

  it("follows og:video", async () => {
    const data = await media("/og", ["video"])
    expect(data.warning).toBeUndefined()
    expect((await read(data.video!)).contentType).toBe("video/mp4")
  })

  it("answers null with a warning for a page without media, and for media that cannot be fetched", async () => {
    const plain = await media("/plain", ["audio", "video"])
    expect(plain).toMatchObject({ audio: null, video: null })
    expect(plain.warning).toMatch(/audio: the page has no audio or video/)
    expect(plain.warning).toMatch(/video: the page has no video/)
    const missing = await media("/missing", ["video"])
    expect(missing.video).toBeNull()
    expect(missing.warning).toMatch(/gone\.mp4: .*HTTP 404/)
  })

  it("refuses media past the download cap, and media at an address the fetch engine's rules refuse", async () => {
    const capped = await media("/hls", ["video"], { maxBytes: 1000 })
    expect(capped.video).toBeNull()
    expect(capped.warning).toMatch(/limit|cap/)
    // A page on an allowed origin whose media sits on a private address that is not allowed.
    const elsewhere = page(`<video src="http://10.0.0.1/clip.mp4"></video>`)
    const data = await runtime.runPromise(Effect.gen(function*() {
      const request = yield* decodeScrapeRequest({ url: `${site.url}/plain`, formats: ["video"] })
      const deps = { fetcher: yield* Fetcher, artifacts: Option.none(), transcoder: makeFfmpeg(), maxBytes: DEFAULT_MEDIA_MAX_BYTES }
      return yield* withMedia(deps, { metadata: {} }, { html: elsewhere, url: `${site.url}/plain` }, request, Date.now() + 30_000)
    }))
    expect(data.video).toBeNull()
    expect(data.warning).toMatch(/10\.0\.0\.1.*(private|internal|Refusing|blocked)/i)
  })

  it("writes no file under zero data retention (the media comes back inline) and fetches no media under lockdown", async () => {
    const served = (path: string, body: Record<string, unknown>) =>
      runtime.runPromise(Effect.gen(function*() {
        const url = `${site.url}${path}`
        const request = yield* decodeScrapeRequest({ url, ...body })
        const fetched = yield* (yield* Fetcher).fetch(url, { deadline: Date.now() + 30_000, skipTlsVerification: false })
        const input = { bytes: fetched.body, contentType: "text/html", contentTypeHeader: "text/html", url, sourceURL: url, statusCode: 200 }
        const outputs = {
          artifacts: Option.some(yield* ArtifactStore),
          media: { fetcher: yield* Fetcher, artifacts: Option.some(yield* ArtifactStore), transcoder: makeFfmpeg(), maxBytes: DEFAULT_MEDIA_MAX_BYTES }
        }
        return yield* withEngine({ metadata: {} }, { engine: "fetch", input }, request, outputs)
      }))
    const files = () => (existsSync(join(dataDir, "artifacts")) ? readdirSync(join(dataDir, "artifacts")).length : 0)
    const before = files()
    const inline = await served("/tone", { formats: ["audio"], zeroDataRetention: true })
    expect(inline.warning).toBeUndefined()
    expect(inline.audio).toMatch(/^data:audio\/mpeg;base64,/)
    expect(probe(Buffer.from(inline.audio!.split(",")[1], "base64")).streams.map((s) => s.codec_name)).toEqual(["mp3"])
    expect(files()).toBe(before)
    const hitsBefore = site.hits.length
    const locked = await served("/clip", { formats: ["video", "audio"], lockdown: true })
    expect(locked).toMatchObject({ audio: null, video: null })
    expect(locked.warning).toMatch(/audio: not made under lockdown.*video: not made under lockdown/)
    // Only the page itself (fetched above by the test) was asked for: no media.
    expect(site.hits.slice(hitsBefore).filter((hit) => hit.startsWith("/media"))).toEqual([])
    expect(files()).toBe(before)
    // The same request without either is a file (so the count above can move).
    expect((await served("/tone", { formats: ["audio"] })).audio).toMatch(/^http:\/\/127\.0\.0\.1:3002\//)
    expect(files()).toBe(before + 1)
  })

  it("kills ffmpeg at the deadline and says so", async () => {
    const out = join(dataDir, "late.mp3")
    const exit = await Effect.runPromise(Effect.exit(makeFfmpeg().toMp3({ path: join(dir, "clip.mp4"), hls: false }, out, Date.now() + 1)))
    expect(exit._tag).toBe("Failure")
    expect(String(exit._tag === "Failure" ? exit.cause : "")).toMatch(/did not finish before the request's deadline/)
  })

  it("fails with a clear NotSupported error when ffmpeg is missing", async () => {
    await expect(media("/tone", ["audio"], { ffmpeg: "/nonexistent/ffmpeg" })).rejects.toThrow(/ffmpeg is not installed on this server/)
  })
})
