/**
 * A PDF read in a scope is closed when the scope closes, whether its pages were read, read in
 * part, or never read at all (a request that failed or timed out between `read` and its pages).
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Stream } from "effect"
import { heuristicLayout, heuristicReadingOrder, heuristicTables, pdfReaderWith } from "../src/index.ts"
import { makePdf } from "./helpers/MakePdf.ts"

const pdf = () =>
  makePdf((b) => {
    for (let i = 1; i <= 4; i++) b.page((c) => c.text(72, 72, `Page ${i} text`, 12))
  })

describe("a PDF read in a scope", () => {
  it.effect("is closed when the scope closes, read or not", () =>
    Effect.gen(function*() {
      const bytes = yield* Effect.promise(pdf)
      const reader = pdfReaderWith({ layout: heuristicLayout(heuristicTables), readingOrder: heuristicReadingOrder })
      const request = { bytes, format: "pdf" as const, options: { mode: "fast" as const, deadline: Date.now() + 30_000 } }
      // Never read: only the scope can close it.
      const openInside = yield* Effect.scoped(Effect.map(reader.read(request), () => reader.openDocuments()))
      assert.strictEqual(openInside, 1)
      assert.strictEqual(reader.openDocuments(), 0)
      // Read in part.
      const first = yield* Effect.scoped(Effect.flatMap(reader.read(request), (result) => Stream.runCollect(Stream.take(result.pages, 1))))
      assert.strictEqual(first.length, 1)
      assert.strictEqual(reader.openDocuments(), 0)
      // Read to the end.
      const all = yield* Effect.scoped(Effect.flatMap(reader.read(request), (result) => Stream.runCollect(result.pages)))
      assert.strictEqual(all.length, 4)
      assert.strictEqual(reader.openDocuments(), 0)
    }))
})
