/** The HTML stages of the web path: `processHtml` for scrapes, `htmlToMarkdown` for fragments. */
export { processHtml, htmlToMarkdown } from "./HtmlPipeline.ts"
export type { HtmlOptions, HtmlResult } from "./HtmlPipeline.ts"
export { extractMainContent } from "./MainContent.ts"
