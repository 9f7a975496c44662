/**
 * The cascade's choice between its two engines, with scripted engines whose readings are known:
 * a sure page stays with the first, an unsure or empty one goes to the second, the second starts
 * once and only when needed, and a failing second leaves the first's reading.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { OcrEngine, OcrEngineFailed, OcrError, rawImage } from "@strata/core"
import type { OcrResult } from "@strata/core"
import * as CascadeEngine from "../src/CascadeEngine.ts"

const reading = (engine: string, lines: ReadonlyArray<readonly [string, number]>): OcrResult => ({
  engine,
  model: engine,
  width: 10,
  height: 10,
  lines: lines.map(([text, confidence]) => ({ text, confidence, bbox: [0, 0, 10, 10], words: [] }))
})

/** An engine that answers each page (by its width) from a table, counting its calls. */
const scripted = (name: string, pages: Record<number, OcrResult | "fail">) => {
  const calls: Array<number> = []
  const engine = OcrEngine.of({
    name,
    preferredDpi: 300,
    concurrency: 1,
    estimateSeconds: () => 0,
    recognize: (image) => {
      const width = image._tag === "Raw" ? image.width : 0
      calls.push(width)
      const answer = pages[width]
      return answer === "fail" || answer === undefined
        ? Effect.fail(new OcrError({ engine: name, reason: new OcrEngineFailed({ message: "scripted failure" }) }))
        : Effect.succeed(answer)
    }
  })
  return { engine, calls }
}

/** A page of `width` x 4 grey pixels, with one dark pixel (ink) unless `blank`. */
const page = (width: number, blank = false) => {
  const data = new Uint8Array(width * 4).fill(255)
  if (!blank) data[0] = 0
  return rawImage(data, width, 4, 1)
}

