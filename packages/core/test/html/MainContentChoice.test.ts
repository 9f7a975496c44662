/**
 * The article-or-blocks choice of main-content extraction on two generated pages that the
 * older text-share rule got wrong: an article beside a long list of short facts (article
 * path) and a listing whose first card is long (multi-block path).
 */
import { fromHtml } from "hast-util-from-html"
import { toText } from "hast-util-to-text"
import { describe, expect, it } from "vitest"
import { type PathFeatures, extractMainContent, readMainContentHints } from "../../src/html/MainContent.ts"
import { preferBlocks } from "../../src/html/MainContentChoice.ts"

const sentence = (topic: string, i: number) =>
  `The ${topic} study number ${i} looked at how long rivers carry silt, and why the delta grows, shrinks or moves over the years.`

const chrome = (inner: string) =>
  `<html><head><title>t</title></head><body><header><nav><a href="/">Home</a> <a href="/a">About</a></nav></header>${inner}<footer><a href="/privacy">Privacy</a></footer></body></html>`

/** One article of long paragraphs, then far more text in short list items outside it. */
const articlePage = chrome(
  `<main><article><h1>Rivers and deltas</h1>${Array.from({ length: 6 }, (_, i) => `<p>${sentence("river", i)}</p>`).join("")}</article>` +
    `<section><h2>Station readings</h2>${Array.from({ length: 90 }, (_, i) => `<div class="reading"><span>Gauge ${i}</span> <span>reading ${i * 7} cm</span></div>`).join("")}</section></main>`
)

/** A listing: one long card first, then short cards that each hold one long paragraph. */
const listingPage = chrome(
  `<main><div class="cards">` +
    `<div class="featured"><h2>Featured: the Nile</h2>${Array.from({ length: 4 }, (_, i) => `<p>${sentence("Nile", i)} ${sentence("Nile", i + 10)} ${sentence("Nile", i + 20)}</p>`).join("")}</div>` +
    Array.from(
      { length: 6 },
      (_, i) => `<div class="card"><h2><a href="/r/${i}">River ${i} and the valley it carved</a></h2><p>${sentence(`card ${i}`, i)}</p><a href="/r/${i}">Read the whole story of river ${i}</a></div>`
    ).join("") +
    `</div></main>`
)

const run = (html: string, path?: "article" | "blocks") => {
  const tree = fromHtml(html)
  const url = "https://example.com/rivers"
  let features: PathFeatures | undefined
  const out = extractMainContent(tree, { url, hints: readMainContentHints(tree, url), path, onChoice: (f) => (features = f) })
  return { text: toText(out).replace(/\s+/g, " "), features }
}

