/**
 * Both engines on image-only PDFs made from born-digital pages (text known exactly): clean,
 * noisy + blurred + skewed + JPEG'd, and upside down; plus the pool's deadline behaviour.
 * Character error rates are bounded; the pages go through the real renderer (embedded scans).
 */
import { assert, describe, layer } from "@effect/vitest"
import { Effect } from "effect"
import { ensureOcrFits, OcrEngine, rawImage } from "@strata/core"
import type { OcrResult } from "@strata/core"
import { characterErrorRate } from "../src/ErrorRate.ts"
import type { Gray } from "../src/ImageOps.ts"
import { ocrPageToBlocks } from "../src/OcrBlocks.ts"
import * as OcrPool from "../src/OcrPool.ts"
import * as PaddleEngine from "../src/PaddleEngine.ts"
import { openRenderer } from "../../pdf/src/PageRenderer.ts"
import * as TesseractEngine from "../src/TesseractEngine.ts"
import { degrade, imagePdf, makeTextPdf, renderAll } from "./support/SyntheticPages.ts"

const fixture = Effect.promise(async () => {
  const { bytes, truth } = await makeTextPdf({ pages: 1, seed: 21, paragraphs: 3 })
  const [clean] = await renderAll(bytes, 300)
  const noisy = await degrade(clean, { noise: 25, blur: 0.8, rotate: 2, jpeg: 60 }, 3)
  const flipped = await degrade(clean, { rotate: 180 })
  // Through image-only PDFs and back out of the renderer, as the PDF reader will do it.
  const scans = await imagePdf([{ image: clean }, { image: noisy }, { image: flipped }])
  const renderer = await openRenderer(scans)
  const pages: Array<Gray> = []
  for (let p = 1; p <= 3; p++) pages.push((await renderer.render(p, 300)).image)
  await renderer.close()
  const [small] = await renderAll(bytes, 100)
  const [paddlePage] = await renderAll(bytes, 200)
  return { truth: truth[0].lines.join("\n"), pages, small, paddlePage }
})

const text = (r: OcrResult) => r.lines.map((l) => l.text).join("\n")
const image = (g: Gray) => rawImage(g.data, g.width, g.height, 1)

describe("OCR engines", () => {
  layer(TesseractEngine.layer(), { timeout: 60_000 })("tesseract", (it) => {
    it.effect("reads clean, noisy and upside-down scans within the error bounds", () =>
      Effect.gen(function*() {
        const { truth, pages } = yield* fixture
        const engine = yield* OcrEngine
        const [clean, noisy, flipped] = yield* Effect.forEach(pages, (g) => engine.recognize(image(g), { dpi: 300 }))
        assert.isAtMost(characterErrorRate(truth, text(clean)), 0.02)
        assert.isAtMost(characterErrorRate(truth, text(noisy)), 0.05)
        assert.isAtMost(characterErrorRate(truth, text(flipped)), 0.05)
        assert.strictEqual(flipped.rotation, 180)
        assert.notStrictEqual(noisy.skew, 0)
        for (const l of clean.lines) {
          assert.isAtLeast(l.confidence, 0)
          assert.isAtMost(l.confidence, 1)
          assert.isAtMost(l.bbox[2], clean.width)
        }
        const blocks = ocrPageToBlocks(clean, 612, 792)
        assert.strictEqual(blocks[0].kind, "section_header")
        assert.isTrue(blocks.slice(1).every((b) => b.kind === "text" && b.source === "layout_ocr"))
        assert.strictEqual(blocks.length, 4)
      }), 60_000)
  })

  layer(TesseractEngine.layer({ recogniser: "legacy", dpi: 200, invert: false }), { timeout: 60_000 })("tesseract, speed options", (it) => {
    it.effect("the legacy recogniser reads a clean scan, and the engine asks for pages at its dpi", () =>
      Effect.gen(function*() {
        const { truth, pages } = yield* fixture
        const engine = yield* OcrEngine
        assert.strictEqual(engine.preferredDpi, 200)
        const r = yield* engine.recognize(image(pages[0]), { dpi: 300 })
        assert.isAtMost(characterErrorRate(truth, text(r)), 0.02)
      }), 60_000)
  })

  layer(PaddleEngine.layer({ threads: 2 }), { timeout: 60_000 })("paddle", (it) => {
    it.effect("reads a clean scan within the error bound", () =>
      Effect.gen(function*() {
        const { truth, paddlePage } = yield* fixture
        const engine = yield* OcrEngine
        const r = yield* engine.recognize(image(paddlePage), { dpi: 200 })
        assert.isAtMost(characterErrorRate(truth, text(r)), 0.02)
        assert.strictEqual(r.engine, "paddle")
      }), 60_000)
  })

  layer(OcrPool.layer({ size: 1 }), { timeout: 60_000 })("pool", (it) => {
    it.effect("refuses work that cannot fit, times out a page, and keeps serving after", () =>
      Effect.gen(function*() {
        const { small } = yield* fixture
        const engine = yield* OcrEngine
        const refused = yield* Effect.flip(ensureOcrFits(engine, 50, Date.now() + 3_000))
        assert.strictEqual(refused.reason._tag, "OcrTimeout")
        assert.match(refused.message, /50 page\(s\) need OCR/)
        const late = yield* Effect.flip(engine.recognize(image(small), { deadline: Date.now() + 50 }))
        assert.strictEqual(late.reason._tag, "OcrTimeout")
        const after = yield* engine.recognize(image(small), { dpi: 100 })
        assert.isAbove(after.lines.length, 3)
      }), 60_000)
  })
})
