/**
 * `onlyCleanContent` end to end through the library, offline: the classifier's pass runs on a
 * page's main content, says so in metadata, and drops the share bar the main-content pass kept.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { dispose, scrape } from "../src/index.ts"

let server: Server
let base = ""
const story = (n: number) =>
  `<p>The council voted on Tuesday to extend the river path by two kilometres, paying for it from the parks budget. Work on section ${n} begins in spring, and residents say the new stretch will link the old mill to the station.</p>`
const page = `<html><head><title>River path</title></head><body><article><h1>River path to grow</h1>${story(1)}${story(2)}${story(3)}
<p><a href="https://f.example/share">Facebook</a> <a href="https://t.example/share">Twitter</a> <a href="mailto:?x">Email</a></p></article></body></html>`

beforeAll(async () => {
  process.env.STRATA_ALLOW_PRIVATE_URLS = "1"
  server = createServer((_req, res) => {
    res.setHeader("content-type", "text/html; charset=utf-8")
    res.end(page)
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
})

afterAll(async () => {
  await dispose()
  server.closeAllConnections()
  server.close()
})

describe("onlyCleanContent", () => {
  it("drops the share bar with the offline classifier and says so", async () => {
    const plain = await scrape(`${base}/story`, { formats: ["markdown"] })
    expect(plain.markdown as string).toContain("[Facebook]")
    const clean = await scrape(`${base}/story`, { formats: ["markdown"], onlyCleanContent: true })
    const markdown = clean.markdown as string
    expect(markdown).not.toContain("[Facebook]")
    for (const n of [1, 2, 3]) expect(markdown).toContain(`Work on section ${n} begins`)
    expect(clean.metadata).toMatchObject({ cleanContentBy: "classifier", cleanContentBlocksDropped: 1 })
  })
})
