/**
 * The HTML writer: every kind of structure written as its element, blocks without structure
 * converted from their markdown as before, and (property) HTML that parses without an error and
 * shows the same text as the markdown does.
 */
import { describe, expect, it } from "vitest"
import fc from "fast-check"
import { fromHtml } from "hast-util-from-html"
import { toText } from "hast-util-to-text"
import { type Block, makeBlock, markdownToHtml, type Page, structuredBlock, withContent, writeMarkdown } from "../../src/index.ts"
import { writeHtml } from "../../src/markdown/BlockHtml.ts"

const page = (blocks: ReadonlyArray<Block>, pageNumber = 1): Page => ({ pageNumber, status: "ok", width: null, height: null, blocks })
const html = (blocks: ReadonlyArray<Block>) => writeHtml([page(blocks)]).html
const item = (depth: number, ordinal: number | null, text: string, extra: object = {}) =>
  structuredBlock("list_item", { list: { depth, ordinal, indent: 3 * depth, ...extra }, text })

/** The parse errors an HTML parser (parse5) reports for a fragment. */
const parseErrors = (fragment: string): Array<string> => {
  const errors: Array<string> = []
  fromHtml(fragment, {
    fragment: true,
    onerror: (error) => {
      errors.push(String(error.reason))
    }
  })
  return errors
}
const words = (fragment: string) => toText(fromHtml(fragment, { fragment: true })).split(/\s+/).filter((w) => w.length > 0)

