/**
 * The learned block signal of main-content extraction (models/main-content): leaf blocks and
 * their features, the committed model's feature list, the prune's threshold, and that the
 * model leaves an article's prose alone and `learned: false` gives the rules' pick.
 */
import type { Element, Root } from "hast"
import { describe, expect, it } from "vitest"
import type { TreeModel } from "../../src/clean/CleanContent.ts"
import { cleanHtml } from "../../src/html/HtmlClean.ts"
import { hastToMarkdown } from "../../src/html/HastToMarkdown.ts"
import { parseHtml } from "../../src/html/HtmlParser.ts"
import { extractMainContent } from "../../src/html/MainContent.ts"
import { BLOCK_FEATURES, pageTitle, pickBlocks } from "../../src/html/MainContentBlocks.ts"
import { pruneWithModel } from "../../src/html/MainContentLearned.ts"
import { MAIN_CONTENT_MODEL } from "../../src/html/MainContentModel.ts"
import { findBody } from "../../src/html/MainContentNodes.ts"

const para = (i: number) => `<p>Paragraph ${i} of the story tells how the town rebuilt its bridge, with facts, dates, and the names of the people who did the work.</p>`
const cleaned = (html: string): Root => cleanHtml(parseHtml(html), "https://example.test/").root
/** a pick: the page's body as the one child of a root, as main-content extraction hands them over */
const bodyOf = (root: Root): Root => ({ type: "root", children: [findBody(root) as Element] })
const markdownOf = (root: Root) => hastToMarkdown(root, { removeBase64Images: true })
const article = `<html><body><article><h1>The bridge</h1>${[1, 2, 3, 4, 5].map(para).join("")}<ul><li><a href="/a">One</a></li><li><a href="/b">Two</a></li></ul></article></body></html>`
const context = { title: "The bridge", path: "article", kind: "unknown" } as const
const constant = (threshold: number): TreeModel => ({ features: [...BLOCK_FEATURES], base: 0, threshold, trees: [] })

describe("learned main-content blocks", () => {
  it("finds the leaf blocks in document order, one row of features each", () => {
    const blocks = pickBlocks(bodyOf(cleaned(article)), context)
    expect(blocks.map((b) => b.element.tagName)).toEqual(["h1", "p", "p", "p", "p", "p", "ul"])
    for (const b of blocks) expect(b.row).toHaveLength(BLOCK_FEATURES.length)
    const list = blocks[6].row
    expect(list[BLOCK_FEATURES.indexOf("linkDensity")]).toBe(1)
    expect(list[BLOCK_FEATURES.indexOf("proseSide")]).toBe(1)
    expect(blocks[0].row[BLOCK_FEATURES.indexOf("titleOverlap")]).toBe(1)
    expect(blocks[1].row[BLOCK_FEATURES.indexOf("inArticle")]).toBe(1)
    expect(pageTitle(cleaned(article))).toBe("The bridge")
  })

  it("is the model the features describe", () => {
    expect(MAIN_CONTENT_MODEL.features).toEqual([...BLOCK_FEATURES])
    expect(MAIN_CONTENT_MODEL.trees.length).toBeGreaterThan(0)
  })

  it("drops the blocks under the threshold and returns the same tree when it drops none", () => {
    const root = bodyOf(cleaned(article))
    expect(pruneWithModel(root, context, constant(0.4))).toBe(root)
    expect(markdownOf(pruneWithModel(root, context, constant(0.6))).trim()).toBe("")
  })

  it("keeps an article's prose, and learned: false is the rules' pick", () => {
    const root = cleaned(article)
    const markdown = markdownOf(extractMainContent(root))
    for (const i of [1, 2, 3, 4, 5]) expect(markdown).toContain(`Paragraph ${i} of the story`)
    const rules = extractMainContent(root, { learned: false })
    expect(markdownOf(rules)).toContain("Paragraph 5 of the story")
  })
})
