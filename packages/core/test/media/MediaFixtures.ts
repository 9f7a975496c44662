/**
 * Media for the audio and video tests, made by ffmpeg itself in a temporary folder: a 1-second
 * 440 Hz tone (WAV), a 1-second 64x48 clip with sound (MP4), the clip as an HLS playlist of
 * half-second segments and as two DASH manifests (timeline and numbered segments); and a loopback server for the folder.
 */
import { execFileSync } from "node:child_process"
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs"
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { tmpdir } from "node:os"
import { extname, join, normalize } from "node:path"

const ffmpeg = (...args: Array<string>) => execFileSync("ffmpeg", ["-nostdin", "-hide_banner", "-loglevel", "error", "-y", ...args])

export const makeMedia = (): string => {
  const dir = mkdtempSync(join(tmpdir(), "strata-media-fixtures-"))
  ffmpeg("-f", "lavfi", "-i", "sine=frequency=440:duration=1", join(dir, "tone.wav"))
  ffmpeg(
    "-f", "lavfi", "-i", "testsrc=size=64x48:rate=10:duration=1", "-f", "lavfi", "-i", "sine=frequency=660:duration=1",
    "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", "-g", "5", "-c:a", "aac", "-shortest", join(dir, "clip.mp4")
  )
  mkdirSync(join(dir, "hls"))
  ffmpeg("-i", join(dir, "clip.mp4"), "-c", "copy", "-f", "hls", "-hls_time", "0.5", "-hls_playlist_type", "vod", "-hls_segment_filename", join(dir, "hls", "seg%d.ts"), join(dir, "hls", "index.m3u8"))
  // The playlist again at a name with no extension, served as octet-stream: only its first bytes say what it is.
  copyFileSync(join(dir, "hls", "index.m3u8"), join(dir, "hls", "stream"))
  mkdirSync(join(dir, "dash"))
  // Segments timed by a SegmentTimeline, and numbered by a template's duration.
  ffmpeg("-i", join(dir, "clip.mp4"), "-c", "copy", "-f", "dash", "-seg_duration", "0.5", join(dir, "dash", "manifest.mpd"))
  mkdirSync(join(dir, "dash-numbered"))
  ffmpeg("-i", join(dir, "clip.mp4"), "-c", "copy", "-f", "dash", "-seg_duration", "0.5", "-use_timeline", "0", join(dir, "dash-numbered", "manifest.mpd"))
  return dir
}

const types: Record<string, string> = {
  ".wav": "audio/wav", ".mp4": "video/mp4", ".m3u8": "application/vnd.apple.mpegurl", ".ts": "video/mp2t",
  ".mpd": "application/dash+xml", ".m4s": "video/iso.segment", ".html": "text/html; charset=utf-8"
}

export interface MediaSite {
  readonly url: string
  /** Paths asked for, in order. */
  readonly hits: Array<string>
  readonly close: () => Promise<void>
}

/** Serves `pages` (path to HTML) and the folder's files under `/media/`. */
export const serveMedia = async (dir: string, pages: Record<string, string>): Promise<MediaSite> => {
  const hits: Array<string> = []
  const server: Server = createServer((request, response) => {
    const path = (request.url ?? "/").split("?")[0]
    hits.push(path)
    if (pages[path] !== undefined) return void response.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(pages[path])
    if (path.startsWith("/media/")) {
      const file = normalize(join(dir, path.slice("/media/".length)))
      if (file.startsWith(dir) && statSync(file, { throwIfNoEntry: false })?.isFile()) {
        return void response.writeHead(200, { "content-type": types[extname(file)] ?? "application/octet-stream" }).end(readFileSync(file))
      }
    }
    response.writeHead(404, { "content-type": "text/plain" }).end("not here")
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    hits,
    close: () => new Promise((resolve) => {
      server.closeAllConnections()
      server.close(() => resolve())
    })
  }
}

/** What ffprobe says of a file: its streams' codec types and names, and its duration in seconds. */
export const probe = (bytes: Uint8Array): { readonly streams: Array<{ codec_type: string; codec_name: string }>; readonly duration: number } => {
  const dir = mkdtempSync(join(tmpdir(), "strata-probe-"))
  try {
    const file = join(dir, "file")
    execFileSync("sh", ["-c", `cat > "${file}"`], { input: bytes })
    const out = JSON.parse(execFileSync("ffprobe", ["-v", "error", "-show_streams", "-show_format", "-of", "json", file]).toString())
    return { streams: out.streams, duration: Number(out.format.duration) }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

export const removeMedia = (dir: string) => rmSync(dir, { recursive: true, force: true })
