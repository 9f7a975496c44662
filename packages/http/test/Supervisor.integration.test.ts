/**
 * `npm start`'s bin as a process, supervisor and all, with the real pipeline: a killed server is
 * restarted on the same port with the same key and data dir, its exit and the request it cut
 * short are logged, SIGTERM drains and exits 0 without a restart, a killed supervisor leaves no
 * server behind, and STRATA_SUPERVISE=0 serves in one process.
 */
import { type ChildProcess, spawn } from "node:child_process"
import { readFileSync } from "node:fs"
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { freePort, tempDir } from "./support.ts"

const node = fileURLToPath(new URL("../../../node_modules/.bin/node", import.meta.url))
const bin = fileURLToPath(new URL("../src/bin.ts", import.meta.url))

/** Every pid a test started or learnt of, killed in afterAll whatever happened. */
const pids = new Set<number>()

const isAlive = (pid: number) => {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

const waitFor = async <A>(what: string, check: () => A | undefined | false, timeoutMs = 15_000): Promise<A> => {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const value = check()
    if (value !== undefined && value !== false) return value
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

interface Started {
  readonly process: ChildProcess
  readonly url: string
  readonly output: () => string
  /** The JSON lines written so far. */
  readonly lines: () => Array<Record<string, any>>
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>
}

const startBin = async (env: Record<string, string>, args: Array<string> = []): Promise<Started> => {
  const port = await freePort()
  const { STRATA_API_KEYS: _keys, STRATA_SUPERVISE: _supervise, ...base } = process.env
  const proc = spawn(node, ["--conditions=@strata/source", bin, ...args], {
    env: { ...base, HOST: "127.0.0.1", PORT: String(port), STRATA_ALLOW_PRIVATE_URLS: "1", ...env },
    stdio: ["ignore", "pipe", "pipe"]
  })
  pids.add(proc.pid!)
  let output = ""
  proc.stdout!.on("data", (chunk: Buffer) => (output += chunk.toString("utf8")))
  proc.stderr!.on("data", (chunk: Buffer) => (output += chunk.toString("utf8")))
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    proc.on("exit", (code, signal) => resolve({ code, signal }))
  )
  const lines = () =>
    output.split("\n").filter((line) => line.startsWith("{")).map((line) => JSON.parse(line) as Record<string, any>)
  return { process: proc, url: `http://127.0.0.1:${port}`, output: () => output, lines, exited }
}

/** The supervisor's "server listening" line for the n-th start (its pid is the server's). */
const listening = (started: Started, start: number) =>
  waitFor(`server start ${start}:\n${started.output()}`, () => {
    const line = started.lines().find((l) => l.msg === "server listening" && l.start === start)
    if (line) pids.add(line.pid)
    return line
  })

const health = (url: string) =>
  fetch(`${url}/health`).then((response) => response.status, () => "refused" as const)

/** Pages to scrape: `/hang` never answers (a request in flight when the server dies), `/slow` after 1.5 s. */
let pages: Server
let pagesUrl: string
let hangs = 0

beforeAll(async () => {
  pages = createServer((request, response) => {
    if (request.url === "/hang") {
      hangs += 1
      return
    }
    const html = "<html><head><title>t</title></head><body><p>A page to scrape.</p></body></html>"
    const delay = request.url === "/slow" ? 1500 : 0
    setTimeout(() => response.writeHead(200, { "content-type": "text/html" }).end(html), delay)
  })
  await new Promise<void>((resolve) => pages.listen(0, "127.0.0.1", resolve))
  pagesUrl = `http://127.0.0.1:${(pages.address() as AddressInfo).port}`
})

afterAll(async () => {
  for (const pid of pids) if (isAlive(pid)) process.kill(pid, "SIGKILL")
  pages.closeAllConnections()
  await new Promise((resolve) => pages.close(resolve))
})

const scrape = (url: string, key: string, page: string, requestId: string) =>
  fetch(`${url}/v2/scrape`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json", "x-request-id": requestId },
    body: JSON.stringify({ url: `${pagesUrl}${page}`, formats: ["markdown"] })
  })

