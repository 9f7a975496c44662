/**
 * The `audio` and `video` formats: the page's media (MediaSources.ts), or the URL itself when it is
 * audio, video or a manifest (`Routing.ts` routes it here instead of refusing its type), downloaded through the
 * fetch engine (MediaDownload.ts), made into an MP3 or an MP4 by ffmpeg (Transcoder.ts), and
 * stored as an artifact whose signed link expires after 1 hour (without an artifact store, a
 * `data:` URL). `audio` takes the page's audio first, then the sound of its video. A video file
 * already in MP4 or WebM, and an MP3, are stored as they came, without ffmpeg.
 *
 * A page without media, or whose media cannot be fetched or converted, gets the format as `null`
 * and a `warning` naming why; a server without ffmpeg refuses the format (400 NotSupported, as a
 * server without a browser refuses a screenshot).
 */
import { Config, Effect, Option } from "effect"
import { mkdtemp, readFile, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import type { ArtifactStore } from "../artifacts/ArtifactStore.ts"
import { hasFormat, type ScrapeData, type ScrapeRequest } from "../contract/index.ts"
import type { FetcherService } from "../fetch/Fetcher.ts"
import { NotSupported, scrapeError, type ScrapeError } from "../ScrapeError.ts"
import { type FetchContext, prepare, type Prepared } from "./MediaDownload.ts"
import { ConversionFailed, type MediaError, mediaError } from "./MediaError.ts"
import { findMedia, type MediaKind, type MediaSource } from "./MediaSources.ts"
import { makeFfmpeg, MediaTranscoder, type TranscoderShape } from "./Transcoder.ts"

/** Default cap on what one format downloads (all segments together). */
export const DEFAULT_MEDIA_MAX_BYTES = 200 * 1024 * 1024
/** Sources tried per format before giving up (a page may list a dead one first). */
const MAX_ATTEMPTS = 3

export interface MediaDeps {
  readonly fetcher: FetcherService
  readonly artifacts: Option.Option<ArtifactStore["Service"]>
  readonly transcoder: TranscoderShape
  readonly maxBytes: number
}

/** The transcoder in the context, else ffmpeg at `STRATA_FFMPEG_PATH`; the cap from `STRATA_MEDIA_MAX_MB`. */
export const mediaDepsFromContext = (fetcher: FetcherService, artifacts: Option.Option<ArtifactStore["Service"]>): Effect.Effect<MediaDeps> =>
  Effect.gen(function*() {
    const configured = yield* Effect.serviceOption(MediaTranscoder)
    const path = yield* Config.String("STRATA_FFMPEG_PATH").pipe(Config.withDefault("ffmpeg"), Effect.orElseSucceed(() => "ffmpeg"))
    const maxMb = yield* Config.Number("STRATA_MEDIA_MAX_MB").pipe(Config.withDefault(DEFAULT_MEDIA_MAX_BYTES / 2 ** 20), Effect.orElseSucceed(() => DEFAULT_MEDIA_MAX_BYTES / 2 ** 20))
    return { fetcher, artifacts, transcoder: Option.getOrElse(configured, () => makeFfmpeg({ path })), maxBytes: Math.max(1, maxMb) * 2 ** 20 }
  })

const tempDir = Effect.acquireRelease(
  Effect.promise(() => mkdtemp(join(tmpdir(), "strata-media-"))),
  (dir) => Effect.promise(() => rm(dir, { recursive: true, force: true }))
)

const isMp4OrWebm = (type: string | undefined) => type === "video/mp4" || type === "video/webm"

/** One source made into the format's file: its bytes and content type. */
const convert = (deps: MediaDeps, context: FetchContext, source: MediaSource, want: MediaKind, deadline: number) =>
  Effect.scoped(Effect.gen(function*() {
    const dir = yield* tempDir
    const prepared: Prepared = yield* prepare(context, source, want, dir)
    const type = prepared.fileType?.split(";")[0].trim().toLowerCase()
    if (prepared.bytes !== undefined && want === "audio" && (type === "audio/mpeg" || type === "audio/mp3")) {
      return { bytes: prepared.bytes, contentType: "audio/mpeg" }
    }
    if (prepared.bytes !== undefined && want === "video" && isMp4OrWebm(type)) return { bytes: prepared.bytes, contentType: type! }
    const output = join(dir, want === "audio" ? "out.mp3" : "out.mp4")
    if (want === "audio") yield* deps.transcoder.toMp3(prepared.main, output, deadline)
    else yield* deps.transcoder.toMp4(prepared.main, prepared.audio, output, deadline)
    const bytes = yield* Effect.tryPromise({ try: () => readFile(output), catch: () => mediaError(new ConversionFailed({ message: "ffmpeg wrote no file" })) })
    if (bytes.byteLength === 0) return yield* Effect.fail(mediaError(new ConversionFailed({ message: "ffmpeg wrote an empty file" })))
    return { bytes: new Uint8Array(bytes), contentType: want === "audio" ? "audio/mpeg" : "video/mp4" }
  }))

const noMedia = (kind: MediaKind) =>
  kind === "audio"
    ? "audio: the page has no audio or video (looked for <audio>, <video> and <source>, og:audio and og:video, JSON-LD AudioObject and VideoObject, and links to media files and HLS or DASH manifests)"
    : "video: the page has no video (looked for <video> and <source>, og:video, JSON-LD VideoObject, and links to video files and HLS or DASH manifests)"

const toolMissing = (kind: MediaKind, error: MediaError): ScrapeError =>
  scrapeError(new NotSupported({ option: `formats: ${kind}`, message: `The format \`${kind}\` is not supported by this server: ${error.message}` }))

/** The link to the format's file, or null with a warning. */
const makeFormat = (deps: MediaDeps, kind: MediaKind, sources: ReadonlyArray<MediaSource>, request: ScrapeRequest, deadline: number) =>
  Effect.gen(function*() {
    const candidates = kind === "audio"
      ? [...sources.filter((s) => s.kind === "audio"), ...sources.filter((s) => s.kind === "video")]
      : sources.filter((s) => s.kind === "video")
    if (candidates.length === 0) return { url: null, warning: noMedia(kind) }
    const context: FetchContext = {
      fetcher: deps.fetcher,
      headers: request.headers,
      skipTlsVerification: request.skipTlsVerification,
      deadline,
      budget: { left: deps.maxBytes, total: deps.maxBytes }
    }
    const failures: Array<string> = []
    for (const source of candidates.slice(0, MAX_ATTEMPTS)) {
      const made = yield* Effect.result(convert(deps, context, source, kind, deadline))
      if (made._tag === "Success") {
        const { bytes, contentType } = made.success
        if (Option.isNone(deps.artifacts)) return { url: `data:${contentType};base64,${Buffer.from(bytes).toString("base64")}`, warning: undefined }
        const stored = yield* deps.artifacts.value.put({ bytes, contentType, kind })
        return { url: stored.url, warning: undefined }
      }
      if (made.failure.reason._tag === "ToolMissing") return yield* Effect.fail(toolMissing(kind, made.failure))
      failures.push(`${source.url}: ${made.failure.message}`)
    }
    return { url: null, warning: `${kind}: the page's media could not be saved (${failures.join("; ")})` }
  })

/**
 * `data` with the `audio` and `video` the request asks for, from the page's HTML (the rendered
 * DOM when the browser served it). `deadline` bounds every download and ffmpeg run.
 */
export const withMedia = (
  deps: MediaDeps,
  data: ScrapeData,
  page: { readonly html: string | undefined; readonly url: string; readonly media?: MediaSource | undefined },
  request: ScrapeRequest,
  deadline: number
): Effect.Effect<ScrapeData, ScrapeError> =>
  Effect.gen(function*() {
    const kinds = (["audio", "video"] as const).filter((kind) => hasFormat(request, kind))
    if (kinds.length === 0) return data
    const sources = page.media !== undefined ? [page.media] : page.html === undefined ? [] : findMedia(page.html, page.url)
    const fields: { audio?: string | null; video?: string | null } = {}
    const warnings: Array<string> = []
    for (const kind of kinds) {
      const made = yield* makeFormat(deps, kind, sources, request, deadline)
      fields[kind] = made.url
      if (made.warning !== undefined) warnings.push(made.warning)
    }
    const warning = [data.warning, ...warnings].filter((w): w is string => typeof w === "string" && w !== "").join("; ")
    return { ...data, ...fields, ...(warning === "" ? {} : { warning }) }
  })
