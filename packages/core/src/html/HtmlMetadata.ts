/**
 * Page metadata as Firecrawl's `data.metadata` names it: `title` (the `<title>`, falling back to
 * og:title), `description`, `keywords`, `robots`, `language` (`<html lang>`, else the
 * Content-Language http-equiv), the og:* family as
 * `ogTitle`, `ogDescription`, ... with `ogLocaleAlternate` always an array, Dublin Core as
 * `dcTermsCreated`, `dcDate`, ..., article:* times and tags, `favicon`, and every meta tag again
 * under its own `name`/`property`/`itemprop` (so `og:title`, `twitter:card`, `viewport` are
 * there too). A name that repeats becomes an array, in document order.
 *
 * Read from the parsed tree before cleaning, because cleaning removes `<head>`.
 */
import type { Element, Root } from "hast"
import { stringProp, textOf } from "./HtmlNodes.ts"
import { UrlResolver } from "./HtmlClean.ts"

export type Metadata = Record<string, string | Array<string>>

/** Meta names (lower-cased) and the camelCase keys Firecrawl returns them under. */
const NAMED: Record<string, string> = {
  "description": "description",
  "keywords": "keywords",
  "robots": "robots",
  "og:title": "ogTitle",
  "og:description": "ogDescription",
  "og:url": "ogUrl",
  "og:image": "ogImage",
  "og:audio": "ogAudio",
  "og:determiner": "ogDeterminer",
  "og:locale": "ogLocale",
  "og:site_name": "ogSiteName",
  "og:video": "ogVideo",
  "dcterms.created": "dcTermsCreated",
  "dc.date.created": "dcDateCreated",
  "dc.date": "dcDate",
  "dcterms.type": "dcTermsType",
  "dc.type": "dcType",
  "dcterms.audience": "dcTermsAudience",
  "dcterms.subject": "dcTermsSubject",
  "dc.subject": "dcSubject",
  "dc.description": "dcDescription",
  "dcterms.keywords": "dcTermsKeywords",
  "article:modified_time": "modifiedTime",
  "article:published_time": "publishedTime",
  "article:tag": "articleTag",
  "article:section": "articleSection"
}

/**
 * Keys the pipeline owns, which a page's meta tag must not overwrite, and names that would
 * reach the object's prototype (`<meta name="__proto__">`).
 */
const RESERVED = new Set(["sourceURL", "url", "statusCode", "contentType", "scrapeId", "error", "numPages", "totalPages", "__proto__", "constructor", "prototype"])

const add = (metadata: Metadata, key: string, value: string): void => {
  if (RESERVED.has(key)) return
  const existing = Object.hasOwn(metadata, key) ? metadata[key] : undefined
  if (existing === undefined) metadata[key] = value
  else if (Array.isArray(existing)) existing.push(value)
  else metadata[key] = [existing, value]
}

const ICON_RELS = ["icon", "shortcut", "apple-touch-icon"]

/** Collapses runs of whitespace, as a browser shows the title. */
const squash = (text: string): string => text.replace(/\s+/g, " ").trim()

export const extractMetadata = (root: Root, url: string): Metadata => {
  const metadata: Metadata = {}
  const resolver = new UrlResolver(url)
  let title: string | undefined
  let language: string | undefined
  let contentLanguage: string | undefined
  let favicon: string | undefined
  let iconRank = Number.POSITIVE_INFINITY
  const named: Array<[string, string]> = []
  const localeAlternates: Array<string> = []

  const visit = (parent: Root | Element, inSvg: boolean): void => {
    for (const child of parent.children) {
      if (child.type !== "element") continue
      const tag = child.tagName
      if (tag === "html" && language === undefined) {
        const lang = stringProp(child, "lang") ?? stringProp(child, "xmlLang")
        if (lang !== undefined && lang.trim() !== "") language = lang.trim()
      } else if (tag === "title" && !inSvg && title === undefined) {
        title = squash(textOf(child))
        continue
      } else if (tag === "base") {
        const href = stringProp(child, "href")
        if (href !== undefined) resolver.rebase(href)
      } else if (tag === "meta") {
        const key = stringProp(child, "name") ?? stringProp(child, "property") ?? stringProp(child, "itemProp")
        const content = stringProp(child, "content")
        if (key !== undefined && key.trim() !== "" && content !== undefined) named.push([key.trim(), content.trim()])
        else if (stringProp(child, "httpEquiv")?.toLowerCase() === "content-language" && content !== undefined && content.trim() !== "") {
          contentLanguage ??= content.split(",")[0]!.trim()
        }
        continue
      } else if (tag === "link") {
        const rel = (stringProp(child, "rel") ?? "").toLowerCase().split(/\s+/)
        const href = stringProp(child, "href")
        if (href !== undefined && href.trim() !== "") {
          // Prefer rel="icon" over "shortcut icon" over apple-touch-icon, then document order.
          const rank = rel.includes("icon") ? (rel.includes("shortcut") ? 1 : 0) : rel.includes("apple-touch-icon") ? 2 : -1
          if (rank >= 0 && rank < iconRank && ICON_RELS.some((r) => rel.includes(r))) {
            iconRank = rank
            favicon = href
          }
        }
        continue
      }
      if (tag === "script" || tag === "style" || tag === "template") continue
      visit(child, inSvg || tag === "svg")
    }
  }
  visit(root, false)

  for (const [key, value] of named) {
    const lower = key.toLowerCase()
    if (lower === "og:locale:alternate") localeAlternates.push(value)
    const mapped = NAMED[lower]
    if (mapped !== undefined && mapped !== key && !Object.hasOwn(metadata, mapped)) metadata[mapped] = value
    add(metadata, key, value)
  }
  // Firecrawl's title is the raw `<title>`, with og:title only as a fallback.
  const ogTitle = metadata.ogTitle
  if (title !== undefined && title !== "") metadata.title = title
  else if (typeof ogTitle === "string") metadata.title = ogTitle
  const lang = language ?? contentLanguage
  if (lang !== undefined) metadata.language = lang
  if (localeAlternates.length > 0) metadata.ogLocaleAlternate = localeAlternates
  if (favicon !== undefined) metadata.favicon = resolver.resolve(favicon)
  return metadata
}
