/**
 * The guard on a language model's `onlyCleanContent` rewrite (every line must come from the page)
 * and the paths that never reach the model: zero data retention and markdown over its limits.
 * The model here fails the test if it is called; the HTTP path against a fake OpenAI-compatible
 * server is in packages/http/test/CleanContentModel.test.ts.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { cleanContent, inventedLines, inventedTargets } from "../../src/clean/CleanWithModel.ts"
import type { LanguageModelShape } from "../../src/LanguageModel.ts"

const SOURCE = [
  "# River path to grow",
  "",
  "The council voted on Tuesday to extend the river path.",
  "Work begins in spring.",
  "",
  "- Length: 2 km",
  "- Budget: [parks fund](https://council.example/parks)",
  "",
  "| Section | Length |",
  "| --- | --- |",
  "| North | 1 km |",
  "",
  "[Facebook](https://f.example/share) [Twitter](https://t.example/share)"
].join("\n")

const untouchable: LanguageModelShape = {
  model: "never",
  maxInputTokens: 24_000,
  maxOutputTokens: 2048,
  complete: () => Effect.die("the model must not be called")
}

describe("inventedLines", () => {
  it("accepts deletions, re-marked lists, re-padded tables and re-joined paragraphs", () => {
    const rewrite = [
      "# River path to grow",
      "",
      "The council voted on Tuesday to extend the river path. Work begins in spring.",
      "",
      "* Length: 2 km",
      "* Budget: [parks fund](https://council.example/parks)",
      "",
      "|Section|Length|",
      "|---|---|",
      "|North|1 km|"
    ].join("\n")
    assert.deepStrictEqual(inventedLines(SOURCE, rewrite), [])
    assert.deepStrictEqual(inventedTargets(SOURCE, rewrite), [])
  })

  it("finds a paraphrase, an added sentence and a changed number", () => {
    const rewrite = [
      "# River path to grow",
      "The council agreed to lengthen the path.",
      "Work begins in spring. It will be lovely.",
      "- Length: 3 km"
    ].join("\n")
    assert.deepStrictEqual(inventedLines(SOURCE, rewrite), rewrite.split("\n").slice(1))
  })

  it("finds a link target the page does not have", () => {
    assert.deepStrictEqual(inventedTargets(SOURCE, "- Budget: [parks fund](https://elsewhere.example/parks)"), ["https://elsewhere.example/parks"])
  })
})

describe("cleanContent without the model", () => {
  it.effect("under zero data retention the classifier cleans, with a warning", () =>
    Effect.gen(function*() {
      const outcome = yield* cleanContent(untouchable, SOURCE, { zeroDataRetention: true })
      assert.strictEqual(outcome.by, "classifier")
      assert.strictEqual(outcome.metadata.cleanContentBy, "classifier")
      assert.match(outcome.warnings[0]!, /zero data retention/)
    }))

  it.effect("markdown over the input limit goes to the classifier, with a warning", () =>
    Effect.gen(function*() {
      const outcome = yield* cleanContent({ ...untouchable, maxInputTokens: 10 }, SOURCE)
      assert.strictEqual(outcome.by, "classifier")
      assert.match(outcome.warnings[0]!, /over the language model's input limit \(10 tokens\)/)
    }))

  it.effect("no model: the classifier, without a warning", () =>
    Effect.gen(function*() {
      const outcome = yield* cleanContent(undefined, SOURCE)
      assert.strictEqual(outcome.by, "classifier")
      assert.deepStrictEqual(outcome.warnings, [])
    }))
})
