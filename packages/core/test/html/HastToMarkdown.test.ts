/** The hast -> markdown writer: escaping, whitespace, lists, tables, code, links and images. */
import { describe, expect, it } from "vitest"
import fc from "fast-check"
import { htmlToMarkdown, processHtml } from "../../src/index.ts"
import { nodesOf, parseMarkdown, visibleText } from "./MarkdownRoundTrip.ts"

const md = (html: string) => htmlToMarkdown(html, "https://example.com/dir/page.html")
const escapeHtml = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;")

describe("escaping", () => {
  it("leaves ordinary punctuation and intraword underscores alone", () => {
    expect(md("<p>snake_case, 2 * 3 = 6, a [1] citation, C# and x&gt;y</p>")).toBe("snake_case, 2 * 3 = 6, a [1] citation, C# and x>y")
  })

  it("escapes what would become syntax", () => {
    expect(md("<p>*not emphasis* and _not either_ and `tick`</p>")).toBe("\\*not emphasis\\* and \\_not either\\_ and \\`tick\\`")
    expect(md("<p>[text](url)</p>")).toBe("\\[text\\](url)")
    expect(md("<p>&lt;div&gt; &amp;amp;</p>")).toBe("\\<div> \\&amp;")
  })

  it("leaves a lone * or _ unescaped: alone it cannot pair into emphasis", () => {
    expect(md("<p>Email address*</p><p>Name* and Phone*</p><p>file_ name</p>")).toBe("Email address*\n\nName\\* and Phone\\*\n\nfile_ name")
    expect(md("<p>Price* <b>now</b></p>")).toBe("Price\\* **now**")
    expect(md("<ul><li>* starred</li></ul>")).toBe("- \\* starred")
  })

  it("escapes block markers only at the start of a line", () => {
    expect(md("<p># not a heading</p>")).toBe("\\# not a heading")
    expect(md("<p>1. not a list</p><p>- nor this</p><p>&gt; nor a quote</p>")).toBe("1\\. not a list\n\n\\- nor this\n\n\\> nor a quote")
    expect(md("<p>a<br>2. b</p>")).toBe("a  \n2\\. b")
    expect(md("<p>page 1. of 2 - ok</p>")).toBe("page 1. of 2 - ok")
  })

  it("round-trips arbitrary text through a CommonMark+GFM parser unchanged", () => {
    const alphabet = fc.constantFrom(..."ab1 *_[]()<>&#!`~|-+=.:;\\\"'\n\t".split(""))
    fc.assert(
      fc.property(fc.array(alphabet, { maxLength: 40 }).map((cs) => cs.join("")), (text) => {
        const expected = text.replace(/\s+/g, " ").trim()
        expect(visibleText(md(`<p>${escapeHtml(text)}</p>`))).toBe(expected)
      }),
      { numRuns: 400 }
    )
  })

  it("keeps text intact around emphasis and links (markers never leak into the text)", () => {
    const word = fc.constantFrom("a", "b c", " d ", "(e)", "f.", "", " ", "g_h", "*", "[i]")
    fc.assert(
      fc.property(word, word, word, fc.constantFrom("b", "em", "del", "a"), (before, inner, after, tag) => {
        const open = tag === "a" ? `<a href="/x">` : `<${tag}>`
        const html = `<p>${escapeHtml(before)}${open}${escapeHtml(inner)}</${tag}>${escapeHtml(after)}</p>`
        const expected = `${before}${inner}${after}`.replace(/\s+/g, " ").trim()
        expect(visibleText(md(html))).toBe(expected)
      }),
      { numRuns: 300 }
    )
  })
})

describe("inline trees", () => {
  /** Random inline markup and the text a browser would show for it (whitespace collapsed). */
  interface Inline {
    readonly html: string
    readonly text: string
  }
  const inline: fc.Arbitrary<Inline> = fc.letrec<{ node: Inline }>((tie) => ({
    node: fc.oneof(
      { depthSize: "small", withCrossShrink: true },
      fc.array(fc.constantFrom(..."ab1 *_[]()<>&#!`~|-.\\'".split("")), { maxLength: 6 }).map((cs) => {
        const text = cs.join("")
        return { html: escapeHtml(text), text }
      }),
      fc.array(fc.constantFrom(..."ab`*_ ".split("")), { minLength: 1, maxLength: 4 }).map((cs) => {
        const text = cs.join("")
        return { html: `<code>${escapeHtml(text)}</code>`, text }
      }),
      fc.tuple(fc.constantFrom("b", "strong", "em", "i", "del", "span", "a"), fc.array(tie("node"), { maxLength: 3 })).map(([tag, kids]) => ({
        html: `<${tag}${tag === "a" ? ' href="/l"' : ""}>${kids.map((k) => k.html).join("")}</${tag}>`,
        text: kids.map((k) => k.text).join("")
      }))
    )
  })).node

  it("never changes the visible text, whatever the nesting of emphasis and links", () => {
    fc.assert(
      fc.property(fc.array(inline, { minLength: 1, maxLength: 4 }), (parts) => {
        const html = `<p>${parts.map((p) => p.html).join("")}</p>`
        const expected = parts.map((p) => p.text).join("").replace(/\s+/g, " ").trim()
        expect(visibleText(md(html))).toBe(expected)
      }),
      { numRuns: 1500 }
    )
  })
})

