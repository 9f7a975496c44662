/** The auto decision: each trigger on its own, the no-OCR path's cost, and a mixed PDF where exactly the right pages are picked. */
import { describe, expect, it } from "vitest"
import { PDFDocument, popGraphicsState, pushGraphicsState, setTextRenderingMode, StandardFonts, TextRenderingMode } from "pdf-lib"
import { decideOcr } from "../src/OcrDecision.ts"
import type { DecisionInput, DecisionTextItem } from "../src/OcrDecision.ts"
import { openRenderer } from "../src/PageRenderer.ts"
import { imagePdf, makeTextPdf, renderAll } from "../../ocr/test/support/SyntheticPages.ts"

const body = "The committee agreed to publish the findings together with maps and a short summary for the public."
const lines = (text: string, n: number, extra: Partial<DecisionTextItem> = {}): Array<DecisionTextItem> =>
  Array.from({ length: n }, (_, i) => ({ str: text, x: 72, y: 700 - i * 14, width: 468, height: 11, ...extra }))
const page = (items: Array<DecisionTextItem>, imageCoverage = 0, pathCount = 0): DecisionInput =>
  ({ pageWidth: 612, pageHeight: 792, items, imageCoverage, pathCount })

describe("decideOcr", () => {
  it("keeps a normal text layer", () => {
    const d = decideOcr(page(lines(body, 40)))
    expect(d).toMatchObject({ ocr: false, reason: "text_ok" })
    expect(d.stats.visibleChars).toBeGreaterThan(3000)
  })

  it("OCRs a page with no text but an image, and skips a blank page", () => {
    expect(decideOcr(page([], 1))).toMatchObject({ ocr: true, reason: "no_text" })
    expect(decideOcr(page([], 0, 0))).toMatchObject({ ocr: false, reason: "blank" })
    // Outlined text leaves paths and no text: OCR.
    expect(decideOcr(page([], 0, 120))).toMatchObject({ ocr: true, reason: "no_text" })
  })

  it("OCRs invisible and clipped text layers", () => {
    expect(decideOcr(page(lines(body, 30, { renderMode: 3 }), 1))).toMatchObject({ ocr: true, reason: "invisible_text" })
    expect(decideOcr(page([...lines(body, 30, { renderMode: 3 }), ...lines("12", 1)], 1)).reason).toBe("invisible_text")
    expect(decideOcr(page(lines(body, 30, { x: 700 })))).toMatchObject({ ocr: true, reason: "clipped_text" })
    expect(decideOcr(page(lines(body, 30, { clipped: true })))).toMatchObject({ ocr: true, reason: "clipped_text" })
  })

  it("OCRs text layers whose characters are not real text", () => {
    const garbage = [
      "\uFFFD\uFFFD\uFFFD \uFFFD\uFFFD\uFFFD\uFFFD \uFFFD\uFFFD",
      "\uE001\uE002\uE003\uE004 \uE005\uE006\uE007",
      "\u0003\u0011\u0004\u0012\u0005\u0013\u0006\u0014",
      "CafÃ© rÃ©sumÃ© dÃ©jÃ  vu â€™quoteâ€™ naÃ¯ve",
      "Wkh jrvw brxu prvw vwfn pvkq krxv hxvwq grph prvw fkq nwrs vwrp"
    ]
    for (const g of garbage) expect(decideOcr(page(lines(g, 20))), JSON.stringify(g)).toMatchObject({ ocr: true, reason: "garbled_text" })
    // A few stray replacement characters in a real page do not.
    expect(decideOcr(page([...lines(body, 30), ...lines("\uFFFD", 2)])).ocr).toBe(false)
    // Other scripts are real text.
    expect(decideOcr(page(lines("これは日本語の文章です。Ελληνικά κείμενα. Русский текст здесь.", 20))).ocr).toBe(false)
  })

  it("OCRs a mostly-image page with little text, not an illustrated text page", () => {
    expect(decideOcr(page(lines("Figure 1", 1), 0.9))).toMatchObject({ ocr: true, reason: "image_dominant" })
    expect(decideOcr(page(lines(body, 25), 0.6)).ocr).toBe(false)
  })

  it("costs well under 5 ms per page when no OCR is needed", () => {
    const input = page(lines(body, 60))
    for (let i = 0; i < 50; i++) decideOcr(input)
    const runs = 500
    const t0 = performance.now()
    for (let i = 0; i < runs; i++) decideOcr(input)
    const perPage = (performance.now() - t0) / runs
    expect(perPage).toBeLessThan(5)
  })

  it("picks exactly the pages that need OCR in a mixed PDF", async () => {
    const text = await makeTextPdf({ pages: 2, seed: 11, paragraphs: 2 })
    const [scan] = await renderAll(text.bytes, 100)
    const scanned = await PDFDocument.load(await imagePdf([{ image: scan }, { image: scan }]))
    const doc = await PDFDocument.create()
    const font = await doc.embedFont(StandardFonts.Helvetica)
    const [t1, t2] = await doc.copyPages(await PDFDocument.load(text.bytes), [0, 1])
    const [s1, s2] = await doc.copyPages(scanned, [0, 1])
    doc.addPage(t1) // 1: text
    doc.addPage(s1) // 2: scan, no text
    doc.addPage(t2) // 3: text
    doc.addPage(s2) // 4: scan under an invisible OCR layer
    s2.pushOperators(pushGraphicsState(), setTextRenderingMode(TextRenderingMode.Invisible))
    for (let i = 0; i < 20; i++) s2.drawText(body.slice(0, 80), { x: 72, y: 700 - i * 14, size: 11, font })
    s2.pushOperators(popGraphicsState())
    const moji = doc.addPage([612, 792]) // 5: mojibake text layer
    for (let i = 0; i < 20; i++) moji.drawText("CafÃ© rÃ©sumÃ© dÃ©jÃ  vu naÃ¯ve Ã¼ber", { x: 72, y: 700 - i * 14, size: 11, font })
    doc.addPage([612, 792]) // 6: blank
    const renderer = await openRenderer(await doc.save())
    try {
      const picked: Array<number> = []
      const reasons: Array<string> = []
      for (let p = 1; p <= renderer.numPages; p++) {
        const d = decideOcr(await renderer.facts(p))
        reasons.push(d.reason)
        if (d.ocr) picked.push(p)
      }
      expect(reasons).toEqual(["text_ok", "no_text", "text_ok", "invisible_text", "garbled_text", "blank"])
      expect(picked).toEqual([2, 4, 5])
    } finally {
      await renderer.close()
    }
  })
})
