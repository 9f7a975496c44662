/**
 * A `metadata.scrapeId` outlives the server process: the real server (bin.ts, with its Chromium)
 * scrapes, is stopped, and a new process on the same STRATA_DATA_DIR (the SQLite store in it)
 * replays those scrapes for interact, headers and actions included. At rest the record's
 * replay is sealed: the request header it carries (a credential) is in no file of the data folder,
 * nor in the server's output. A scrape under zero data retention keeps nothing to replay (409);
 * unknown and another key's ids get the same 404.
 *
 * A process killed with a session open leaves its lease behind: the next process answers 409
 * (the session is held elsewhere, as far as it can tell) until the lease lapses, 30 s at most,
 * and then replays the scrape afresh.
 */
import { readFileSync } from "node:fs"
import { createServer, type IncomingHttpHeaders, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { join } from "node:path"
import { DatabaseSync } from "node:sqlite"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { callServer, filesIn, scrapeIdFrom, type ServerProcess, startServerProcess, tempDir } from "./support.ts"

const KEY = "restart-key-1"
const OTHER_KEY = "restart-key-2"
/** A header the caller sends with its scrape: a credential the record must keep sealed. */
const PASS = "harbour-pass-5581"

let site: Server
let siteUrl = ""
/** The `x-harbour-pass` header of each request for /log, in order. */
const passes: Array<string | undefined> = []
let dataDir = ""
const servers: Array<ServerProcess> = []

const start = async () => {
  const server = await startServerProcess(dataDir, { STRATA_API_KEYS: `${KEY},${OTHER_KEY}`, STRATA_BROWSER_CONCURRENCY: "2" })
  servers.push(server)
  return server
}

const call = (server: ServerProcess, method: string, path: string, body?: unknown, key = KEY) => callServer(server, key, method, path, body)

const scrape = (server: ServerProcess, body: Record<string, unknown>) => scrapeIdFrom(server, KEY, body)

const interact = (server: ServerProcess, scrapeId: string, code: string, key = KEY) => call(server, "POST", `/v2/scrape/${scrapeId}/interact`, { code }, key)

const count = "return document.querySelectorAll('#boats li').length"

beforeAll(async () => {
  site = createServer((request, response) => {
    const path = (request.url ?? "/").split("?")[0]
    if (path !== "/log") return void response.writeHead(404).end()
    passes.push((request.headers as IncomingHttpHeaders)["x-harbour-pass"] as string | undefined)
    response.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(`<!doctype html><html><head><title>Harbour log</title></head><body>
      <main><h1>Harbour log</h1><ul id="boats"><li>Kestrel</li></ul>
      <button id="add" onclick="const li = document.createElement('li'); li.textContent = 'Boat ' + document.querySelectorAll('#boats li').length; document.getElementById('boats').append(li)">Add</button></main></body></html>`)
  })
  await new Promise<void>((resolve) => site.listen(0, "127.0.0.1", resolve))
  siteUrl = `http://127.0.0.1:${(site.address() as AddressInfo).port}`
  dataDir = tempDir("strata-interact-restart-")
}, 30_000)

afterAll(async () => {
  for (const server of servers) server.stop()
  site?.closeAllConnections()
  await new Promise((resolve) => site?.close(resolve))
})

describe("interact across a server restart", () => {
  it("replays a scrape made before the restart, keeps its header sealed at rest, and forgets it once stopped", async () => {
    const first = await start()
    const clicked = await scrape(first, { url: `${siteUrl}/log`, formats: ["markdown"], headers: { "x-harbour-pass": PASS }, actions: [{ type: "click", selector: "#add" }] })
    const plain = await scrape(first, { url: `${siteUrl}/log`, formats: ["markdown"] })
    const kept = await scrape(first, { url: `${siteUrl}/log`, formats: ["markdown"], zeroDataRetention: true })
    // A session open when the server stops: it ends with the process, its record stays.
    const before = await interact(first, clicked, count)
    expect(before.body).toMatchObject({ success: true, result: "2" })
    await first.terminate()

    // At rest: three records; the replay sealed, the header in no file of the data folder.
    const database = new DatabaseSync(join(dataDir, "strata.db"), { readOnly: true })
    const rows = database.prepare("SELECT scrape_id, key_id, replay FROM interact_records ORDER BY created_at").all() as Array<{ scrape_id: string; key_id: string; replay: string | null }>
    database.close()
    expect(rows.map((row) => row.scrape_id)).toEqual([clicked, plain, kept])
    expect(rows[0].replay).toMatch(/^v1\./)
    expect(rows[2].replay).toBeNull()
    const holding = filesIn(dataDir).filter((name) => readFileSync(join(dataDir, name)).includes(Buffer.from(PASS)))
    expect(holding).toEqual([])
    expect(first.output()).not.toContain(PASS)

    const second = await start()
    const passesBefore = passes.length
    const replayed = await interact(second, clicked, count)
    expect(replayed.status, JSON.stringify(replayed.body)).toBe(200)
    // The scrape's click replayed, into a session of its own.
    expect(replayed.body).toMatchObject({ success: true, result: "2" })
    expect(replayed.body.sessionId).not.toBe(before.body.sessionId)
    // The replay sent the header the record kept.
    expect(passes.slice(passesBefore)).toContain(PASS)
    expect((await interact(second, plain, count)).body).toMatchObject({ success: true, result: "1" })

    const refused = await interact(second, kept, "return 1")
    expect(refused.status).toBe(409)
    expect(refused.body).toMatchObject({ success: false, code: "SCRAPE_NOT_RETAINED" })
    const unknown = await interact(second, "2b7c1a8e-0000-4000-8000-000000000000", "return 1")
    expect(unknown.status).toBe(404)
    const stranger = await interact(second, clicked, "return 1", OTHER_KEY)
    expect(stranger.status).toBe(404)
    expect(stranger.body).toEqual({ ...unknown.body, error: unknown.body.error.replace("2b7c1a8e-0000-4000-8000-000000000000", clicked) })

    expect((await call(second, "DELETE", `/v2/scrape/${clicked}/interact`)).status).toBe(200)
    expect((await interact(second, clicked, "return 1")).status).toBe(404)
    expect(second.output()).not.toContain(PASS)

    // Killed with a session open: its lease stays until it lapses, then a new process replays.
    second.stop()
    const killedAt = Date.now()
    const third = await start()
    const held = await interact(third, plain, count)
    // The lease was renewed at most 5 s before the kill and lasts 30 s: a start slower than 20 s
    // (a loaded machine) may find it lapsed already, and then only the replay below is checked.
    if (Date.now() - killedAt < 20_000) {
      expect(held.status).toBe(409)
      expect(held.body).toMatchObject({ success: false, code: "SESSION_ON_OTHER_SERVER" })
      expect(held.body.error).toContain("open on another server")
    }
    const lapsed = killedAt + 45_000
    let reopened = held
    while (reopened.status === 409 && Date.now() < lapsed) {
      await new Promise((resolve) => setTimeout(resolve, 2_000))
      reopened = await interact(third, plain, count)
    }
    expect(reopened.body).toMatchObject({ success: true, result: "1" })
    expect((await call(third, "DELETE", `/v2/scrape/${plain}/interact`)).status).toBe(200)
    await third.terminate()
  }, 150_000)
})
