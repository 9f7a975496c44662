/**
 * Malformed-markup fixtures (test/fixtures/malformed/<case>/input.html): head-body confusion,
 * text in the head, broken attribute quotes, unclosed and misnested tags, stray end tags and
 * repeated structure tags, content before `<html>` and after `</html>`, raw text, loose text in
 * tables. For each, every word of the page's visible text, as parse5's HTML5 tree holds it (an
 * independent reference), must come back in the markdown, with `onlyMainContent` true and false.
 * The markdown itself is golden (`expected.md` whole page, `expected-main.md` main content),
 * regenerated with `UPDATE_FIXTURES=1`.
 */
import { existsSync, readFileSync, readdirSync, writeFileSync } from "node:fs"
import { describe, expect, it } from "vitest"
import { parse, type DefaultTreeAdapterTypes } from "parse5"
import { processHtml } from "../../src/index.ts"

const root = new URL("../fixtures/malformed/", import.meta.url)
const cases = readdirSync(root, { withFileTypes: true }).filter((entry) => entry.isDirectory()).map((entry) => entry.name).sort()
const update = process.env.UPDATE_FIXTURES === "1"

const HIDDEN = new Set(["head", "script", "style", "template", "title", "noscript", "textarea", "iframe"])

type P5Node = DefaultTreeAdapterTypes.ChildNode | DefaultTreeAdapterTypes.Document
const visibleText = (html: string): string => {
  let out = ""
  const visit = (node: P5Node) => {
    if (node.nodeName === "#text") out += ` ${(node as DefaultTreeAdapterTypes.TextNode).value} `
    else if ("childNodes" in node && !("tagName" in node && HIDDEN.has(node.tagName))) for (const child of node.childNodes) visit(child)
  }
  visit(parse(html))
  return out
}

const words = (text: string): Array<string> => text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []

/** Words of `reference` missing from `text`, counted with multiplicity. */
const missingWords = (reference: string, text: string): Array<string> => {
  const have = new Map<string, number>()
  for (const word of words(text)) have.set(word, (have.get(word) ?? 0) + 1)
  const missing: Array<string> = []
  for (const word of words(reference)) {
    const left = have.get(word) ?? 0
    if (left === 0) missing.push(word)
    else have.set(word, left - 1)
  }
  return missing
}

const render = (html: string, onlyMainContent: boolean): string =>
  `${processHtml(html, { url: "https://example.com/news/bridge.html", onlyMainContent, removeBase64Images: true, formats: { markdown: true, html: false, links: false } }).markdown ?? ""}\n`

describe("malformed markup fixtures", () => {
  it("is not left in update mode on CI", () => {
    expect(update && process.env.CI === "true").toBe(false)
  })

  it("has fixtures", () => {
    expect(cases.length).toBeGreaterThanOrEqual(8)
  })

  for (const name of cases) {
    describe(name, () => {
      const input = readFileSync(new URL(`${name}/input.html`, root), "utf8")
      const visible = visibleText(input)

      it("has visible text to keep", () => {
        expect(words(visible).length).toBeGreaterThan(30)
      })

      for (const [onlyMainContent, file] of [[false, "expected.md"], [true, "expected-main.md"]] as const) {
        it(`keeps every visible word (onlyMainContent ${onlyMainContent})`, () => {
          const markdown = render(input, onlyMainContent)
          expect(missingWords(visible, markdown)).toEqual([])
          const expectedUrl = new URL(`${name}/${file}`, root)
          if (update) writeFileSync(expectedUrl, markdown)
          expect(existsSync(expectedUrl), `missing ${name}/${file}: run with UPDATE_FIXTURES=1`).toBe(true)
          expect(markdown).toBe(readFileSync(expectedUrl, "utf8"))
        })
      }
    })
  }
})