describe("pathological input", () => {
  it("stays linear on thousands of brackets and broken emphasis pairs", () => {
    const inputs = [
      `<p>${"[".repeat(200000)}</p>`,
      `<p>${"x<b>(y)</b>".repeat(5000)}</p>`,
      `<p>${"<b><i>.</i></b>a".repeat(3000)}</p>`,
      `<p>${"<b><code>a</code></b>b".repeat(3000)}</p>`,
      `<table>${`<tr>${"<td rowspan=500 colspan=50>x</td>".repeat(100)}</tr>`.repeat(200)}</table>`
    ]
    for (const html of inputs) {
      const started = performance.now()
      const out = md(html)
      // generous: a quadratic path takes seconds to minutes here, the linear one tens of ms
      expect(performance.now() - started).toBeLessThan(3000)
      expect(out.length).toBeGreaterThan(1000)
    }
    expect(md(`<p>${"x<b>(y)</b>".repeat(3)}</p>`)).toBe("x(y)x(y)x(y)")
  })
})

describe("inline formatting", () => {
  it("moves whitespace outside markers and drops empty ones", () => {
    expect(md("<p>a<b> bold </b>b <em></em>c</p>")).toBe("a **bold** b c")
    expect(md("<p><b>one</b><b>two</b></p>")).toBe("**onetwo**")
  })

  it("drops emphasis rather than adding spaces where flanking rules would break it", () => {
    expect(md("<p>before<strong><code>x</code></strong>after</p>")).toBe("before`x`after")
    expect(md("<p>x <strong>(y)</strong>z</p>")).toBe("x (y)z")
    const out = md("<p>before <strong><code>x</code></strong> after</p>")
    expect(out).toBe("before **`x`** after")
    expect(nodesOf(parseMarkdown(out), "strong")).toHaveLength(1)
  })

  it("writes links, images and code spans", () => {
    expect(md('<p>see <a href="other.html">the <em>docs</em></a> and <code>a `b` c</code></p>')).toBe(
      "see [the *docs*](https://example.com/dir/other.html) and ``a `b` c``"
    )
    expect(md('<p><a href="/x"><img src="i.png" alt="an [alt]"></a></p>')).toBe("[![an \\[alt\\]](https://example.com/dir/i.png)](https://example.com/x)")
    expect(md('<p><a href="/x"></a><a href="javascript:void(0)">js</a> <a href="#">menu</a> <a href="#!">more</a></p>')).toBe("js menu more")
  })

  it("drops permalink anchors next to headings but keeps real fragment links", () => {
    const html = `<h2>Usage<a class="headerlink" href="#usage">¶</a></h2><h3><a href="#x" aria-hidden="true">#</a>Install</h3><p><a href="#usage">see usage</a></p>`
    expect(md(html)).toBe("## Usage\n\n### Install\n\n[see usage](https://example.com/dir/page.html#usage)")
  })

  it("escapes brackets inside link text", () => {
    const out = md('<p><a href="/p">a]b[c</a></p>')
    const links = nodesOf(parseMarkdown(out), "link")
    expect(links).toHaveLength(1)
    expect(visibleText(out)).toBe("a]b[c")
  })

  it("turns <br> into hard breaks and double <br> into a paragraph break", () => {
    expect(md("<p>a<br>b<br><br>c</p>")).toBe("a  \nb\n\nc")
    expect(md('<p><a href="/x">a<br><br>b</a></p>')).toBe("[a  \nb](https://example.com/x)")
  })

  it("does not glue words across block boundaries in minified HTML", () => {
    expect(md("<div><div>one</div><div>two</div></div><span>three</span><p>four</p>")).toBe("one\n\ntwo\n\nthree\n\nfour")
  })
})

