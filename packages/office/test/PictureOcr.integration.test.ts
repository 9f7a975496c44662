/**
 * Picture OCR with the real tesseract engine: a scan wrapped in a docx is read in `auto`, an
 * image of text on a slide is read in `ocr` mode with the slide's own text kept, a text-rich
 * document with a logo is left alone, and the per-document cap and the deadline hold. The
 * recognised text must match what was drawn (character error rate under 5%).
 */
import { assert, describe, layer } from "@effect/vitest"
import { Effect, Exit, Stream } from "effect"
import { DocumentReaders, OcrEngine, writeMarkdown, type DocumentFormat, type Page, type ParseMode } from "@strata/core"
import { characterErrorRate } from "../../ocr/src/ErrorRate.ts"
import * as TesseractEngine from "../../ocr/src/TesseractEngine.ts"
import { makeOfficeReaders } from "../src/index.ts"
import { cropTop, docxWithPictures, logoPng, pptxWithPictures, textPicture } from "./fixtures/PictureDocs.ts"

const read = (bytes: Uint8Array, format: DocumentFormat, mode: ParseMode, options: { maxImages?: number; deadline?: number } = {}) =>
  Effect.gen(function*() {
    const ocr = yield* OcrEngine
    const readers = DocumentReaders.make(makeOfficeReaders({ ocr, maxImages: options.maxImages }))
    const result = yield* readers.read({ bytes, format, options: { mode, deadline: options.deadline ?? Date.now() + 60_000 } })
    return Array.from(yield* Stream.runCollect(result.pages))
  })

const ocrText = (pages: ReadonlyArray<Page>): string =>
  pages.flatMap((p) => p.blocks).filter((b) => b.source === "layout_ocr").map((b) => b.content.replace(/[#*_`>\\]/g, "")).join(" ").replace(/\s+/g, " ").trim()

const codes = (pages: ReadonlyArray<Page>): Array<string> => pages.flatMap((p) => (p.diagnostics ?? []).map((d) => d.code))

describe("picture OCR", () => {
  layer(TesseractEngine.layer(), { timeout: 120_000 })("tesseract", (it) => {
    it.effect("auto reads a scan wrapped in a docx, right after the picture's block", () =>
      Effect.gen(function*() {
        const page = yield* Effect.promise(() => textPicture({ seed: 11, paragraphs: 2, dpi: 200 }))
        const bytes = yield* Effect.promise(() => docxWithPictures({ paragraphs: 0, pictures: [{ png: page.png, width: 612, height: 792, alt: "Scanned page" }] }))
        const pages = yield* read(bytes, "docx", "auto")
        const cer = characterErrorRate(page.text, ocrText(pages))
        assert.isBelow(cer, 0.05, `CER ${cer.toFixed(3)}: ${ocrText(pages)}`)
        const blocks = pages[0].blocks
        const figure = blocks.findIndex((b) => b.content.includes("![Scanned page]()"))
        assert.isAtLeast(figure, 0)
        const after = blocks.slice(figure + 1)
        assert.isAbove(after.length, 0)
        assert.isTrue(after.every((b) => b.source === "layout_ocr" && b.label === "image_text" && typeof b.confidence.ocr === "number"))
        assert.include(codes(pages), "ocr_applied")
        // The markdown reads as the page did: the picture, then its text.
        const markdown = writeMarkdown(pages).markdown
        assert.isBelow(markdown.indexOf("![Scanned page]()"), markdown.indexOf(page.text.split(" ").slice(2, 5).join(" ")))
      }))

    it.effect("ocr mode reads an image of text on a slide and keeps the slide's own text; auto leaves it", () =>
      Effect.gen(function*() {
        const page = yield* Effect.promise(() => textPicture({ seed: 5, paragraphs: 1, dpi: 200 }))
        // A page of text shown small beside the title (its pixels still at 200 dpi).
        const bytes = yield* Effect.promise(() => pptxWithPictures([{ title: "Quarterly review", pictures: [{ png: page.png, x: 6.5, y: 1.1, w: 3.4, h: 4.4 }] }]))
        const pages = yield* read(bytes, "pptx", "ocr")
        const markdown = writeMarkdown(pages).markdown
        assert.include(markdown, "Quarterly review")
        assert.isBelow(markdown.indexOf("Quarterly review"), markdown.indexOf(page.text.split(" ").slice(2, 5).join(" ")))
        const cer = characterErrorRate(page.text, ocrText(pages))
        assert.isBelow(cer, 0.05, `CER ${cer.toFixed(3)}: ${ocrText(pages)}`)
        // A slide with a title and a picture covering under half of it is no scan.
        const auto = yield* read(bytes, "pptx", "auto")
        assert.strictEqual(ocrText(auto), "")
      }))

    it.effect("a text-rich docx with a logo is not OCR'd in auto; the cap and the deadline hold in ocr mode", () =>
      Effect.gen(function*() {
        const page = yield* Effect.promise(() => textPicture({ seed: 3, paragraphs: 1, dpi: 150 }))
        const first = yield* Effect.promise(() => cropTop(page, 120, 160))
        const second = yield* Effect.promise(() => cropTop(page, 280, 160))
        const logo = yield* Effect.promise(() => logoPng(240, 90))
        const rich = yield* Effect.promise(() => docxWithPictures({ paragraphs: 5, pictures: [{ png: logo, width: 120, height: 45 }] }))
        const auto = yield* read(rich, "docx", "auto")
        assert.isFalse(auto.flatMap((p) => p.blocks).some((b) => b.source === "layout_ocr"))
        assert.notInclude(codes(auto), "ocr_applied")

        const two = yield* Effect.promise(() =>
          docxWithPictures({ paragraphs: 1, pictures: [{ png: first, width: 600, height: 75 }, { png: second, width: 600, height: 75 }] })
        )
        const capped = yield* read(two, "docx", "ocr", { maxImages: 1 })
        assert.include(codes(capped), "ocr_image_cap")
        assert.isAbove(ocrText(capped).length, 10)
        assert.strictEqual(capped[0].blocks.filter((b, i, all) => b.source === "layout_ocr" && all[i - 1]?.source !== "layout_ocr").length, 1)

        // Far too little time left for the pictures: a Timeout before any OCR starts.
        const late = yield* Effect.exit(read(two, "docx", "ocr", { deadline: Date.now() + 50 }))
        assert.isTrue(Exit.isFailure(late))
        const error = Exit.isFailure(late) ? Exit.findErrorOption(late) : undefined
        assert.strictEqual(error?._tag === "Some" ? error.value.reason._tag : undefined, "Timeout")
      }))
  })
})
