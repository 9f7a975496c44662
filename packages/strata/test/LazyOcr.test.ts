/** The shipped OCR engine: chosen by STRATA_OCR_ENGINE, and not started until a page needs it. */
import { describe, expect, it } from "vitest"
import { Effect } from "effect"
import { makeLazyOcrPool, ocrEngineFromEnv } from "../src/LazyOcr.ts"

describe("lazy OCR pool", () => {
  it("reads the engine from STRATA_OCR_ENGINE, tesseract by default", () => {
    expect(ocrEngineFromEnv(undefined)).toBe("tesseract")
    expect(ocrEngineFromEnv(" Paddle ")).toBe("paddle")
    expect(ocrEngineFromEnv("something-else")).toBe("tesseract")
  })

  it("starts no worker thread until the first recognize", async () => {
    const { threadsBefore, threadsAfter, estimate } = await Effect.runPromise(Effect.scoped(Effect.gen(function*() {
      const threadsBefore = process.getActiveResourcesInfo().filter((r) => r === "MessagePort").length
      const engine = yield* makeLazyOcrPool
      const threadsAfter = process.getActiveResourcesInfo().filter((r) => r === "MessagePort").length
      return { threadsBefore, threadsAfter, estimate: engine.estimateSeconds(4) }
    })))
    expect(threadsAfter).toBe(threadsBefore)
    expect(estimate).toBeGreaterThan(0)
  })
})
