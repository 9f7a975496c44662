/**
 * The weights tesseract really reads with. The same scan is read by the default engine (the npm
 * best_int), by Debian's tessdata_fast (model fast, where installed), and by a tessdata folder holding a copy of
 * best_int: the copy reads exactly as best_int does (same words, same confidences) and the fast
 * model differently, so each result's `model` names the file that ran, not a label.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { gunzipSync } from "node:zlib"
import { rawImage } from "@strata/core"
import type { OcrResult } from "@strata/core"
import { characterErrorRate } from "../src/ErrorRate.ts"
import * as TesseractEngine from "../src/TesseractEngine.ts"
import type { TesseractOptions } from "../src/TesseractEngine.ts"
import { debianTessdataDir, npmLangPath } from "../src/TesseractModel.ts"
import { degrade, makeTextPdf, renderAll } from "./support/SyntheticPages.ts"

const page = Effect.promise(async () => {
  const { bytes, truth } = await makeTextPdf({ pages: 1, seed: 21, paragraphs: 3 })
  const [clean] = await renderAll(bytes, 300)
  // Noisy enough that two different networks cannot agree on every confidence.
  const noisy = await degrade(clean, { noise: 30, blur: 0.9, rotate: 1, jpeg: 50 }, 5)
  // A bad photocopy, for the second reader.
  const harsh = await degrade(clean, { noise: 45, blur: 1.3, rotate: -3, jpeg: 35 }, 7)
  return { truth: truth[0].lines.join("\n"), noisy, harsh }
})

const readWith = (options: TesseractOptions, which: "noisy" | "harsh" = "noisy") =>
  Effect.scoped(Effect.gen(function*() {
    const image = (yield* page)[which]
    const engine = yield* TesseractEngine.make(options)
    return yield* engine.recognize(rawImage(image.data, image.width, image.height, 1), { dpi: 300 })
  }))

const text = (r: OcrResult) => r.lines.map((l) => l.text).join("\n")
const confidences = (r: OcrResult) => r.lines.flatMap((l) => l.words.map((w) => `${w.text}:${w.confidence.toFixed(4)}`))

describe("tesseract's model", () => {
  it.effect("a tessdata folder's file is the one tesseract reads", () =>
    Effect.gen(function*() {
      const dir = mkdtempSync(join(tmpdir(), "strata-tessdata-"))
      yield* Effect.addFinalizer(() => Effect.sync(() => rmSync(dir, { recursive: true, force: true })))
      writeFileSync(join(dir, "eng.traineddata"), gunzipSync(readFileSync(join(npmLangPath("best_int"), "eng.traineddata.gz"))))
      const { truth } = yield* page
      const npm = yield* readWith({ model: "best_int" })
      const copy = yield* readWith({ tessdataDir: dir })
      assert.strictEqual(npm.model, "best_int")
      assert.strictEqual(copy.model, "best")
      assert.deepStrictEqual(confidences(copy), confidences(npm))
      assert.isAtMost(characterErrorRate(truth, text(copy)), 0.05)
    }).pipe(Effect.scoped), 120_000)

  it.effect.skipIf(debianTessdataDir() === undefined)("model fast reads with Debian's tessdata_fast, which reads the scan differently from the default best_int", () =>
    Effect.gen(function*() {
      const { truth } = yield* page
      const byDefault = yield* readWith({})
      assert.strictEqual(byDefault.model, "best_int")
      const fast = yield* readWith({ model: "fast" })
      const best = yield* readWith({ model: "best_int" })
      assert.strictEqual(fast.model, "fast")
      assert.notDeepEqual(confidences(fast), confidences(best))
      assert.isAtMost(characterErrorRate(truth, text(fast)), 0.05)
    }), 120_000)

  it.effect.skipIf(debianTessdataDir() === undefined)("reread: lines under the threshold are read again by best_int, placed on the page, and the better reading kept", () =>
    Effect.gen(function*() {
      const { truth } = yield* page
      const plain = yield* readWith({ model: "fast" }, "harsh")
      // A threshold above every confidence sends every line to the second reader.
      const reread = yield* readWith({ model: "fast", reread: 1.01 }, "harsh")
      assert.strictEqual(reread.lines.length, plain.lines.length)
      let changed = 0
      reread.lines.forEach((line, i) => {
        const before = plain.lines[i]
        assert.isAtLeast(line.confidence, before.confidence)
        if (line.text !== before.text || line.confidence !== before.confidence) changed++
        const height = line.bbox[3] - line.bbox[1]
        for (const w of line.words) {
          // Word boxes from the cropped strip are moved back into page coordinates, inside the line's margin.
          assert.isAtLeast(w.bbox[0], line.bbox[0] - height)
          assert.isAtMost(w.bbox[2], line.bbox[2] + height)
          assert.isAtLeast(w.bbox[1], line.bbox[1] - height)
          assert.isAtMost(w.bbox[3], line.bbox[3] + height)
        }
      })
      // On this page best_int scores a few lines higher than the fast model (2 of 10 when written).
      assert.isAbove(changed, 0)
      assert.isAtMost(characterErrorRate(truth, text(reread)), 0.05)
    }), 120_000)
})
