/** The `html` serialiser: escaping, attributes, void and SVG elements, and a stable round trip. */
import { readFileSync, readdirSync } from "node:fs"
import { describe, expect, it } from "vitest"
import fc from "fast-check"
import { parseHtml } from "../../src/html/HtmlParser.ts"
import { serializeHtml } from "../../src/html/HtmlSerialize.ts"

describe("serializeHtml", () => {
  it("escapes text and attribute values and writes hast properties back as attributes", () => {
    const tree = parseHtml(`<p class="a  b" data-x='say "hi" &amp; go' hidden>1 &lt; 2 &amp;&amp; 3 &gt; 2</p><img src="x.png" alt=""><br><input type="checkbox" checked>`)
    expect(serializeHtml(tree)).toBe(
      `<p class="a b" data-x="say &quot;hi&quot; &amp; go" hidden>1 &lt; 2 &amp;&amp; 3 &gt; 2</p><img src="x.png" alt=""><br><input type="checkbox" checked>`
    )
  })

  it("keeps SVG attribute case and closes SVG children", () => {
    const html = `<svg viewBox="0 0 10 10"><path d="M0 0"/><linearGradient id="g"></linearGradient></svg>`
    expect(serializeHtml(parseHtml(html))).toBe(`<svg viewBox="0 0 10 10"><path d="M0 0"></path><lineargradient id="g"></lineargradient></svg>`)
  })

  it("re-parses to the same tree (fixtures and generated markup)", () => {
    const fixtures = new URL("../fixtures/html/", import.meta.url)
    for (const name of readdirSync(fixtures)) {
      const tree = parseHtml(readFileSync(new URL(`${name}/input.html`, fixtures), "utf8"))
      expect(parseHtml(serializeHtml(tree))).toEqual(tree)
    }
    const text = fc.string({ maxLength: 12 })
    const node: fc.Arbitrary<string> = fc.letrec((tie) => ({
      node: fc.oneof(
        { depthSize: "small" },
        text.map((t) => t.replace(/&/g, "&amp;").replace(/</g, "&lt;")),
        fc.tuple(fc.constantFrom("div", "span", "b", "a", "ul", "li", "table", "td", "p"), text, fc.array(tie("node"), { maxLength: 3 })).map(
          ([tag, attr, children]) => `<${tag} title="${attr.replace(/&/g, "&amp;").replace(/"/g, "&quot;")}">${children.join("")}</${tag}>`
        )
      )
    })).node
    fc.assert(
      fc.property(node, (html) => {
        const tree = parseHtml(html)
        expect(parseHtml(serializeHtml(tree))).toEqual(tree)
      }),
      { numRuns: 200 }
    )
  })
})
