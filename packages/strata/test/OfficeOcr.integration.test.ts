/**
 * Picture OCR through the whole library: a Word document that is only a scanned page (a
 * picture of text) gives its text in `auto` (the default), after the picture's alt text, and a
 * warning instead in `fast` (the PDF parser's `mode` applies to every uploaded document).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { characterErrorRate } from "@strata/ocr"
import { docxWithPictures, textPicture } from "../../office/test/fixtures/PictureDocs.ts"
import { dispose, parse } from "../src/index.ts"

let scan: Uint8Array
let drawn = ""

beforeAll(async () => {
  const page = await textPicture({ seed: 17, paragraphs: 2, dpi: 200 })
  drawn = page.text
  scan = await docxWithPictures({ paragraphs: 0, pictures: [{ png: page.png, width: 612, height: 792, alt: "Scanned letter" }] })
}, 120_000)

afterAll(async () => {
  await dispose()
})

describe("OCR of pictures in office documents", () => {
  it("auto mode reads a scan wrapped in a docx", async () => {
    const data = await parse(scan, "letter.docx")
    const markdown = data.markdown as string
    expect(markdown).toContain("![Scanned letter]()")
    const text = markdown.replace("![Scanned letter]()", "").replace(/[#*_`>\\]/g, "").replace(/\s+/g, " ").trim()
    expect(characterErrorRate(drawn, text)).toBeLessThan(0.05)
    expect(data.warning).toBeUndefined()
  }, 180_000)

  it("fast mode keeps the picture's alt text and warns that the scan was not read", async () => {
    const data = await parse(scan, "letter.docx", { parsers: [{ type: "pdf", mode: "fast" }] })
    expect((data.markdown as string).trim()).toBe("![Scanned letter]()")
    expect(data.warning as string).toMatch(/not recognised/)
  }, 60_000)
})
