/**
 * GET /v2/artifacts/{file} on the real server, loopback, random port: a pipeline that stores a
 * screenshot through the server's ArtifactStore (as the browser engine does) hands out a link
 * that serves the same bytes without an API key; tampered, expired and made-up links and names
 * that try to leave the folder get the contract's JSON error; the sweeper deletes expired files;
 * links survive a restart on the same data folder.
 */
import { ArtifactStore, Pipeline } from "@strata/core"
import { Effect, Layer, Stream } from "effect"
import { readdirSync, readFileSync } from "node:fs"
import { createServer, request as httpRequest } from "node:http"
import { connect, type AddressInfo } from "node:net"
import { join } from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import type { ServerConfig } from "../src/index.ts"
import { type RawResponse, startTestServer, tempDir, type TestServer } from "./support.ts"

const KEY = "artifact-key"
const png = new Uint8Array(Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.alloc(200_000, 7)]))

/** A pipeline whose scrape stores a screenshot in the store it finds in its context, as the browser engine does. */
const screenshotPipeline = Layer.effect(Pipeline, Effect.gen(function*() {
  const store = yield* ArtifactStore
  const scrape = () =>
    Effect.map(store.put({ bytes: png, contentType: "image/png", kind: "screenshot" }), (stored) => ({
      screenshot: stored.url,
      metadata: { expiresAt: stored.expiresAt }
    }))
  return Pipeline.of({
    scrape: scrape as unknown as Pipeline["Service"]["scrape"],
    admit: () => Effect.void,
    parse: () => Effect.die(new Error("parse was not expected in this test")),
    scrapeStream: () => Stream.die(new Error("scrapeStream was not expected in this test")),
    parseStream: () => Stream.die(new Error("parseStream was not expected in this test"))
  })
}))

const servers: Array<TestServer> = []
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()))
})

const start = async (config: Partial<ServerConfig> = {}) => {
  const server = await startTestServer(screenshotPipeline, { apiKeys: [KEY], ...config })
  servers.push(server)
  return server
}

const screenshotOf = async (server: TestServer): Promise<string> => {
  const response = await fetch(`${server.url}/v2/scrape`, {
    method: "POST",
    headers: { authorization: `Bearer ${KEY}`, "content-type": "application/json" },
    // `screenshot` is refused before the pipeline until the browser engine lands; the double stores one anyway.
    body: JSON.stringify({ url: "https://example.com", formats: ["markdown"] })
  })
  const body = (await response.json()) as { success: boolean; data: { screenshot: string } }
  expect(body, JSON.stringify(body)).toMatchObject({ success: true })
  return body.data.screenshot
}

/**
 * A GET on its own connection (`agent: false`), the path sent exactly as written (fetch would
 * resolve `..` and re-encode). Its own connection because a client that has every byte of a
 * streamed body (by its length) can be a moment ahead of the server ending the response, and a
 * keep-alive connection caught in that moment holds the server's `close` until the client hangs up.
 */
const get = (server: TestServer, path: string): Promise<RawResponse & { readonly bytes: Uint8Array }> =>
  new Promise((resolve, reject) => {
    const req = httpRequest({ host: "127.0.0.1", port: server.port, path, method: "GET", agent: false }, (res) => {
      const parts: Array<Buffer> = []
      res.on("data", (chunk: Buffer) => parts.push(chunk))
      res.on("end", () => {
        const bytes = new Uint8Array(Buffer.concat(parts))
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.from(bytes).toString("utf8"), bytes, bytesWrittenAtResponse: 0 })
      })
      res.on("error", reject)
    })
    req.on("error", reject)
    req.end()
  })

/** The path and query of a link, to GET from `server` whatever origin the link names. */
const pathOf = (link: string | URL) => {
  const url = new URL(link)
  return url.pathname + url.search
}

const waitFor = async (check: () => boolean, ms = 5000) => {
  const until = Date.now() + ms
  while (!check() && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 25))
  return check()
}

