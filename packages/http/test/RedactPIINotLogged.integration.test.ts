/**
 * "Detected values are never logged", proved on the real server process: a page holding an
 * e-mail address, a phone number, a payment card and an IBAN, scraped with `redactPII` by a team
 * whose audit events go to a file, leaves none of those values (as written, or as bare digits) in
 * the server's stdout and stderr (where the request log goes, on by default), in the audit file or
 * any other log file of the data folder, or in the answer (markdown, html and the offline summary,
 * which reads the redacted markdown). The same page without `redactPII` answers with every value in
 * its markdown, and both requests' URLs are found in the output and the audit file, so each search
 * can find what it looks for. Left out by design: `rawHtml` (Firecrawl redacts only markdown; we
 * redact html too) and the store's files, whose fetch cache keeps the raw page as Firecrawl's does
 * (zero data retention is what keeps it out; ZeroDataRetention.integration.test.ts).
 */
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { Effect } from "effect"
import { Store } from "@strata/core"
import { defaultCacheMaxBytes, layerSqlite, sqliteFileIn } from "@strata/store"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { filesIn, type PageServer, postScrape, type ServerProcess, servePages, startServerProcess, tempDir } from "./support.ts"

/** The values the page holds, as written there, each valid for its detector (libphonenumber, Luhn, mod 97). */
const values = {
  email: "marta.quispe@villaverde-clinic.example",
  phone: "+44 20 7946 0958",
  card: "4539 1488 0343 6467",
  iban: "DE89 3704 0044 0532 0130 00"
} as const
/** Each value as written and as its bare characters (a log that joined the groups would still hold it). */
const needles = Object.values(values).flatMap((value) => [value, value.replace(/ /g, "")])

const page = (path: string) =>
  `<html><head><title>Clinic ${path}</title></head><body><article><h1>Appointments at ${path}</h1>` +
  `<p>${"The clinic opens at eight and closes at six on weekdays. ".repeat(12)}</p>` +
  `<p>Write to ${values.email} or call ${values.phone} to book.</p>` +
  `<p>Deposits are paid with the card ${values.card} or wired to IBAN ${values.iban}.</p>` +
  `</article></body></html>`

let pages: PageServer
let pagesUrl = ""
let server: ServerProcess | undefined
let serverUrl = ""
let dataDir = ""
let key = ""

/** The store's own files (the page cache lives there); every other file of the data folder is a log or an artifact. */
const storeFile = /^strata\.db(?:-wal|-shm|-journal)?$/

/** The log places that hold `marker`: the server's output and every file of the data folder but the store's. */
const loggedAt = (marker: string): Array<string> => {
  const needle = Buffer.from(marker)
  const found = filesIn(dataDir).filter((name) => !storeFile.test(name) && readFileSync(join(dataDir, name)).includes(needle))
  if (server?.output().includes(marker)) found.push("(server output)")
  return found
}

beforeAll(async () => {
  pages = await servePages(page)
  pagesUrl = pages.url

  dataDir = tempDir("strata-pii-log-")
  key = await Effect.runPromise(
    Effect.gen(function*() {
      const store = yield* Store
      yield* store.setTeam("clinic", { credits: 1000, auditSink: join(dataDir, "audit-clinic.jsonl") })
      return (yield* store.createKey("clinic")).key
    }).pipe(Effect.provide(layerSqlite({ filename: sqliteFileIn(dataDir), cacheMaxBytes: defaultCacheMaxBytes })))
  )

  server = await startServerProcess(dataDir, { STRATA_BROWSER: "off" })
  serverUrl = server.url
}, 90_000)

afterAll(async () => {
  server?.stop()
  await pages.close()
})

const scrape = (body: Record<string, unknown>, requestId: string) => postScrape(serverUrl, key, body, requestId)

describe("redactPII on the server process", () => {
  it("logs none of the values it found, and answers without them; without it, the markdown holds them all", async () => {
    const redacted = await scrape({ url: `${pagesUrl}/redacted-6143`, formats: ["markdown", "html", "summary"], redactPII: true }, "pii-redacted-6143")
    expect(redacted.status).toBe(200)
    const markdown: string = redacted.body.data.markdown
    expect(markdown).toContain("Appointments at /redacted-6143")
    expect(markdown).toContain("<EMAIL>")
    expect(markdown).toContain("<PHONE>")
    expect(markdown).toContain("<CREDIT_CARD>")
    expect(markdown).toContain("<IBAN>")
    expect(redacted.body.data.html).toContain("&lt;IBAN&gt;")
    expect(typeof redacted.body.data.summary).toBe("string")

    // The same page without redactPII: every value reaches the markdown, so its absence above is the redaction's.
    const plain = await scrape({ url: `${pagesUrl}/plain-2958`, formats: ["markdown"] }, "pii-plain-2958")
    expect(plain.status).toBe(200)
    for (const value of Object.values(values)) expect(plain.body.data.markdown).toContain(value)

    // The audit events are written after the answer goes out: wait for both requests' lines.
    const settle = Date.now() + 10_000
    while ((loggedAt("redacted-6143").length < 2 || loggedAt("plain-2958").length < 2) && Date.now() < settle) {
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
    // What the server logs of a request (its target URL) is found in the request log and the
    // audit file, for the redacted request as for the plain one: the searches below can find.
    for (const marker of ["redacted-6143", "plain-2958"]) expect(loggedAt(marker)).toEqual(["audit-clinic.jsonl", "(server output)"])
    expect(loggedAt("pii-redacted-6143")).toContain("(server output)")

    for (const needle of needles) {
      expect(loggedAt(needle), needle).toEqual([])
      expect(JSON.stringify(redacted.body), needle).not.toContain(needle)
    }
  }, 90_000)
})
