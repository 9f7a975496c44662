/**
 * The library entry point end to end: `scrape` over loopback and `parse` of real documents
 * (a PDF made with pdf-lib, a DOCX made with docx), with every engine the server ships.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { PDFDocument, StandardFonts } from "pdf-lib"
import { Document, HeadingLevel, Packer, Paragraph } from "docx"
import PptxGenJS from "pptxgenjs"
import { dispose, parse, scrape } from "../src/index.ts"

let server: Server
let base = ""
let pdfBytes: Uint8Array

const makePdf = async (): Promise<Uint8Array> => {
  const pdf = await PDFDocument.create()
  pdf.setTitle("Quarterly Report")
  const font = await pdf.embedFont(StandardFonts.Helvetica)
  const bold = await pdf.embedFont(StandardFonts.HelveticaBold)
  for (let n = 1; n <= 2; n++) {
    const page = pdf.addPage([612, 792])
    page.drawText(`Section ${n}`, { x: 72, y: 700, size: 20, font: bold })
    page.drawText(`This is the body text of page ${n}, written as one plain sentence.`, { x: 72, y: 660, size: 11, font })
  }
  return pdf.save()
}

beforeAll(async () => {
  process.env.STRATA_ALLOW_PRIVATE_URLS = "1"
  pdfBytes = await makePdf()
  server = createServer((req, res) => {
    if (req.url === "/report.pdf") {
      res.setHeader("content-type", "application/pdf")
      res.end(Buffer.from(pdfBytes))
      return
    }
    res.setHeader("content-type", "text/html; charset=utf-8")
    res.end(`<html><head><title>Lib</title></head><body><main><h1>Library page</h1><p>${"Words of the main content, plainly written. ".repeat(8)}</p></main></body></html>`)
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
})

afterAll(async () => {
  await dispose()
  server.closeAllConnections()
  server.close()
})

describe("strata library", () => {
  it("scrapes a page", async () => {
    const data = await scrape(`${base}/page`, { formats: ["markdown", "links"] })
    expect(data.markdown as string).toContain("# Library page")
    expect(data.metadata).toMatchObject({ title: "Lib", statusCode: 200 })
  })

  it("scrapes a PDF URL through the PDF reader, with page markers and blocks", async () => {
    const data = await scrape(`${base}/report.pdf`, { parsers: [{ type: "pdf", pageMarkers: true, blocks: true }] })
    const markdown = data.markdown as string
    expect(markdown).toContain("Section 1")
    expect(markdown).toContain("body text of page 2")
    expect(markdown).toContain("<!-- page 2 -->")
    expect(data.metadata).toMatchObject({ numPages: 2, creditsUsed: 2, contentType: "application/pdf" })
    const blocks = data.blocks as unknown as Array<{ items: Array<{ content: string; markdownSpan: [number, number] | null }> }>
    for (const page of blocks) for (const block of page.items) {
      if (block.markdownSpan) expect(markdown.slice(block.markdownSpan[0], block.markdownSpan[1])).toBe(block.content)
    }
  })

  it("parses a PDF upload", async () => {
    const data = await parse(pdfBytes, "report.pdf", { parsers: [{ type: "pdf", pages: true }] })
    expect((data.pages ?? []).map((p) => p.pageNumber)).toEqual([1, 2])
    expect(data.metadata).toMatchObject({ sourceURL: "report.pdf", numPages: 2 })
  })

  it("parses a DOCX upload", async () => {
    const doc = new Document({
      sections: [{ children: [new Paragraph({ text: "Memo", heading: HeadingLevel.HEADING_1 }), new Paragraph("The memo's first paragraph.")] }]
    })
    const bytes = new Uint8Array(await Packer.toBuffer(doc))
    const data = await parse(bytes, "memo.docx")
    expect(data.markdown as string).toContain("# Memo")
    expect(data.markdown as string).toContain("The memo's first paragraph.")
  })

  it("gives one data.pages entry per slide when pages is asked for, and page markers between slides", async () => {
    const deck = new (PptxGenJS as unknown as new () => { addSlide(): { addText(text: string, options: object): void }; write(options: object): Promise<unknown> })()
    deck.addSlide().addText("Opening slide", { x: 1, y: 1, w: 8, h: 1, fontSize: 32 })
    deck.addSlide().addText("Closing slide", { x: 1, y: 1, w: 8, h: 1, fontSize: 32 })
    const bytes = new Uint8Array((await deck.write({ outputType: "nodebuffer" })) as Buffer)
    const data = await parse(bytes, "deck.pptx", { parsers: [{ type: "pdf", pages: true, pageMarkers: true }] })
    const pages = data.pages as Array<{ pageNumber: number; markdown: string }>
    expect(pages.map((p) => p.pageNumber)).toEqual([1, 2])
    expect(pages[0].markdown).toContain("Opening slide")
    expect(pages[1].markdown).toContain("Closing slide")
    expect(data.markdown as string).toContain("<!-- page 2 -->")
  })

  it("rejects with a typed reason", async () => {
    await expect(parse(new Uint8Array([1, 2, 3, 4]), "x.bin")).rejects.toMatchObject({ reason: { _tag: "UnsupportedFileType" } })
  })
})
