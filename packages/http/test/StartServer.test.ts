/**
 * The server as a process, configured from the environment as `npm start` does: the generated
 * key is printed on the first start only, and SIGTERM/SIGINT let a request in flight finish
 * before the process exits cleanly.
 */
import { spawn, type ChildProcess } from "node:child_process"
import { fileURLToPath } from "node:url"
import { describe, expect, it } from "vitest"
import { tempDir } from "./support.ts"

const node = fileURLToPath(new URL("../../../node_modules/.bin/node", import.meta.url))
const child = fileURLToPath(new URL("./fixtures/serve-child.ts", import.meta.url))

interface Started {
  readonly process: ChildProcess
  readonly url: string
  readonly output: () => string
  readonly exited: Promise<number | null>
}

const startChild = (env: Record<string, string>): Promise<Started> =>
  new Promise((resolve, reject) => {
    const { STRATA_API_KEYS: _ignored, ...base } = process.env
    const proc = spawn(node, [child], { env: { ...base, HOST: "127.0.0.1", PORT: "0", ...env }, stdio: ["ignore", "pipe", "pipe"] })
    let output = ""
    const exited = new Promise<number | null>((done) => proc.on("exit", (code) => done(code)))
    const timer = setTimeout(() => reject(new Error(`server did not start:\n${output}`)), 20_000)
    const onData = (chunk: Buffer) => {
      output += chunk.toString("utf8")
      const match = /listening on (http:\/\/[^\s]+)/.exec(output)
      if (match) {
        clearTimeout(timer)
        resolve({ process: proc, url: match[1], output: () => output, exited })
      }
    }
    proc.stdout!.on("data", onData)
    proc.stderr!.on("data", (chunk: Buffer) => (output += chunk.toString("utf8")))
    proc.on("exit", () => reject(new Error(`server exited early:\n${output}`)))
  })

const slowScrape = (url: string, key: string) =>
  fetch(`${url}/v2/scrape`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify({ url: "https://example.com" })
  })

describe("serveUntilSignal as a process", () => {
  it("prints a generated key once, reuses it, and drains requests on SIGTERM and SIGINT", async () => {
    const dataDir = tempDir()
    const first = await startChild({ STRATA_DATA_DIR: dataDir })
    const key = /(sk-strata-[A-Za-z0-9_-]{43})/.exec(first.output())?.[1]
    expect(key).toBeDefined()

    const inFlight = slowScrape(first.url, key!)
    await new Promise((resolve) => setTimeout(resolve, 200))
    first.process.kill("SIGTERM")
    const response = await inFlight
    expect(response.status).toBe(200)
    expect(await response.json()).toEqual({ success: true, data: { markdown: "finished" } })
    expect(await first.exited).toBe(0)
    expect(first.output()).toContain("stopped")
    await expect(fetch(`${first.url}/health`)).rejects.toThrow()

    const second = await startChild({ STRATA_DATA_DIR: dataDir })
    expect(second.output()).not.toContain("sk-strata-")
    const again = await slowScrape(second.url, key!)
    expect(again.status).toBe(200)
    second.process.kill("SIGINT")
    expect(await second.exited).toBe(0)
    // One JSON log line per request on stdout, without the key.
    const lines = second.output().split("\n").filter((line) => line.startsWith("{"))
    expect(lines.map((line) => JSON.parse(line))).toEqual([expect.objectContaining({ path: "/v2/scrape", status: 200 })])
    expect(second.output()).not.toContain(key!)
  })
})
