/** OCR lines to Document blocks: headings by height, paragraphs by gaps, bullets, hyphenation, boxes and confidence. */
import { describe, expect, it } from "vitest"
import type { OcrLine, OcrResult } from "@strata/core"
import { ocrPageToBlocks } from "../src/OcrBlocks.ts"

const line = (text: string, x0: number, y0: number, h: number, confidence = 0.9): OcrLine => ({
  text,
  bbox: [x0, y0, x0 + text.length * h * 0.5, y0 + h],
  confidence,
  words: text.split(" ").map((w) => ({ text: w, bbox: [x0, y0, x0 + 10, y0 + h], confidence }))
})

const result = (lines: Array<OcrLine>): OcrResult => ({ engine: "test", width: 2550, height: 3300, lines })

describe("ocrPageToBlocks", () => {
  it("groups lines into a heading, paragraphs and list items", () => {
    const blocks = ocrPageToBlocks(result([
      line("Annual Report", 300, 300, 80, 0.95),
      line("The first paragraph starts here and goes on for a while until the end of the", 300, 450, 40),
      line("line, where it con-", 300, 500, 40),
      line("tinues on the next line.", 300, 550, 40),
      line("A second paragraph after a blank line.", 300, 700, 40, 0.7),
      line("• first point", 300, 850, 40),
      line("• second point", 300, 900, 40),
      line("# not a heading", 300, 1050, 40),
      line("noise", 300, 1200, 40, 0.1)
    ]), 612, 792)
    expect(blocks.map((b) => b.kind)).toEqual(["section_header", "text", "text", "list_item", "list_item", "text"])
    expect(blocks[0].content).toBe("# Annual Report")
    expect(blocks[1].content).toBe("The first paragraph starts here and goes on for a while until the end of the line, where it continues on the next line.")
    expect(blocks[3].content).toBe("- first point")
    expect(blocks[5].content).toBe("\\# not a heading")
    for (const b of blocks) {
      expect(b.source).toBe("layout_ocr")
      expect(b.bbox).not.toBeNull()
      for (const v of b.bbox!) expect(v).toBeGreaterThanOrEqual(0)
      for (const v of b.bbox!) expect(v).toBeLessThanOrEqual(1)
    }
    expect(blocks[0].confidence.ocr).toBeCloseTo(0.95)
    expect(blocks[2].confidence.ocr).toBeCloseTo(0.7)
    expect(blocks[0].bbox![1]).toBeCloseTo(300 / 3300)
  })

  it("maps boxes through the image's region on the page", () => {
    const [b] = ocrPageToBlocks(result([line("Only line of text on a partial scan.", 0, 0, 3300)]), 612, 792, { region: [0.5, 0.5, 1, 1] })
    expect(b.bbox![0]).toBeCloseTo(0.5)
    expect(b.bbox![1]).toBeCloseTo(0.5)
    expect(b.bbox![3]).toBeCloseTo(1)
  })

  it("returns nothing for an empty result", () => {
    expect(ocrPageToBlocks(result([]), 612, 792)).toEqual([])
  })
})
