/** The shipped OCR engine: chosen by STRATA_OCR_ENGINE, and not started until a page needs it. */
import { describe, expect, it } from "vitest"
import { Effect } from "effect"
import { readFileSync } from "node:fs"
import { rawImage } from "@strata/core"
import { makeLazyOcr, makeLazyOcrPool, ocrEngineFromEnv } from "../src/LazyOcr.ts"

/** OS threads of this process: every worker thread adds some. */
const threads = () => Number(/Threads:\s+(\d+)/.exec(readFileSync("/proc/self/status", "utf8"))?.[1] ?? "0")

describe("lazy OCR pool", () => {
  it("reads the engine from STRATA_OCR_ENGINE, tesseract by default", () => {
    expect(ocrEngineFromEnv(undefined)).toBe("tesseract")
    expect(ocrEngineFromEnv(" Paddle ")).toBe("paddle")
    expect(ocrEngineFromEnv("something-else")).toBe("tesseract")
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
})
