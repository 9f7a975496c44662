/**
 * `kill -9` of the server while it charges credits and writes the cache: after the restart the
 * SQLite store passes `PRAGMA integrity_check`, no credit is lost or made (the balance plus the
 * ledger's charges is what the team started with), every success a client saw was charged, and
 * the restarted server charges the same team again.
 */
import { type ChildProcess, spawn } from "node:child_process"
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { DatabaseSync } from "node:sqlite"
import { fileURLToPath } from "node:url"
import { Effect } from "effect"
import { Store } from "@strata/core"
import { defaultCacheMaxBytes, layerSqlite, sqliteFileIn } from "@strata/store"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { freePort, tempDir } from "./support.ts"

const node = fileURLToPath(new URL("../../../node_modules/.bin/node", import.meta.url))
const bin = fileURLToPath(new URL("../src/bin.ts", import.meta.url))
const CREDITS = 100_000

let pages: Server
let pagesUrl = ""
const children = new Set<ChildProcess>()

beforeAll(async () => {
  pages = createServer((_request, response) => {
    response.writeHead(200, { "content-type": "text/html" }).end(`<html><body><p>${"A page to scrape, written out. ".repeat(40)}</p></body></html>`)
  })
  await new Promise<void>((resolve) => pages.listen(0, "127.0.0.1", resolve))
  pagesUrl = `http://127.0.0.1:${(pages.address() as AddressInfo).port}`
})

afterAll(async () => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL")
  pages.closeAllConnections()
  await new Promise((resolve) => pages.close(resolve))
})

const startServer = async (dataDir: string): Promise<{ child: ChildProcess; url: string }> => {
  const port = await freePort()
  const { STRATA_API_KEYS: _keys, STRATA_DATABASE_URL: _db, ...base } = process.env
  const child = spawn(node, ["--conditions=@strata/source", bin], {
    env: { ...base, HOST: "127.0.0.1", PORT: String(port), STRATA_ALLOW_PRIVATE_URLS: "1", STRATA_SUPERVISE: "0", STRATA_DATA_DIR: dataDir, STRATA_BROWSER: "off" },
    stdio: ["ignore", "ignore", "ignore"]
  })
  children.add(child)
  const url = `http://127.0.0.1:${port}`
  const deadline = Date.now() + 60_000
  for (;;) {
    const up = await fetch(`${url}/health`).then((r) => r.ok, () => false)
    if (up) return { child, url }
    if (Date.now() > deadline) throw new Error("the server did not start")
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}

const scrape = (url: string, key: string, i: number) =>
  fetch(`${url}/v2/scrape`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify({ url: `${pagesUrl}/p${i}`, formats: ["markdown"] })
  }).then(async (response) => ({ ok: response.status === 200, credits: response.status === 200 ? ((await response.json()) as any).data.metadata.creditsUsed : 0 }), () => ({ ok: false, credits: 0 }))

describe("kill -9 during writes", () => {
  it("leaves a sound store, loses no credit, and charges again after the restart", async () => {
    const dataDir = tempDir("strata-crash-")
    const filename = sqliteFileIn(dataDir)
    const key = await Effect.runPromise(
      Effect.gen(function*() {
        const store = yield* Store
        yield* store.setTeam("crash", { credits: CREDITS })
        return (yield* store.createKey("crash")).key
      }).pipe(Effect.provide(layerSqlite({ filename, cacheMaxBytes: defaultCacheMaxBytes })))
    )
    const first = await startServer(dataDir)
    let seenSuccesses = 0
    let seenCredits = 0
    let stop = false
    let sent = 0
    const loops = Array.from({ length: 8 }, async () => {
      while (!stop) {
        const result = await scrape(first.url, key, sent++)
        if (result.ok) {
          seenSuccesses++
          seenCredits += result.credits
        }
      }
    })
    // Let charges and cache writes flow, then kill the server in the middle of them.
    const until = Date.now() + 30_000
    while (seenSuccesses < 40 && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 20))
    first.child.kill("SIGKILL")
    await new Promise((resolve) => first.child.once("exit", resolve))
    stop = true
    await Promise.all(loops)
    expect(seenSuccesses).toBeGreaterThanOrEqual(40)

    const db = new DatabaseSync(filename)
    expect(db.prepare("PRAGMA integrity_check").get()).toEqual({ integrity_check: "ok" })
    const balance = Number((db.prepare("SELECT credits FROM teams WHERE id = 'crash'").get() as { credits: number }).credits)
    const charged = Number((db.prepare("SELECT COALESCE(SUM(amount), 0) AS s FROM credit_ledger WHERE team_id = 'crash' AND refunded_at IS NULL").get() as { s: number }).s)
    db.close()
    // Nothing lost, nothing made; and every success a client saw was charged.
    expect(balance + charged).toBe(CREDITS)
    expect(charged).toBeGreaterThanOrEqual(seenCredits)

    const second = await startServer(dataDir)
    const after = await scrape(second.url, key, 999_999)
    expect(after.ok).toBe(true)
    const db2 = new DatabaseSync(filename)
    const balanceAfter = Number((db2.prepare("SELECT credits FROM teams WHERE id = 'crash'").get() as { credits: number }).credits)
    db2.close()
    expect(balanceAfter).toBe(balance - after.credits)
    second.child.kill("SIGTERM")
    await new Promise((resolve) => second.child.once("exit", resolve))
  }, 120_000)
})
