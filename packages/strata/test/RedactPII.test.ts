/**
 * `redactPII` end to end through the library: a page served on loopback and a real PDF, with
 * the markdown, the HTML and the blocks all redacted, and the option's entities and styles.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { PDFDocument, StandardFonts } from "pdf-lib"
import { dispose, parse, scrape } from "../src/index.ts"

let server: Server
let base = ""
const page = `<html><head><title>Staff</title></head><body><main><h1>Our team</h1>
<p>Write to Jane Doe at <a href="mailto:jane.doe@example.com">jane.doe@example.com</a> or call +44 20 7946 0958.</p>
<p>Refunds go to IBAN DE89 3704 0044 0532 0130 00. The office is at 221B Baker Street, London NW1 6XE.</p>
<p>${"The quarterly report shows steady growth across every region. ".repeat(6)}</p></main></body></html>`

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

describe("redactPII", () => {
  it("redacts a page's markdown and HTML; without it, the page is as it was", async () => {
    const plain = await scrape(`${base}/team`, { formats: ["markdown"] })
    expect(plain.markdown as string).toContain("jane.doe@example.com")
    const data = await scrape(`${base}/team`, { formats: ["markdown", "html"], redactPII: true })
    const markdown = data.markdown as string
    for (const secret of ["jane.doe@example.com", "Jane Doe", "7946 0958", "DE89", "Baker Street"]) {
      expect(markdown).not.toContain(secret)
      expect(data.html as string).not.toContain(secret)
    }
    expect(markdown).toContain("<EMAIL>")
    expect(markdown).toContain("<PHONE>")
    expect(markdown).toContain("<IBAN>")
    expect(markdown).toContain("<ADDRESS>")
    expect(markdown).toContain("The quarterly report shows steady growth")
    // In HTML the tag is text, not markup.
    expect(data.html as string).toContain("&lt;EMAIL&gt;")
  })

  it("keeps the buckets not asked for, and masks by style", async () => {
    const data = await scrape(`${base}/team`, { formats: ["markdown"], redactPII: { entities: ["EMAIL"], replaceStyle: "mask" } })
    const markdown = data.markdown as string
    expect(markdown).not.toContain("jane.doe@example.com")
    expect(markdown).toContain("********************")
    expect(markdown).toContain("Jane Doe")
    expect(markdown).toContain("+44 20 7946 0958")
  })

  it("redacts a PDF's markdown and blocks", async () => {
    const pdf = await PDFDocument.create()
    const font = await pdf.embedFont(StandardFonts.Helvetica)
    const sheet = pdf.addPage([612, 792])
    sheet.drawText("Patient record", { x: 72, y: 700, size: 18, font })
    sheet.drawText("Contact: john.smith@example.org, card 4111 1111 1111 1111.", { x: 72, y: 660, size: 11, font })
    const bytes = await pdf.save()
    const data = await parse(bytes, "record.pdf", { formats: ["markdown"], parsers: [{ type: "pdf", blocks: true }], redactPII: true })
    const markdown = data.markdown as string
    expect(markdown).toContain("Patient record")
    expect(markdown).toContain("<EMAIL>")
    expect(markdown).toContain("<CREDIT_CARD>")
    expect(markdown).not.toContain("john.smith")
    expect(JSON.stringify(data.blocks)).not.toContain("john.smith")
    expect(JSON.stringify(data.blocks)).not.toContain("4111")
  })
})
