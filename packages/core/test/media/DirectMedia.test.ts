/**
 * A scrape whose URL is itself media, through the real pipeline (fetch engine, real ffmpeg, no
 * artifact store, so `data:` URLs): with `audio` or `video` asked for, the media becomes the
 * format; without, its type is refused as before.
 */
import { Effect, Layer } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { decodeDataUrl } from "../../src/artifacts/ArtifactLinks.ts"
import { DocumentReaders, Fetcher, Pipeline, validateScrapeRequest } from "../../src/index.ts"
import { makeMedia, type MediaSite, probe, removeMedia, serveMedia } from "./MediaFixtures.ts"

let dir: string
let site: MediaSite

beforeAll(async () => {
  dir = makeMedia()
  site = await serveMedia(dir, {})
})

afterAll(async () => {
  await site?.close()
  removeMedia(dir)
})

const scrape = (raw: unknown) =>
  Effect.runPromise(Effect.exit(Effect.flatMap(validateScrapeRequest(raw), (request) => Pipeline.use((p) => p.scrape(request))).pipe(
    Effect.provide(Pipeline.layer.pipe(Layer.provide([Fetcher.layerWith({ allowPrivate: true }), DocumentReaders.layer([])])))
  )))

describe("a media URL scraped directly", () => {
  it("extracts a WAV file's sound to MP3 for the audio format", async () => {
    const exit = await scrape({ url: `${site.url}/media/tone.wav`, formats: ["markdown", "audio"] })
    if (exit._tag !== "Success") throw new Error(String(exit.cause))
    const file = decodeDataUrl(exit.value.audio!)
    expect(file?.contentType).toBe("audio/mpeg")
    expect(probe(file!.bytes).streams.map((s) => s.codec_name)).toEqual(["mp3"])
    expect(exit.value.markdown).toBe("")
    expect(exit.value.metadata?.contentType).toBe("audio/wav")
  })

  it("saves an HLS playlist URL as an MP4 for the video format", async () => {
    const exit = await scrape({ url: `${site.url}/media/hls/index.m3u8`, formats: ["video"] })
    if (exit._tag !== "Success") throw new Error(String(exit.cause))
    const file = decodeDataUrl(exit.value.video!)
    expect(file?.contentType).toBe("video/mp4")
    expect(probe(file!.bytes).streams.map((s) => s.codec_type).sort()).toEqual(["audio", "video"])
  })

  it("still refuses a media type when neither audio nor video is asked for", async () => {
    const exit = await scrape({ url: `${site.url}/media/tone.wav`, formats: ["markdown"] })
    expect(exit._tag).toBe("Failure")
    expect(String(exit._tag === "Failure" ? exit.cause : "")).toContain("Unsupported file type (audio/wav)")
  })
})
