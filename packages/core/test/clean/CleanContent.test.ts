/**
 * The offline onlyCleanContent pass: the trained classifier drops share bars and navigation
 * around an article and keeps its prose and headings; blocks split where markdown splits. (A list
 * of links is often content on WCXB's listing pages, and the model keeps one after a story.)
 */
import { describe, expect, it } from "vitest"
import { cleanMarkdown, markdownBlocks } from "../../src/clean/CleanContent.ts"

const prose = (n: number) =>
  `The council voted on Tuesday to extend the river path by two kilometres, paying for it from the parks budget. Work on section ${n} begins in spring, and residents say the new stretch will link the old mill to the station.`

describe("cleanMarkdown", () => {
  it("splits blocks at blank lines and keeps fenced code whole", () => {
    expect(markdownBlocks("# T\n\npara one\nline two\n\n```\na\n\nb\n```\n\nend").map((b) => b.text)).toEqual([
      "# T", "para one\nline two", "```\na\n\nb\n```", "end"
    ])
  })

  it("drops share bars and navigation after the story and keeps the story", () => {
    const related = Array.from({ length: 8 }, (_, i) => `- [Related story number ${i}](https://news.example/s/${i})`).join("\n")
    const share = "[Facebook](https://f.example/share) [Twitter](https://t.example/share) [Email](mailto:?x)"
    const markdown = [
      "# River path to grow by two kilometres",
      prose(1),
      prose(2),
      "## What happens next",
      prose(3),
      share,
      "## Related",
      related,
      "[Home](https://news.example/) [News](https://news.example/news) [Sport](https://news.example/sport) [Weather](https://news.example/weather)"
    ].join("\n\n")
    const cleaned = cleanMarkdown(markdown)
    expect(cleaned.markdown).toContain("# River path to grow by two kilometres")
    for (const n of [1, 2, 3]) expect(cleaned.markdown).toContain(`Work on section ${n} begins`)
    expect(cleaned.markdown).not.toContain("[Facebook]")
    expect(cleaned.markdown).not.toContain("[Weather]")
    expect(cleaned.dropped).toBeGreaterThanOrEqual(2)
  })

  it("never empties a page", () => {
    const onlyLinks = "[Home](/) [About](/about)\n\n[Contact](/contact)"
    expect(cleanMarkdown(onlyLinks).markdown).toBe(onlyLinks)
    expect(cleanMarkdown("").markdown).toBe("")
  })
})
