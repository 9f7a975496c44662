/**
 * Downloads a page's media into a temporary folder for ffmpeg, through the fetch engine (its
 * address rules, redirects and deadline), under one byte budget for everything a format fetches:
 * a file as it is; an HLS playlist with every segment, init section and key it names, and the
 * playlist rewritten to the local copies; a DASH representation's init and media segments joined
 * into one file. For `video`, a variant whose sound is kept apart (an HLS audio rendition, a DASH
 * audio set) brings that audio track too.
 */
import { Effect } from "effect"
import { writeFile } from "node:fs/promises"
import { join } from "node:path"
import type { FetcherService } from "../fetch/Fetcher.ts"
import { MAX_SEGMENTS, parseDash, type DashTrack } from "./Dash.ts"
import { parseHls } from "./Hls.ts"
import { DownloadFailed, type MediaError, mediaError, UnsupportedMedia } from "./MediaError.ts"
import type { MediaKind, MediaSource } from "./MediaSources.ts"
import type { MediaInput } from "./Transcoder.ts"

export interface FetchContext {
  readonly fetcher: FetcherService
  readonly headers?: Readonly<Record<string, string>> | undefined
  readonly skipTlsVerification: boolean
  readonly deadline: number
  /** Bytes left to fetch for this format; every download takes from it. */
  readonly budget: { left: number; readonly total: number }
}

export interface Prepared {
  readonly main: MediaInput
  /** A separate audio track to mux with `main` (video only). */
  readonly audio?: MediaInput | undefined
  /** The content type a plain file was served with. */
  readonly fileType?: string | undefined
  /** The file's bytes, when `main` is one file as it was served. */
  readonly bytes?: Uint8Array | undefined
}

/** Manifests are text and small; one this large is not a manifest. */
const MAX_MANIFEST_BYTES = 2 * 1024 * 1024
const SEGMENT_CONCURRENCY = 4

const megabytes = (n: number) => `${Math.round(n / 2 ** 20)} MB`

/** Fetches `url` under the budget; an HTTP error status is a failure too. */
export const download = (context: FetchContext, url: string, cap?: number): Effect.Effect<{ bytes: Uint8Array; type: string | undefined }, MediaError> =>
  Effect.gen(function*() {
    if (context.budget.left <= 0) {
      return yield* Effect.fail(mediaError(new DownloadFailed({ url, message: `The media is larger than the ${megabytes(context.budget.total)} cap (STRATA_MEDIA_MAX_MB)` })))
    }
    const response = yield* context.fetcher.fetch(url, {
      deadline: context.deadline,
      skipTlsVerification: context.skipTlsVerification,
      maxBytes: Math.min(cap ?? Infinity, context.budget.left),
      followRefresh: false,
      ...(context.headers === undefined ? {} : { headers: context.headers })
    }).pipe(Effect.mapError((error) => mediaError(new DownloadFailed({ url, message: error.message }))))
    if (response.status >= 400) {
      return yield* Effect.fail(mediaError(new DownloadFailed({ url, message: `${url} answered HTTP ${response.status}` })))
    }
    context.budget.left -= response.body.byteLength
    return { bytes: response.body, type: response.contentType }
  })

const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes)

/** A local name for a fetched file: its index and, when it is a plain one, its extension (ffmpeg guesses formats by it). */
const localName = (prefix: string, index: number, url: string) => {
  const extension = /\.([a-z0-9]{1,5})$/i.exec(URL.canParse(url) ? new URL(url).pathname : "")?.[1]?.toLowerCase()
  return `${prefix}-${index}.${extension ?? "bin"}`
}

const write = (path: string, bytes: Uint8Array | string) =>
  Effect.tryPromise({ try: () => writeFile(path, bytes), catch: (cause) => mediaError(new DownloadFailed({ url: path, message: `Could not keep the media: ${String(cause)}` })) })

/** A media playlist's files fetched, and the playlist rewritten to them. */
const hlsMedia = (context: FetchContext, url: string, dir: string, prefix: string): Effect.Effect<MediaInput, MediaError> =>
  Effect.gen(function*() {
    const playlist = parseHls(text((yield* download(context, url, MAX_MANIFEST_BYTES)).bytes), url)
    if (playlist === undefined || playlist._tag !== "Media") {
      return yield* Effect.fail(mediaError(new UnsupportedMedia({ url, message: `${url} is not an HLS media playlist` })))
    }
    if (playlist.unsupportedKey !== undefined) {
      return yield* Effect.fail(mediaError(new UnsupportedMedia({ url, message: `${url} is encrypted with ${playlist.unsupportedKey}, which this server does not decrypt` })))
    }
    if (playlist.files.length === 0) return yield* Effect.fail(mediaError(new UnsupportedMedia({ url, message: `${url} lists no segments` })))
    if (playlist.files.length > MAX_SEGMENTS) {
      return yield* Effect.fail(mediaError(new UnsupportedMedia({ url, message: `${url} lists ${playlist.files.length} files, more than the ${MAX_SEGMENTS} read from one playlist` })))
    }
    yield* Effect.forEach(playlist.files, (file, index) =>
      Effect.flatMap(download(context, file), ({ bytes }) => write(join(dir, localName(prefix, index, file)), bytes)), { concurrency: SEGMENT_CONCURRENCY, discard: true })
    const path = join(dir, `${prefix}.m3u8`)
    yield* write(path, playlist.rewrite((index) => localName(prefix, index, playlist.files[index])))
    return { path, hls: true }
  })

