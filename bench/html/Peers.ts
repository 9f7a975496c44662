/**
 * The peer extractors the HTML benches run beside ours, each from a page's HTML (and URL) to
 * markdown: Readability.js on linkedom with turndown, and defuddle on linkedom with its own
 * markdown (bench/html/run.ts on WCXB, bench/html/readabilityPages.ts on Readability's pages).
 */
import { createRequire } from "node:module"
import { Readability } from "@mozilla/readability"
import { Defuddle } from "defuddle/node"
import { parseHTML } from "linkedom"

export type Engine = (html: string, url: string) => string | Promise<string>

const require = createRequire(import.meta.url)
const TurndownService = require("turndown") as new (options?: object) => { turndown(html: string): string }
const turndown = new TurndownService({ headingStyle: "atx", codeBlockStyle: "fenced" })

export const readabilityEngine: Engine = (html) => {
  const { document } = parseHTML(html)
  const article = new Readability(document as unknown as Document).parse()
  return article?.content ? turndown.turndown(article.content) : ""
}

/**
 * defuddle 0.19 on linkedom, its own markdown (as its CLI writes it). The document gets the two
 * polyfills defuddle's own linkedom path applies (utils/linkedom-compat: styleSheets,
 * getComputedStyle) and the page's URL.
 */
export const defuddleEngine: Engine = async (html, url) => {
  const { document } = parseHTML(html)
  const doc = document as unknown as { styleSheets?: unknown; defaultView?: { getComputedStyle?: unknown }; URL: string }
  if (!doc.styleSheets) doc.styleSheets = []
  if (doc.defaultView && !doc.defaultView.getComputedStyle) doc.defaultView.getComputedStyle = () => ({ display: "" })
  if (url !== "") doc.URL = url
  // useAsync: false: its site extractors would otherwise fetch third-party APIs (a reddit page
  // asked www.reddit.com) when the HTML alone gives them too little. The bench stays offline.
  const result = await Defuddle(document as unknown as Document, url, { markdown: true, useAsync: false })
  return result.content ?? ""
}
