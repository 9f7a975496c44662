/** Finding a page's media, and reading HLS playlists and DASH manifests, without the network. */
import { describe, expect, it } from "vitest"
import { isoSeconds, parseDash } from "../../src/media/Dash.ts"
import { parseHls } from "../../src/media/Hls.ts"
import { findMedia } from "../../src/media/MediaSources.ts"

describe("findMedia", () => {
  it("finds elements, sources, OpenGraph, nested JSON-LD and links, resolved and in order", () => {
    const html = `<html><head>
      <meta property="og:video" content="https://player.example/embed/1"><meta property="og:video:type" content="text/html">
      <meta property="og:audio" content="/a/episode.mp3">
      <script type="application/ld+json">{"@graph":[{"@type":"Article","video":{"@type":"VideoObject","contentUrl":"/v/talk.mpd","embedUrl":"/player"}}]}</script>
      </head><body>
      <video poster="/p.jpg"><source src="/v/clip.webm" type="video/webm"><source src="/v/clip.m3u8" type="application/x-mpegURL"></video>
      <audio src="blob:https://example.org/123"></audio>
      <a href="/files/show.m4a">Download</a><a href="/about">About</a>
      </body></html>`
    const found = findMedia(html, "https://example.org/page")
    expect(found.map((m) => [m.kind, m.packaging, m.via, m.url])).toEqual([
      ["video", "file", "element", "https://example.org/v/clip.webm"],
      ["video", "hls", "element", "https://example.org/v/clip.m3u8"],
      ["video", "dash", "json-ld", "https://example.org/v/talk.mpd"],
      ["audio", "file", "opengraph", "https://example.org/a/episode.mp3"],
      ["audio", "file", "link", "https://example.org/files/show.m4a"]
    ])
  })

  it("puts a decorative video (muted, autoplaying or looping, no controls) after the page's other media", () => {
    const html = `<video autoplay muted loop playsinline src="/hero.mp4"></video>
      <script type="application/ld+json">{"@type":"VideoObject","contentUrl":"/talk.mp4"}</script>
      <video muted controls src="/demo.mp4"></video>`
    expect(findMedia(html, "https://example.org/").map((m) => [m.url.split("/").pop(), m.decorative])).toEqual([
      ["demo.mp4", false],
      ["talk.mp4", false],
      ["hero.mp4", true]
    ])
  })

  it("finds nothing in a page without media, or in one that is not HTML", () => {
    expect(findMedia("<p>Just text, and <img src=a.png></p>", "https://example.org/")).toEqual([])
    expect(findMedia("{\"not\": \"html\"}", "https://example.org/")).toEqual([])
  })
})

describe("parseHls", () => {
  it("reads a master playlist's variants and audio renditions", () => {
    const master = `#EXTM3U
#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="aud",NAME="English",DEFAULT=YES,URI="audio/en.m3u8"
#EXT-X-STREAM-INF:BANDWIDTH=800000,RESOLUTION=640x360,AUDIO="aud"
low/index.m3u8
#EXT-X-STREAM-INF:BANDWIDTH=2400000,CODECS="avc1.64001f,mp4a.40.2",AUDIO="aud"
https://cdn.example/high/index.m3u8
`
    const parsed = parseHls(master, "https://example.org/v/master.m3u8")
    expect(parsed).toEqual({
      _tag: "Master",
      variants: [
        { url: "https://example.org/v/low/index.m3u8", bandwidth: 800000, audioGroup: "aud" },
        { url: "https://cdn.example/high/index.m3u8", bandwidth: 2400000, audioGroup: "aud" }
      ],
      audio: [{ url: "https://example.org/v/audio/en.m3u8", group: "aud", isDefault: true }]
    })
  })

  it("lists a media playlist's files once each and rewrites them to local names", () => {
    const media = `#EXTM3U
#EXT-X-TARGETDURATION:2
#EXT-X-MAP:URI="init.mp4"
#EXT-X-KEY:METHOD=AES-128,URI="https://keys.example/k1",IV=0x1
#EXTINF:2.0,
seg1.m4s
#EXT-X-BYTERANGE:100@0
#EXTINF:2.0,
seg1.m4s
#EXTINF:2.0,
seg2.m4s
#EXT-X-ENDLIST`
    const parsed = parseHls(media, "https://example.org/v/index.m3u8")
    if (parsed?._tag !== "Media") throw new Error("not a media playlist")
    expect(parsed.files).toEqual(["https://example.org/v/init.mp4", "https://keys.example/k1", "https://example.org/v/seg1.m4s", "https://example.org/v/seg2.m4s"])
    expect(parsed.unsupportedKey).toBeUndefined()
    const local = parsed.rewrite((i) => `f${i}`)
    expect(local).toContain(`#EXT-X-MAP:URI="f0"`)
    expect(local).toContain(`#EXT-X-KEY:METHOD=AES-128,URI="f1",IV=0x1`)
    expect(local.split("\n").filter((line) => line === "f2")).toHaveLength(2)
    expect(local).not.toContain("example")
  })

  it("marks DRM encryption, and refuses what is not a playlist", () => {
    const parsed = parseHls(`#EXTM3U\n#EXT-X-KEY:METHOD=SAMPLE-AES,URI="skd://x"\n#EXTINF:1,\na.ts\n`, "https://example.org/")
    expect(parsed?._tag === "Media" && parsed.unsupportedKey).toBe("SAMPLE-AES")
    expect(parseHls("<html></html>", "https://example.org/")).toBeUndefined()
  })
})