const hls = (context: FetchContext, source: MediaSource, want: MediaKind, dir: string, fetched?: string): Effect.Effect<Prepared, MediaError> =>
  Effect.gen(function*() {
    const body = fetched ?? text((yield* download(context, source.url, MAX_MANIFEST_BYTES)).bytes)
    const playlist = parseHls(body, source.url)
    if (playlist === undefined) return yield* Effect.fail(mediaError(new UnsupportedMedia({ url: source.url, message: `${source.url} is not an HLS playlist` })))
    if (playlist._tag === "Media") {
      if (!/#EXT-X-ENDLIST|#EXT-X-PLAYLIST-TYPE:VOD/.test(body)) {
        return yield* Effect.fail(mediaError(new UnsupportedMedia({ url: source.url, message: `${source.url} is a live stream (no end), which cannot be saved as a file` })))
      }
      return { main: yield* hlsMedia(context, source.url, dir, "main") }
    }
    const byBandwidth = [...playlist.variants].sort((a, b) => a.bandwidth - b.bandwidth)
    if (want === "audio") {
      // The sound alone when the playlist offers it; else the lightest variant (variants share their sound).
      const rendition = playlist.audio.find((a) => a.isDefault) ?? playlist.audio[0]
      const url = rendition?.url ?? byBandwidth[0]?.url
      if (url === undefined) return yield* Effect.fail(mediaError(new UnsupportedMedia({ url: source.url, message: `${source.url} lists no variants` })))
      return { main: yield* hlsMedia(context, url, dir, "main") }
    }
    const best = byBandwidth[byBandwidth.length - 1]
    if (best === undefined) return yield* Effect.fail(mediaError(new UnsupportedMedia({ url: source.url, message: `${source.url} lists no variants` })))
    const group = playlist.audio.filter((a) => a.group === best.audioGroup)
    const rendition = group.find((a) => a.isDefault) ?? group[0]
    return {
      main: yield* hlsMedia(context, best.url, dir, "main"),
      audio: rendition === undefined ? undefined : yield* hlsMedia(context, rendition.url, dir, "sound")
    }
  })

/** A DASH track's segments fetched and joined into one file. */
const dashTrack = (context: FetchContext, track: DashTrack, dir: string, prefix: string): Effect.Effect<MediaInput, MediaError> =>
  Effect.gen(function*() {
    const parts = yield* Effect.forEach(track.urls, (url) => Effect.map(download(context, url), (r) => r.bytes), { concurrency: SEGMENT_CONCURRENCY })
    const path = join(dir, localName(prefix, 0, track.urls[0]))
    yield* write(path, Buffer.concat(parts))
    return { path, hls: false }
  })

const dash = (context: FetchContext, source: MediaSource, want: MediaKind, dir: string, fetched?: string): Effect.Effect<Prepared, MediaError> =>
  Effect.gen(function*() {
    const manifest = parseDash(fetched ?? text((yield* download(context, source.url, MAX_MANIFEST_BYTES)).bytes), source.url)
    if (manifest === undefined) return yield* Effect.fail(mediaError(new UnsupportedMedia({ url: source.url, message: `${source.url} is not a DASH manifest` })))
    if (manifest._tag === "Live") {
      return yield* Effect.fail(mediaError(new UnsupportedMedia({ url: source.url, message: `${source.url} is a live stream (no end), which cannot be saved as a file` })))
    }
    const best = (kind: MediaKind) => [...manifest.tracks].filter((t) => t.kind === kind).sort((a, b) => b.bandwidth - a.bandwidth)[0]
    const audio = best("audio")
    const video = best("video")
    if (want === "audio") {
      const track = audio ?? video
      if (track === undefined) return yield* Effect.fail(mediaError(new UnsupportedMedia({ url: source.url, message: `${source.url} has no audio or video representation` })))
      return { main: yield* dashTrack(context, track, dir, "main") }
    }
    if (video === undefined) return yield* Effect.fail(mediaError(new UnsupportedMedia({ url: source.url, message: `${source.url} has no video representation` })))
    return {
      main: yield* dashTrack(context, video, dir, "main"),
      audio: audio === undefined ? undefined : yield* dashTrack(context, audio, dir, "sound")
    }
  })

/** The source's media in `dir`, ready for ffmpeg. */
export const prepare = (context: FetchContext, source: MediaSource, want: MediaKind, dir: string): Effect.Effect<Prepared, MediaError> => {
  switch (source.packaging) {
    case "hls":
      return hls(context, source, want, dir)
    case "dash":
      return dash(context, source, want, dir)
    case "file":
      return Effect.gen(function*() {
        const { bytes, type } = yield* download(context, source.url)
        // A manifest served without its extension or type (`/stream?id=1`) says what it is in its first bytes.
        const head = text(bytes.subarray(0, 512)).trimStart()
        if (head.startsWith("#EXTM3U")) return yield* hls(context, source, want, dir, text(bytes))
        if (/^(<\?xml[^>]*>\s*)?<MPD[\s>]/.test(head)) return yield* dash(context, source, want, dir, text(bytes))
        const path = join(dir, localName("main", 0, source.url))
        yield* write(path, bytes)
        return { main: { path, hls: false }, fileType: type ?? source.type, bytes }
      })
  }
}
