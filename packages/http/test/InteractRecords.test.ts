/**
 * Interact's scrape records in the server's store, without opening a session (the browser engine
 * is on, Chromium never starts: every answer here comes before a replay). An expired scrape id
 * gets the same 404 as one never seen, and its row is swept from the database; a server on the
 * same database whose artifact secret differs cannot open the record and answers 500
 * SCRAPE_RECORD_UNREADABLE naming the fix, not a 404 that would hide the misconfiguration.
 */
import { join } from "node:path"
import { DatabaseSync } from "node:sqlite"
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startTestServer, tempDir, type TestServer } from "./support.ts"

const KEY = "records-key"

let site: Server
let siteUrl = ""
const servers: Array<TestServer> = []

/** A server on `dataDir` with this artifact secret, the browser on, and these interact options. */
const serverOn = async (dataDir: string, artifactSecret: string, interact: Record<string, number> = {}) => {
  const { Strata } = await import("strata")
  const pipeline = Strata.layer({
    fetch: { allowPrivateUrls: false, allowedOrigins: [siteUrl] },
    browser: { concurrency: 1, dataDir: tempDir("strata-records-profiles-"), interact },
    ocr: false,
    isolation: false
  })
  const server = await startTestServer(pipeline, { apiKeys: [KEY], dataDir, artifactSecret })
  servers.push(server)
  return server
}

const post = async (server: TestServer, path: string, body: unknown) => {
  const response = await fetch(`${server.url}${path}`, {
    method: "POST",
    headers: { authorization: `Bearer ${KEY}`, "content-type": "application/json" },
    body: JSON.stringify(body)
  })
  return { status: response.status, body: (await response.json()) as Record<string, any> }
}

const scrape = async (server: TestServer) => {
  const reply = await post(server, "/v2/scrape", { url: `${siteUrl}/quay`, formats: ["markdown"], maxAge: 0 })
  expect(reply.status, JSON.stringify(reply.body)).toBe(200)
  // The fetch engine served it: no browser was needed.
  expect(reply.body.data.markdown).toContain("Tides at the quay")
  return reply.body.data.metadata.scrapeId as string
}

const rowsIn = (dataDir: string) => {
  const database = new DatabaseSync(join(dataDir, "strata.db"), { readOnly: true })
  try {
    return (database.prepare("SELECT scrape_id FROM interact_records").all() as Array<{ scrape_id: string }>).map((row) => row.scrape_id)
  } finally {
    database.close()
  }
}

beforeAll(async () => {
  site = createServer((_request, response) => {
    response.writeHead(200, { "content-type": "text/html; charset=utf-8" })
      .end(`<!doctype html><html><head><title>Quay</title></head><body><main><h1>Tides at the quay</h1><p>${"The water rises and falls twice a day. ".repeat(20)}</p></main></body></html>`)
  })
  await new Promise<void>((resolve) => site.listen(0, "127.0.0.1", resolve))
  siteUrl = `http://127.0.0.1:${(site.address() as AddressInfo).port}`
})

afterAll(async () => {
  for (const server of servers) await server.close()
  site?.closeAllConnections()
  await new Promise((resolve) => site?.close(resolve))
})

describe("interact records in the server's store", () => {
  it("answers an expired id as one never seen, and sweeps its row", async () => {
    const dataDir = tempDir()
    const server = await serverOn(dataDir, "records-secret-0001", { recordTtlMs: 1_000, purgeEveryMs: 200 })
    const scrapeId = await scrape(server)
    expect(rowsIn(dataDir)).toEqual([scrapeId])
    await new Promise((resolve) => setTimeout(resolve, 1_500))
    const expired = await post(server, `/v2/scrape/${scrapeId}/interact`, { code: "return 1" })
    const never = await post(server, "/v2/scrape/2b7c1a8e-0000-4000-8000-000000000000/interact", { code: "return 1" })
    expect(expired.status).toBe(404)
    expect(expired.body).toEqual({ ...never.body, error: never.body.error.replace("2b7c1a8e-0000-4000-8000-000000000000", scrapeId) })
    expect(rowsIn(dataDir)).toEqual([])
  })

  it("answers 500 SCRAPE_RECORD_UNREADABLE on a server of the same database with another secret", async () => {
    const dataDir = tempDir()
    const first = await serverOn(dataDir, "records-secret-0001")
    const scrapeId = await scrape(first)
    const other = await serverOn(dataDir, "records-secret-0002")
    const refused = await post(other, `/v2/scrape/${scrapeId}/interact`, { code: "return 1" })
    expect(refused.status).toBe(500)
    expect(refused.body).toMatchObject({ success: false, code: "SCRAPE_RECORD_UNREADABLE" })
    expect(refused.body.error).toContain("STRATA_ARTIFACT_SECRET")
  })
})