describe("blocks", () => {
  it("writes headings, quotes and rules", () => {
    expect(md("<h2>Title <small>sub</small></h2><blockquote><p>q1</p><p>q2</p></blockquote><hr><h3>C#</h3><h4>#</h4>")).toBe(
      "## Title sub\n\n> q1\n>\n> q2\n\n---\n\n### C#\n\n#### \\#"
    )
  })

  it("nests lists and indents their content to the marker width", () => {
    const html = `<ul><li>one<ul><li>nested <b>bold</b></li></ul></li><li><p>two</p><p>more</p></li></ul>
      <ol start="9"><li>nine</li><li>ten<ol><li>sub</li></ol></li></ol>`
    expect(md(html)).toBe("- one\n  - nested **bold**\n- two\n\n  more\n\n9. nine\n10. ten\n    1. sub")
    const tree = parseMarkdown(md(html))
    expect(nodesOf(tree, "list")).toHaveLength(4)
  })

  it("fences code with the language from class names and keeps whitespace", () => {
    const html = `<pre class="highlight"><code class="language-ts">const a = 1
  if (a) {}
</code></pre><div class="highlight-python"><pre>x = 1</pre></div><pre><code>\`\`\`md\nfenced\n\`\`\`</code></pre>`
    expect(md(html)).toBe("```ts\nconst a = 1\n  if (a) {}\n```\n\n```python\nx = 1\n```\n\n````\n```md\nfenced\n```\n````")
  })

  it("drops line-number gutters and keeps line structure of per-line highlighters", () => {
    const html = `<pre><span class="lnt">1\n</span><span>a\n</span><span class="lnt">2\n</span><span>b</span></pre><pre><div>x</div><div>y</div></pre>`
    expect(md(html)).toBe("```\na\nb\n```\n\n```\nx\ny\n```")
  })

  it("removes soft hyphens and zero-width spaces inside words, keeps joiners", () => {
    expect(md("<p>hyph&shy;en&shy;ation and long\u200bword, \u{1F469}\u200d\u{1F4BB}</p>")).toBe("hyphenation and longword, \u{1F469}\u200d\u{1F4BB}")
  })

  it("drops invisible paragraphs and form checkboxes outside task lists", () => {
    expect(md("<p>\u200b\u200d</p><p>a</p><form><label><input type=checkbox> I agree</label></form>")).toBe("a\n\nI agree")
  })

  it("skips scripts, styles, forms controls and svg", () => {
    expect(md("<p>a<script>x()</script><style>p{}</style><svg><text>icon</text></svg><select><option>o</option></select>b</p>")).toBe("ab")
  })
})

describe("xhtml", () => {
  it("reads self-closing elements of XHTML (EPUB chapters) as empty", () => {
    const chapter = `<?xml version="1.0" encoding="utf-8"?>
<html xmlns="http://www.w3.org/1999/xhtml"><head><title/><script src="x.js"/><link rel="stylesheet" href="s.css"/></head>
<body><h1>Chapter 1</h1><p><a id="p1"/>First <a href="ch2.xhtml">next</a>.</p><div class="clear"/><p>Second.</p></body></html>`
    expect(htmlToMarkdown(chapter)).toBe("# Chapter 1\n\nFirst [next](ch2.xhtml).\n\nSecond.")
    const html = processHtml(chapter, { url: "https://book.example/ch1.xhtml", onlyMainContent: false, removeBase64Images: false, formats: { markdown: false, html: true, links: false } }).html
    expect(html).toContain('<p><a id="p1"></a>First <a href="https://book.example/ch2.xhtml">next</a>.</p><div class="clear"></div><p>Second.</p>')
  })
})

describe("tables", () => {
  it("writes GFM tables with escaped pipes and a header row", () => {
    const html = "<table><thead><tr><th>a|b</th><th>c</th></tr></thead><tbody><tr><td>1</td><td>x<br>y</td></tr></tbody></table>"
    const out = md(html)
    expect(out).toBe("| a\\|b | c |\n| --- | --- |\n| 1 | x y |")
    const table = nodesOf(parseMarkdown(out), "table")[0]!
    expect(table.children.map((row) => row.children.map((cell) => visibleText(cell.children.map((c) => ("value" in c ? c.value : "")).join(""))))).toEqual([
      ["a|b", "c"],
      ["1", "x y"]
    ])
  })

  it("promotes the first row of a header-less table and lays out spans on a grid", () => {
    const html = `<table><tr><td rowspan="2">tall</td><td colspan="2">wide</td></tr><tr><td>b</td><td>c</td></tr><tr><td>1</td><td>2</td><td>3</td></tr></table>`
    expect(md(html)).toBe("| tall | wide |  |\n| --- | --- | --- |\n|  | b | c |\n| 1 | 2 | 3 |")
  })

  it("flattens nested tables and writes layout tables as blocks", () => {
    const nested = "<table><tr><th>k</th><th>v</th></tr><tr><td>a</td><td><table><tr><td>x</td><td>y</td></tr></table></td></tr></table>"
    expect(md(nested)).toBe("| k | v |\n| --- | --- |\n| a | x y |")
    const layout = "<table><tr><td><h1>Title</h1><p>Body text.</p></td></tr><tr><td><p>More.</p></td></tr></table>"
    expect(md(layout)).toBe("# Title\n\nBody text.\n\nMore.")
  })

  it("drops empty tables and spacer rows", () => {
    expect(md("<table><tr><td> </td></tr></table><table><tr><td>a</td><td>b</td></tr><tr><td></td><td></td></tr></table>")).toBe(
      "| a | b |\n| --- | --- |"
    )
  })
})