describe("article or multi-block path", () => {
  it("keeps the article when it holds the page's long paragraphs, however much short text lies outside", () => {
    const auto = run(articlePage)
    const f = auto.features
    expect(f).toBeDefined()
    if (f === undefined) return
    // the older rule (article text under half of the blocks' text) would have taken the blocks
    expect(f.ratio).toBeLessThan(0.5)
    expect(f.longParasIn).toBe(6)
    expect(f.longParasOut).toBe(0)
    expect(preferBlocks(f)).toBe(false)
    expect(auto.text).toBe(run(articlePage, "article").text)
    expect(auto.text).toContain("study number 5")
    expect(auto.text).not.toContain("Gauge 40 reading")
  })

  it("keeps every card when the long paragraphs are spread beyond the best container", () => {
    const auto = run(listingPage)
    const f = auto.features
    expect(f).toBeDefined()
    if (f === undefined) return
    // most of the text sits in the first card, yet most long paragraphs do not
    expect(f.ratio).toBeGreaterThanOrEqual(0.5)
    expect(f.longParasOut).toBeGreaterThan(f.longParasIn)
    expect(preferBlocks(f)).toBe(true)
    expect(auto.text).toBe(run(listingPage, "blocks").text)
    for (let i = 0; i < 6; i++) expect(auto.text).toContain(`card ${i} study number ${i}`)
  })

  it("prefers the blocks when no paragraph is long (listings, product grids)", () => {
    const base = { ratio: 0.9, articleChars: 900, blocksChars: 1000, articleLinkDensity: 0, blocksLinkDensity: 0, longParaCharsIn: 0, longParaCharsOut: 0, headingsIn: 0, headingsOut: 0, articleTags: 0, cards: 0, kind: "unknown", markedBody: false } as const
    expect(preferBlocks({ ...base, longParasIn: 0, longParasOut: 0 })).toBe(true)
    expect(preferBlocks({ ...base, longParasIn: 9, longParasOut: 1 })).toBe(false)
    expect(preferBlocks({ ...base, longParasIn: 8, longParasOut: 2 })).toBe(true)
  })

  it("keeps the single body of a page whose structured data declares an article unless most prose is elsewhere", () => {
    const base = { ratio: 0.6, articleChars: 3000, blocksChars: 5000, articleLinkDensity: 0, blocksLinkDensity: 0, longParaCharsIn: 0, longParaCharsOut: 0, headingsIn: 0, headingsOut: 0, articleTags: 0, cards: 0, markedBody: false } as const
    // an author box, related stories and comments beside a declared article's body
    expect(preferBlocks({ ...base, kind: "unknown", longParasIn: 8, longParasOut: 4 })).toBe(true)
    expect(preferBlocks({ ...base, kind: "article", longParasIn: 8, longParasOut: 4 })).toBe(false)
    // the same when the article pick is itself a marked body (<article>, articleBody, entry-content)
    expect(preferBlocks({ ...base, kind: "unknown", markedBody: true, longParasIn: 8, longParasOut: 4 })).toBe(false)
    expect(preferBlocks({ ...base, kind: "article", longParasIn: 3, longParasOut: 9 })).toBe(true)
    // without long paragraphs it is a listing whatever it declares
    expect(preferBlocks({ ...base, kind: "article", longParasIn: 0, longParasOut: 0 })).toBe(true)
  })

  it("marks an article pick that is an <article>, an articleBody or a CMS body class, and not a plain div", () => {
    const body = (open: string, close: string) =>
      chrome(`<div class="wrap">${open}<h1>Silt</h1>${Array.from({ length: 8 }, (_, i) => `<p>${sentence("silt", i)}</p>`).join("")}${close}<div class="aside"><a href="/a">A</a> <a href="/b">B</a></div></div>`)
    expect(run(body(`<div class="entry-content">`, "</div>")).features?.markedBody).toBe(true)
    expect(run(body(`<div itemprop="articleBody">`, "</div>")).features?.markedBody).toBe(true)
    expect(run(body(`<article>`, "</article>")).features?.markedBody).toBe(true)
    expect(run(body(`<div class="c7">`, "</div>")).features?.markedBody).toBe(false)
  })

  it("never prefers a multi-block pick that kept nothing", () => {
    const base = { ratio: 1, articleChars: 745, blocksChars: 0, articleLinkDensity: 0.3, blocksLinkDensity: 0, longParasIn: 0, longParasOut: 0, longParaCharsIn: 0, longParaCharsOut: 0, headingsIn: 0, headingsOut: 0, articleTags: 0, cards: 0, kind: "unknown", markedBody: false } as const
    expect(preferBlocks(base)).toBe(false)
  })
  it("counts a paragraph in a dense script (Han, kana, Hangul) by what it says, not by its characters", () => {
    // 30-40 Han characters make a paragraph: under 80 characters, yet as much as 100+ Latin letters say
    const han = (i: number) => `第${i}天我们沿着山路走到营地，看到满山的枫叶已经变红，朋友们一起搭起帐篷，晚上围着火炉聊天直到深夜。`
    const page = chrome(
      `<div class="col-a"><div class="post"><h1>山里的秋天</h1>${Array.from({ length: 8 }, (_, i) => `<p>${han(i + 1)}</p>`).join("")}</div></div>` +
        `<div class="col-b"><div class="box">${Array.from({ length: 12 }, (_, i) => `<div class="item"><h3><a href="/post/${i}">其他文章标题 ${i}</a></h3><span>访客 ${i} 于 2013/12/28 留言：好美的照片，谢谢分享！</span></div>`).join("")}</div></div>`
    )
    const auto = run(page)
    expect(auto.features?.longParasIn).toBe(8)
    expect(auto.features?.longParasOut).toBe(0)
    expect(auto.text).toBe(run(page, "article").text)
    expect(auto.text).toContain("第8天我们沿着山路")
    expect(auto.text).not.toContain("其他文章标题 5")
  })
})
