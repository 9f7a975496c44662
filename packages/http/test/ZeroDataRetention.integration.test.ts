/**
 * Zero data retention, proved on the real server process: a scrape asked with
 * `zeroDataRetention: true`, and one by a team whose setting is on, leave no trace of their URL
 * or their page anywhere: not in the data folder (the SQLite file and its WAL read as bytes, the
 * artifacts, the team's audit file) and not in the server's stdout or stderr. Every file in the
 * data folder is listed before and after: no file appears. The same requests without zero data
 * retention leave their marks in those same places, so the search can find what it looks for.
 *
 * The server runs with its browser: a screenshot (the format, and the screenshot action) under
 * zero data retention, asked for, the team's, and `lockdown`'s (a cache hit), comes back inline
 * as a `data:` URL and writes no file to the artifact folder; the same screenshot without it is
 * a link to a file there.
 */
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { Effect } from "effect"
import { Store } from "@strata/core"
import { defaultCacheMaxBytes, layerSqlite, sqliteFileIn } from "@strata/store"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { filesIn, type PageServer, postScrape, type ServerProcess, servePages, startServerProcess, tempDir } from "./support.ts"

let pages: PageServer
let pagesUrl = ""
let server: ServerProcess | undefined
let serverUrl = ""
let dataDir = ""
let openKey = ""
let zdrTeamKey = ""

/** Each path's page says its own path, so a trace of the page names the request. */
const page = (path: string) =>
  `<html><head><title>Page ${path}</title></head><body><article><h1>Tides at ${path}</h1><p>${`The water at ${path} rises and falls twice a day. `.repeat(30)}</p></article></body></html>`

/** The places that hold `marker`: files of the data folder (as bytes) and the server's output. */
const tracesOf = (marker: string): Array<string> => {
  const needle = Buffer.from(marker)
  const found = filesIn(dataDir).filter((name) => readFileSync(join(dataDir, name)).includes(needle))
  if (server?.output().includes(marker)) found.push("(server output)")
  return found
}

beforeAll(async () => {
  pages = await servePages(page)
  pagesUrl = pages.url

  dataDir = tempDir("strata-zdr-")
  // Two teams, each with credits (so the ledger is written) and an audit file in the data folder.
  const keys = await Effect.runPromise(
    Effect.gen(function*() {
      const store = yield* Store
      yield* store.setTeam("open", { credits: 1000, auditSink: join(dataDir, "audit-open.jsonl") })
      yield* store.setTeam("private", { credits: 1000, zdr: true, auditSink: join(dataDir, "audit-private.jsonl") })
      return { open: (yield* store.createKey("open")).key, private: (yield* store.createKey("private")).key }
    }).pipe(Effect.provide(layerSqlite({ filename: sqliteFileIn(dataDir), cacheMaxBytes: defaultCacheMaxBytes })))
  )
  openKey = keys.open
  zdrTeamKey = keys.private

  server = await startServerProcess(dataDir, { STRATA_BROWSER_CONCURRENCY: "1" })
  serverUrl = server.url
}, 90_000)

afterAll(async () => {
  server?.stop()
  await pages.close()
})

const scrape = (key: string, body: Record<string, unknown>, requestId: string) => postScrape(serverUrl, key, body, requestId)

/** The store's own files and the audit files: the only ones a request under zero data retention may change. */
const storeOrAudit = /^(?:strata\.db(?:-wal|-shm|-journal)?|audit-(?:open|private)\.jsonl)$/

/** Every format that could be kept somewhere: the page, its links, a diff's history, the summary. */
const formats = ["markdown", "html", "rawHtml", "links", "summary", "changeTracking"]

