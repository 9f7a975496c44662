/**
 * Every office reader's blocks against core's writer: a block that carries structure has exactly
 * the fragment core writes from it, and every span slices back to its block's content (with and
 * without page markers), on the generated document of each format.
 */
import { describe, expect, it } from "vitest"
import { blockMarkdown, writeMarkdown, type Block } from "@strata/core"
import { buildPptxChart, type FormatCase, formatCases } from "./fixtures/Builders.ts"
import { readDocument } from "./fixtures/ReadDocument.ts"

const cases: ReadonlyArray<FormatCase> = [...formatCases, { name: "pptx chart", format: "pptx", build: buildPptxChart }]

const structured = (block: Block): boolean =>
  block.text !== undefined || block.heading !== undefined || block.list !== undefined || block.table !== undefined ||
  block.image !== undefined || block.code !== undefined || block.formula !== undefined || block.quote !== undefined

describe("office blocks and spans", () => {
  for (const c of cases) {
    it(c.name, async () => {
      const out = await readDocument(await c.build(), c.format)
      for (const page of out.pages) for (const block of page.blocks) if (structured(block)) expect(block.content).toBe(blockMarkdown(block))
      for (const pageMarkers of [false, true]) {
        const written = writeMarkdown(out.pages, { pageMarkers })
        for (const page of written.blocks) for (const block of page.items) {
          if (block.markdownSpan !== null) expect(written.markdown.slice(block.markdownSpan[0], block.markdownSpan[1])).toBe(block.content)
        }
      }
    })
  }
})
