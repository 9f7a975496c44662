/**
 * Built-in site-bound providers: tools that apply to pages of a certain kind, declared by URL
 * patterns (`domainTools` lists them on a scrape of a matching page).
 *
 * - `sitemap` / `urls`: the URLs a sitemap lists (`<urlset>`), or the sitemaps an index lists
 *   (`<sitemapindex>`), on any host whose path names a sitemap. The list is capped by `limit`,
 *   and a cut list says so in `warning`.
 * - `wikipedia` / `article`: a Wikipedia article's markdown with its licence and attribution.
 *   Wikipedia's text is under CC BY-SA 4.0, which binds what may be done with it, so the provider
 *   declares those terms: a team's administrator accepts them before the first call.
 */
import { Effect, Layer, Schema } from "effect"
import { URLPattern } from "./UrlPattern.ts"
import { IntBetween } from "../contract/Primitives.ts"
import { Pipeline } from "../Pipeline.ts"
import { CatalogRegistry } from "./CatalogRegistry.ts"
import { type CatalogProvider, type ProviderTerms, tool, ToolFailed, urlOption } from "./CatalogTool.ts"
import { scrapeWith } from "./WebTools.ts"

const entities: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: "\"", apos: "'" }

/** The text with its CDATA sections unwrapped (by index: an unclosed one keeps the rest as it is). */
const unwrapCdata = (text: string): string => {
  let out = ""
  let at = 0
  for (let open = text.indexOf("<![CDATA[", at); open !== -1; open = text.indexOf("<![CDATA[", at)) {
    const close = text.indexOf("]]>", open + 9)
    if (close === -1) break
    out += text.slice(at, open) + text.slice(open + 9, close)
    at = close + 3
  }
  return out + text.slice(at)
}

const decodeXmlText = (text: string): string =>
  unwrapCdata(text)
    .replace(/&(#x[0-9a-f]+|#\d+|amp|lt|gt|quot|apos);/gi, (whole, name: string) => {
      if (name[0] !== "#") return entities[name.toLowerCase()] ?? whole
      const code = name[1] === "x" || name[1] === "X" ? parseInt(name.slice(2), 16) : parseInt(name.slice(1), 10)
      return Number.isFinite(code) && code <= 0x10ffff ? String.fromCodePoint(code) : whole
    })
    .trim()

/** An element's start tag; its attributes are bounded so that a `<` without `>` costs little. */
const startTag = (tag: string, flags: string) => new RegExp(`<(?:[\\w-]{1,64}:)?${tag}\\b[^>]{0,256}>`, flags)
const endTag = (tag: string, flags: string) => new RegExp(`</(?:[\\w-]{1,64}:)?${tag}\\s*>`, flags)

const childText = (block: string, tag: string): string | undefined => {
  const start = startTag(tag, "i").exec(block)
  if (start === null) return undefined
  const rest = block.slice(start.index + start[0].length)
  const end = endTag(tag, "i").exec(rest)
  return end === null ? undefined : decodeXmlText(rest.slice(0, end.index))
}

export interface SitemapEntry {
  readonly loc: string
  readonly lastmod?: string
}

/**
 * The entries of a sitemap or sitemap index (the sitemaps.org protocol): each `<url>` or
 * `<sitemap>` element's `loc` and `lastmod`, namespace prefixes allowed. Not a general XML
 * parser: the protocol's elements are flat, and this reads nothing else.
 */
export const readSitemap = (xml: string): { readonly kind: "urlset" | "sitemapindex"; readonly entries: ReadonlyArray<SitemapEntry> } | undefined => {
  const root = /<(?:[\w-]+:)?(urlset|sitemapindex)\b/i.exec(xml)
  if (root === null) return undefined
  const kind = root[1].toLowerCase() as "urlset" | "sitemapindex"
  const element = kind === "urlset" ? "url" : "sitemap"
  const entries: Array<SitemapEntry> = []
  // One pass: each element's end is searched from its start, and a start without an end stops the
  // scan (no later element can end either), so unclosed elements cost a single scan, not one each.
  const opening = startTag(element, "gi")
  const closing = endTag(element, "gi")
  for (let start = opening.exec(xml); start !== null; start = opening.exec(xml)) {
    closing.lastIndex = opening.lastIndex
    const end = closing.exec(xml)
    if (end === null) break
    const block = xml.slice(opening.lastIndex, end.index)
    opening.lastIndex = closing.lastIndex
    const loc = childText(block, "loc")
    if (loc === undefined || loc === "") continue
    const lastmod = childText(block, "lastmod")
    entries.push(lastmod === undefined ? { loc } : { loc, lastmod })
  }
  return { kind, entries }
}

const sitemapPatterns = [
  { pathname: "{/*}?/sitemap{*}.xml" },
  { pathname: "{/*}?/sitemap{*}.xml/" },
  { pathname: "{/*}?/wp-sitemap{*}.xml" }
]

