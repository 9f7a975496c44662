/**
 * Never empty by accident: a main-content pick that kept (almost) nothing of a page with text
 * is replaced by the first rung of the fallback ladder that keeps text outside links; a page
 * whose text is all navigation stays empty, and a page with no visible text comes back empty
 * with a `warning` that says so.
 */
import type { Root } from "hast"
import { describe, expect, it } from "vitest"
import { cleanHtml } from "../../src/html/HtmlClean.ts"
import { hastToMarkdown } from "../../src/html/HastToMarkdown.ts"
import { parseHtml } from "../../src/html/HtmlParser.ts"
import { rescueEmptyPick } from "../../src/html/MainContent.ts"
import { processHtml } from "../../src/index.ts"

const para = (i: number) => `<p>Paragraph ${i} of the story tells how the town rebuilt its bridge, with facts, dates, and the names of the people who did the work.</p>`
const nav = `<nav><ul>${Array.from({ length: 12 }, (_, i) => `<li><a href="/s${i}">Section number ${i}</a></li>`).join("")}</ul></nav>`
const cleaned = (html: string): Root => cleanHtml(parseHtml(html), "https://example.test/").root
const markdownOf = (root: Root) => hastToMarkdown(root, { removeBase64Images: true })
const emptyPick: Root = { type: "root", children: [] }
const tinyPick: Root = { type: "root", children: [{ type: "element", tagName: "p", properties: {}, children: [{ type: "text", value: "Share" }] }] }

const scrape = (html: string, onlyMainContent: boolean) =>
  processHtml(html, { url: "https://example.test/", onlyMainContent, removeBase64Images: true, formats: { markdown: true, html: false, links: false } })

describe("main content is never empty by accident", () => {
  it("replaces an empty or tiny pick with the article when the page has one", () => {
    const page = cleaned(`<html><body>${nav}<article><h1>Bridge</h1>${[1, 2, 3, 4].map(para).join("")}</article><footer><a href="/about">About</a></footer></body></html>`)
    for (const pick of [emptyPick, tinyPick]) {
      const markdown = markdownOf(rescueEmptyPick(pick, page))
      for (const i of [1, 2, 3, 4]) expect(markdown).toContain(`Paragraph ${i} of the story`)
      expect(markdown).not.toContain("Section number")
    }
  })

  it("keeps a pick that is short but not tiny", () => {
    const page = cleaned(`<html><body>${nav}<article>${[1, 2, 3].map(para).join("")}</article></body></html>`)
    const pick = cleaned(para(9))
    expect(rescueEmptyPick(pick, page)).toBe(pick)
  })

  it("leaves the pick empty when the page's text is all navigation", () => {
    const page = cleaned(`<html><body>${nav}<footer><a href="/a">About us</a> <a href="/c">Contact</a></footer></body></html>`)
    expect(markdownOf(rescueEmptyPick(emptyPick, page))).toBe("")
  })

  it("says in warning that a page with no visible text has an empty markdown", () => {
    const html = `<html><head><title>App</title><meta name="description" content="An app."></head><body><div id="root"></div><script>start()</script></body></html>`
    for (const onlyMainContent of [true, false]) {
      const result = scrape(html, onlyMainContent)
      expect(result.markdown).toBe("")
      expect(result.warnings?.join(" ")).toContain("no visible text")
    }
  })

  it("gives no warning when the markdown has text", () => {
    const result = scrape(`<html><body><article>${[1, 2, 3].map(para).join("")}</article></body></html>`, true)
    expect(result.markdown).toContain("Paragraph 1")
    expect(result.warnings).toBeUndefined()
  })
})
