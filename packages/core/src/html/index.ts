/**
 * The HTML stages of the web path: `processHtml` for scrapes (HtmlPipeline.ts, which documents
 * how includeTags / excludeTags / onlyMainContent combine), `htmlToMarkdown` for fragments and
 * `htmlToBlocks` for EPUB chapters. Stages: HtmlParser (htmlparser2 -> hast), HtmlMetadata, HtmlClean (URLs,
 * srcset, lazy images), HtmlLinks, TagFilter, MainContent*, HastToMarkdown (+ MarkdownInline,
 * MarkdownEscape, MarkdownTable, MarkdownCode) and HtmlSerialize.
 */
export { processHtml, processHtmlYielding, htmlToBlocks, htmlToMarkdown } from "./HtmlPipeline.ts"
export type { WrittenBlock } from "./HastToMarkdown.ts"
export type { HtmlOptions, HtmlResult } from "./HtmlPipeline.ts"
export { extractMainContent } from "./MainContent.ts"
export { CosmeticFilter, type CosmeticMatcher, type CosmeticRules, hideCosmetic, noCosmeticRules, pageFeatures, type PageFeatures } from "./CosmeticFilter.ts"
