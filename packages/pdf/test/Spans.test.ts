/**
 * Property test over generated documents: every block's content is what core's block writer
 * writes from its structure, every block with a span slices back to its content in the document
 * markdown (with and without page markers), furniture has no span, and every word drawn in the
 * body comes back in the markdown.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import fc from "fast-check"
import { blockMarkdown, isFurniture, writeMarkdown } from "@strata/core"
import { makePdf } from "./helpers/MakePdf.ts"
import { readAll } from "./helpers/ReadAll.ts"

const WORDS = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india", "juliet", "kilo", "lima", "metre", "number", "oscar", "papa", "quebec", "romeo", "sierra", "tango"]

type Element =
  | { readonly kind: "heading"; readonly size: number; readonly words: ReadonlyArray<string> }
  | { readonly kind: "paragraph"; readonly width: number; readonly words: ReadonlyArray<string> }
  | { readonly kind: "list"; readonly items: ReadonlyArray<ReadonlyArray<string>> }
  | { readonly kind: "code"; readonly lines: ReadonlyArray<ReadonlyArray<string>> }

const words = (min: number, max: number) => fc.array(fc.constantFrom(...WORDS), { minLength: min, maxLength: max })
const element: fc.Arbitrary<Element> = fc.oneof(
  fc.record({ kind: fc.constant("heading" as const), size: fc.integer({ min: 15, max: 22 }), words: words(1, 5) }),
  fc.record({ kind: fc.constant("paragraph" as const), width: fc.integer({ min: 200, max: 460 }), words: words(3, 60) }),
  fc.record({ kind: fc.constant("list" as const), items: fc.array(words(1, 8), { minLength: 1, maxLength: 4 }) }),
  fc.record({ kind: fc.constant("code" as const), lines: fc.array(words(1, 4), { minLength: 1, maxLength: 4 }) })
)
const documentSpec = fc.array(fc.array(element, { minLength: 1, maxLength: 5 }), { minLength: 1, maxLength: 3 })

const draw = (pages: ReadonlyArray<ReadonlyArray<Element>>) =>
  makePdf((b) => {
    for (const elements of pages) {
      b.page((c) => {
        let y = 60
        for (const e of elements) {
          if (y > 700) break
          if (e.kind === "heading") y = c.text(72, y + 10, e.words.join(" "), e.size, "bold") + 4
          else if (e.kind === "paragraph") y = c.paragraph(72, y + 8, e.width, e.words.join(" ")) + 4
          else if (e.kind === "list") {
            for (const item of e.items) {
              c.text(80, y + 3, "•")
              y = c.paragraph(96, y + 3, 400, item.join(" "))
            }
            y += 6
          } else {
            y += 6
            for (const line of e.lines) y = c.text(72, y, line.join("_"), 10, "mono")
            y += 6
          }
        }
      })
    }
  })

describe("markdown spans", () => {
  it.effect("every span slices back to its block's content, and no word is lost", () =>
    Effect.promise(() =>
      fc.assert(
        fc.asyncProperty(documentSpec, fc.boolean(), async (spec, pageMarkers) => {
          const bytes = await draw(spec)
          const result = await Effect.runPromise(readAll(bytes))
          for (const page of result.pages) for (const block of page.blocks) assert.strictEqual(block.content, blockMarkdown(block))
          const written = writeMarkdown(result.pages, { pageMarkers })
          for (const page of written.blocks) {
            for (const block of page.items) {
              const kind = (block.label ?? block.type) as Parameters<typeof isFurniture>[0]
              if (isFurniture(kind)) {
                assert.isNull(block.markdownSpan)
                continue
              }
              assert.isNotNull(block.markdownSpan, `${block.id} has no span`)
              const [start, end] = block.markdownSpan!
              assert.strictEqual(written.markdown.slice(start, end), block.content)
            }
          }
          const text = written.markdown.replace(/_/g, " ")
          for (const word of new Set(spec.flat().flatMap((e) => e.kind === "list" ? e.items.flat() : e.kind === "code" ? e.lines.flat() : e.words))) {
            assert.include(text, word)
          }
        }),
        { numRuns: 15, seed: 42 }
      )
    ))
})
