/**
 * The engine's speed options (bench/results/ocr-dense-speed.md): a narrowed page, our own
 * layout (blocks or lines) and init-time parameters read the same scan within the error bound,
 * and every word box comes back in the page's own pixels, where the default reading put it.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { rawImage } from "@strata/core"
import type { OcrResult } from "@strata/core"
import { characterErrorRate } from "../src/ErrorRate.ts"
import * as TesseractEngine from "../src/TesseractEngine.ts"
import type { TesseractOptions } from "../src/TesseractEngine.ts"
import { degrade, makeTextPdf, renderAll } from "./support/SyntheticPages.ts"

const page = Effect.promise(async () => {
  const { bytes, truth } = await makeTextPdf({ pages: 1, seed: 21, paragraphs: 3 })
  const [clean] = await renderAll(bytes, 300)
  const scan = await degrade(clean, { noise: 12, blur: 0.5, rotate: 0.7, jpeg: 75 }, 3)
  return { truth: truth[0].lines.join("\n"), scan }
})

const readWith = (options: TesseractOptions) =>
  Effect.scoped(Effect.gen(function*() {
    const { scan } = yield* page
    const engine = yield* TesseractEngine.make(options)
    return yield* engine.recognize(rawImage(scan.data, scan.width, scan.height, 1), { dpi: 300 })
  }))

const text = (r: OcrResult) => r.lines.map((l) => l.text).join("\n")

/** For each word of `r`, the distance (px, largest side) to the same word's box in `reference`, matched by text in order. */
const boxShifts = (r: OcrResult, reference: OcrResult): Array<number> => {
  const ref = reference.lines.flatMap((l) => l.words)
  let at = 0
  const out: Array<number> = []
  for (const w of r.lines.flatMap((l) => l.words)) {
    const i = ref.findIndex((x, k) => k >= at && x.text === w.text)
    if (i < 0) continue
    at = i + 1
    out.push(Math.max(...w.bbox.map((v, k) => Math.abs(v - ref[i].bbox[k]))))
  }
  return out
}

describe("tesseract's speed options", () => {
  it.effect("a narrowed page, our blocks and our lines read within the bound, with word boxes where the default puts them", () =>
    Effect.gen(function*() {
      const { truth } = yield* page
      const plain = yield* readWith({})
      for (const options of [{ squeeze: 0.75 }, { layout: "blocks" }, { layout: "lines" }] satisfies Array<TesseractOptions>) {
        const r = yield* readWith(options)
        assert.isAtMost(characterErrorRate(truth, text(r)), 0.05, JSON.stringify(options))
        // The same deskewed page the default read, not the narrowed or cropped one tesseract saw.
        assert.deepStrictEqual([r.width, r.height], [plain.width, plain.height])
        const shifts = boxShifts(r, plain).sort((a, b) => a - b)
        assert.isAbove(shifts.length, 100)
        // The median word lies within a few pixels of the default's box (a narrowed page rounds x to 1/0.75 px).
        assert.isAtMost(shifts[Math.floor(shifts.length / 2)], 6, JSON.stringify(options))
      }
    }), 180_000)

  it.effect("parameters are set when the worker starts (dictionaries off) and the page still reads", () =>
    Effect.gen(function*() {
      const { truth } = yield* page
      const r = yield* readWith({ parameters: { load_system_dawg: "0", load_freq_dawg: "0" } })
      assert.isAtMost(characterErrorRate(truth, text(r)), 0.05)
    }), 120_000)
})
