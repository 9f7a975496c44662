/** The sitemap reader: urlsets and indexes, namespace prefixes, entities and CDATA, and what is not a sitemap. */
import { describe, expect, it } from "vitest"
import { readSitemap } from "../../src/catalog/index.ts"

describe("readSitemap", () => {
  it("reads a urlset's loc and lastmod, decoding entities and CDATA", () => {
    const xml = `<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
      <url><loc>https://a.example/?q=1&amp;r=2</loc><lastmod>2026-01-02</lastmod><priority>0.5</priority></url>
      <url><loc><![CDATA[https://a.example/caf&#233;]]></loc></url>
      <url><lastmod>2026-01-01</lastmod></url></urlset>`
    expect(readSitemap(xml)).toEqual({
      kind: "urlset",
      entries: [{ loc: "https://a.example/?q=1&r=2", lastmod: "2026-01-02" }, { loc: "https://a.example/caf\u00e9" }]
    })
  })

  it("reads a sitemap index with prefixed elements", () => {
    const xml = `<sm:sitemapindex xmlns:sm="http://www.sitemaps.org/schemas/sitemap/0.9">
      <sm:sitemap><sm:loc>https://a.example/sitemap-1.xml</sm:loc></sm:sitemap></sm:sitemapindex>`
    expect(readSitemap(xml)).toEqual({ kind: "sitemapindex", entries: [{ loc: "https://a.example/sitemap-1.xml" }] })
  })

  it("says when the text is not a sitemap", () => {
    expect(readSitemap("<html><body>no</body></html>")).toBeUndefined()
    expect(readSitemap("")).toBeUndefined()
  })
})
