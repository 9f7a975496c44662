/** processHtml end to end: cleaning, URL resolution, images, links, metadata and the filters. */
import { describe, expect, it } from "vitest"
import fc from "fast-check"
import { processHtml, type HtmlOptions } from "../../src/index.ts"
import { largestCandidate, parseSrcset } from "../../src/html/HtmlClean.ts"

const all = { markdown: true, html: true, links: true }
const run = (html: string, options: Partial<HtmlOptions> = {}) =>
  processHtml(html, { url: "https://example.com/blog/post", onlyMainContent: false, removeBase64Images: true, formats: all, ...options })

const article = (words: number) =>
  Array.from({ length: 6 }, (_, i) => `<p>Paragraph ${i} of the article, ${"with plenty of words, commas, and sentences. ".repeat(words)}</p>`).join("")

const page = `<!DOCTYPE html>
<html lang="en-GB"><head>
  <meta charset="utf-8"><title>  Post   title | Site </title>
  <meta name="description" content="A post.">
  <meta name="keywords" content="a, b">
  <meta property="og:title" content="OG post"><meta property="og:image" content="https://cdn.example.com/og.png">
  <meta property="og:locale:alternate" content="fr_FR"><meta property="og:locale:alternate" content="de_DE">
  <meta name="article:tag" content="one"><meta name="article:tag" content="two">
  <meta property="article:published_time" content="2024-01-02T03:04:05Z">
  <meta name="DC.date" content="2024-01-02"><meta name="twitter:card" content="summary">
  <meta itemprop="name" content="Item name">
  <link rel="stylesheet" href="/s.css"><link rel="shortcut icon" href="/fav.ico"><link rel="icon" href="/icon.png">
  <style>p { color: red }</style><script>var x = 1</script>
</head><body>
  <!-- a comment -->
  <nav class="menu"><a href="/">Home</a> <a href="/about#team">About</a> <a href="#top">Top</a> <a href="#">Menu</a> <a href="javascript:void(0)">JS</a> <a href="mailto:hi@example.com">Mail</a></nav>
  <main><article><h1>Post title</h1>${article(6)}
    <p><a href="../other?x=1#frag">relative</a> and <a href="/about">about again</a></p>
    <img data-src="/lazy.jpg" src="data:image/gif;base64,R0lGODlhAQABAAAAACw=" alt="lazy">
    <img src="small.jpg" srcset="small.jpg 300w, big.jpg 1200w, medium.jpg 800w" alt="set">
    <img src="data:image/png;base64,iVBORw0KGgo=" alt="inline png">
    <noscript><img src="/noscript.jpg"></noscript><template><p>tpl</p></template>
  </article></main>
  <footer class="site-footer"><p>Copyright footer text</p><a href="https://other.example.org/x">Partner</a></footer>
</body></html>`

