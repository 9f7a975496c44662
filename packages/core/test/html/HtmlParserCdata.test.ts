/** A stray `<![CDATA[` in HTML content ends at the first `>`, as in browsers, instead of swallowing the page. */
import { describe, expect, it } from "vitest"
import { processHtml } from "../../src/index.ts"

const markdownOf = (html: string) =>
  processHtml(html, { url: "https://example.test/", onlyMainContent: false, removeBase64Images: true, formats: { markdown: true, html: false, links: false } }).markdown

describe("stray CDATA in HTML", () => {
  it("keeps the text after an unclosed CDATA opener", () => {
    const markdown = markdownOf(`<html><body><h1>Thread</h1><p>First post.</p><div><![CDATA[ junk ></div><p>Second post survives.</p></body></html>`)
    expect(markdown).toContain("First post.")
    expect(markdown).toContain("Second post survives.")
    expect(markdown).not.toContain("junk")
  })

  it("leaves CDATA inside scripts harmless", () => {
    const markdown = markdownOf(`<html><body><script>//<![CDATA[\nif (a > b) {}\n//]]></script><p>Visible text.</p></body></html>`)
    expect(markdown).toBe("Visible text.")
  })

  it("does not let a CDATA opener inside a script swallow the script's end tag and the page after it", () => {
    const markdown = markdownOf(`<html><body><ul><li><script type="application/javascript">\n/* <![CDATA[ */\nvar data = {"a": 1};\n/* ]]&gt; */\n</script><a href="/x">Console table</a></li></ul><h3>Nostalgic revival</h3><p>The page goes on.</p></body></html>`)
    expect(markdown).toContain("### Nostalgic revival")
    expect(markdown).toContain("The page goes on.")
    expect(markdown).not.toContain("var data")
  })
})
