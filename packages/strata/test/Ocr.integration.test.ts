/**
 * OCR through the whole library: a PDF whose second page is a scan (an image of text, no text
 * layer). `auto` (the default) OCRs exactly that page, `fast` never OCRs and warns, and the OCR
 * pool starts only when a page needs it.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { characterErrorRate } from "@strata/ocr"
import { imagePdf, makeTextPdf, renderAll } from "../../ocr/test/support/SyntheticPages.ts"
import { dispose, parse } from "../src/index.ts"

let mixed: Uint8Array
let scannedText = ""
let nativeText: ReadonlyArray<string> = []

beforeAll(async () => {
  const { bytes, truth } = await makeTextPdf({ pages: 2, seed: 7, paragraphs: 2 })
  const [, second] = await renderAll(bytes, 200)
  nativeText = truth[0].lines
  scannedText = truth[1].lines.join(" ")
  mixed = await imagePdf([{ text: truth[0].lines }, { image: second }])
}, 120_000)

afterAll(async () => {
  await dispose()
})

describe("OCR in the pipeline", () => {
  it("auto mode OCRs the scanned page only, as layout_ocr blocks", async () => {
    const data = await parse(mixed, "mixed.pdf", { parsers: [{ type: "pdf", blocks: true, pages: true }] })
    const pages = data.pages as unknown as Array<{ pageNumber: number; markdown: string }>
    expect(pages[0].markdown).toContain(nativeText[1])
    const ocrText = pages[1].markdown.replace(/[#*_`>]/g, "").replace(/\s+/g, " ").trim()
    expect(characterErrorRate(ocrText, scannedText)).toBeLessThan(0.05)
    const blocks = data.blocks as unknown as Array<{ pageNumber: number; items: Array<{ source: string | null; confidence: { ocr: number | null } }> }>
    expect(blocks[0].items.every((b) => b.source !== "layout_ocr")).toBe(true)
    expect(blocks[1].items.length).toBeGreaterThan(0)
    expect(blocks[1].items.every((b) => b.source === "layout_ocr" && typeof b.confidence.ocr === "number")).toBe(true)
  }, 180_000)

  it("fast mode never OCRs and says the scanned page had no text", async () => {
    const data = await parse(mixed, "mixed.pdf", { parsers: [{ type: "pdf", mode: "fast", pages: true }] })
    expect((data.pages as unknown as Array<{ markdown: string }>)[1].markdown).toBe("")
    expect(data.warning as string).toContain("page 2")
  }, 60_000)
})
