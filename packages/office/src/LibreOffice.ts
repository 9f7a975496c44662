/**
 * Legacy binary formats with no maintained pure-JS reader (.doc, .ppt) are converted to their
 * OOXML successors by LibreOffice in headless mode, then read by our own readers. Each
 * conversion runs in a fresh temporary folder with its own user profile (profiles are pooled,
 * never shared by two running conversions, because LibreOffice locks them), under a time limit
 * (the process group is killed when it runs out), and everything is removed afterwards. Macros
 * are disabled by the conversion filter's defaults and never run.
 */
import { spawn } from "node:child_process"
import { existsSync, rmSync } from "node:fs"
import { mkdir, mkdtemp, readFile, readdir, rm, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { delimiter, join } from "node:path"
import { pathToFileURL } from "node:url"
import { corrupt, missingComponent, timedOut } from "./Failure.ts"

const candidates = ["soffice", "libreoffice"]
const fixedPaths = ["/usr/bin/soffice", "/usr/lib/libreoffice/program/soffice", "/opt/libreoffice/program/soffice", "/Applications/LibreOffice.app/Contents/MacOS/soffice"]

let cachedBinary: string | null | undefined

/** The soffice executable: `STRATA_SOFFICE`, then PATH, then the usual install folders; null when absent. */
export const findSoffice = (): string | null => {
  if (cachedBinary !== undefined) return cachedBinary
  const fromEnv = process.env.STRATA_SOFFICE
  if (fromEnv !== undefined && fromEnv.length > 0) return (cachedBinary = existsSync(fromEnv) ? fromEnv : null)
  for (const dir of (process.env.PATH ?? "").split(delimiter)) {
    for (const name of candidates) {
      const path = join(dir, name)
      if (dir.length > 0 && existsSync(path)) return (cachedBinary = path)
    }
  }
  for (const path of fixedPaths) if (existsSync(path)) return (cachedBinary = path)
  return (cachedBinary = null)
}

const freeProfiles: Array<string> = []
let profileCount = 0

const profileRoot = join(tmpdir(), `strata-lo-${process.pid}`)

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
    const pid = Number(/^strata-lo-(\d+)$/.exec(name)?.[1])
    if (Number.isInteger(pid) && pid !== process.pid && !isAlive(pid)) await rm(join(tmpdir(), name), { recursive: true, force: true })
  }
}

const acquireProfile = async (): Promise<string> => {
  const free = freeProfiles.pop()
  if (free !== undefined) return free
  if (profileCount === 0) {
    process.once("exit", () => rmSync(profileRoot, { recursive: true, force: true }))
    await removeStaleProfiles()
  }
  await mkdir(profileRoot, { recursive: true })
  return join(profileRoot, `profile-${profileCount++}`)
}

/** At most this many soffice processes at once (each takes a core and ~200 MB); others queue. */
const maxConcurrent = Math.max(1, Number(process.env.STRATA_SOFFICE_CONCURRENCY ?? 2) || 2)
let running = 0
const waiting: Array<() => void> = []

const acquireSlot = (deadline: number, format: string): Promise<void> => {
  if (running < maxConcurrent) {
    running++
    return Promise.resolve()
  }
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      const at = waiting.indexOf(grant)
      if (at >= 0) waiting.splice(at, 1)
      reject(timedOut(format, "the request's timeout ran out while waiting for LibreOffice"))
    }, Math.max(0, deadline - Date.now()))
    const grant = () => {
      clearTimeout(timer)
      running++
      resolve()
    }
    waiting.push(grant)
  })
}

const releaseSlot = (): void => {
  running--
  waiting.shift()?.()
}

export interface ConvertOptions {
  readonly format: string
  /** Target extension: `docx`, `pptx`. */
  readonly to: string
  /** Epoch ms by which the conversion must be done. */
  readonly deadline: number
  /** Upper bound for one conversion, whatever the deadline (default 120 s). */
  readonly maxMs?: number
}

/** Converts `bytes` (a .`format` file) with LibreOffice and returns the converted file's bytes. */
export const convertWithLibreOffice = async (bytes: Uint8Array, options: ConvertOptions): Promise<Uint8Array> => {
  const binary = findSoffice()
  if (binary === null) {
    throw missingComponent(options.format, "LibreOffice", `reading .${options.format} files needs LibreOffice (soffice) installed on the server; it was not found`)
  }
  await acquireSlot(options.deadline, options.format)
  try {
    return await convert(binary, bytes, options)
  } finally {
    releaseSlot()
  }
}

const convert = async (binary: string, bytes: Uint8Array, options: ConvertOptions): Promise<Uint8Array> => {
  const budget = Math.min(options.maxMs ?? 120_000, options.deadline - Date.now())
  if (budget <= 0) throw timedOut(options.format, "no time left for the LibreOffice conversion")
  const work = await mkdtemp(join(tmpdir(), "strata-convert-"))
  const profile = await acquireProfile()
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
    // A profile whose process was killed may be left locked or half-written: drop it.
    if (healthy) freeProfiles.push(profile)
    else await rm(profile, { recursive: true, force: true })
  }
}

/** Runs a process in its own group; resolves with its stderr, or "timeout" after killing the group. */
const run = (binary: string, args: ReadonlyArray<string>, timeoutMs: number): Promise<string> =>
  new Promise((resolve, reject) => {
    const child = spawn(binary, args, { detached: true, stdio: ["ignore", "ignore", "pipe"], env: { ...process.env, HOME: process.env.HOME ?? tmpdir() } })
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
