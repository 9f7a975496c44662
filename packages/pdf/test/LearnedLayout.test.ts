/**
 * The learned Layout layer: the shipped classifier.onnx loads with onnxruntime-node and scores
 * blocks as the TypeScript trees it was exported from (models/layout), the layer fills `label` and
 * `confidence.layout` on every block, and LayoutDecision keeps the heuristic's kind below the gate,
 * over built structure, around figures, and for a table with no table beside it on its row.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Stream } from "effect"
import { readFileSync } from "node:fs"
import { loadModel } from "../../../models/layout/Classifier.ts"
import { predict } from "../../../models/layout/Trees.ts"
import { heuristicLayout, heuristicReadingOrder, heuristicTables, pdfReaderWith } from "../src/index.ts"
import { decide, decidePage } from "../src/LayoutDecision.ts"
import { capturingLayout, FEATURES, pageRows, type PageSnapshot } from "../src/LayoutFeatures.ts"
import { defaultLayoutModel, layoutModelMeta, learnedLayout, onnxClassifier } from "../src/LearnedLayout.ts"
import { LOREM, makePdf } from "./helpers/MakePdf.ts"
import { readAll } from "./helpers/ReadAll.ts"

const article = () => makePdf((b) => {
  for (let i = 1; i <= 3; i++) {
    b.page((c) => {
      c.text(72, 40, "A Running Head", 8)
      c.text(72, 72, `${i}. Section heading`, 14, "bold")
      c.paragraph(72, 100, 460, LOREM)
      c.text(72, 300, "• a bulleted item of a list", 10)
      c.text(72, 316, "• another bulleted item", 10)
      c.paragraph(72, 340, 460, LOREM)
      c.text(300, 760, String(i), 9)
    })
  }
})

const CLASSES = ["title", "section_header", "text", "list_item", "table", "figure", "caption", "formula", "code", "footnote", "page_header", "page_footer"]

describe("LearnedLayout", () => {
  it("carries its classes, features and gate in the ONNX file", () => {
    const meta = layoutModelMeta(new Uint8Array(readFileSync(defaultLayoutModel)))
    assert.deepStrictEqual([...meta.classes], CLASSES)
    assert.deepStrictEqual([...meta.features], [...FEATURES])
    assert.isTrue(meta.gate > 0 && meta.gate <= 1)
  })

  it.effect("scores blocks with onnxruntime-node as the TypeScript trees do", () =>
    Effect.scoped(Effect.gen(function*() {
      const bytes = yield* Effect.promise(article)
      const captured = new Map<number, PageSnapshot>()
      const reader = pdfReaderWith({ layout: capturingLayout(heuristicLayout(heuristicTables), captured), readingOrder: heuristicReadingOrder })
      const result = yield* reader.read({ bytes, format: "pdf", options: { mode: "fast", deadline: Date.now() + 30_000 } })
      yield* Stream.runDrain(result.pages)
      const onnx = yield* onnxClassifier()
      const trees = loadModel()
      let blocks = 0
      for (const page of captured.values()) {
        const rows = pageRows(page)
        const p = yield* onnx.probabilities(rows)
        rows.forEach((row, i) => {
          blocks++
          predict(trees, row).forEach((q, k) => assert.approximately(p[i * CLASSES.length + k], q, 1e-5))
        })
      }
      assert.isAtLeast(blocks, 12)
    })))

  it.effect("fills label and confidence.layout on every block, and keeps the text", () =>
    Effect.scoped(Effect.gen(function*() {
      const bytes = yield* Effect.promise(article)
      const learned = learnedLayout(heuristicLayout(heuristicTables), yield* onnxClassifier())
      const heuristic = yield* readAll(bytes)
      const read = yield* readAll(bytes, { reader: pdfReaderWith({ layout: learned, readingOrder: heuristicReadingOrder }) })
      const blocks = read.pages.flatMap((p) => p.blocks)
      assert.isAbove(blocks.length, 0)
      for (const block of blocks) {
        assert.include(CLASSES, block.label)
        const confidence = block.confidence.layout
        assert.isTrue(confidence !== null && confidence > 0 && confidence <= 1)
      }
      assert.isTrue(heuristic.pages.flatMap((p) => p.blocks).every((b) => b.label === undefined && b.confidence.layout === null))
      assert.include(read.markdown, "Section heading")
    })))

  it("keeps the heuristic's kind below the gate, over built structure and around figures", () => {
    const p = (label: string, confidence: number) => CLASSES.map((c) => (c === label ? confidence : (1 - confidence) / (CLASSES.length - 1)))
    assert.strictEqual(decide(CLASSES, p("table", 0.99), "text", 0.9, false).kind, "table")
    assert.strictEqual(decide(CLASSES, p("table", 0.8), "text", 0.9, false).kind, "text")
    assert.strictEqual(decide(CLASSES, p("table", 0.8), "text", 0.9, false).label, "table")
    assert.strictEqual(decide(CLASSES, p("text", 0.99), "table", 0.9, true).kind, "table")
    assert.strictEqual(decide(CLASSES, p("figure", 0.99), "text", 0.9, false).kind, "text")
    assert.strictEqual(decide(CLASSES, p("text", 0.99), "figure", 0.9, false).kind, "figure")
    assert.strictEqual(decide(CLASSES, p("page_footer", 0.99), "page_number", 0.9, false).kind, "page_number")
  })

  it("makes a table only beside another table on the same row", () => {
    const p = (label: string, confidence: number) => CLASSES.map((c) => (c === label ? confidence : (1 - confidence) / (CLASSES.length - 1)))
    const block = (kind: string, top: number, bottom: number) => ({ kind, top, bottom, structured: false })
    const kinds = (blocks: Array<ReturnType<typeof block>>, labels: Array<string>) =>
      decidePage(CLASSES, (i) => p(labels[i], 0.99), blocks, 0.9).map((d) => d.kind)
    // A lone block the model calls a table (an equation number beside a formula) keeps its kind, and its label.
    assert.deepStrictEqual(kinds([block("text", 100, 110), block("text", 100, 112)], ["table", "formula"]), ["text", "formula"])
    assert.strictEqual(decidePage(CLASSES, () => p("table", 0.99), [block("text", 100, 110)], 0.9)[0].label, "table")
    // Cells of one row, or a cell beside a table the heuristic found, become a table.
    assert.deepStrictEqual(kinds([block("text", 100, 110), block("text", 101, 109), block("text", 120, 130)], ["table", "table", "table"]), ["table", "table", "text"])
    assert.deepStrictEqual(kinds([block("table", 90, 200), block("text", 100, 110)], ["table", "table"]), ["table", "table"])
    // Other kinds do not need a neighbour.
    assert.deepStrictEqual(kinds([block("text", 100, 110)], ["formula"]), ["formula"])
  })
})
