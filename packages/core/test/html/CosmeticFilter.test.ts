/**
 * The cosmetic-filter step of `blockAds` on a parsed page: the page's features, the compound
 * selector matcher agreeing with hast-util-select on the selector forms the lists use, and
 * `processHtml` dropping what the rules hide before main content is chosen (and nothing
 * without a matcher).
 */
import type { Element, Root } from "hast"
import { selectAll } from "hast-util-select"
import { describe, expect, it } from "vitest"
import { parseSelector, selectMatching } from "../../src/html/CompoundSelectors.ts"
import { hideCosmetic, pageFeatures } from "../../src/html/CosmeticFilter.ts"
import { parseHtml } from "../../src/html/HtmlParser.ts"
import { processHtml } from "../../src/html/HtmlPipeline.ts"

const page = `<html><body>
<div id="page"><div class="privacy-optin">Opt in to tracking</div>
<div class="site-content"><div id="cookie-law-info-bar" class="fixed cookies_law">Cookie law bar</div></div></div>
<main><h1>Tides</h1><p>The tide comes in twice a day, and the harbour wall keeps the spring tides back from the square.</p>
<p>The tide comes in twice a day, and the harbour wall keeps the spring tides back from the square.</p>
<a href="/about">About</a></main>
<section class="cookie-bar" data-cy="cookie-banner" lang="en-GB">We use cookies</section>
<div class="toast" data-dismissable-id="CookieInfo">Toast about cookies</div>
<amp-consent>AMP consent</amp-consent>
</body></html>`

const selectors = [
  "div.cookieBar", "section.cookie-bar", "[data-cy=\"cookie-banner\"]", "amp-consent", "#page > .privacy-optin",
  ".site-content > #cookie-law-info-bar", "#page .cookies_law", ".fixed.cookies_law", "[data-dismissable-id=\"cookieinfo\" i]",
  "[lang|=en]", "[class^=\"cook\"]", "[class$=\"bar\"]", "[class*=\"ies_l\"]", "[class~=\"fixed\"]", "div[data-cy]", "main > h1", "body p",
  "#page > #cookie-law-info-bar", "section > div", "*"
]

const ids = (elements: Iterable<Element>) => [...elements].map((element) => `${element.tagName}:${String(element.properties.id ?? element.properties.className ?? "")}`).sort()

describe("CompoundSelectors", () => {
  it("matches as hast-util-select does, selector by selector", () => {
    const tree = parseHtml(page)
    for (const selector of selectors) {
      const parsed = parseSelector(selector)
      expect(parsed, selector).toBeDefined()
      expect(ids(selectMatching(tree, [parsed!])), selector).toEqual(ids(selectAll(selector, tree)))
    }
  })

  it("leaves pseudo-classes, sibling combinators and escapes to hast-util-select", () => {
    for (const selector of ["div:has(> .cookie)", "a + b", ".x ~ .y", ".a\\:b", "div:not(.x)", "", "div >"]) {
      expect(parseSelector(selector), selector).toBeUndefined()
    }
  })
})

describe("hideCosmetic", () => {
  it("collects class names, ids and absolute link targets", () => {
    const features = pageFeatures(parseHtml(page), "https://tides.example/story")
    expect(features.ids).toEqual(expect.arrayContaining(["page", "cookie-law-info-bar"]))
    expect(features.classes).toEqual(expect.arrayContaining(["privacy-optin", "cookie-bar", "fixed"]))
    expect(features.hrefs).toEqual(["https://tides.example/about"])
  })

  it("removes what the matcher's selectors hide, with the page's URL and features, and skips selectors nothing parses", () => {
    const tree: Root = parseHtml(page)
    const seen: Array<string> = []
    const after = hideCosmetic(tree, "https://tides.example/story", (url, features) => {
      seen.push(url, ...features.ids)
      return ["section.cookie-bar", "#page > .privacy-optin", "amp-consent", "div:has(> p.none)", ":-abp-contains(x)"]
    })
    expect(seen).toContain("https://tides.example/story")
    const text = JSON.stringify(after)
    expect(text).not.toContain("We use cookies")
    expect(text).not.toContain("Opt in to tracking")
    expect(text).not.toContain("AMP consent")
    expect(text).toContain("Cookie law bar")
    expect(JSON.stringify(tree)).toContain("We use cookies")
  })

  it("runs in processHtml before main content, and not at all without a matcher", () => {
    const options = { url: "https://tides.example/story", onlyMainContent: false, removeBase64Images: true, formats: { markdown: true, html: false, links: false } }
    const hidden = processHtml(page, { ...options, cosmetic: () => ["section.cookie-bar", ".toast"] }).markdown ?? ""
    expect(hidden).toContain("The tide comes in")
    expect(hidden).not.toContain("We use cookies")
    expect(hidden).not.toContain("Toast about cookies")
    expect(processHtml(page, options).markdown).toContain("We use cookies")
  })
})
