/**
 * Legacy binary formats with no maintained pure-JS reader (.doc, .ppt) are converted to their
 * OOXML successors by LibreOffice in headless mode, then read by our own readers. Each
 * conversion runs in a fresh temporary folder with its own user profile (profiles are pooled,
 * never shared by two running conversions, because LibreOffice locks them), under a time limit
 * (the process group is killed when it runs out), and everything is removed afterwards. Macros
 * are disabled by the conversion filter's defaults and never run.
 *
 * `LibreOffice` is a service: its slots (a `Semaphore`) and profile folders live as long as its
 * layer, which reads `STRATA_SOFFICE` and `STRATA_SOFFICE_CONCURRENCY` through `Config`.
 */
import { spawn } from "node:child_process"
import { existsSync, rmSync } from "node:fs"
import { mkdir, mkdtemp, readFile, readdir, rm, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { delimiter, join } from "node:path"
import { pathToFileURL } from "node:url"
import { Config, Context, Effect, Layer, Scope, Semaphore } from "effect"
import type { DocumentError } from "@strata/core"
import { corrupt, missingComponent, timedOut, toDocumentError } from "./Failure.ts"

const candidates = ["soffice", "libreoffice"]
const fixedPaths = ["/usr/bin/soffice", "/usr/lib/libreoffice/program/soffice", "/opt/libreoffice/program/soffice", "/Applications/LibreOffice.app/Contents/MacOS/soffice"]

/**
 * The soffice executable: `configured` when given (null if it does not exist), then the folders
 * of `searchPath` (a PATH value), then the usual install folders; null when absent.
 */
export const findSoffice = (configured: string | undefined, searchPath: string): string | null => {
  if (configured !== undefined && configured.length > 0) return existsSync(configured) ? configured : null
  for (const dir of searchPath.split(delimiter)) {
    for (const name of candidates) {
      const path = join(dir, name)
      if (dir.length > 0 && existsSync(path)) return path
    }
  }
  for (const path of fixedPaths) if (existsSync(path)) return path
  return null
}

export interface LibreOfficeOptions {
  /** The soffice executable; null: LibreOffice is not installed (.doc is read as text only, .ppt fails). */
  readonly binary: string | null
  /** At most this many soffice processes at once (each takes a core and ~200 MB); others queue. */
  readonly concurrency: number
}

/**
 * `STRATA_SOFFICE` (the executable; when unset, looked for on `PATH` and in the usual install
 * folders) and `STRATA_SOFFICE_CONCURRENCY` (default 2).
 */
export const libreOfficeConfig: Effect.Effect<LibreOfficeOptions> = Effect.gen(function*() {
  const configured = yield* Config.String("STRATA_SOFFICE").pipe(Config.withDefault(""), Effect.orElseSucceed(() => ""))
  const searchPath = yield* Config.String("PATH").pipe(Config.withDefault(""), Effect.orElseSucceed(() => ""))
  const concurrency = yield* Config.Number("STRATA_SOFFICE_CONCURRENCY").pipe(Config.withDefault(2), Effect.orElseSucceed(() => 2))
  return { binary: findSoffice(configured, searchPath), concurrency: Math.max(1, Math.floor(concurrency) || 2) }
})

export interface ConvertOptions {
  readonly format: string
  /** Target extension: `docx`, `pptx`. */
  readonly to: string
  /** Epoch ms by which the conversion must be done. */
  readonly deadline: number
  /** Upper bound for one conversion, whatever the deadline (default 120 s). */
  readonly maxMs?: number
}

const isAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as { code?: string }).code === "EPERM"
  }
}

/** Profile folders of processes that were killed (no exit hook ran) are removed by the next process. */
const removeStaleProfiles = async (): Promise<void> => {
  for (const name of await readdir(tmpdir()).catch(() => [] as Array<string>)) {
    const pid = Number(/^strata-lo-(\d+)(?:-\w+)?$/.exec(name)?.[1])
    if (Number.isInteger(pid) && pid !== process.pid && !isAlive(pid)) await rm(join(tmpdir(), name), { recursive: true, force: true })
  }
}

/** Profile folders of one `LibreOffice` service: reused while it lives, removed with it. */
const makeProfiles = () => {
  const free: Array<string> = []
  let count = 0
  let root: string | undefined
  // Made once, on the first conversion (two conversions starting together share it).
  let rootMade: Promise<string> | undefined
  // A process that exits without releasing the layer still removes its profiles.
  const onExit = () => {
    if (root !== undefined) rmSync(root, { recursive: true, force: true })
  }
  const makeRoot = async (): Promise<string> => {
    await removeStaleProfiles()
    const made = await mkdtemp(join(tmpdir(), `strata-lo-${process.pid}-`))
    root = made
    process.once("exit", onExit)
    return made
  }
  return {
    acquire: async (): Promise<string> => {
      const reused = free.pop()
      if (reused !== undefined) return reused
      const dir = await (rootMade ??= makeRoot().catch((error: unknown) => {
        rootMade = undefined
        throw error
      }))
      await mkdir(dir, { recursive: true })
      return join(dir, `profile-${count++}`)
    },
    /** A profile whose process was killed may be left locked or half-written: it is dropped. */
    release: async (profile: string, healthy: boolean): Promise<void> => {
      if (healthy) free.push(profile)
      else await rm(profile, { recursive: true, force: true })
    },
    close: async (): Promise<void> => {
      process.off("exit", onExit)
      if (root !== undefined) await rm(root, { recursive: true, force: true })
      root = undefined
      rootMade = undefined
      free.length = 0
    }
  }
}