describe("GET /v2/artifacts/{file}", () => {
  it("serves the stored bytes at the link the scrape returned, without an API key", async () => {
    const server = await start()
    const link = await screenshotOf(server)
    expect(link.startsWith(`${server.url}/v2/artifacts/`)).toBe(true)
    expect(link).toMatch(/\/v2\/artifacts\/[0-9a-f]{32}\.png\?expires=\d+&sig=[0-9a-f]{64}$/)
    const response = await get(server, pathOf(link))
    expect(response.status).toBe(200)
    expect(response.headers["content-type"]).toBe("image/png")
    expect(response.headers["content-length"]).toBe(String(png.length))
    expect(response.headers["x-content-type-options"]).toBe("nosniff")
    const maxAge = Number(/^private, max-age=(\d+)$/.exec(String(response.headers["cache-control"]))?.[1])
    expect(maxAge).toBeGreaterThan(24 * 3600 - 60)
    expect(maxAge).toBeLessThanOrEqual(24 * 3600)
    expect(response.bytes).toEqual(png)
    // The signature never reaches the log line: only the path is logged.
    const line = server.logs.find((entry) => String(entry.path).startsWith("/v2/artifacts/"))
    expect(line?.status).toBe(200)
    expect(JSON.stringify(line)).not.toContain("sig=")
  })

  it("refuses a tampered or unsigned link with 403 and the contract's error body", async () => {
    const server = await start()
    const link = new URL(await screenshotOf(server))
    const sig = link.searchParams.get("sig")!
    const cases = [
      (url: URL) => url.searchParams.set("sig", sig.replace(/^./, (c) => (c === "a" ? "b" : "a"))),
      (url: URL) => url.searchParams.set("expires", String(Number(url.searchParams.get("expires")) + 86_400)),
      (url: URL) => url.searchParams.delete("sig"),
      (url: URL) => url.searchParams.set("sig", sig.slice(0, 32)),
      (url: URL) => (url.pathname = url.pathname.replace(/\.png$/, ".pdf"))
    ]
    for (const tamper of cases) {
      const url = new URL(link)
      tamper(url)
      const response = await get(server, pathOf(url))
      expect(response.status, url.href).toBe(403)
      expect(response.headers["content-type"]).toMatch(/^application\/json/)
      expect(JSON.parse(response.body)).toEqual({ success: false, code: "ARTIFACT_LINK_INVALID", error: expect.any(String) })
    }
    expect((await get(server, pathOf(link))).status).toBe(200)
  })

  it("answers an expired link with 410, and the sweeper deletes its file", async () => {
    const dataDir = tempDir()
    const server = await start({ dataDir, artifacts: { lifetimeSeconds: { screenshot: 1 }, sweepIntervalMs: 100 } })
    const link = await screenshotOf(server)
    const stored = () => readdirSync(join(dataDir, "artifacts")).filter((name) => name.endsWith(".png"))
    expect(stored()).toHaveLength(1)
    const expires = Number(new URL(link).searchParams.get("expires"))
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, expires * 1000 - Date.now()) + 50))
    const response = await get(server, pathOf(link))
    expect(response.status).toBe(410)
    expect(JSON.parse(response.body)).toEqual({ success: false, code: "ARTIFACT_EXPIRED", error: expect.stringMatching(/expired/) })
    expect(await waitFor(() => stored().length === 0)).toBe(true)
    expect((await get(server, pathOf(link))).status).toBe(410)
  })

  it("refuses names that try to leave the folder, and made-up names, with 404", async () => {
    const dataDir = tempDir()
    const server = await start({ dataDir })
    const link = new URL(await screenshotOf(server))
    const query = link.search
    const secret = readFileSync(join(dataDir, "artifact-secret"), "utf8").trim()
    const paths = [
      `/v2/artifacts/..%2Fartifact-secret${query}`,
      `/v2/artifacts/%2e%2e%2fapi-keys.json${query}`,
      `/v2/artifacts/..%5Cartifact-secret${query}`,
      `/v2/artifacts/../artifact-secret${query}`,
      `/v2/artifacts/..${query}`,
      `/v2/artifacts/%2Fetc%2Fpasswd${query}`,
      `/v2/artifacts/${"0".repeat(32)}.png%00.txt${query}`,
      `/v2/artifacts/${query}`,
      `/v2/artifacts/artifacts/${link.pathname.split("/").pop()}${query}`
    ]
    for (const path of paths) {
      const response = await get(server, path)
      expect(response.status, path).toBe(404)
      expect(response.body).not.toContain(secret)
      const body = JSON.parse(response.body) as { success: boolean; code: string }
      expect(body.success, path).toBe(false)
      expect(["ARTIFACT_NOT_FOUND", "NOT_FOUND"], path).toContain(body.code)
    }
    // A well-formed name with another file's signature: refused as unsigned.
    expect((await get(server, `/v2/artifacts/${"0".repeat(32)}.png${query}`)).status).toBe(403)
  })

  it("a link handed out before a restart opens after it (same data folder, generated secret)", async () => {
    const dataDir = tempDir()
    const first = await start({ dataDir })
    const link = await screenshotOf(first)
    await first.close()
    const second = await start({ dataDir })
    const response = await get(second, pathOf(link))
    expect(response.status).toBe(200)
    expect(response.bytes).toEqual(png)
  })

  it("on a fixed port, the pipeline starts (with the store) before the port opens, and links name that port", async () => {
    const port = await new Promise<number>((resolve) => {
      const probe = createServer().listen(0, "127.0.0.1", () => {
        const { port } = probe.address() as AddressInfo
        probe.close(() => resolve(port))
      })
    })
    const refusedWhileBuilding: Array<boolean> = []
    const probing = Layer.effectDiscard(Effect.promise(() =>
      new Promise<void>((resolve) => {
        const socket = connect(port, "127.0.0.1")
        socket.once("connect", () => (refusedWhileBuilding.push(false), socket.destroy(), resolve()))
        socket.once("error", () => (refusedWhileBuilding.push(true), resolve()))
      })
    ))
    const server = await startTestServer(Layer.merge(screenshotPipeline, probing), { apiKeys: [KEY], port })
    servers.push(server)
    expect(refusedWhileBuilding).toEqual([true])
    const link = await screenshotOf(server)
    expect(link.startsWith(`http://127.0.0.1:${port}/v2/artifacts/`)).toBe(true)
    expect((await get(server, pathOf(link))).bytes).toEqual(png)
  })

  it("links start with the configured public URL", async () => {
    const server = await start({ publicUrl: "https://strata.example.com/" })
    const link = await screenshotOf(server)
    expect(link.startsWith("https://strata.example.com/v2/artifacts/")).toBe(true)
    expect((await get(server, pathOf(link))).status).toBe(200)
  })
})
