/**
 * The `links` format: every hyperlink of the whole page (not only the main content), taken from
 * the cleaned tree, where hrefs are already absolute. Fragments are dropped (`/a#x` and `/a#y`
 * are one page) and the list is deduplicated in document order. `mailto:` and `tel:` links are
 * kept; `javascript:`, `data:` and other non-navigable schemes are not, and neither are
 * in-page anchors (`#top`, resolved to the page's own URL plus a fragment).
 */
import type { Element, Root } from "hast"
import { stringProp } from "./HtmlNodes.ts"

const KEPT_SCHEMES = new Set(["http:", "https:", "mailto:", "tel:", "ftp:"])

export const collectLinks = (root: Root, pageUrl: string): Array<string> => {
  const page = URL.parse(pageUrl)
  if (page !== null) page.hash = ""
  const pageHref = page?.href
  const seen = new Set<string>()
  const out: Array<string> = []
  const visit = (parent: Root | Element): void => {
    for (const child of parent.children) {
      if (child.type !== "element") continue
      if (child.tagName === "a" || child.tagName === "area") {
        const href = stringProp(child, "href")?.trim()
        if (href !== undefined && href !== "") {
          const url = URL.parse(href)
          if (url !== null && KEPT_SCHEMES.has(url.protocol)) {
            const anchored = url.hash !== "" || href.endsWith("#")
            url.hash = ""
            const link = url.href
            if (!seen.has(link) && !(anchored && link === pageHref)) {
              seen.add(link)
              out.push(link)
            }
          }
        }
      }
      visit(child)
    }
  }
  visit(root)
  return out
}