describe("zero data retention, on the server process", () => {
  it("leaves no trace of the URL or the page in the data folder or the logs; without it, the same requests do", async () => {
    const before = filesIn(dataDir)

    const asked = await scrape(openKey, { url: `${pagesUrl}/zdr-asked-7311`, formats, zeroDataRetention: true }, "zdr-request-7311")
    expect(asked.status).toBe(200)
    expect(asked.body.data.markdown).toContain("Tides at /zdr-asked-7311")
    const team = await scrape(zdrTeamKey, { url: `${pagesUrl}/zdr-team-4127`, formats }, "zdr-team-request-4127")
    expect(team.status).toBe(200)
    expect(team.body.data.markdown).toContain("Tides at /zdr-team-4127")
    // The same requests without it: their URL and page must be found, or the search proves nothing.
    const kept = await scrape(openKey, { url: `${pagesUrl}/kept-5573`, formats }, "kept-request-5573")
    expect(kept.status).toBe(200)

    // The cache row, the idempotency record and the audit line are written after the answer goes out.
    const settle = Date.now() + 10_000
    while (tracesOf("kept-5573").length < 3 && Date.now() < settle) await new Promise((resolve) => setTimeout(resolve, 100))

    expect(tracesOf("kept-5573")).toEqual(expect.arrayContaining(["audit-open.jsonl", "(server output)"]))
    expect(tracesOf("kept-5573").some((place) => place.startsWith("strata.db"))).toBe(true)

    for (const marker of ["zdr-asked-7311", "zdr-team-4127"]) expect(tracesOf(marker)).toEqual([])
    // No file came into being but the store's own and the audit files (the zero-retention team's
    // audit event says that a scrape happened, without its URL: searched above).
    const added = filesIn(dataDir).filter((name) => !before.includes(name))
    expect(added.filter((name) => !storeOrAudit.test(name))).toEqual([])
  }, 90_000)

  it("answers screenshots inline under it (asked for, the team's, lockdown's) and writes no artifact; without it, a file is written", async () => {
    const shot = { type: "screenshot", fullPage: false }
    // The copy lockdown reads: cached (with its screenshot) by an ordinary scrape first.
    const cached = await scrape(openKey, { url: `${pagesUrl}/cached-shot-2290`, formats: ["markdown", shot] }, "cached-shot-2290")
    expect(cached.status).toBe(200)
    expect(cached.body.data.screenshot).toMatch(/^http:\/\/127\.0\.0\.1:\d+\//)
    const settle = Date.now() + 10_000
    while (!tracesOf("cached-shot-2290").some((place) => place.startsWith("strata.db")) && Date.now() < settle) {
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
    const before = filesIn(dataDir)

    const asked = await scrape(openKey, {
      url: `${pagesUrl}/zdr-shot-8841`,
      formats: ["markdown", shot],
      actions: [{ type: "screenshot" }],
      zeroDataRetention: true
    }, "shot-request-a")
    expect(asked.status).toBe(200)
    expect(asked.body.data.screenshot).toMatch(/^data:image\/(?:png|jpeg);base64,/)
    expect(asked.body.data.actions.screenshots).toHaveLength(1)
    expect(asked.body.data.actions.screenshots[0]).toMatch(/^data:image\/(?:png|jpeg);base64,/)
    const team = await scrape(zdrTeamKey, { url: `${pagesUrl}/zdr-team-shot-6402`, formats: [shot] }, "shot-request-b")
    expect(team.status).toBe(200)
    expect(team.body.data.screenshot).toMatch(/^data:image\/(?:png|jpeg);base64,/)
    const lockdown = await scrape(openKey, { url: `${pagesUrl}/cached-shot-2290`, formats: ["markdown", shot], lockdown: true }, "lockdown-shot-2290")
    expect(lockdown.status).toBe(200)
    expect(lockdown.body.data.metadata.cacheState).toBe("hit")
    expect(lockdown.body.data.screenshot).toMatch(/^data:image\/(?:png|jpeg);base64,/)
    // The inline image is the screenshot itself.
    expect(Buffer.from(team.body.data.screenshot.split(",")[1], "base64").subarray(1, 4).toString("latin1")).toBe("PNG")

    await new Promise((resolve) => setTimeout(resolve, 500))
    for (const marker of ["zdr-shot-8841", "zdr-team-shot-6402"]) expect(tracesOf(marker)).toEqual([])
    const added = filesIn(dataDir).filter((name) => !before.includes(name))
    expect(added.filter((name) => !storeOrAudit.test(name))).toEqual([])

    // Without it, the same screenshot is a file in the artifact folder, so the diff above can see one.
    const kept = await scrape(openKey, { url: `${pagesUrl}/kept-shot-3517`, formats: [shot] }, "kept-shot-3517")
    expect(kept.body.data.screenshot).toMatch(/^http:\/\/127\.0\.0\.1:\d+\//)
    expect(filesIn(dataDir).filter((name) => !before.includes(name) && name.startsWith("artifacts"))).toHaveLength(1)
  }, 90_000)
})