describe("processHtml", () => {
  it("cleans the HTML: no script, style, noscript, meta, head, template or comments; absolute URLs", () => {
    const { html } = run(page)
    expect(html).toBeDefined()
    for (const gone of ["<script", "<style", "<noscript", "<meta", "<head", "<template", "<!--", "<link", "<title"]) expect(html).not.toContain(gone)
    expect(html).toContain('href="https://example.com/other?x=1#frag"')
    expect(html).toContain('src="https://example.com/lazy.jpg"')
    expect(html).toContain('src="https://example.com/blog/big.jpg"')
    expect(html).not.toContain("srcset")
    // html keeps base64 images: removeBase64Images is for markdown only
    expect(html).toContain("data:image/png;base64,iVBORw0KGgo=")
  })

  it("writes markdown with resolved links, promoted lazy images and base64 placeholders", () => {
    const { markdown } = run(page)
    expect(markdown).toContain("# Post title")
    expect(markdown).toContain("[relative](https://example.com/other?x=1#frag)")
    expect(markdown).toContain("![lazy](https://example.com/lazy.jpg)")
    expect(markdown).toContain("![set](https://example.com/blog/big.jpg)")
    expect(markdown).toContain("![inline png](<Base64-Image-Removed>)")
    expect(markdown).not.toContain("base64,")
    expect(markdown).not.toContain("var x")
    expect(markdown).not.toContain("tpl")
    const kept = run(page, { removeBase64Images: false }).markdown
    expect(kept).toContain("![inline png](data:image/png;base64,iVBORw0KGgo=)")
  })

  it("lists the links of the whole page: absolute, deduplicated, without fragments or javascript:", () => {
    const { links } = run(page, { onlyMainContent: true })
    expect(links).toEqual([
      "https://example.com/",
      "https://example.com/about",
      "mailto:hi@example.com",
      "https://example.com/other?x=1",
      "https://other.example.org/x"
    ])
  })

  it("reads metadata with Firecrawl's key names", () => {
    const { metadata } = run(page)
    expect(metadata).toMatchObject({
      title: "Post title | Site",
      description: "A post.",
      keywords: "a, b",
      language: "en-GB",
      ogTitle: "OG post",
      "og:title": "OG post",
      ogImage: "https://cdn.example.com/og.png",
      ogLocaleAlternate: ["fr_FR", "de_DE"],
      articleTag: "one",
      "article:tag": ["one", "two"],
      publishedTime: "2024-01-02T03:04:05Z",
      dcDate: "2024-01-02",
      "DC.date": "2024-01-02",
      "twitter:card": "summary",
      name: "Item name",
      favicon: "https://example.com/icon.png"
    })
    expect(metadata).not.toHaveProperty("charset")
  })

  it("ignores meta names that would reach the prototype", () => {
    const html = `<head><meta name="__proto__" content="x"><meta name="constructor" content="y"><meta name="toString" content="z"></head>`
    const { metadata } = run(html)
    expect(Object.getPrototypeOf(metadata)).toBe(Object.prototype)
    expect(Object.hasOwn(metadata, "__proto__")).toBe(false)
    expect(metadata.toString).toBe("z")
  })

  it("takes the language from Content-Language when <html lang> is missing", () => {
    const html = `<html><head><meta http-equiv="Content-Language" content="de-AT, de"><title>T</title></head><body><p>x</p></body></html>`
    expect(run(html).metadata.language).toBe("de-AT")
    expect(run(`<html lang="fr"><head><meta http-equiv="content-language" content="de"></head></html>`).metadata.language).toBe("fr")
  })

  it("falls back to og:title and resolves against <base href>", () => {
    const html = `<html><head><base href="https://cdn.example.net/root/"><meta property="og:title" content="Only OG"><link rel="icon" href="f.ico"></head>
      <body><p><a href="page">p</a> <img src="i.png" alt="i"></p></body></html>`
    const result = run(html)
    expect(result.metadata.title).toBe("Only OG")
    expect(result.metadata.favicon).toBe("https://cdn.example.net/root/f.ico")
    expect(result.links).toEqual(["https://cdn.example.net/root/page"])
    expect(result.markdown).toBe("[p](https://cdn.example.net/root/page) ![i](https://cdn.example.net/root/i.png)")
  })

  it("survives a root-relative and an invalid <base href>", () => {
    const html = `<head><base href="/"></head><body><a href="x">x</a></body>`
    expect(run(html).links).toEqual(["https://example.com/x"])
    const invalid = `<head><base href="http://[bad"></head><body><a href="x">x</a></body>`
    expect(run(invalid).links).toEqual(["https://example.com/blog/x"])
  })

  it("onlyMainContent drops navigation and footer; off keeps them", () => {
    const main = run(page, { onlyMainContent: true }).markdown ?? ""
    expect(main).toContain("Paragraph 3 of the article")
    expect(main).not.toContain("Copyright footer text")
    expect(main).not.toContain("[Home]")
    const full = run(page).markdown ?? ""
    expect(full).toContain("Copyright footer text")
    expect(full).toContain("[Home](https://example.com/)")
  })

  it("excludeTags removes matches; includeTags keeps only matches and beats onlyMainContent", () => {
    const excluded = run(page, { excludeTags: ["nav", ".site-footer", "img"] }).markdown ?? ""
    expect(excluded).not.toContain("Home")
    expect(excluded).not.toContain("Copyright")
    expect(excluded).not.toContain("![")
    expect(excluded).toContain("Paragraph 0")

    const included = run(page, { onlyMainContent: true, includeTags: ["nav.menu", "footer p"] })
    expect(included.markdown).toBe(
      "[Home](https://example.com/) [About](https://example.com/about#team) [Top](https://example.com/blog/post#top) Menu JS [Mail](mailto:hi@example.com)\n\nCopyright footer text"
    )
    expect(included.html).toContain("<nav")
    expect(included.html).not.toContain("Paragraph")

    const both = run(page, { includeTags: ["article"], excludeTags: ["img", "h1"] }).markdown ?? ""
    expect(both).toContain("Paragraph 0")
    expect(both).not.toContain("# Post title")
    expect(both).not.toContain("![")
  })

  it("gives an empty result when includeTags matches nothing, and reports invalid selectors", () => {
    expect(run(page, { includeTags: [".does-not-exist"] }).markdown).toBe("")
    const result = run(page, { excludeTags: ["p[", "nav"] })
    expect(result.warnings?.[0]).toContain("p[")
    expect(result.markdown).not.toContain("[Home]")
  })

  it("resolves URLs inside <noscript>, which main content may render for script-only pages", () => {
    const posts = Array.from({ length: 8 }, (_, i) => `<div class="post"><p>Post ${i} says ${"something long enough to count as real content, ".repeat(5)}<a href="/u/${i}">user ${i}</a></p></div>`).join("")
    const html = `<html><head><meta name="generator" content="Discourse 3.2"></head><body><div id="app"></div><noscript>${posts}</noscript></body></html>`
    const result = run(html, { url: "https://forum.example.com/t/topic/1", onlyMainContent: true })
    expect(result.markdown).toContain("Post 7 says")
    expect(result.markdown).toContain("[user 3](https://forum.example.com/u/3)")
  })

  it("computes only the formats asked for", () => {
    const result = processHtml(page, { url: "https://example.com/", onlyMainContent: true, removeBase64Images: true, formats: { markdown: false, html: false, links: false } })
    expect(result.markdown).toBeUndefined()
    expect(result.html).toBeUndefined()
    expect(result.links).toBeUndefined()
    expect(result.metadata.title).toBe("Post title | Site")
  })

  it("never throws on malformed or hostile markup", () => {
    const inputs = ["", "<", "<<<>>>", "<table><td>x", "<ul><li>a<li>b</ul></li></div>", "<a href='http://[::1'>x</a>", "<p>".repeat(5000), "<svg><p>x</svg>", "\u0000<b>\u0000</b>"]
    for (const input of inputs) expect(() => run(input)).not.toThrow()
  })

  it("handles random tag soup: no throw, absolute links, deterministic output", () => {
    const piece = fc.oneof(
      fc.constantFrom("<p>", "</p>", "<div>", "</div>", "<table>", "<tr>", "<td>", "<th>", "</table>", "<ul>", "<li>", "</ul>", "<ol start=3>", "<pre>", "</pre>", "<code>", "</code>", "<b>", "</b>", "<em>", "</em>", "<br>", "<hr>", "<h2>", "</h2>", "<blockquote>", "<!--c-->", "<script>x<y</script>", "<svg><path/></svg>", "<img src=a.png alt=x>", "<img srcset='b.png 2x'>", "<base href=/base/>"),
      fc.constantFrom("<a href='x'>", "<a href='#f'>", "<a href='javascript:x'>", "<a href='mailto:m@x.y'>", "<a href='//cdn.example.org/p'>", "</a>"),
      fc.string({ maxLength: 8 })
    )
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 40 }), (pieces) => {
        const html = pieces.join("")
        const first = run(html, { onlyMainContent: pieces.length % 2 === 0 })
        expect(run(html, { onlyMainContent: pieces.length % 2 === 0 })).toEqual(first)
        for (const link of first.links ?? []) expect(link).toMatch(/^(https?:\/\/|mailto:)/)
        expect(typeof first.markdown).toBe("string")
      }),
      { numRuns: 300 }
    )
  })

  it("flattens absurdly deep nesting instead of overflowing the stack", () => {
    for (const tag of ["div", "span", "ul", "blockquote"]) {
      const html = `<${tag}>`.repeat(20000) + "deep text" + `</${tag}>`.repeat(20000)
      const result = run(html, { onlyMainContent: true })
      expect(result.markdown).toContain("deep text")
    }
  })
})

describe("srcset", () => {
  it("picks the largest candidate, tolerating commas inside URLs", () => {
    expect(largestCandidate("a.jpg 1x, b.jpg 2x")).toBe("b.jpg")
    expect(largestCandidate("https://cdn.x/w_100,h_50/a.jpg 100w, https://cdn.x/w_900,h_450/a.jpg 900w")).toBe("https://cdn.x/w_900,h_450/a.jpg")
    expect(largestCandidate("only.jpg")).toBe("only.jpg")
    expect(largestCandidate("a.jpg 2x, b.jpg 640w")).toBe("b.jpg")
    expect(parseSrcset("")).toEqual([])
  })
})
