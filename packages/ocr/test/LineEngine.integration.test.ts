/**
 * Our own line engine with the committed model (models/ocr/line-model) on image-only pages made
 * from born-digital text (known exactly): clean, scanner-damaged, upside down and inverted, a
 * table page read through the PDF reader, the tesseract fallback for lines the model is unsure
 * of, and the cascade (CascadeEngine.ts) that hands whole unsure pages to tesseract.
 */
import { assert, describe, it, layer } from "@effect/vitest"
import { Effect, Stream } from "effect"
import { OcrEngine, rawImage } from "@strata/core"
import type { OcrResult } from "@strata/core"
import { characterErrorRate } from "../src/ErrorRate.ts"
import type { Gray } from "../src/ImageOps.ts"
import * as CascadeEngine from "../src/CascadeEngine.ts"
import { makeEngine } from "../src/EngineChoice.ts"
import * as LineEngine from "../src/LineEngine.ts"
import * as OcrPool from "../src/OcrPool.ts"
import { heuristicLayout, heuristicReadingOrder, heuristicTables, pdfReaderWith } from "../../pdf/src/index.ts"
import { imageA4Pdf, makeDensePdf } from "../../../bench/ocr/DensePages.ts"
import { degrade, makeTextPdf, renderAll } from "./support/SyntheticPages.ts"

const fixture = Effect.promise(async () => {
  const { bytes, truth } = await makeTextPdf({ pages: 1, seed: 21, paragraphs: 3 })
  const [clean] = await renderAll(bytes, 300)
  const noisy = await degrade(clean, { noise: 25, blur: 0.8, rotate: 2, jpeg: 60 }, 3)
  const flipped = await degrade(clean, { rotate: 180 })
  return { truth: truth[0].lines.join("\n"), clean, noisy, flipped }
})

const text = (r: OcrResult) => r.lines.map((l) => l.text).join("\n")
const image = (g: Gray) => rawImage(g.data, g.width, g.height, 1)