describe("CascadeEngine", () => {
  it("tells a blank page from one with ink", () => {
    assert.isFalse(CascadeEngine.hasInk(page(400, true)))
    assert.isTrue(CascadeEngine.hasInk(page(400)))
    // A dust speck (3x3 px) on a clean A4 page at 300 dpi is blank; one word's worth of ink (20x30 px solid) is not.
    const a4 = () => new Uint8Array(2480 * 3508).fill(250)
    const speck = a4()
    for (let y = 0; y < 3; y++) for (let x = 0; x < 3; x++) speck[(1000 + y) * 2480 + 1000 + x] = 0
    assert.isFalse(CascadeEngine.hasInk(rawImage(speck, 2480, 3508, 1)))
    const word = a4()
    for (let y = 0; y < 20; y++) for (let x = 0; x < 30; x++) word[(1000 + y) * 2480 + 1000 + x] = 0
    assert.isTrue(CascadeEngine.hasInk(rawImage(word, 2480, 3508, 1)))
  })

  it.effect("keeps the first engine's empty reading of a blank page", () =>
    Effect.gen(function*() {
      const first = scripted("lines", { 7: reading("lines", []) })
      const second = scripted("tesseract", { 7: reading("tesseract", [["noise", 0.3]]) })
      const cascade = yield* CascadeEngine.make(first.engine, Effect.succeed(second.engine))
      const r = yield* cascade.recognize(page(7, true))
      assert.strictEqual(r.engine, "lines")
      assert.deepStrictEqual(second.calls, [])
    }).pipe(Effect.scoped))

  it("weighs line confidences by their characters", () => {
    assert.closeTo(CascadeEngine.pageConfidence(reading("x", [["abcdefgh", 1], ["ab", 0.5]])), 0.9, 1e-9)
    assert.strictEqual(CascadeEngine.pageConfidence(reading("x", [])), 0)
  })

  it.effect("keeps the first reading of a sure page, and rereads unsure and empty pages with the second engine, started once", () =>
    Effect.gen(function*() {
      const first = scripted("lines", {
        1: reading("lines", [["a sure line", 0.99]]),
        2: reading("lines", [["an unsure line", 0.6]]),
        3: reading("lines", []),
        4: reading("lines", [["unsure again", 0.7]])
      })
      const second = scripted("tesseract", {
        2: reading("tesseract", [["an unsure line, read again", 0.9]]),
        3: reading("tesseract", [["white on dark", 0.8]]),
        4: reading("tesseract", [["read again", 0.85]])
      })
      let starts = 0
      const cascade = yield* CascadeEngine.make(first.engine, Effect.sync(() => (starts++, second.engine)), { below: 0.9 })
      const [sure, unsure, empty] = yield* Effect.forEach([1, 2, 3], (w) => cascade.recognize(page(w)))
      assert.strictEqual(starts, 1)
      assert.strictEqual(sure.engine, "lines")
      assert.strictEqual(unsure.lines[0].text, "an unsure line, read again")
      assert.strictEqual(empty.engine, "tesseract")
      yield* cascade.recognize(page(4))
      assert.deepStrictEqual(second.calls, [2, 3, 4])
      assert.strictEqual(starts, 1)
    }).pipe(Effect.scoped))

  it.effect("does not start the second engine while every page is sure", () =>
    Effect.gen(function*() {
      const first = scripted("lines", { 1: reading("lines", [["sure", 0.99]]) })
      let starts = 0
      const cascade = yield* CascadeEngine.make(first.engine, Effect.sync(() => (starts++, scripted("tesseract", {}).engine)))
      yield* cascade.recognize(page(1))
      yield* cascade.recognize(page(1))
      assert.strictEqual(starts, 0)
    }).pipe(Effect.scoped))

  it.effect("keeps the first reading when the second engine fails or finds nothing, and still fails when the first does", () =>
    Effect.gen(function*() {
      const first = scripted("lines", { 1: reading("lines", [["unsure", 0.5]]), 2: reading("lines", [["unsure too", 0.5]]), 3: "fail" })
      const second = scripted("tesseract", { 1: "fail", 2: reading("tesseract", []) })
      const cascade = yield* CascadeEngine.make(first.engine, Effect.succeed(second.engine))
      assert.strictEqual((yield* cascade.recognize(page(1))).lines[0].text, "unsure")
      assert.strictEqual((yield* cascade.recognize(page(2))).lines[0].text, "unsure too")
      const failed = yield* Effect.flip(cascade.recognize(page(3)))
      assert.strictEqual(failed.engine, "lines")
    }).pipe(Effect.scoped))

  it.effect("tries to start a second engine that failed to start again on the next unsure page", () =>
    Effect.gen(function*() {
      const first = scripted("lines", { 1: reading("lines", [["unsure", 0.5]]) })
      const second = scripted("tesseract", { 1: reading("tesseract", [["read", 0.9]]) })
      let tries = 0
      const cascade = yield* CascadeEngine.make(
        first.engine,
        Effect.suspend(() => ++tries === 1 ? Effect.fail(new OcrError({ engine: "tesseract", reason: new OcrEngineFailed({ message: "no start" }) })) : Effect.succeed(second.engine))
      )
      assert.strictEqual((yield* cascade.recognize(page(1))).engine, "lines")
      assert.strictEqual((yield* cascade.recognize(page(1))).engine, "tesseract")
      assert.strictEqual(tries, 2)
    }).pipe(Effect.scoped))

  it.live("starts the second engine once when two unsure pages arrive together", () =>
    Effect.gen(function*() {
      const first = scripted("lines", { 1: reading("lines", [["unsure", 0.5]]) })
      const second = scripted("tesseract", { 1: reading("tesseract", [["read", 0.9]]) })
      let starts = 0
      // A start that takes a while, as tesseract's does: the second page arrives meanwhile.
      const cascade = yield* CascadeEngine.make(first.engine, Effect.sleep(50).pipe(Effect.map(() => (starts++, second.engine))))
      const both = yield* Effect.all([cascade.recognize(page(1)), cascade.recognize(page(1))], { concurrency: 2 })
      assert.deepStrictEqual(both.map((r) => r.engine), ["tesseract", "tesseract"])
      assert.strictEqual(starts, 1)
    }).pipe(Effect.scoped))
})
