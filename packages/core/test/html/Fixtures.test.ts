/**
 * Golden fixtures for the HTML -> markdown path: every folder under test/fixtures/html holds an
 * `input.html` and the `expected.md` that processHtml writes for it (whole page, no main-content
 * filtering, so that only this package's stages decide the output). Regenerate after a deliberate
 * change with `UPDATE_FIXTURES=1 npm test -- --project core test/html/Fixtures`, then review the diff.
 * Each expected file is also read back with a CommonMark + GFM parser, to catch broken syntax.
 */
import { existsSync, readFileSync, readdirSync, writeFileSync } from "node:fs"
import { describe, expect, it } from "vitest"
import { processHtml } from "../../src/index.ts"
import { parseMarkdown } from "./MarkdownRoundTrip.ts"

const root = new URL("../fixtures/html/", import.meta.url)
const cases = readdirSync(root, { withFileTypes: true }).filter((entry) => entry.isDirectory()).map((entry) => entry.name).sort()
const update = process.env.UPDATE_FIXTURES === "1"

const render = (html: string): string =>
  `${processHtml(html, { url: "https://example.com/docs/page.html", onlyMainContent: false, removeBase64Images: true, formats: { markdown: true, html: false, links: false } }).markdown ?? ""}\n`

describe("html fixtures", () => {
  it("is not left in update mode on CI", () => {
    expect(update && process.env.CI === "true").toBe(false)
  })

  it("has fixtures", () => {
    expect(cases.length).toBeGreaterThanOrEqual(8)
  })

  for (const name of cases) {
    it(name, () => {
      const input = readFileSync(new URL(`${name}/input.html`, root), "utf8")
      const expectedUrl = new URL(`${name}/expected.md`, root)
      const actual = render(input)
      if (update) writeFileSync(expectedUrl, actual)
      expect(existsSync(expectedUrl), `missing ${name}/expected.md: run with UPDATE_FIXTURES=1`).toBe(true)
      expect(actual).toBe(readFileSync(expectedUrl, "utf8"))
      expect(() => parseMarkdown(actual)).not.toThrow()
    })
  }
})
