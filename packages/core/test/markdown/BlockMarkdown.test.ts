/** The block writer: each kind of structure written one way, and `structuredBlock` keeping `content` to what it writes. */
import { describe, expect, it } from "vitest"
import fc from "fast-check"
import { blockMarkdown, structuredBlock, writeMarkdown, type BlockStructure, type Page } from "../../src/index.ts"

describe("blockMarkdown", () => {
  it("writes headings, list items, code, formulas, images and tables from their structure", () => {
    expect(blockMarkdown({ heading: { level: 2 }, text: "Scope\nand aims" })).toBe("## Scope and aims")
    expect(blockMarkdown({ list: { depth: 0, ordinal: null, indent: 0 }, text: "a" })).toBe("- a")
    expect(blockMarkdown({ list: { depth: 1, ordinal: 10, indent: 2 }, text: "b\nc" })).toBe("  10. b\n      c")
    expect(blockMarkdown({ list: { depth: 0, ordinal: null, checked: true, indent: 0 }, text: "done" })).toBe("- [x] done")
    expect(blockMarkdown({ code: { language: null }, text: "a ``` b" })).toBe("````\na ``` b\n````")
    expect(blockMarkdown({ code: { language: "ts" }, text: "x" })).toBe("```ts\nx\n```")
    expect(blockMarkdown({ code: { language: null, inline: true }, text: " ls -l " })).toBe("`ls -l`")
    expect(blockMarkdown({ formula: { source: "x^2", notation: "latex", display: true } })).toBe("$$x^2$$")
    expect(blockMarkdown({ formula: { source: "E = mc2", notation: "text", display: true } })).toBe("E = mc2")
    expect(blockMarkdown({ image: { src: "", alt: "" } })).toBe("<!-- image -->")
    expect(blockMarkdown({ image: { src: "", alt: "A cat" } })).toBe("![A cat]()")
    expect(blockMarkdown({
      table: { rows: 2, cols: 2, headerRows: 1, cells: [{ row: 0, col: 0, text: "a" }, { row: 0, col: 1, text: "b" }, { row: 1, col: 0, text: "1" }, { row: 1, col: 1, text: "2" }] }
    })).toBe("| a | b |\n| --- | --- |\n| 1 | 2 |")
    expect(blockMarkdown({ text: "Just *text*." })).toBe("Just *text*.")
    expect(blockMarkdown({ text: "said\nand done", quote: true })).toBe("> said\n> and done")
    expect(blockMarkdown({ note: { label: "2" }, text: "Measured at noon." })).toBe("[^2]: Measured at noon.")
  })

  it("a structured block's content is what the writer writes, and its span slices back to it (property)", () => {
    const text = fc.string({ maxLength: 20 })
    const structure: fc.Arbitrary<BlockStructure> = fc.oneof(
      fc.record({ heading: fc.record({ level: fc.integer({ min: 1, max: 6 }) }), text }),
      fc.record({ list: fc.record({ depth: fc.nat(3), ordinal: fc.option(fc.nat(99)), indent: fc.nat(8) }), text }),
      fc.record({ code: fc.record({ language: fc.constant(null) }), text }),
      fc.record({ formula: fc.record({ source: text, notation: fc.constantFrom("latex" as const, "text" as const), display: fc.boolean() }) }),
      fc.record({ image: fc.record({ src: fc.constant(""), alt: text }) }),
      fc.record({ text }),
      fc.record({ text, quote: fc.boolean() }),
      fc.record({ note: fc.record({ label: fc.stringMatching(/^[0-9a-z]{1,3}$/) }), text })
    )
    const kindOf = (s: BlockStructure) =>
      s.heading !== undefined ? "section_header" as const : s.list !== undefined ? "list_item" as const
      : s.code !== undefined ? "code" as const : s.formula !== undefined ? "formula" as const : s.image !== undefined ? "figure" as const : "text" as const
    fc.assert(
      fc.property(fc.array(fc.array(structure, { maxLength: 6 }), { maxLength: 4 }), fc.boolean(), (pages, pageMarkers) => {
        const doc: Array<Page> = pages.map((structures, i) => ({
          pageNumber: i + 1, status: "ok", width: 1, height: 1,
          blocks: structures.map((s) => structuredBlock(kindOf(s), s))
        }))
        for (const page of doc) for (const block of page.blocks) expect(block.content).toBe(blockMarkdown(block))
        const out = writeMarkdown(doc, { pageMarkers })
        for (const p of out.blocks) for (const b of p.items) {
          if (b.markdownSpan) expect(out.markdown.slice(b.markdownSpan[0], b.markdownSpan[1])).toBe(b.content)
        }
      })
    )
  })

  it("a list item carries its depth on the block too", () => {
    const block = structuredBlock("list_item", { list: { depth: 2, ordinal: 1, indent: 6 }, text: "x" }, { source: "pdf" })
    expect(block.depth).toBe(2)
    expect(block.content).toBe("      1. x")
    expect(block.source).toBe("pdf")
  })
})