describe("parseDash", () => {
  it("reads durations", () => {
    expect(isoSeconds("PT1M30.5S")).toBe(90.5)
    expect(isoSeconds("P1DT1H")).toBe(90000)
    expect(isoSeconds("soon")).toBeUndefined()
  })

  it("numbers template segments by duration, with BaseURLs and padded numbers", () => {
    const mpd = `<MPD type="static" mediaPresentationDuration="PT5S"><BaseURL>media/</BaseURL><Period>
      <AdaptationSet mimeType="video/mp4"><SegmentTemplate initialization="$RepresentationID$/init.mp4" media="$RepresentationID$/$Number%03d$.m4s" duration="2" startNumber="0"/>
        <Representation id="hd" bandwidth="900"/><Representation id="sd" bandwidth="300"/></AdaptationSet>
      <AdaptationSet contentType="audio"><Representation id="a" bandwidth="64" mimeType="audio/mp4"><BaseURL>sound.m4a</BaseURL></Representation></AdaptationSet>
    </Period></MPD>`
    const parsed = parseDash(mpd, "https://example.org/v/talk.mpd")
    expect(parsed).toEqual({
      _tag: "Static",
      tracks: [
        { kind: "video", bandwidth: 900, urls: ["init.mp4", "000.m4s", "001.m4s", "002.m4s"].map((f) => `https://example.org/v/media/hd/${f}`) },
        { kind: "video", bandwidth: 300, urls: ["init.mp4", "000.m4s", "001.m4s", "002.m4s"].map((f) => `https://example.org/v/media/sd/${f}`) },
        { kind: "audio", bandwidth: 64, urls: ["https://example.org/v/media/sound.m4a"] }
      ]
    })
  })

  it("times segments by a SegmentTimeline with repeats, refuses live manifests and what is not an MPD", () => {
    const mpd = `<MPD type="static"><Period><AdaptationSet contentType="audio"><Representation id="1" bandwidth="1">
      <SegmentTemplate media="a-$Time$.m4s" timescale="10"><SegmentTimeline><S t="0" d="20" r="2"/><S d="5"/></SegmentTimeline></SegmentTemplate>
      </Representation></AdaptationSet></Period></MPD>`
    const parsed = parseDash(mpd, "https://example.org/a.mpd")
    expect(parsed?._tag === "Static" && parsed.tracks[0].urls.map((u) => u.split("/").pop())).toEqual(["a-0.m4s", "a-20.m4s", "a-40.m4s", "a-60.m4s"])
    expect(parseDash(`<MPD type="dynamic"><Period/></MPD>`, "https://example.org/live.mpd")).toEqual({ _tag: "Live" })
    expect(parseDash("<html><body>no</body></html>", "https://example.org/")).toBeUndefined()
  })
})
