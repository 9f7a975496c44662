/**
 * Interact on two real server processes (bin.ts, each with its own data folder and Chromium) on
 * one Postgres (STRATA_DATABASE_URL, a throwaway server from Debian's binaries) and one
 * STRATA_ARTIFACT_SECRET: a scrape served by A is interacted with through B, which replays it in
 * its own browser. The page then lives in B: A, asked to run code in it or stop it, answers 409
 * SESSION_ON_OTHER_SERVER rather than opening a second page with another state; once B stops the
 * session the id is gone for both. One saver per profile holds across the two: a session saving to
 * a profile on A makes a second saving session on B get 409 PROFILE_LOCKED, until A's stops.
 */
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startPostgres, type TempPostgres } from "../../store/test/support/TempPostgres.ts"
import { callServer, scrapeIdFrom, type ServerProcess, startServerProcess, tempDir } from "./support.ts"

const KEY = "replica-key-1"

let postgres: TempPostgres | undefined
let site: Server
let siteUrl = ""
const servers: Array<ServerProcess> = []
let a: ServerProcess
let b: ServerProcess

const call = (server: ServerProcess, method: string, path: string, body?: unknown) => callServer(server, KEY, method, path, body)

const scrape = (server: ServerProcess, body: Record<string, unknown>) => scrapeIdFrom(server, KEY, body)

const interact = (server: ServerProcess, scrapeId: string, code: string) => call(server, "POST", `/v2/scrape/${scrapeId}/interact`, { code })
const stop = (server: ServerProcess, scrapeId: string) => call(server, "DELETE", `/v2/scrape/${scrapeId}/interact`)

beforeAll(async () => {
  site = createServer((_request, response) => {
    response.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(`<!doctype html><html><head><title>Quay</title></head><body>
      <main><h1>Quay</h1><ul id="boats"><li>Kestrel</li></ul>
      <button id="add" onclick="const li = document.createElement('li'); li.textContent = 'Boat'; document.getElementById('boats').append(li)">Add</button></main></body></html>`)
  })
  await new Promise<void>((resolve) => site.listen(0, "127.0.0.1", resolve))
  siteUrl = `http://127.0.0.1:${(site.address() as AddressInfo).port}`
  postgres = await startPostgres()
  const database = postgres.createDatabase(`interact_${process.pid}`)
  const env = { STRATA_API_KEYS: KEY, STRATA_DATABASE_URL: database, STRATA_ARTIFACT_SECRET: "quay-fleet-secret-0042", STRATA_BROWSER_CONCURRENCY: "2" }
  // One first, so that it alone migrates the new database.
  a = await startServerProcess(tempDir("strata-replica-a-"), env)
  servers.push(a)
  b = await startServerProcess(tempDir("strata-replica-b-"), env)
  servers.push(b)
}, 150_000)

afterAll(async () => {
  await Promise.all(servers.map((server) => server.terminate()))
  site?.closeAllConnections()
  await new Promise((resolve) => site?.close(resolve))
  postgres?.stop()
})

describe("interact on two server processes sharing one Postgres", () => {
  it("scraped on A, interacted with on B; A answers 409 while B holds the page; the id is gone for both once stopped", async () => {
    const scrapeId = await scrape(a, { url: `${siteUrl}/log`, formats: ["markdown"], actions: [{ type: "click", selector: "#add" }] })
    const onB = await interact(b, scrapeId, "return document.querySelectorAll('#boats li').length")
    expect(onB.status, JSON.stringify(onB.body)).toBe(200)
    expect(onB.body).toMatchObject({ success: true, result: "2" })

    for (const refused of [await interact(a, scrapeId, "return 1"), await stop(a, scrapeId)]) {
      expect(refused.status).toBe(409)
      expect(refused.body).toMatchObject({ success: false, code: "SESSION_ON_OTHER_SERVER" })
      expect(refused.body.error).toContain(`scrape ${scrapeId} is open on another server`)
    }
    // B still has the page as it left it.
    expect((await interact(b, scrapeId, "document.getElementById('add').click(); return document.querySelectorAll('#boats li').length")).body)
      .toMatchObject({ success: true, result: "3", sessionId: onB.body.sessionId })

    expect((await stop(b, scrapeId)).status).toBe(200)
    for (const server of [a, b]) {
      const gone = await interact(server, scrapeId, "return 1")
      expect(gone.status).toBe(404)
      expect(gone.body).toMatchObject({ success: false, code: "SCRAPE_NOT_FOUND" })
    }
  }, 90_000)

  it("lets one session on either server save to a profile: B's second saver gets 409 until A's stops", async () => {
    const name = `quay-${Date.now()}`
    const first = await scrape(a, { url: `${siteUrl}/state`, formats: ["markdown"], profile: { name, saveChanges: true } })
    const second = await scrape(b, { url: `${siteUrl}/state`, formats: ["markdown"], profile: { name, saveChanges: true } })
    const reader = await scrape(b, { url: `${siteUrl}/state`, formats: ["markdown"], profile: { name, saveChanges: false } })
    expect((await interact(a, first, "return 1")).body).toMatchObject({ success: true, result: "1" })
    const locked = await interact(b, second, "return 2")
    expect(locked.status).toBe(409)
    expect(locked.body).toMatchObject({ success: false, code: "PROFILE_LOCKED" })
    expect((await interact(b, reader, "return 3")).body).toMatchObject({ success: true, result: "3" })
    expect((await stop(a, first)).status).toBe(200)
    expect((await interact(b, second, "return 4")).body).toMatchObject({ success: true, result: "4" })
    expect((await stop(b, second)).status).toBe(200)
    expect((await stop(b, reader)).status).toBe(200)
  }, 90_000)
})
