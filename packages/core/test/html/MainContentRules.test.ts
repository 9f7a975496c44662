/**
 * The later main-content rules, each on a small hand-written page: recirculation blocks
 * recognised by their heading text when class names say nothing.
 */
import type { Root } from "hast"
import { fromHtml } from "hast-util-from-html"
import { toText } from "hast-util-to-text"
import { describe, expect, it } from "vitest"
import { extractMainContent, readMainContentHints } from "../../src/html/MainContent.ts"
import { isRecirculationBlock } from "../../src/html/MainContentHeadings.ts"
import { prunePage } from "../../src/html/MainContentClean.ts"
import { computeStats, findBody } from "../../src/html/MainContentNodes.ts"

const extract = (html: string, url = "https://example.com/page"): string => {
  const tree: Root = fromHtml(html)
  const out = extractMainContent(tree, { url, hints: readMainContentHints(tree, url) })
  return toText(out).replace(/\s+/g, " ")
}

const prose = (topic: string, n: number): string =>
  Array.from({ length: n }, (_, i) => `<p>Paragraph ${i + 1} about ${topic}, with enough words, commas and detail to read as prose, which is what a reader came for.</p>`).join("\n")

describe("recirculation headings", () => {
  const teaserLinks = ["Ten ways to prune roses", "Why tomatoes split", "Compost in winter", "Choosing a rain barrel"]
    .map((t, i) => `<li><a href="/story-${i}">${t}</a></li>`)
    .join("")

  it("drops a block its heading calls 'You may also like', whatever its classes", () => {
    const html = `<html><body><div class="a1">
      <div class="q7"><h1>Growing garlic</h1>${prose("garlic", 8)}</div>
      <div class="z3"><div class="k2"><h3>You may also like</h3></div><ul>${teaserLinks}</ul></div>
      <div class="z4"><h2>Related Stories:</h2><ul>${teaserLinks}</ul></div>
    </div></body></html>`
    const text = extract(html)
    expect(text).toContain("Paragraph 8 about garlic")
    expect(text).not.toContain("You may also like")
    expect(text).not.toContain("Related Stories")
    expect(text).not.toContain("Why tomatoes split")
  })

  it("prunes such a block before scoring, even from the chrome-only pass", () => {
    const tree: Root = fromHtml(`<html><body><main>${prose("garlic", 8)}</main>
      <div class="x1"><div><h4>Customers who viewed this item also viewed</h4></div>${teaserLinks}</div>
      <div class="x2"><h4>Care instructions</h4>${teaserLinks}</div></body></html>`)
    const body = findBody(tree)
    const stats = computeStats(body)
    const blocks = (body.children.filter((c) => c.type === "element") as Array<import("hast").Element>).filter((c) => c.tagName === "div")
    expect(blocks.map((b) => isRecirculationBlock(b, stats))).toEqual([true, false])
    const pruned = prunePage(body, stats, { stripUnlikely: true, stripHidden: true, keepComments: false, chromeOnly: true })
    const text = toText(pruned)
    expect(text).not.toContain("also viewed")
    expect(text).toContain("Care instructions")
  })

  it("keeps a block of text of its own under such a heading (a thread titled 'Recommended Posts')", () => {
    const html = `<html><body><div class="a1">
      <div class="q7"><h1>Growing garlic</h1>${prose("garlic", 8)}</div>
      <div class="t1"><h2>Recommended Posts</h2>${prose("a reply", 3)}<a href="/u/1">ana</a></div>
    </div></body></html>`
    const text = extract(html)
    expect(text).toContain("Paragraph 3 about a reply")
  })

  it("keeps a block whose heading merely mentions a recommendation", () => {
    const html = `<html><body><div class="a1">
      <div class="q7"><h1>Growing garlic</h1>${prose("garlic", 8)}
      <section><h2>Recommended varieties for cold climates</h2><ul><li>Music, a porcelain type with large cloves</li><li>German Extra Hardy, which stores for months</li><li>Chesnok Red, good for roasting</li></ul></section></div>
    </div></body></html>`
    const text = extract(html)
    expect(text).toContain("Recommended varieties for cold climates")
  })
})
