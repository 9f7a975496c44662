/**
 * Words drawn as outlines, read by the real Tesseract engine in `auto`: the poster's outlined
 * title, subtitle and footer come back in reading order around its text layer, as `layout_ocr`
 * blocks with a confidence; the logo's name comes back; a chart page with a text layer gets no
 * OCR at all; a table drawn as outlines is read with its page, whole; `fast` reads none of it.
 */
import { assert, describe, layer } from "@effect/vitest"
import { readFileSync } from "node:fs"
import { Effect, Stream } from "effect"
import { OcrEngine, writeMarkdown } from "@strata/core"
import type { ParseMode } from "@strata/core"
import { TesseractEngine } from "@strata/ocr"
import { heuristicLayout, heuristicReadingOrder, heuristicTables } from "../src/HeuristicLayout.ts"
import { pdfReaderWith } from "../src/PdfReader.ts"

const fixture = (name: string) => new Uint8Array(readFileSync(new URL(`./fixtures/outlined/${name}.pdf`, import.meta.url)))

const read = (name: string, mode: ParseMode) =>
  Effect.gen(function*() {
    const reader = pdfReaderWith({ layout: heuristicLayout(heuristicTables), readingOrder: heuristicReadingOrder, ocr: yield* OcrEngine })
    const result = yield* reader.read({ bytes: fixture(name), format: "pdf", options: { mode, deadline: Date.now() + 60_000 } })
    const pages = Array.from(yield* Stream.runCollect(result.pages))
    return { pages, markdown: writeMarkdown(pages).markdown }
  })

describe("outlined text with OCR", () => {
  layer(TesseractEngine.layer(), { timeout: 60_000 })("tesseract", (it) => {
    it.effect("auto reads the poster's outlined words into their place in the reading order", () =>
      Effect.gen(function*() {
        const { pages, markdown } = yield* read("poster", "auto")
        const at = (text: string) => markdown.indexOf(text)
        const order = ["Summer Science Fair", "Robots, rockets and rainbows", "science fair returns", "winners are announced", "Free entry for all visitors"]
        for (const text of order) assert.isAtLeast(at(text), 0, `${text} missing from:\n${markdown}`)
        for (let i = 1; i < order.length; i++) assert.isBelow(at(order[i - 1]), at(order[i]), markdown)
        const blocks = pages[0].blocks
        const ocrd = blocks.filter((b) => b.source === "layout_ocr")
        assert.strictEqual(ocrd.length, 3)
        for (const b of ocrd) assert.isTrue(b.confidence.ocr !== null && b.confidence.ocr > 0.8)
        // The body stays the text layer's.
        const body = blocks.find((b) => b.content.includes("science fair returns"))
        assert.strictEqual(body?.source, "native_text")
        assert.strictEqual(body?.confidence.ocr, null)
        assert.isTrue(pages[0].diagnostics?.some((d) => d.code === "ocr_applied" && d.message.includes("3 regions")))
      }), 60_000)

    it.effect("auto reads the logo's name before the letter", () =>
      Effect.gen(function*() {
        const { pages, markdown } = yield* read("logo", "auto")
        assert.include(markdown, "Northwind Labs")
        assert.isBelow(markdown.indexOf("Northwind Labs"), markdown.indexOf("Quarterly letter"))
        assert.strictEqual(pages[0].blocks.filter((b) => b.source === "layout_ocr").length, 1)
      }), 60_000)

    it.effect("a chart page with a text layer gets no OCR text", () =>
      Effect.gen(function*() {
        const { pages, markdown } = yield* read("chart", "auto")
        assert.include(markdown, "Quarterly revenue by region")
        assert.isTrue(pages[0].blocks.every((b) => b.source === "native_text"))
        assert.isFalse(pages[0].diagnostics?.some((d) => d.code.startsWith("ocr")) ?? false)
      }), 60_000)

    it.effect("a page mostly drawn as outlines (a table) is read whole, as a scan is", () =>
      Effect.gen(function*() {
        const { pages, markdown } = yield* read("table", "auto")
        assert.isTrue(pages[0].diagnostics?.some((d) => d.code === "ocr_applied" && d.message.includes("outlined_text")))
        for (const text of ["Pump sets", "Alder", "Birch", "Cedar", "Maple", "105 kg"]) assert.include(markdown, text)
        assert.isBelow(markdown.indexOf("Alder"), markdown.indexOf("Maple"))
        assert.isTrue(pages[0].blocks.every((b) => b.source === "layout_ocr"))
      }), 60_000)

    it.effect("fast reads none of the outlined words, even with an engine", () =>
      Effect.gen(function*() {
        const { pages, markdown } = yield* read("poster", "fast")
        assert.notInclude(markdown, "Summer Science Fair")
        assert.isTrue(pages[0].blocks.every((b) => b.source === "native_text"))
      }), 60_000)
  })
})