const SitemapUrls = Schema.Struct({
  kind: Schema.Literals(["urlset", "sitemapindex"]),
  urls: Schema.Array(Schema.Struct({ loc: Schema.String, lastmod: Schema.optionalKey(Schema.String) })),
  total: Schema.Int.annotate({ description: "Entries the sitemap lists (more than `urls` when cut at `limit`)." }),
  warning: Schema.optionalKey(Schema.String)
})

const defaultSitemapLimit = 1000

export const makeSitemapProvider = (pipeline: Pipeline["Service"]): CatalogProvider => ({
  name: "sitemap",
  description: "Sitemaps (sitemaps.org protocol) on any site.",
  tools: [
    tool({
      capability: "urls",
      name: "URLs of a sitemap",
      description: "The pages a sitemap lists with their last modification, or the sitemaps a sitemap index lists.",
      category: "sites",
      options: Schema.Struct({
        url: urlOption("The sitemap's URL (…/sitemap.xml, …/sitemap_index.xml, …/wp-sitemap.xml)."),
        limit: Schema.optionalKey(IntBetween(1, 50_000).annotate({ description: `At most this many entries (default ${defaultSitemapLimit}).` }))
      }),
      response: { about: "The entries of the sitemap.", key: "urls", schema: SitemapUrls },
      creditsCost: 1,
      perRecord: false,
      urlPatterns: sitemapPatterns,
      run: (options: { readonly url: string; readonly limit?: number }, context) =>
        Effect.gen(function*() {
          const data = yield* scrapeWith(pipeline, { url: options.url, formats: ["rawHtml"] }, context)
          const sitemap = readSitemap(data.rawHtml ?? "")
          if (sitemap === undefined) {
            return yield* new ToolFailed({ kind: "unsupported", message: `${options.url} is not a sitemap: no <urlset> or <sitemapindex> element` })
          }
          const limit = options.limit ?? defaultSitemapLimit
          const cut = sitemap.entries.length > limit
          return {
            data: {
              kind: sitemap.kind,
              urls: sitemap.entries.slice(0, limit),
              total: sitemap.entries.length,
              ...(cut ? { warning: `The sitemap lists ${sitemap.entries.length} entries; the first ${limit} are returned (limit).` } : {})
            },
            records: Math.min(limit, sitemap.entries.length)
          }
        })
    })
  ]
})

export const wikipediaTerms: ProviderTerms = {
  version: "cc-by-sa-4.0",
  url: "https://creativecommons.org/licenses/by-sa/4.0/",
  summary: "Wikipedia text is licensed CC BY-SA 4.0: reuse must credit the article and share alike"
}

const wikipediaArticle = "https://*.wikipedia.org/wiki/*"
const articlePattern = new URLPattern(wikipediaArticle)

const WikipediaArticle = Schema.Struct({
  url: Schema.String,
  title: Schema.optionalKey(Schema.String),
  markdown: Schema.String,
  license: Schema.String,
  attribution: Schema.String
})

export const makeWikipediaProvider = (pipeline: Pipeline["Service"]): CatalogProvider => ({
  name: "wikipedia",
  description: "Wikipedia articles, with the licence their text is under.",
  terms: wikipediaTerms,
  tools: [
    tool({
      capability: "article",
      name: "Wikipedia article",
      description: "A Wikipedia article's main text as markdown, with its licence and the attribution to give.",
      category: "sites",
      options: Schema.Struct({ url: urlOption("The article's URL (https://<lang>.wikipedia.org/wiki/<title>).") }),
      response: { about: "The article's markdown, licence and attribution.", key: "markdown", schema: WikipediaArticle },
      creditsCost: 1,
      perRecord: false,
      urlPatterns: [wikipediaArticle],
      run: (options: { readonly url: string }, context) =>
        Effect.gen(function*() {
          if (!URL.canParse(options.url) || !articlePattern.test(options.url)) {
            return yield* new ToolFailed({ kind: "invalid_input", message: `${options.url} is not a Wikipedia article URL (${wikipediaArticle})` })
          }
          const data = yield* scrapeWith(pipeline, { url: options.url, formats: ["markdown"] }, context)
          const title = typeof data.metadata?.title === "string" ? data.metadata.title : undefined
          const url = String(data.metadata?.url ?? options.url)
          return {
            data: {
              url,
              ...(title === undefined ? {} : { title }),
              markdown: data.markdown ?? "",
              license: "CC BY-SA 4.0",
              attribution: `${title ?? url}, Wikipedia contributors, ${url}, CC BY-SA 4.0`
            }
          }
        })
    })
  ]
})

/** Registers the `sitemap` and `wikipedia` providers over the pipeline in context. */
export const layerSiteProviders = Layer.mergeAll(
  CatalogRegistry.providerEffect(Effect.map(Pipeline, makeSitemapProvider)),
  CatalogRegistry.providerEffect(Effect.map(Pipeline, makeWikipediaProvider))
)
