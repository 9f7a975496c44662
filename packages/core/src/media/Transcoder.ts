/**
 * The media transcoder: ffmpeg, a Debian package (`.ci/run` installs it), run as a child process
 * on local files only (`-protocol_whitelist file,crypto`: the downloads went through the fetch
 * engine, and a playlist cannot send ffmpeg to the network). `toMp3` extracts the first audio
 * stream to MP3; `toMp4` copies the first video stream (and the first audio stream, of the same
 * input or of a second one) into an MP4 without re-encoding. The process is killed with its
 * group when the request's deadline passes or the request is interrupted. At most one ffmpeg a
 * core runs at once (others wait, within their deadline), at nice 10 like the document readers,
 * so that conversions never starve the server's own thread.
 */
import { Context, Effect, Layer, Semaphore } from "effect"
import { spawn } from "node:child_process"
import { availableParallelism, setPriority } from "node:os"
import { ConversionFailed, type MediaError, mediaError, ToolMissing } from "./MediaError.ts"

/** An input file; `hls` when it is a playlist whose entries are local files. */
export interface MediaInput {
  readonly path: string
  readonly hls: boolean
}

export interface TranscoderShape {
  readonly toMp3: (input: MediaInput, output: string, deadline: number) => Effect.Effect<void, MediaError>
  readonly toMp4: (video: MediaInput, audio: MediaInput | undefined, output: string, deadline: number) => Effect.Effect<void, MediaError>
}

export interface FfmpegOptions {
  /** The ffmpeg executable. Default `ffmpeg` on the PATH (`STRATA_FFMPEG_PATH` in the server). */
  readonly path?: string | undefined
  /** Conversions at once. Default: one a core. */
  readonly concurrency?: number | undefined
}

const inputArgs = (input: MediaInput): Array<string> => [
  "-protocol_whitelist", "file,crypto",
  ...(input.hls ? ["-allowed_extensions", "ALL"] : []),
  "-i", input.path
]

/** The last lines of ffmpeg's stderr, without paths (they name our temporary folder). */
const lastWords = (stderr: string): string =>
  stderr.trim().split("\n").slice(-3).join(" ").replace(/\/[^\s:'"]*\//g, "").slice(0, 300)

/** Runs ffmpeg in its own process group; fails with ToolMissing when it cannot start. */
const runFfmpeg = (binary: string, args: ReadonlyArray<string>, deadline: number): Effect.Effect<void, MediaError> =>
  Effect.callback<void, MediaError>((resume, signal) => {
    const child = spawn(binary, ["-nostdin", "-hide_banner", "-loglevel", "error", "-y", ...args], { detached: true, stdio: ["ignore", "ignore", "pipe"] })
    try {
      if (child.pid !== undefined) setPriority(child.pid, 10)
    } catch {
      // Not allowed here (a container without the capability): it runs at the server's priority.
    }
    let stderr = ""
    let settled = false
    const kill = () => {
      try {
        if (child.pid !== undefined) process.kill(-child.pid, "SIGKILL")
      } catch {
        child.kill("SIGKILL")
      }
    }
    const finish = (result: Effect.Effect<void, MediaError>) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      signal.removeEventListener("abort", kill)
      resume(result)
    }
    child.stderr?.on("data", (chunk: Buffer) => {
      if (stderr.length < 8192) stderr += chunk.toString()
    })
    const timer = setTimeout(() => {
      kill()
      finish(Effect.fail(mediaError(new ConversionFailed({ message: "ffmpeg did not finish before the request's deadline" }))))
    }, Math.max(1, deadline - Date.now()))
    signal.addEventListener("abort", kill, { once: true })
    child.on("error", (error: NodeJS.ErrnoException) =>
      finish(Effect.fail(mediaError(new ToolMissing({
        tool: "ffmpeg",
        message: error.code === "ENOENT"
          ? `ffmpeg is not installed on this server (looked for \`${binary}\`; install Debian's ffmpeg package or set STRATA_FFMPEG_PATH)`
          : `ffmpeg could not be started from \`${binary}\` (${error.code ?? error.message})`
      })))))
    child.on("close", (code) =>
      finish(code === 0 ? Effect.void : Effect.fail(mediaError(new ConversionFailed({ message: `ffmpeg failed: ${lastWords(stderr) || `exit code ${code}`}` })))))
  })

export const makeFfmpeg = (options: FfmpegOptions = {}): TranscoderShape => {
  const binary = options.path ?? "ffmpeg"
  const slots = Semaphore.makeUnsafe(Math.max(1, options.concurrency ?? availableParallelism()))
  const run = (args: ReadonlyArray<string>, deadline: number) => slots.withPermit(runFfmpeg(binary, args, deadline))
  return {
    toMp3: (input, output, deadline) =>
      run([...inputArgs(input), "-vn", "-map", "0:a:0", "-c:a", "libmp3lame", "-b:a", "128k", "-f", "mp3", output], deadline),
    toMp4: (video, audio, output, deadline) =>
      run([
        ...inputArgs(video),
        ...(audio === undefined ? [] : inputArgs(audio)),
        "-map", "0:v:0", "-map", audio === undefined ? "0:a:0?" : "1:a:0?",
        "-c", "copy", "-movflags", "+faststart", "-f", "mp4", output
      ], deadline)
  }
}

export class MediaTranscoder extends Context.Service<MediaTranscoder, TranscoderShape>()("@strata/core/MediaTranscoder") {
  static readonly layer = (options: FfmpegOptions = {}): Layer.Layer<MediaTranscoder> => Layer.succeed(MediaTranscoder, makeFfmpeg(options))
}
