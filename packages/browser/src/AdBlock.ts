/**
 * `blockAds`: ads, trackers and cookie-consent pop-ups, with filter lists that ship inside npm
 * packages (nothing is downloaded, at install or at run time).
 *
 * - Network: the `filter` rules of Ghostery's tracker database (`@ghostery/trackerdb`,
 *   `dist/trackerdb.txt`) in the advertising, site-analytics, consent-manager and pornvertising
 *   categories. Its bare `||domain^` entries are left out: they name a company's whole domain
 *   (a bank's, a CDN's) for classification, and would block the site itself.
 * - Cosmetic: EasyList's cookie-notice rules as DuckDuckGo's autoconsent 15.1 ships them
 *   (`rules/filterlist.txt`, ~18,000 hiding rules and ~200 network rules; later versions dropped
 *   the file). A consent banner is removed from the DOM, not hidden, so its text never reaches
 *   the markdown.
 *
 * Matching is Ghostery's engine (`@ghostery/adblocker`), built once per engine from the list text
 * (measured: 230-320 ms on a loaded 2-core machine for 3,636 network and 18,396 cosmetic rules; 2 MB of
 * heap and 1.7 MB of buffers kept, RSS +50 MB after the build). Matching a request takes ~14 µs.
 */
import { FiltersEngine, Request } from "@ghostery/adblocker"
import { readFileSync } from "node:fs"
import { createRequire } from "node:module"
import type { Page } from "playwright-core"

/** The trackerdb categories whose requests `blockAds` stops. */
export const BLOCKED_CATEGORIES: ReadonlySet<string> = new Set(["advertising", "site_analytics", "consent", "pornvertising"])

export interface AdBlockerStats {
  readonly networkRules: number
  readonly cosmeticRules: number
  /** Reading the lists and building the engine, ms. */
  readonly buildMs: number
}

export interface AdBlocker {
  /** Whether the request for `url` (Playwright's resource type), made by a document at `sourceUrl`, is an ad, a tracker or a consent manager. */
  readonly blocks: (url: string, resourceType: string, sourceUrl: string) => boolean
  /** The hiding selectors for a page at `url` with these class names, ids and link targets. */
  readonly selectors: (url: string, dom: PageFeatures) => Array<string>
  readonly stats: AdBlockerStats
}

export interface PageFeatures {
  readonly classes: Array<string>
  readonly ids: Array<string>
  readonly hrefs: Array<string>
}

const require = createRequire(import.meta.url)

/** The list files, found next to their packages' entry points (neither package exports the text). */
export const listPaths = () => ({
  trackers: require.resolve("@ghostery/trackerdb").replace(/cjs[\\/]index\.js$/, "trackerdb.txt"),
  cookies: require.resolve("@duckduckgo/autoconsent/rules/rules.json").replace(/rules\.json$/, "filterlist.txt")
})

/** The `filter` rules of the blocked categories; each rule follows a `! trackerdb_id:... trackerdb_category:... trackerdb_filter` line. */
export const trackerRules = (text: string): Array<string> => {
  const lines = text.split("\n")
  const rules: Array<string> = []
  for (let i = 0; i < lines.length - 1; i++) {
    const head = /^! trackerdb_id:\S+ trackerdb_category:(\S+) trackerdb_(\S+)/.exec(lines[i])
    if (head !== null && head[2] === "filter" && BLOCKED_CATEGORIES.has(head[1]) && !lines[i + 1].startsWith("!")) rules.push(lines[i + 1].trim())
  }
  return rules
}

/** Playwright's resource types in the engine's words (the same names, less a few). */
const requestType = (resourceType: string): string =>
  resourceType === "eventsource" || resourceType === "fetch" ? "xhr"
    : resourceType === "texttrack" ? "other"
    : resourceType === "manifest" ? "other"
    : resourceType

const hostnameOf = (url: string): string => (URL.canParse(url) ? new URL(url).hostname.replace(/^\[(.*)\]$/, "$1") : "")

/** Builds the engine from the packaged lists (synchronous: ~230 ms of CPU). */
export const buildAdBlocker = (paths = listPaths()): AdBlocker => {
  const started = performance.now()
  const network = trackerRules(readFileSync(paths.trackers, "utf8"))
  const cookies = readFileSync(paths.cookies, "utf8")
  const engine = FiltersEngine.parse(`${network.join("\n")}\n${cookies}`, { loadCosmeticFilters: true, loadNetworkFilters: true, enableCompression: false })
  const buildMs = performance.now() - started
  return {
    stats: {
      networkRules: engine.getFilters().networkFilters.length,
      cosmeticRules: engine.getFilters().cosmeticFilters.length,
      buildMs
    },
    blocks: (url, resourceType, sourceUrl) =>
      engine.match(Request.fromRawDetails({ url, sourceUrl, type: requestType(resourceType) as "script" })).match,
    selectors: (url, dom) => {
      const hostname = hostnameOf(url)
      if (hostname === "") return []
      const { matches } = engine.matchCosmeticFilters({
        url,
        hostname,
        domain: hostname,
        classes: dom.classes,
        ids: dom.ids,
        hrefs: dom.hrefs,
        getRulesFromDOM: true,
        getRulesFromHostname: true,
        getInjectionRules: false,
        getExtendedRules: false
      })
      const selectors = new Set<string>()
      for (const match of matches) {
        if (match.filter === undefined || match.exception !== undefined) continue
        if (match.filter.isScriptInject() || match.filter.isUnhide()) continue
        selectors.add(match.filter.getSelector())
      }
      return [...selectors]
    }
  }
}

/** The page's class names, ids and link targets (bounded: a huge page is matched on its first few thousand). */
const featuresScript = `(() => {
  const classes = new Set(), ids = new Set(), hrefs = new Set()
  const elements = document.querySelectorAll("[id],[class],a[href]")
  for (let i = 0; i < elements.length && i < 20000; i++) {
    const element = elements[i]
    if (element.id) ids.add(element.id)
    for (const name of element.classList) classes.add(name)
    if (element.tagName === "A" && element.href) hrefs.add(element.href)
  }
  return { classes: [...classes].slice(0, 5000), ids: [...ids].slice(0, 5000), hrefs: [...hrefs].slice(0, 2000) }
})()`

/** Removes every element matching one of the selectors; a selector the browser cannot parse is skipped. Answers the count removed. */
const removeScript = (selectors: Array<string>) => `(() => {
  let removed = 0
  for (const selector of ${JSON.stringify(selectors)}) {
    let found
    try { found = document.querySelectorAll(selector) } catch { continue }
    for (const element of found) { element.remove(); removed++ }
  }
  return removed
})()`

/** Removes the page's consent banners (and other elements the cosmetic rules hide); answers how many went. */
export const removeBanners = async (page: Page, blocker: AdBlocker): Promise<number> => {
  const features = await page.evaluate(featuresScript) as PageFeatures
  const selectors = blocker.selectors(page.url(), features)
  return selectors.length === 0 ? 0 : await page.evaluate(removeScript(selectors)) as number
}
