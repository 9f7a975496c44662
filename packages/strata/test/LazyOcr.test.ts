/** The shipped OCR engine: chosen by STRATA_OCR_ENGINE, and not started until a page needs it. */
import { describe, expect, it } from "vitest"
import { ConfigProvider, Effect } from "effect"
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { createRequire } from "node:module"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { gunzipSync } from "node:zlib"
import { rawImage } from "@strata/core"
import { makeLazyOcr, makeLazyOcrPool, ocrEngineFromEnv } from "../src/LazyOcr.ts"

/** OS threads of this process: every worker thread adds some. */
const threads = () => Number(/Threads:\s+(\d+)/.exec(readFileSync("/proc/self/status", "utf8"))?.[1] ?? "0")

describe("lazy OCR pool", () => {
  it("reads the engine from STRATA_OCR_ENGINE, tesseract by default", () => {
    expect(ocrEngineFromEnv(undefined)).toBe("cascade")
    expect(ocrEngineFromEnv("Tesseract")).toBe("tesseract")
    expect(ocrEngineFromEnv(" Paddle ")).toBe("paddle")
    expect(ocrEngineFromEnv("LINES")).toBe("lines")
    expect(ocrEngineFromEnv("cascade")).toBe("cascade")
    expect(ocrEngineFromEnv("something-else")).toBe("cascade")
  })

  it("starts no worker thread until the first recognize", async () => {
    const seen = await Effect.runPromise(Effect.scoped(Effect.gen(function*() {
      const before = threads()
      const engine = yield* makeLazyOcrPool
      const made = threads()
      const estimate = engine.estimateSeconds(4)
      const white = new Uint8Array(300 * 80).fill(255)
      yield* engine.recognize(rawImage(white, 300, 80, 1))
      return { before, made, afterRecognize: threads(), estimate }
    })))
    expect(seen.made).toBe(seen.before)
    expect(seen.afterRecognize).toBeGreaterThan(seen.made)
    expect(seen.estimate).toBeGreaterThan(0)
  }, 120_000)

  it("stops its threads when idle, and starts them again for the next page", async () => {
    const seen = await Effect.runPromise(Effect.scoped(Effect.gen(function*() {
      const before = threads()
      const engine = yield* makeLazyOcr("tesseract", 300)
      const white = new Uint8Array(300 * 80).fill(255)
      yield* engine.recognize(rawImage(white, 300, 80, 1))
      const working = threads()
      yield* Effect.sleep(1500)
      const idle = threads()
      yield* engine.recognize(rawImage(white, 300, 80, 1))
      return { before, working, idle, again: threads() }
    })))
    expect(seen.working).toBeGreaterThan(seen.before)
    expect(seen.idle).toBe(seen.before)
    expect(seen.again).toBeGreaterThan(seen.before)
  }, 120_000)

  it("reads the tessdata folder STRATA_TESSDATA_DIR names, and says so when it holds no model", async () => {
    const dir = mkdtempSync(join(tmpdir(), "strata-tessdata-lazy-"))
    const empty = mkdtempSync(join(tmpdir(), "strata-tessdata-empty-"))
    const data = dirname(createRequire(import.meta.url).resolve("@tesseract.js-data/eng/package.json"))
    writeFileSync(join(dir, "eng.traineddata"), gunzipSync(readFileSync(join(data, "4.0.0_best_int/eng.traineddata.gz"))))
    const white = new Uint8Array(300 * 80).fill(255)
    const recognizeWith = (folder: string) =>
      Effect.scoped(Effect.gen(function*() {
        const engine = yield* makeLazyOcr("tesseract")
        return yield* engine.recognize(rawImage(white, 300, 80, 1))
      })).pipe(Effect.provide(ConfigProvider.layer(ConfigProvider.fromEnv({ env: { STRATA_TESSDATA_DIR: folder } }))))
    try {
      // best_int's network copied into a folder of its own: named by its network, so this file ran.
      expect((await Effect.runPromise(recognizeWith(dir))).model).toBe("best")
      const error = await Effect.runPromise(Effect.flip(recognizeWith(empty)))
      expect(error.reason._tag).toBe("OcrEngineUnavailable")
      expect(error.reason.message).toMatch(/no eng.traineddata/)
    } finally {
      rmSync(dir, { recursive: true, force: true })
      rmSync(empty, { recursive: true, force: true })
    }
  }, 120_000)
})
