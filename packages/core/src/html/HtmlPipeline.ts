/**
 * The HTML path of a scrape, composed: parse, read metadata, clean, collect links, filter
 * (tags, main content), then write markdown and cleaned HTML. Synchronous and pure.
 *
 * How the filters combine (in this order):
 * 1. `excludeTags` always applies first, to the whole cleaned page.
 * 2. With `includeTags`, the result is exactly the matching elements (outermost, in document
 *    order) and `onlyMainContent` is not applied on top: an explicit selection beats the
 *    heuristic, so `includeTags: ["nav"]` returns the navigation even though main-content
 *    extraction would drop it. If nothing matches, the result is empty.
 * 3. Otherwise, with `onlyMainContent`, main-content extraction picks the content.
 * `links` and `metadata` always come from the whole page, whatever the filters.
 * With `cosmetic` (`blockAds`), the elements its hiding rules select (consent banners, ads) are
 * removed from the parsed page before anything but `metadata` reads it, as a browser would.
 */
import type { Root } from "hast"
import { Effect } from "effect"
import { hastToBlocks, hastToMarkdown, type WrittenBlock } from "./HastToMarkdown.ts"
import { cleanHtml } from "./HtmlClean.ts"
import { collectLinks } from "./HtmlLinks.ts"
import { extractMetadata } from "./HtmlMetadata.ts"
import { parseHtml, parseHtmlYielding } from "./HtmlParser.ts"
import { serializeHtml } from "./HtmlSerialize.ts"
import { extractMainContent, readMainContentHints } from "./MainContent.ts"
import { hasMojibake, repairTreeText } from "./Mojibake.ts"
import { excludeTags, includeTags } from "./TagFilter.ts"
import { type CosmeticMatcher, hideCosmetic } from "./CosmeticFilter.ts"

export interface HtmlOptions {
  /** The final URL, for resolving relative links (a `<base href>` in the page takes precedence). */
  readonly url: string
  readonly onlyMainContent: boolean
  readonly includeTags?: ReadonlyArray<string> | undefined
  readonly excludeTags?: ReadonlyArray<string> | undefined
  /** Markdown only: `data:` image URLs become `<Base64-Image-Removed>`, the alt text stays. */
  readonly removeBase64Images: boolean
  readonly formats: { readonly markdown: boolean; readonly html: boolean; readonly links: boolean }
  /** `blockAds`: the cosmetic rules' matcher (see CosmeticFilter.ts); none hides nothing. */
  readonly cosmetic?: CosmeticMatcher | undefined
}

export interface HtmlResult {
  markdown?: string
  html?: string
  links?: Array<string>
  metadata: Record<string, string | Array<string>>
  /** Non-fatal problems (an invalid selector), for the response's `warning`. */
  warnings?: Array<string>
}

export const processHtml = (html: string, options: HtmlOptions): HtmlResult => processParsedHtml(parseHtml(html), html, options)

/** `processHtml` off the server's thread's critical path: the parse yields to the event loop (see `parseHtmlYielding`). */
export const processHtmlYielding = (html: string, options: HtmlOptions): Effect.Effect<HtmlResult> =>
  Effect.map(parseHtmlYielding(html), (parsed) => processParsedHtml(parsed, html, options))

const processParsedHtml = (page: Root, html: string, options: HtmlOptions): HtmlResult => {
  let parsed = page
  // Text that was UTF-8 decoded as windows-1252 upstream ("letâ€™s") is read as it was written.
  if (hasMojibake(html)) repairTreeText(parsed)
  const metadata = extractMetadata(parsed, options.url)
  if (options.cosmetic !== undefined) parsed = hideCosmetic(parsed, options.url, options.cosmetic)
  const hasInclude = options.includeTags !== undefined && options.includeTags.length > 0
  const wantsContent = options.formats.markdown || options.formats.html
  // main-content hints (JSON-LD, generator, noscript rendering) live in what cleaning drops
  const hints = options.onlyMainContent && !hasInclude && wantsContent ? readMainContentHints(parsed, options.url) : undefined
  const { root } = cleanHtml(parsed, options.url)
  const result: HtmlResult = { metadata }
  if (options.formats.links) result.links = collectLinks(root, options.url)
  if (!wantsContent) return result

  const warnings: Array<string> = []
  let content: Root = root
  if (options.excludeTags !== undefined && options.excludeTags.length > 0) content = excludeTags(content, options.excludeTags, warnings)
  if (hasInclude) content = includeTags(content, options.includeTags ?? [], warnings)
  else if (options.onlyMainContent) content = extractMainContent(content, { url: options.url, hints })

  if (options.formats.markdown) result.markdown = hastToMarkdown(content, { removeBase64Images: options.removeBase64Images })
  if (options.formats.html) result.html = serializeHtml(content)
  if (options.formats.markdown && result.markdown?.trim() === "") {
    const filter = content === root ? undefined : hasInclude || (options.excludeTags?.length ?? 0) > 0 ? "tags" : "main"
    warnings.push(emptyWarning(root, filter, options.removeBase64Images))
  }
  if (warnings.length > 0) result.warnings = warnings
  return result
}

/**
 * Why the markdown is empty, for `warning`: the page shows no text at all (often a page that
 * scripts fill in, which a browser engine would render), the tag filters kept none of its
 * text, or main-content extraction found only navigation (see `neverEmpty` in MainContent.ts).
 */
const emptyWarning = (page: Root, filter: "tags" | "main" | undefined, removeBase64Images: boolean): string => {
  if (filter === undefined || hastToMarkdown(page, { removeBase64Images }).trim() === "") {
    return "The page has no visible text, so the markdown is empty (a page that scripts fill in needs a browser engine to render it)."
  }
  return filter === "tags"
    ? "The tag filters (includeTags, excludeTags) kept none of the page's text, so the markdown is empty."
    : "The page's visible text is all navigation and links, with no main content, so the markdown is empty (onlyMainContent: false returns it; a page that scripts fill in needs a browser engine)."
}

/**
 * Markdown of an HTML document or fragment with no main-content filtering (epub chapters,
 * `.html` uploads of fragments). Relative URLs resolve against `baseUrl` when given and stay
 * relative otherwise.
 */
export const htmlToMarkdown = (html: string, baseUrl?: string): string =>
  hastToMarkdown(cleanHtml(parseHtml(html), baseUrl).root, { removeBase64Images: false })

/**
 * The top-level blocks whose markdown `htmlToMarkdown` joins (with blank lines), each with its
 * structure where the writer knows it (paragraphs, headings, code, tables), for readers that keep blocks.
 */
export const htmlToBlocks = (html: string, baseUrl?: string): Array<WrittenBlock> =>
  hastToBlocks(cleanHtml(parseHtml(html), baseUrl).root, { removeBase64Images: false })
