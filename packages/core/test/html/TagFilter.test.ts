/** Tag filters: the fast path for bare tags, classes and ids agrees with hast-util-select. */
import { readFileSync, readdirSync } from "node:fs"
import { describe, expect, it } from "vitest"
import { selectAll } from "hast-util-select"
import { toText } from "hast-util-to-text"
import { cleanHtml } from "../../src/html/HtmlClean.ts"
import { parseHtml } from "../../src/html/HtmlParser.ts"
import { excludeTags, includeTags } from "../../src/html/TagFilter.ts"

const page = `<html><body><nav id="top" class="menu main">Nav</nav><div class="card x"><p class="Intro">Intro</p><p>Body <span class="x">x1</span></p></div>
  <section id="s1"><h2>Title</h2><div class="card"><p>Inner</p></div></section><footer class="menu">Foot</footer></body></html>`

describe("TagFilter", () => {
  it("matches bare tags, classes and ids like hast-util-select does", () => {
    const fixtures = new URL("../fixtures/html/", import.meta.url)
    const pages = [page, ...readdirSync(fixtures).map((name) => readFileSync(new URL(`${name}/input.html`, fixtures), "utf8"))]
    for (const html of pages) {
      const root = cleanHtml(parseHtml(html), "https://example.com/").root
      for (const selectors of [["p"], [".card", "#top"], [".Intro", ".intro"], ["li", "td", ".highlight"], ["#s1", "span"]]) {
        const expected = new Set(selectors.flatMap((s) => selectAll(s, root)))
        const included = includeTags(root, selectors, [])
        // includeTags keeps outermost matches only: each must be a match, and every match must lie inside one
        for (const element of included.children) expect(expected.has(element as never)).toBe(true)
        const inside = new Set<unknown>()
        for (const element of included.children) for (const e of selectAll("*", element as never)) inside.add(e)
        for (const e of expected) expect(included.children.includes(e) || inside.has(e)).toBe(true)
      }
    }
  })

  it("matches tag names case-insensitively, as browsers do in HTML documents", () => {
    const root = cleanHtml(parseHtml(page), "https://example.com/").root
    expect(includeTags(root, ["P"], []).children).toHaveLength(3)
  })

  it("excludes matches and keeps the rest in order", () => {
    const root = cleanHtml(parseHtml(page), "https://example.com/").root
    const warnings: Array<string> = []
    const kept = excludeTags(root, ["nav", ".x", "#s1"], warnings)
    expect(toText(kept).replace(/\s+/g, " ").trim()).toBe("Foot")
    expect(warnings).toEqual([])
    const mixed = excludeTags(root, ["footer.menu", "section > div"], warnings)
    const text = toText(mixed).replace(/\s+/g, " ").trim()
    expect(text).toContain("Title")
    expect(text).not.toContain("Inner")
    expect(text).not.toContain("Foot")
  })
})