type Profiles = ReturnType<typeof makeProfiles>

/** The service with the given options; its profile folders are removed when `scope` closes. */
const make = (options: LibreOfficeOptions): Effect.Effect<LibreOffice["Service"], never, Scope.Scope> =>
  Effect.gen(function*() {
    const slots = yield* Semaphore.make(Math.max(1, options.concurrency))
    const profiles = makeProfiles()
    yield* Effect.addFinalizer(() => Effect.promise(profiles.close))
    const binary = options.binary
    const convertBytes = (bytes: Uint8Array, convert: ConvertOptions): Effect.Effect<Uint8Array, DocumentError> => {
      if (binary === null) {
        return Effect.fail(missingComponent(convert.format, "LibreOffice", `reading .${convert.format} files needs LibreOffice (soffice) installed on the server; it was not found`))
      }
      // Waiting for a slot is bounded by the deadline; the conversion bounds itself (its budget).
      const waitForSlot = slots.take(1).pipe(Effect.timeoutOrElse({
        duration: Math.max(0, convert.deadline - Date.now()),
        orElse: () => Effect.fail(timedOut(convert.format, "the request's timeout ran out while waiting for LibreOffice"))
      }))
      const run = Effect.tryPromise({ try: () => convertWith(binary, profiles, bytes, convert), catch: (error) => toDocumentError(convert.format, error) })
      return Effect.uninterruptibleMask((restore) =>
        Effect.andThen(restore(waitForSlot), restore(run).pipe(Effect.ensuring(slots.release(1))))
      )
    }
    return { binary, convert: convertBytes }
  })

/** LibreOffice headless conversions, at most `concurrency` at once. */
export class LibreOffice extends Context.Service<LibreOffice, {
  /** The soffice executable; null when LibreOffice is not installed. */
  readonly binary: string | null
  /** Converts `bytes` (a .`format` file) and returns the converted file's bytes. */
  readonly convert: (bytes: Uint8Array, options: ConvertOptions) => Effect.Effect<Uint8Array, DocumentError>
}>()("@strata/office/LibreOffice") {
  static readonly make = make
  static readonly layerWith = (options: LibreOfficeOptions): Layer.Layer<LibreOffice> => Layer.effect(LibreOffice, make(options))
  /** Configured from `STRATA_SOFFICE` and `STRATA_SOFFICE_CONCURRENCY` (see `libreOfficeConfig`). */
  static readonly layer: Layer.Layer<LibreOffice> = Layer.effect(LibreOffice, Effect.flatMap(libreOfficeConfig, make))
}

const convertWith = async (binary: string, profiles: Profiles, bytes: Uint8Array, options: ConvertOptions): Promise<Uint8Array> => {
  const budget = Math.min(options.maxMs ?? 120_000, options.deadline - Date.now())
  if (budget <= 0) throw timedOut(options.format, "no time left for the LibreOffice conversion")
  const work = await mkdtemp(join(tmpdir(), "strata-convert-"))
  const profile = await profiles.acquire()
  let healthy = true
  try {
    const input = join(work, `input.${options.format}`)
    await writeFile(input, bytes)
    const args = [
      "--headless", "--invisible", "--norestore", "--nolockcheck", "--nodefault", "--nologo", "--nofirststartwizard",
      `-env:UserInstallation=${pathToFileURL(profile).href}`,
      "--convert-to", options.to, "--outdir", join(work, "out"), input
    ]
    const outcome = await run(binary, args, budget)
    if (outcome === "timeout") {
      healthy = false
      throw timedOut(options.format, `LibreOffice did not finish converting within ${Math.round(budget / 1000)} s`)
    }
    const produced = existsSync(join(work, "out")) ? await readdir(join(work, "out")) : []
    const file = produced.find((name) => name.toLowerCase().endsWith(`.${options.to}`))
    // LibreOffice's own output names temporary paths and internals: the client gets our sentence only.
    if (file === undefined) throw corrupt(options.format, "LibreOffice could not convert the file: it is damaged or not a document of this type")
    return new Uint8Array(await readFile(join(work, "out", file)))
  } finally {
    await rm(work, { recursive: true, force: true })
    await profiles.release(profile, healthy)
  }
}

/**
 * Runs a process in its own group, with this process's environment; resolves with its stderr, or
 * "timeout" after killing the group. (`UserInstallation` points LibreOffice at our profile, so it
 * needs no HOME: measured, a conversion with HOME unset works.)
 */
const run = (binary: string, args: ReadonlyArray<string>, timeoutMs: number): Promise<string> =>
  new Promise((resolve, reject) => {
    const child = spawn(binary, args, { detached: true, stdio: ["ignore", "ignore", "pipe"] })
    let stderr = ""
    child.stderr?.on("data", (chunk: Buffer) => {
      if (stderr.length < 4096) stderr += chunk.toString()
    })
    const timer = setTimeout(() => {
      try {
        if (child.pid !== undefined) process.kill(-child.pid, "SIGKILL")
      } catch {
        child.kill("SIGKILL")
      }
      resolve("timeout")
    }, timeoutMs)
    child.on("error", (error: NodeJS.ErrnoException) => {
      clearTimeout(timer)
      reject(missingComponent("doc", "LibreOffice", `LibreOffice could not be started${error.code === undefined ? "" : ` (${error.code})`}`))
    })
    child.on("close", () => {
      clearTimeout(timer)
      resolve(stderr)
    })
  })