describe("npm start under its supervisor", () => {
  it("restarts a killed server on the same port, with the same key, logging the exit and the lost request", async () => {
    const dataDir = tempDir()
    const server = await startBin({ STRATA_DATA_DIR: dataDir })
    const first = await listening(server, 1)
    expect(first.pid).not.toBe(server.process.pid)
    const key = /(sk-strata-[A-Za-z0-9_-]{43})/.exec(server.output())?.[1]
    expect(key).toBeDefined()
    const keyFile = readFileSync(join(dataDir, "api-keys.json"), "utf8")

    const lost = scrape(server.url, key!, "/hang", "lost-by-the-test").then((r) => r.status, () => "reset")
    await waitFor("the scrape to reach the page", () => hangs === 1)
    process.kill(first.pid, "SIGKILL")
    expect(await lost).toBe("reset")

    const killedAt = Date.now()
    await listening(server, 2)
    expect(await health(server.url)).toBe(200)
    expect(Date.now() - killedAt).toBeLessThan(8_000)

    const lines = server.lines()
    expect(lines).toContainEqual(expect.objectContaining({
      msg: "server exited",
      pid: first.pid,
      code: null,
      signal: "SIGKILL",
      lost: 1,
      restartInMs: 500
    }))
    expect(lines).toContainEqual(expect.objectContaining({
      msg: "request lost",
      requestId: "lost-by-the-test",
      method: "POST",
      path: "/v2/scrape"
    }))
    // The data dir is untouched and the key printed on the first start still works, unprinted.
    expect(readFileSync(join(dataDir, "api-keys.json"), "utf8")).toBe(keyFile)
    expect(server.output().split(key!).length - 1).toBe(1)
    const again = await scrape(server.url, key!, "/", "after-restart")

    // SIGTERM while a scrape is in flight: it finishes, the server stops, no restart, exit 0.
    expect(again.status).toBe(200)
    const second = server.lines().find((l) => l.msg === "server listening" && l.start === 2)!
    const draining = scrape(server.url, key!, "/slow", "drained")
    await new Promise((resolve) => setTimeout(resolve, 300))
    server.process.kill("SIGTERM")
    expect((await draining).status).toBe(200)
    expect(await server.exited).toEqual({ code: 0, signal: null })
    expect(server.lines()).toContainEqual(expect.objectContaining({ msg: "server stopped", pid: second.pid, code: 0, lost: 0 }))
    expect(server.lines().filter((l) => l.msg === "server exited")).toHaveLength(1)
    expect(isAlive(second.pid)).toBe(false)
    expect(await health(server.url)).toBe("refused")
  })

  it("leaves no server behind when the supervisor itself is killed", async () => {
    const server = await startBin({ STRATA_DATA_DIR: tempDir(), STRATA_API_KEYS: "test-key" })
    const { pid } = await listening(server, 1)
    server.process.kill("SIGKILL")
    await waitFor("the orphaned server to stop", () => !isAlive(pid), 12_000)
    expect(await health(server.url)).toBe("refused")
  })

  it("kills a draining server on a second signal a second later, logging its request as lost", async () => {
    const server = await startBin({ STRATA_DATA_DIR: tempDir(), STRATA_API_KEYS: "test-key" })
    const { pid } = await listening(server, 1)
    const before = hangs
    const stuck = scrape(server.url, "test-key", "/hang", "cut-by-force").then((r) => r.status, () => "reset")
    await waitFor("the scrape to reach the page", () => hangs === before + 1)
    server.process.kill("SIGTERM")
    // A repeat within the second is the same stop (npm forwards the Ctrl-C the supervisor also got).
    server.process.kill("SIGTERM")
    await new Promise((resolve) => setTimeout(resolve, 1200))
    expect(isAlive(pid)).toBe(true)
    server.process.kill("SIGTERM")
    expect(await server.exited).toEqual({ code: 143, signal: null })
    expect(await stuck).toBe("reset")
    await waitFor("the server to die", () => !isAlive(pid), 5_000)
    expect(server.lines()).toContainEqual(expect.objectContaining({ msg: "supervisor forced to stop", pid }))
    expect(server.lines()).toContainEqual(expect.objectContaining({ msg: "request lost", requestId: "cut-by-force" }))
  })

  it("exits at once with an error when the server cannot start", async () => {
    const server = await startBin({ STRATA_DATA_DIR: tempDir(), STRATA_API_KEYS: "test-key", STRATA_RATE_LIMIT: "lots" })
    expect(await server.exited).toEqual({ code: 1, signal: null })
    expect(server.output()).toContain("STRATA_RATE_LIMIT must be a non-negative number")
    expect(server.lines()).toContainEqual(expect.objectContaining({ msg: "supervisor giving up", code: 1 }))
  })

  it("serves in one process with STRATA_SUPERVISE=0", async () => {
    const server = await startBin({ STRATA_DATA_DIR: tempDir(), STRATA_API_KEYS: "test-key", STRATA_SUPERVISE: "0" })
    await waitFor("the server to listen", () => server.output().includes("Strata listening on"))
    expect(await health(server.url)).toBe(200)
    expect(server.lines().some((l) => typeof l.msg === "string" && l.msg.startsWith("server") && l.msg !== "request")).toBe(false)
    // Nothing else holds the port: killing this one process closes it.
    server.process.kill("SIGKILL")
    await server.exited
    expect(await health(server.url)).toBe("refused")
  })
})
