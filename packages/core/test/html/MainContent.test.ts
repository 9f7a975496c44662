/**
 * Main-content extraction on small hand-written pages: what is kept (headings, prose, tables,
 * code, lists, figures) and what is dropped (navigation, sidebars, footers, comments on
 * articles, consent banners, related lists), per page type, plus the fallback ladder.
 */
import { readFileSync } from "node:fs"
import type { Element, Root } from "hast"
import { fromHtml } from "hast-util-from-html"
import { toText } from "hast-util-to-text"
import { describe, expect, it } from "vitest"
import { extractMainContent, readMainContentHints } from "../../src/html/MainContent.ts"
import { processHtml } from "../../src/html/HtmlPipeline.ts"

const fixture = (name: string): string => readFileSync(new URL(`../fixtures/main-content/${name}`, import.meta.url), "utf8")

/** Parse like the pipeline does up to this stage: scripts and styles are gone, hints read first. */
const extract = (name: string, url = "https://example.com/page") => {
  const tree = fromHtml(fixture(name))
  const hints = readMainContentHints(tree, url)
  const before = JSON.stringify(tree)
  const out = extractMainContent(tree, { url, hints })
  expect(JSON.stringify(tree)).toBe(before) // the input tree is never mutated
  const text = toText(out).replace(/\s+/g, " ")
  return { out, text, hints }
}

const images = (root: Root): Array<string> => {
  const out: Array<string> = []
  const go = (node: Root | Element) => {
    for (const child of node.children) {
      if (child.type !== "element") continue
      if (child.tagName === "img") out.push(String(child.properties.src))
      go(child)
    }
  }
  go(root)
  return out
}

const tags = (root: Root): Set<string> => {
  const out = new Set<string>()
  const go = (node: Root | Element) => {
    for (const child of node.children) {
      if (child.type !== "element") continue
      out.add(child.tagName)
      go(child)
    }
  }
  go(root)
  return out
}

