/** The PDF reader with an OCR engine: auto OCRs exactly the scanned page (through the same layout chain as native text), fast never does, and a hopeless deadline is a Timeout. */
import { assert, describe, layer } from "@effect/vitest"
import { Effect, Stream } from "effect"
import { OcrEngine } from "@strata/core"
import type { ParseMode } from "@strata/core"
import { characterErrorRate, TesseractEngine } from "@strata/ocr"
import { PDFDocument } from "pdf-lib"
import { heuristicLayout, heuristicReadingOrder, heuristicTables } from "../src/HeuristicLayout.ts"
import { pdfReaderWith } from "../src/PdfReader.ts"
import { imagePdf, makeTextPdf, renderAll } from "../../ocr/test/support/SyntheticPages.ts"

const mixed = Effect.promise(async () => {
  const text = await makeTextPdf({ pages: 2, seed: 31, paragraphs: 2 })
  const [, second] = await renderAll(text.bytes, 200)
  const doc = await PDFDocument.create()
  const [native] = await doc.copyPages(await PDFDocument.load(text.bytes), [0])
  const [scan] = await doc.copyPages(await PDFDocument.load(await imagePdf([{ image: second }])), [0])
  doc.addPage(native)
  doc.addPage(scan)
  return { bytes: await doc.save(), truth: text.truth[1].lines.join("\n") }
})

const read = (bytes: Uint8Array, mode: ParseMode, deadline = Date.now() + 60_000) =>
  Effect.gen(function*() {
    const reader = pdfReaderWith({ layout: heuristicLayout(heuristicTables), readingOrder: heuristicReadingOrder, ocr: yield* OcrEngine })
    const result = yield* reader.read({ bytes, format: "pdf", options: { mode, deadline } })
    return Array.from(yield* Stream.runCollect(result.pages))
  })

describe("the PDF reader with OCR", () => {
  layer(TesseractEngine.layer(), { timeout: 60_000 })("tesseract", (it) => {
    it.effect("auto OCRs only the scanned page; fast leaves it empty", () =>
      Effect.gen(function*() {
        const { bytes, truth } = yield* mixed
        const auto = yield* read(bytes, "auto")
        assert.strictEqual(auto.length, 2)
        assert.isTrue(auto[0].blocks.every((b) => b.source === "native_text"))
        assert.isTrue(auto[1].blocks.length > 0 && auto[1].blocks.every((b) => b.source === "layout_ocr"))
        assert.isTrue(auto[1].diagnostics?.some((d) => d.code === "ocr_applied"))
        const ocrText = auto[1].blocks.map((b) => b.content.replace(/^#+\s/, "")).join("\n")
        assert.isAtMost(characterErrorRate(truth, ocrText), 0.05)
        const fast = yield* read(bytes, "fast")
        assert.strictEqual(fast[1].blocks.length, 0)
      }), 60_000)

    it.effect("fails with a Timeout when the OCR pages cannot fit in the deadline", () =>
      Effect.gen(function*() {
        const { bytes } = yield* mixed
        const error = yield* Effect.flip(read(bytes, "ocr", Date.now() + 500))
        assert.strictEqual(error.reason._tag, "Timeout")
      }), 60_000)
  })
})
