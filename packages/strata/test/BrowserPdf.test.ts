/**
 * A PDF that a browser-only option sends to Chromium (`waitFor`, `mobile`) is fetched once: the
 * bytes Chromium received (shown in its viewer, or downloaded) are the document the PDF reader
 * reads, not fetched again by the fetch engine. A loopback server counts the requests; a gzipped
 * response is read decoded.
 */
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { gzipSync } from "node:zlib"
import { PDFDocument, StandardFonts } from "pdf-lib"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { createStrata, type StrataClient } from "../src/index.ts"

let server: Server
let base = ""
let strata: StrataClient
const hits = new Map<string, number>()

const makePdf = async (): Promise<Uint8Array> => {
  const pdf = await PDFDocument.create()
  const font = await pdf.embedFont(StandardFonts.Helvetica)
  for (let n = 1; n <= 2; n++) {
    const page = pdf.addPage([612, 792])
    // Different lines at different heights on each page, so that none is taken for a running header.
    page.drawText(n === 1 ? "Harbour report, part 1, read once." : "The second part counts the boats.", { x: 72, y: 700 - 40 * n, size: 14, font })
    page.drawText(`This is the body text of page ${n}, written as one plain sentence about tides number ${n * 7}.`, { x: 72, y: 600 - 30 * n, size: 11, font })
  }
  return pdf.save()
}

beforeAll(async () => {
  const pdf = Buffer.from(await makePdf())
  server = createServer((req, res) => {
    const path = new URL(req.url ?? "/", "http://x").pathname
    hits.set(path, (hits.get(path) ?? 0) + 1)
    res.setHeader("content-type", "application/pdf")
    if (path === "/inline.pdf") res.setHeader("content-disposition", "inline; filename=\"report.pdf\"")
    if (path === "/attachment.pdf") res.setHeader("content-disposition", "attachment; filename=\"report.pdf\"")
    if (path === "/gzip.pdf") {
      res.setHeader("content-encoding", "gzip")
      res.end(gzipSync(pdf))
      return
    }
    res.end(pdf)
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  strata = createStrata({ isolation: false, ocr: false, fetch: { allowPrivateUrls: true }, browser: { concurrency: 1 } })
}, 60_000)

afterAll(async () => {
  await strata?.close()
  server?.closeAllConnections()
  server?.close()
})

describe("a PDF rendered in the browser", () => {
  // blockAds: false has no Playwright route on the page, so the capture is the only interception.
  for (const [path, blockAds] of [["/inline.pdf", true], ["/plain.pdf", true], ["/attachment.pdf", true], ["/gzip.pdf", true], ["/unrouted.pdf", false]] as const) {
    it(`reads ${path} from the one response Chromium got`, async () => {
      const data = await strata.scrape(`${base}${path}?n=1`, { formats: ["markdown"], waitFor: 100, timeout: 45_000, blockAds })
      expect(data.markdown).toContain("Harbour report, part 1, read once.")
      expect(data.markdown).toContain("The second part counts the boats.")
      expect(data.metadata).toMatchObject({ engine: "browser", numPages: 2, contentType: "application/pdf" })
      expect(hits.get(path)).toBe(1)
    }, 60_000)
  }
})
