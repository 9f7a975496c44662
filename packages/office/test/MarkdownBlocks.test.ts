/** EPUB chapter blocks: the structure the HTML writer knows is kept, and the blocks are the chapter's markdown, split as before. */
import { describe, expect, it } from "vitest"
import { htmlToBlocks, htmlToMarkdown, writeHtml } from "@strata/core"
import { markdownToBlocks, writtenToBlocks } from "../src/MarkdownBlocks.ts"

const chapter = `<html><body>
<h2>Harbour <em>log</em></h2>
<p>Calm at <a href="https://example.com/p">Pelican Point</a>.</p>
<pre><code class="language-sh">ls -l


echo done</code></pre>
<ul><li>Lamp</li><li>Lens<ul><li>Clean</li></ul></li></ul>
<table><tr><th>Station</th><th>Keeper</th></tr><tr><td>Pelican Point</td><td>Morag</td></tr></table>
</body></html>`

describe("writtenToBlocks", () => {
  it("keeps headings, paragraphs, code and tables with their structure, and the rest as markdown", () => {
    const blocks = writtenToBlocks(htmlToBlocks(chapter), "epub")
    expect(blocks.map((b) => [b.kind, b.heading?.level, b.code?.language, b.text !== undefined, b.table?.rows])).toEqual([
      ["section_header", 2, undefined, true, undefined],
      ["text", undefined, undefined, true, undefined],
      // Two blank lines in the code: the chapter's markdown collapses them, so the block keeps its written form.
      ["code", undefined, undefined, false, undefined],
      ["list_item", undefined, undefined, false, undefined],
      ["table", undefined, undefined, false, 2]
    ])
    expect(blocks[0].text).toBe("Harbour *log*")
  })

  it("gives the same blocks as splitting the chapter's markdown", () => {
    const split = (html: string) => markdownToBlocks(htmlToMarkdown(html), "epub").map((b) => [b.kind, b.content])
    const written = (html: string) => writtenToBlocks(htmlToBlocks(html), "epub").map((b) => [b.kind, b.content])
    expect(written(chapter)).toEqual(split(chapter))
    const single = "<pre class=\"language-ts\">let a = 1\n\nlet b = 2</pre>"
    expect(written(single)).toEqual(split(single))
    expect(writtenToBlocks(htmlToBlocks(single), "epub")[0].code).toEqual({ language: "ts" })
  })

  it("lets core write the chapter's HTML from the structure", () => {
    const page = { pageNumber: 1, status: "ok" as const, width: null, height: null, blocks: writtenToBlocks(htmlToBlocks(chapter), "epub") }
    const { html, links } = writeHtml([page])
    expect(html).toContain("<h2>Harbour <em>log</em></h2>\n<p>Calm at <a href=\"https://example.com/p\">Pelican Point</a>.</p>")
    expect(links).toEqual(["https://example.com/p"])
  })
})
