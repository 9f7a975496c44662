/**
 * The derived formats through the library: offline by default with `languageModel: false`, and a
 * `LanguageModel` layer of the user's own in `createStrata({ languageModel })`, asked with the
 * page's markdown (already redacted) and reported in metadata.
 */
import { describe, expect, it } from "vitest"
import { Effect, Layer } from "effect"
import { type CompletionRequest, createStrata, LanguageModel } from "../src/index.ts"

const PAGE = `<html><head><title>Orchard notes</title></head><body><main><h1>Orchard notes</h1>
<p>The orchard was planted in 1931 with forty apple trees. Its oldest tree still gives fruit every autumn.</p>
<p>Write to grower@example.com for visits. The orchard opens to visitors on the first Sunday of each month.</p></main></body></html>`

const bytes = new TextEncoder().encode(PAGE)

describe("derived formats in the library", () => {
  it("answers offline with languageModel: false", async () => {
    const strata = createStrata({ ocr: false, isolation: false, browser: false, languageModel: false })
    try {
      const data = await strata.parse({ bytes, fileName: "orchard.html" }, { formats: ["summary", { type: "question", question: "When was the orchard planted?" }] })
      expect(data.answer).toBe("1931")
      expect(data.summary).toContain("planted in 1931")
      expect(data.metadata?.answerBy).toBe("extractive")
    } finally {
      await strata.close()
    }
  })

  it("asks a LanguageModel layer of the user's own, with the redacted markdown", async () => {
    const asked: Array<CompletionRequest> = []
    const model = Layer.succeed(LanguageModel, LanguageModel.of({
      model: "own-model",
      maxInputTokens: 1000,
      complete: (request) => {
        asked.push(request)
        return Effect.succeed({ text: "An orchard of forty apple trees.", model: "own-model", usage: { promptTokens: 50, completionTokens: 8 } })
      }
    }))
    const strata = createStrata({ ocr: false, isolation: false, browser: false, languageModel: model })
    try {
      const data = await strata.parse({ bytes, fileName: "orchard.html" }, { formats: ["summary"], redactPII: true })
      expect(data.summary).toBe("An orchard of forty apple trees.")
      expect(data.metadata).toMatchObject({ summaryBy: "model", llmModel: "own-model", llmCalls: 1, llmPromptTokens: 50, llmCompletionTokens: 8 })
      expect(asked).toHaveLength(1)
      expect(asked[0]!.user).toContain("planted in 1931")
      expect(asked[0]!.user).not.toContain("grower@example.com")
    } finally {
      await strata.close()
    }
  })
})