describe("extractMainContent", () => {
  it("keeps an article's prose, headings, table, code, list and figure; drops chrome and comments", () => {
    const { out, text, hints } = extract("article.html")
    expect(hints.kind).toBe("article")
    expect(text).toContain("Rivers are patient sculptors.")
    expect(text).toContain("Erosion, transport and deposition")
    expect(text).toContain("Mississippi")
    expect(text).toContain("def transport(velocity, grain):")
    expect(text).toContain("Gentle gradients favour meandering")
    expect(text).toContain("Meanders form where deposition and erosion alternate")
    expect(text).toContain("one grain at a time")
    expect(images(out)).toEqual(["https://example.com/img/meander.jpg"])
    for (const tag of ["table", "pre", "ul", "figure", "h2"]) expect(tags(out).has(tag)).toBe(true)

    expect(text).not.toContain("We use cookies")
    expect(text).not.toContain("About us")
    expect(text).not.toContain("Share on Twitter")
    expect(text).not.toContain("Great article, I never thought")
    expect(text).not.toContain("glacial valleys")
    expect(text).not.toContain("Why deltas grow and shrink")
    expect(text).not.toContain("weekly newsletter")
    expect(text).not.toContain("All rights reserved")
  })

  it("keeps every post of a forum thread, replies included, and drops suggested topics", () => {
    const { text, hints } = extract("forum.html", "https://forum.example.org/t/sourdough-starter-smells-like-acetone/4411")
    expect(hints.kind).toBe("forum")
    expect(text).toContain("smelled strongly of nail polish remover")
    expect(text).toContain("That smell means it is hungry, not dead.")
    expect(text).toContain("one part starter to five parts flour")
    expect(text).toContain("it doubled in four hours")
    expect(text).not.toContain("Best flour for rye bread")
    expect(text).not.toContain("Powered by Discourse")
    expect(text).not.toContain("Categories")
  })

  it("keeps a product's description and specifications, drops navigation and related products", () => {
    const { text, hints } = extract("product.html")
    expect(hints.kind).toBe("product")
    expect(hints.productDescription).toContain("40 litre pack")
    expect(text).toContain("ventilated back panel keeps you cool")
    expect(text).toContain("bar-tacked at the stress points")
    expect(text).toContain("Recycled ripstop nylon")
    // tab panels hidden until clicked are part of the description
    expect(text).toContain("wash by hand in lukewarm water")
    expect(text).toContain("lifetime warranty against defects")
    expect(text).toContain("Specifications")
    expect(text).not.toContain("Ridge 55L Trekking Pack")
    expect(text).not.toContain("Free shipping on orders")
    expect(text).not.toContain("Customer service")
    expect(text).not.toContain("Cart (0)")
  })

  it("keeps a docs page's code blocks and tables, drops the sidebar, table of contents and pager", () => {
    const { out, text } = extract("docs.html")
    expect(text).toContain("retried three times with exponential backoff")
    expect(text).toContain("retry: { attempts: 5, baseDelayMs: 250 }")
    expect(text).toContain("Connection reset")
    expect(text).toContain("Which errors are retried")
    // an accordion answer hidden until its question is clicked is content
    expect(text).toContain("multiplied by a random factor between 0.5 and 1.5")
    expect(tags(out).has("pre")).toBe(true)
    expect(text).not.toContain("Installation")
    expect(text).not.toContain("On this page")
    expect(text).not.toContain("Edit this page")
    expect(text).not.toContain("GitHub")
  })

  it("keeps every card of a listing (multi-block path), not just the best one", () => {
    const { text } = extract("listing.html")
    for (const title of ["Planting garlic in autumn", "Five herbs that survive winter", "Building a cold frame", "Saving tomato seeds", "Mulch, explained", "When to prune apple trees"]) {
      expect(text).toContain(title)
    }
    expect(text).toContain("Thyme, sage, rosemary, chives and parsley")
    expect(text).not.toContain("Vegetables")
    expect(text).not.toContain("est. 1998")
  })

  it("retries without the boilerplate filter when it would keep too little", () => {
    // the only prose sits in a block whose class names look like a widget
    const { text } = extract("fallback.html")
    expect(text).toContain("open Monday to Friday from nine in the morning")
    expect(text).toContain("children's corner")
    expect(text).toContain("borrow up to twenty items")
    expect(text).not.toContain("Events")
    expect(text).not.toContain("1 Market Square")
  })

  it("falls back to the page minus its chrome when the scorer finds no real content", () => {
    const { text } = extract("short.html")
    expect(text).toContain("Closed today")
    expect(text).toContain("closed for a public holiday")
    expect(text).not.toContain("Shop")
    expect(text).not.toContain("Privacy")
  })

  it("returns the body of a fragment without a <body> and an empty root for an empty page", () => {
    const fragment = fromHtml("<p>Just one paragraph of text, long enough to be content on its own, with commas, and more words here.</p>", { fragment: true })
    expect(toText(extractMainContent(fragment))).toContain("Just one paragraph of text")
    const empty = extractMainContent(fromHtml(""))
    expect(toText(empty).trim()).toBe("")
  })

  it("keeps content that a page hides until scripts run, but not hidden menus", () => {
    const prose = "This is the real article text that a streaming renderer hides until hydration, with commas, clauses, and enough words to matter. "
    const html = `<body><nav><a href="/">Home</a></nav><div hidden id="S:0"><article><p>${prose.repeat(4)}</p><p>${prose.repeat(3)}</p></article></div>
      <div hidden class="mobile-menu"><a href="/a">Menu entry one</a> <a href="/b">Menu entry two</a></div><p>Short visible teaser.</p></body>`
    const text = toText(extractMainContent(fromHtml(html)))
    expect(text).toContain("streaming renderer hides until hydration")
    expect(text).not.toContain("Menu entry one")
  })

  it("drops a big hidden copy of the visible article (a raw-markdown twin for agents) instead of revealing it", () => {
    const paras = [
      "Choosing a CRM starts with your business model, because ecommerce, B2B and agencies need very different things.",
      "Look at how the data model handles customers, orders and events, and whether segments update in real time.",
      "Finally, price the whole stack, including the add-ons that the cheaper plans leave out, before you commit to it."
    ]
    const visible = paras.map((p) => `<p>${p}</p>`).join("")
    const copy = `# The best CRM\n\n${paras.map((p) => `**Tip:** ${p}`).join("\n\n")}`
    const html = `<body><article><h1>The best CRM</h1>${visible}<pre hidden aria-hidden="true" class="rawMarkdown">${copy}</pre></article></body>`
    const text = toText(extractMainContent(fromHtml(html)))
    expect(text).toContain("Choosing a CRM starts with your business model")
    expect(text).not.toContain("**Tip:**")
    // the same hidden block is kept when it is the only copy (script-revealed content)
    const alone = toText(extractMainContent(fromHtml(`<body><p>Short teaser.</p><pre hidden class="rawMarkdown">${copy}</pre></body>`)))
    expect(alone).toContain("**Tip:**")
  })

  it("reads a thread that the page only renders inside <noscript>, through the whole HTML pipeline", () => {
    const post = (who: string, text: string) => `<div class="topic-body crawler-post"><span class="creator">${who}</span><div class="post"><p>${text}</p></div></div>`
    const html = `<html><head><meta name="generator" content="Discourse 3.2"></head><body>
      <section id="main"></section>
      <noscript><div id="main-outlet" class="wrap">
        ${post("ana", "The build fails on ARM since the last update, with a linker error about a missing symbol in the crypto module.")}
        ${post("ben", "Same here. Pinning the previous release works around it until the maintainers publish a fixed build for ARM.")}
        ${post("ana", "Confirmed, pinning works. Thanks for the quick answer, I will watch the release notes for the proper fix.")}
      </div></noscript></body></html>`
    const result = processHtml(html, {
      url: "https://forum.example.org/t/build-fails-on-arm/99",
      onlyMainContent: true,
      removeBase64Images: true,
      formats: { markdown: true, html: false, links: false }
    })
    expect(result.markdown).toContain("linker error about a missing symbol")
    expect(result.markdown).toContain("Pinning the previous release works around it")
    expect(result.markdown).toContain("I will watch the release notes")
  })

  it("rescues a script-rendered page from its JSON-LD article body", () => {
    const body = "Tidal power stations turn the rise and fall of the sea into electricity.\n\nThe oldest large station, at La Rance in France, has run since 1966 and still produces around 500 gigawatt hours a year, enough for a small city."
    const html = `<html><head><script type="application/ld+json">${JSON.stringify({ "@context": "https://schema.org", "@type": "NewsArticle", headline: "Tidal power", articleBody: body })}</script></head>
      <body><nav><a href="/">Home</a> <a href="/news">News</a></nav><div id="app"><p>Loading…</p></div><footer>© Energy Daily</footer></body></html>`
    const tree = fromHtml(html)
    const hints = readMainContentHints(tree, "https://news.example.com/tidal-power")
    expect(hints.articleBody).toBe(body)
    const out = extractMainContent(tree, { hints })
    const text = toText(out)
    expect(text).toContain("Tidal power stations turn the rise and fall of the sea into electricity.")
    expect(text).toContain("La Rance in France")
    expect(out.children.filter((c) => c.type === "element" && c.tagName === "p")).toHaveLength(2)
    expect(text).not.toContain("Energy Daily")
  })
})
