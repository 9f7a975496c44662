/**
 * The tree builder places content as the HTML5 tree-construction algorithm does on the malformed
 * markup pages carry (body content in the head, stray and repeated structure tags, content
 * outside `<html>`, text loose in tables): the visible text of our tree equals that of parse5's
 * tree, the reference implementation of the algorithm, on generated documents.
 */
import type { Element, Root, RootContent } from "hast"
import { describe, expect, it } from "vitest"
import fc from "fast-check"
import { parse, type DefaultTreeAdapterTypes } from "parse5"
import { parseHtml } from "../../src/html/HtmlParser.ts"

/** Subtrees a browser does not render as page text (or, for `textarea`, not as prose). */
const HIDDEN = new Set(["head", "script", "style", "template", "title", "noscript", "textarea", "iframe", "noembed", "noframes"])

/** Visible text with whitespace removed: where the spec drops or moves whitespace is not at issue. */
const oursText = (root: Root): string => {
  let out = ""
  const visit = (node: Root | RootContent) => {
    if (node.type === "text") out += node.value
    else if (node.type === "root" || (node.type === "element" && !HIDDEN.has(node.tagName))) for (const child of node.children) visit(child)
  }
  visit(root)
  return out.replace(/\s+/g, "")
}

type P5Node = DefaultTreeAdapterTypes.ChildNode | DefaultTreeAdapterTypes.Document
const parse5Text = (html: string): string => {
  let out = ""
  const visit = (node: P5Node) => {
    if (node.nodeName === "#text") out += (node as DefaultTreeAdapterTypes.TextNode).value
    else if ("childNodes" in node && !("tagName" in node && HIDDEN.has(node.tagName))) {
      const children = node.nodeName === "template" ? [] : node.childNodes
      for (const child of children) visit(child)
    }
  }
  visit(parse(html))
  return out.replace(/\s+/g, "")
}

const tagOf = (root: Root, tagName: string): Element | undefined => {
  let found: Element | undefined
  const visit = (node: Root | RootContent) => {
    if (found !== undefined) return
    if (node.type === "element" && node.tagName === tagName) found = node
    else if (node.type === "root" || node.type === "element") for (const child of node.children) visit(child)
  }
  visit(root)
  return found
}

const words = fc.constantFrom("alpha", "beta", "gamma 12", "d\u00e9j\u00e0", "x &amp; y", "a &lt; b", "1 < 2", "end.")
const piece = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom("<html>", "<html lang=en>", "</html>", "<head>", "</head>", "<body>", "<body class=x>", "</body>", "<!doctype html>") },
  { weight: 3, arbitrary: fc.constantFrom("<title>T &amp; <b>t</b></title>", "<meta charset=utf-8>", "<link rel=icon href=/i.png>", "<script>var s = '<p>no</p>'</script>", "<style>p { color: red }</style>", "<base href=/>", "<!-- note -->") },
  { weight: 6, arbitrary: fc.constantFrom("<div>", "</div>", "<p>", "</p>", "<span>", "</span>", "<b>", "</b>", "<i>", "</i>", "<a href=/x>", "</a>", "<ul>", "<li>", "</li>", "</ul>", "<h2>", "</h2>", "<img src=a.png alt=pic>", "<br>", "<section>", "</section>", "<article>", "</article>", "<em>", "</em>", "<blockquote>", "</blockquote>") },
  { weight: 2, arbitrary: fc.constantFrom("<noscript><img src=pixel.gif></noscript>", "<svg><title>icon</title><path d=M0></path></svg>", "&nbsp;", "&copy; 2024", "&#8212;", "<!-- <p>hidden</p> -->", "<template><p>later</p></template>", "<iframe src=/ad></iframe>") },
  { weight: 2, arbitrary: fc.constantFrom("<textarea>raw <b>text</b></textarea>", "</td>", "</tr>", "</span>", "</x-widget>", "<x-widget>", "<pre>", "</pre>") },
  // Whole tables with text loose between their parts; stray elements in a table stay in place (see HtmlTreeModes).
  { weight: 1, arbitrary: fc.constantFrom("<table><tr>loose<td>cell</td></tr></table>", "<table>stray<tbody><tr><td>c1<td>c2</tr>after row</table>") },
  { weight: 8, arbitrary: words }
)

describe("HTML5 tree construction on malformed markup", () => {
  it("holds the same visible text as parse5 on generated documents", () => {
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 40 }), (parts) => {
        const html = parts.join(" ")
        expect(oursText(parseHtml(html))).toBe(parse5Text(html))
      }),
      { numRuns: 1500 }
    )
  })

  it("an `<html>` tag after content keeps the elements still open: what follows goes on inside them", () => {
    // fast-check found it (CI, 2026-12-08): the elements open before the tag were dropped from the
    // stack, and "alpha" went to the end of the body, after "a < b".
    for (const html of ["<div> <i> <html> alpha </i> a &lt; b", "<i> <html lang=en> alpha </i> b"]) {
      expect(oursText(parseHtml(html))).toBe(parse5Text(html))
    }
    const root = parseHtml("<div> <i> <html> alpha </i> a &lt; b")
    expect(tagOf(root, "i")?.children.map((c) => (c.type === "text" ? c.value.trim() : "")).join("")).toBe("alpha")
  })

  it("holds the same visible text as parse5 when an attribute quote is left open", () => {
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 20 }), fc.constantFrom('<div class="lead>', "<p id='x>", '<img alt="pic src=a.png>'), fc.array(piece, { maxLength: 20 }), (before, open, after) => {
        const html = [...before, open, ...after].join(" ")
        expect(oursText(parseHtml(html))).toBe(parse5Text(html))
      }),
      { numRuns: 500 }
    )
  })

  it("moves body content out of the head into an implied body", () => {
    const root = parseHtml(`<html><head><meta charset=utf-8><title>T</title><div class="story"><p>The article.</p></div><img src=a.png></head><body class="page"><p>More.</p></body></html>`)
    const head = tagOf(root, "head")
    const body = tagOf(root, "body")
    expect(head?.children.map((child) => (child.type === "element" ? child.tagName : child.type))).toEqual(["meta", "title"])
    expect(body?.children.map((child) => (child.type === "element" ? child.tagName : child.type))).toEqual(["div", "img", "p"])
    // the late `<body>` lends its attributes to the implied one
    expect(body?.properties.className).toEqual(["page"])
  })

  it("keeps what follows </body> and </html> in the body, and moves what precedes <html> into it", () => {
    const root = parseHtml(`Before <html><head></head><body><p>Inside</p></body></html><p>After</p>`)
    const body = tagOf(root, "body")
    expect(oursText({ type: "root", children: body === undefined ? [] : [body] })).toBe("BeforeInsideAfter")
    expect(root.children.map((child) => (child.type === "element" ? child.tagName : child.type))).toEqual(["html"])
  })

  it("leaves a fragment a fragment: no implied html, head or body", () => {
    const root = parseHtml(`<p>One</p><div>Two</div>`)
    expect(root.children.map((child) => (child.type === "element" ? child.tagName : child.type))).toEqual(["p", "div"])
  })

  it("foster-parents text loose in a table to before the table, as browsers show it", () => {
    const html = `<table><tr>Loose<td>Cell</td></tr></table>`
    expect(oursText(parseHtml(html))).toBe("LooseCell")
    expect(parse5Text(html)).toBe("LooseCell")
  })
})
