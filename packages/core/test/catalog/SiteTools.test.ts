/**
 * The sitemap reader: urlsets and indexes, namespace prefixes, entities and CDATA, what is not a
 * sitemap, any text without throwing (property), and hostile inputs (elements that never close,
 * tags that never end) read in one pass: a reader that rescanned per element would take minutes here.
 */
import fc from "fast-check"
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

  it("reads any text without throwing, and every entry it returns has a loc", () => {
    const pieces = fc.constantFrom("<urlset>", "<url>", "</url>", "<loc>", "</loc>", "<lastmod>", "</lastmod>", "<![CDATA[", "]]>", "&amp;", "&#x41;", "<sm:url ", ">", "x")
    fc.assert(fc.property(fc.array(fc.oneof(pieces, fc.string()), { maxLength: 60 }), (parts) => {
      const read = readSitemap(parts.join(""))
      for (const entry of read?.entries ?? []) expect(entry.loc.length).toBeGreaterThan(0)
    }))
  })

  it("reads hostile sitemaps in one pass: unclosed elements, unterminated tags, unclosed CDATA", () => {
    const unclosed = `<urlset>${"<url><loc>https://a.example/</loc>".repeat(50_000)}`
    expect(readSitemap(unclosed)?.entries).toEqual([])
    const unterminated = `<urlset>${"<url ".repeat(20_000)}`
    expect(readSitemap(unterminated)?.entries).toEqual([])
    const cdata = `<urlset><url><loc>${"<![CDATA[".repeat(100_000)}</loc></url></urlset>`
    expect(readSitemap(cdata)?.entries).toHaveLength(1)
    const closedLate = `<urlset>${"<url><loc>https://a.example/x</loc>".repeat(20_000)}</url></urlset>`
    expect(readSitemap(closedLate)?.entries).toEqual([{ loc: "https://a.example/x" }])
  })
})