describe("writeHtml", () => {
  it("writes headings, paragraphs with inline markup, quotes, code with its language, formulas and images", () => {
    expect(html([
      structuredBlock("title", { heading: { level: 1 }, text: "1. Scope" }),
      structuredBlock("text", { text: "A *b* & [c](https://e.com/c#top)  \nd" }),
      structuredBlock("text", { text: "**Notes:**\nsaid", quote: true }),
      structuredBlock("code", { code: { language: "ts" }, text: "if (a < b) {}" }),
      structuredBlock("code", { code: { language: null, inline: true }, text: " ls " }),
      structuredBlock("formula", { formula: { source: "x<2", notation: "latex", display: true } }),
      structuredBlock("figure", { image: { src: "", alt: "A \\*cat\\*" } }),
      structuredBlock("figure", { image: { src: "", alt: "" } })
    ])).toBe([
      "<h1>1. Scope</h1>",
      "<p>A <em>b</em> &#x26; <a href=\"https://e.com/c#top\">c</a><br>\nd</p>",
      "<blockquote>\n<p><strong>Notes:</strong>\nsaid</p>\n</blockquote>",
      "<pre><code class=\"language-ts\">if (a &lt; b) {}\n</code></pre>",
      "<p><code>ls</code></p>",
      "<pre><code class=\"language-math math-display\">x&lt;2</code></pre>",
      "<p><img src=\"\" alt=\"A *cat*\"></p>",
      "<!-- image -->"
    ].join("\n"))
  })

  it("nests lists by depth, starts ordered lists at their ordinal, and keeps a further paragraph in its item", () => {
    expect(html([
      item(0, 3, "three"),
      item(1, null, "sub"),
      structuredBlock("text", { list: { depth: 0, ordinal: 3, indent: 0, continues: true }, text: "more" }),
      item(0, 4, "four"),
      item(0, null, "bullet"),
      item(0, null, "done", { checked: true })
    ])).toBe([
      "<ol start=\"3\">",
      "<li>three",
      "<ul>",
      "<li>sub</li>",
      "</ul>",
      "<p>more</p>",
      "</li>",
      "<li>four</li>",
      "</ol>",
      "<ul>",
      "<li>bullet</li>",
      "<li class=\"task-list-item\"><input type=\"checkbox\" disabled checked> done</li>",
      "</ul>"
    ].join("\n"))
  })

  it("writes a table's spans, its empty covered rows and missing slots, with markup in cells and line breaks as <br>", () => {
    const table = structuredBlock("table", {
      table: {
        rows: 3,
        cols: 3,
        headerRows: 1,
        cells: [
          { row: 0, col: 0, text: "**a**", rowSpan: 3 },
          { row: 0, col: 1, text: "b", colSpan: 2 },
          { row: 1, col: 1, text: "c\nd", rowSpan: 2 }
        ]
      }
    })
    expect(html([table])).toBe([
      "<table>",
      "<thead>",
      "<tr><th rowspan=\"3\"><strong>a</strong></th><th colspan=\"2\">b</th></tr>",
      "</thead>",
      "<tbody>",
      "<tr><td rowspan=\"2\">c<br>d</td><td></td></tr>",
      "<tr><td></td></tr>",
      "</tbody>",
      "</table>"
    ].join("\n"))
    expect(parseErrors(html([table]))).toEqual([])
  })

  it("collects links in order, once, and points note references at their notes", () => {
    const written = writeHtml([
      page([structuredBlock("text", { text: "See [a](https://e.com/a) and <https://e.com/b>, www.e.com, noted.[^1]" })]),
      page([
        structuredBlock("table", { table: { rows: 1, cols: 1, headerRows: 1, cells: [{ row: 0, col: 0, text: "[a](https://e.com/a#x)" }] } }),
        structuredBlock("footnote", { note: { label: "1" }, text: "[m](mailto:m@e.com)" })
      ], 2)
    ], { pageMarkers: true })
    expect(written.links).toEqual(["https://e.com/a", "https://e.com/b", "http://www.e.com", "mailto:m@e.com"])
    expect(written.html).toContain("<sup><a href=\"#fn-1\">1</a></sup>")
    expect(written.html).toContain("<hr>\n<!-- page 2 -->")
    expect(written.html).toContain("<p class=\"footnote\" id=\"fn-1\"><sup>1</sup> <a href=\"mailto:m@e.com\">m</a></p>")
  })

  it("converts blocks whose content no longer matches their structure from their markdown, as before", () => {
    const blocks = [
      withContent(structuredBlock("text", { text: "secret" }), "[REDACTED](https://e.com/r)"),
      makeBlock("list_item", "- a"),
      makeBlock("list_item", "- b"),
      { ...structuredBlock("section_header", { heading: { level: 2 }, text: "Old" }), content: "## New" },
      makeBlock("page_footer", "Page 1")
    ]
    const markdown = writeMarkdown([page(blocks)]).markdown
    expect(writeHtml([page(blocks)])).toEqual({ html: markdownToHtml(markdown), links: ["https://e.com/r"] })
  })

  it("is well-formed HTML with the markdown's text, whatever the blocks (property)", () => {
    const word = fc.oneof(
      fc.stringMatching(/^[a-z0-9]{1,6}$/),
      fc.constantFrom("a<b", "x&y", "1>0", "\"q\"", "it's", "a&amp;b", "**bold**", "*it*", "`co de`", "[l](https://e.com/l)", "~~s~~", "https://e.com/u")
    )
    const text = fc.array(word, { minLength: 1, maxLength: 6 }).map((ws) => ws.join(" "))
    const cell = fc.array(fc.stringMatching(/^[a-z0-9<&]{1,5}$/), { minLength: 1, maxLength: 2 }).map((ws) => ws.join(" "))
    const grid = fc.tuple(fc.integer({ min: 1, max: 4 }), fc.integer({ min: 1, max: 4 }), fc.boolean()).chain(([rows, cols, spans]) =>
      fc.array(cell, { minLength: rows * cols, maxLength: rows * cols }).map((texts) => {
        const cells = texts.map((t, i) => ({ row: Math.floor(i / cols), col: i % cols, text: t }))
        // One spanning cell: the slots it covers are left out.
        if (!spans || rows * cols < 2) return { rows, cols, headerRows: 1, cells }
        const rowSpan = rows > 1 ? 2 : 1
        const colSpan = cols > 1 ? 2 : 1
        const covered = (c: { row: number; col: number }) => c.row < rowSpan && c.col < colSpan && (c.row > 0 || c.col > 0)
        return { rows, cols, headerRows: 1, cells: cells.filter((c) => !covered(c)).map((c) => (c.row === 0 && c.col === 0 ? { ...c, rowSpan, colSpan } : c)) }
      })
    )
    const other = fc.oneof(
      fc.record({ level: fc.integer({ min: 1, max: 6 }), text }).map(({ level, text }) => structuredBlock("section_header", { heading: { level }, text })),
      text.map((t) => structuredBlock("text", { text: t })),
      text.map((t) => structuredBlock("text", { text: t, quote: true })),
      fc.record({ language: fc.constantFrom(null, "ts", "c++"), code: cell }).map(({ language, code }) => structuredBlock("code", { code: { language }, text: code })),
      grid.map((table) => structuredBlock("table", { table })),
      text.map((t) => withContent(structuredBlock("text", { text: t }), t))
    )
    // A list: depths that step in by at most one, bullets or ordinals counted per level from 1 (3
    // columns nest under both markers; markdown cannot start a nested ordered list at another number).
    const list = fc.array(fc.tuple(fc.nat(2), fc.boolean(), text), { minLength: 1, maxLength: 5 }).map((items) => {
      let depth = -1
      const counts: Array<number> = []
      return items.map(([d, ordered, t]) => {
        depth = Math.min(d, depth + 1)
        counts.length = depth + 1
        counts[depth] = (counts[depth] ?? 0) + 1
        return item(depth, ordered ? counts[depth] : null, t)
      })
    })
    const blocks = fc.array(fc.oneof(other.map((b) => [b]), list), { minLength: 1, maxLength: 8 }).map((groups) => groups.flat())
    fc.assert(fc.property(blocks, (bs) => {
      const written = writeHtml([page(bs)]).html
      expect(parseErrors(written)).toEqual([])
      expect(words(written)).toEqual(words(markdownToHtml(writeMarkdown([page(bs)]).markdown)))
    }), { numRuns: 100 })
  })
})