describe("line engine", () => {
  layer(LineEngine.layer(), { timeout: 60_000 })("committed model", (it) => {
    it.effect("reads clean, noisy and upside-down scans within the error bounds, with word boxes on the page", () =>
      Effect.gen(function*() {
        const { truth, clean, noisy, flipped } = yield* fixture
        const engine = yield* OcrEngine
        assert.strictEqual(engine.name, "lines")
        const [a, b, c] = yield* Effect.forEach([clean, noisy, flipped], (g) => engine.recognize(image(g), { dpi: 300 }))
        assert.isAtMost(characterErrorRate(truth, text(a)), 0.02)
        assert.isAtMost(characterErrorRate(truth, text(b)), 0.03)
        assert.isAtMost(characterErrorRate(truth, text(c)), 0.02)
        assert.strictEqual(c.rotation, 180)
        assert.strictEqual(a.model, "conv-tiny")
        for (const line of a.lines) {
          assert.isAbove(line.confidence, 0)
          assert.isAtMost(line.confidence, 1)
          assert.strictEqual(line.words.map((w) => w.text).join(" "), line.text)
          for (const w of line.words) {
            // Each word lies inside its line, in reading order along it.
            assert.isAtLeast(w.bbox[0], line.bbox[0])
            assert.isAtMost(w.bbox[2], line.bbox[2])
          }
          for (let k = 1; k < line.words.length; k++) assert.isAtLeast(line.words[k].bbox[0], line.words[k - 1].bbox[0])
        }
      }), 60_000)

    it.effect("reads light text on a dark page as it reads dark on light", () =>
      Effect.gen(function*() {
        const { truth, clean } = yield* fixture
        const engine = yield* OcrEngine
        const dark = { ...clean, data: clean.data.map((v) => 255 - v) }
        const r = yield* engine.recognize(image(dark), { dpi: 300 })
        assert.isAtMost(characterErrorRate(truth, text(r)), 0.02)
      }), 60_000)

    it.effect("reads a blank page as no lines", () =>
      Effect.gen(function*() {
        const engine = yield* OcrEngine
        const blank = new Uint8Array(1200 * 1600).fill(250)
        const r = yield* engine.recognize(rawImage(blank, 1200, 1600, 1), { dpi: 300 })
        assert.deepStrictEqual(r.lines, [])
      }))

    it.effect("reads a dense table page through the PDF reader: every cell's figure comes back", () =>
      Effect.gen(function*() {
        const engine = yield* OcrEngine
        const { pdf, page } = yield* Effect.promise(async () => {
          const { bytes, pages } = await makeDensePdf(1717)
          const [, , table] = await renderAll(bytes, 300)
          return { pdf: await imageA4Pdf([table]), page: pages[2] }
        })
        const reader = pdfReaderWith({ layout: heuristicLayout(heuristicTables), readingOrder: heuristicReadingOrder, ocr: engine })
        const result = yield* reader.read({ bytes: pdf, format: "pdf", options: { mode: "ocr", deadline: Date.now() + 120_000 } })
        const [read] = Array.from(yield* Stream.runCollect(result.pages))
        const got = read.blocks.map((b) => b.content).join("\n")
        const figures = page.text.match(/[+-]?\d+\.\d+%?/g) ?? []
        assert.isAbove(figures.length, 20)
        const missing = figures.filter((f) => !got.includes(f))
        assert.isAtMost(missing.length, 1, `missing: ${missing.join(" ")}`)
      }), 120_000)
  })

  layer(LineEngine.layer({ fallback: 0.999 }), { timeout: 60_000 })("with tesseract for unsure lines", (it) => {
    it.effect("hands lines under the threshold to tesseract and keeps the better-scored reading", () =>
      Effect.gen(function*() {
        const { truth, noisy } = yield* fixture
        const engine = yield* OcrEngine
        const r = yield* engine.recognize(image(noisy), { dpi: 300 })
        assert.isAtMost(characterErrorRate(truth, text(r)), 0.03)
        // At 0.999 nearly every line is unsure, and the result names both readers.
        assert.strictEqual(r.model, "conv-tiny+tesseract")
      }), 120_000)
  })

  it.effect("runs in the OCR pool's threads", () =>
    Effect.scoped(Effect.gen(function*() {
      const { truth, clean } = yield* fixture
      const pool = yield* OcrPool.make({ engine: { _tag: "lines" }, size: 1 })
      const r = yield* pool.recognize(image(clean), { dpi: 300 })
      assert.strictEqual(r.engine, "lines")
      assert.isAtMost(characterErrorRate(truth, text(r)), 0.02)
    })), 120_000)

  it.effect("cascade: keeps the line engine's reading of a sure page, and has tesseract read a page under the threshold", () =>
    Effect.scoped(Effect.gen(function*() {
      const { truth, clean } = yield* fixture
      const usual = yield* makeEngine({ _tag: "cascade" })
      const sure = yield* usual.recognize(image(clean), { dpi: 300 })
      assert.strictEqual(sure.engine, "lines")
      assert.isAtLeast(CascadeEngine.pageConfidence(sure), CascadeEngine.DEFAULT_BELOW)
      // Above any confidence, every page is read again, by real tesseract.
      const always = yield* makeEngine({ _tag: "cascade", below: 1.01 })
      const reread = yield* always.recognize(image(clean), { dpi: 300 })
      assert.strictEqual(reread.engine, "tesseract")
      assert.isAtMost(characterErrorRate(truth, text(reread)), 0.02)
    })), 120_000)

  it.effect("cascade: runs in the OCR pool's threads", () =>
    Effect.scoped(Effect.gen(function*() {
      const { truth, noisy } = yield* fixture
      const pool = yield* OcrPool.make({ engine: { _tag: "cascade" }, size: 1 })
      const r = yield* pool.recognize(image(noisy), { dpi: 300 })
      assert.isAtMost(characterErrorRate(truth, text(r)), 0.03)
    })), 120_000)
})
