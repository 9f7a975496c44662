/** The markdown writer: spans, page markers, tight lists, furniture kept out of the body. */
import { describe, expect, it } from "vitest"
import fc from "fast-check"
import { makeBlock, writeMarkdown, type Block, type BlockKind, type Page } from "../src/index.ts"

const page = (pageNumber: number, blocks: Array<Block>): Page => ({ pageNumber, status: "ok", width: 612, height: 792, blocks })

describe("MarkdownWriter", () => {
  it("joins blocks, keeps furniture out and writes page markers as the spec says", () => {
    const doc = [
      page(1, [makeBlock("page_header", "ACME report"), makeBlock("title", "# Title"), makeBlock("text", "Hello."), makeBlock("page_number", "1")]),
      page(2, [makeBlock("list_item", "- a"), makeBlock("list_item", "- b"), makeBlock("text", "After.")])
    ]
    const out = writeMarkdown(doc, { pageMarkers: true })
    expect(out.markdown).toBe("# Title\n\nHello.\n\n---\n\n<!-- page 2 -->\n\n- a\n- b\n\nAfter.")
    expect(out.blocks[0].items.map((b) => b.id)).toEqual(["p1.b0", "p1.b1", "p1.b2", "p1.b3"])
    expect(out.blocks[0].items[0].markdownSpan).toBeNull()
    expect(out.blocks[0].items[0].type).toBe("page_header")
    expect(out.blocks[1].items[0].type).toBe("text")
    expect(out.blocks[1].items[0].label).toBe("list_item")
    expect(out.pages[1].markdown).toBe("- a\n- b\n\nAfter.")
    for (const p of out.blocks) for (const b of p.items) {
      if (b.markdownSpan) expect(out.markdown.slice(b.markdownSpan[0], b.markdownSpan[1])).toBe(b.content)
    }
  })

  it("writes no marker before page 1 nor for a page with no body", () => {
    const out = writeMarkdown([page(1, []), page(2, [makeBlock("text", "x")]), page(3, [makeBlock("page_footer", "f")]), page(4, [makeBlock("text", "y")])], { pageMarkers: true })
    expect(out.markdown).toBe("x\n\n---\n\n<!-- page 4 -->\n\ny")
  })

  it("spans always slice back to the block content (property)", () => {
    const kinds: Array<BlockKind> = ["title", "section_header", "text", "list_item", "table", "code", "page_header", "page_footer", "page_number", "figure"]
    const blockArb = fc.record({ kind: fc.constantFrom(...kinds), content: fc.string() }).map((b) => makeBlock(b.kind, b.content))
    fc.assert(
      fc.property(fc.array(fc.array(blockArb, { maxLength: 6 }), { maxLength: 5 }), fc.boolean(), (pages, pageMarkers) => {
        const out = writeMarkdown(pages.map((blocks, i) => page(i + 1, blocks)), { pageMarkers })
        for (const p of out.blocks) for (const b of p.items) {
          if (b.markdownSpan) expect(out.markdown.slice(b.markdownSpan[0], b.markdownSpan[1])).toBe(b.content)
        }
      })
    )
  })
})
