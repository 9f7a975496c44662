/**
 * Which cached page answers which scrape: the cache key, whether a request may read or write the
 * cache, and whether a stored page is good enough for a request. Pure functions of the decoded
 * `ScrapeRequest`, following what Firecrawl's index does (../shared/NOTES-firecrawl-behaviour.md,
 * section 4):
 *
 * - the key is the normalised URL plus what changes the fetched page: `mobile`, `blockAds`, an
 *   enhanced proxy, the location (country lower-cased, default `us-generic`; languages deduplicated
 *   and sorted) and the screenshot (none, viewport or full page). Formats, `onlyMainContent`, tags,
 *   parsers and `timeout` are not in it: formats are computed again from the stored page on a hit;
 * - `waitFor` is a minimum, not part of the key: a page fetched after a longer wait answers a
 *   request for a shorter one (the wait is kept in the entry's `meta.waitMs`);
 * - a hit must be younger than `maxAge` (0 = always fetch) and, with `minAge`, older than it.
 */
import { createHash } from "node:crypto"
import type { ScrapeRequest } from "../contract/Request.ts"

/**
 * The URL as the cache knows it: the fragment dropped unless it is a single-page-app route
 * (`#/`, `#!/`), `https` forced, ports 80 and 443 and a leading `www.` dropped, a trailing
 * `/index.html` (`.htm`, `.php`, `.shtml`, `.xml`) and then a trailing `/` dropped. The query is
 * kept exactly as it is: its order can matter to the site.
 */
export const normalizeCacheUrl = (url: string): string => {
  const parsed = new URL(url)
  const hash = parsed.hash.startsWith("#/") || parsed.hash.startsWith("#!/") ? parsed.hash : ""
  const host = parsed.hostname.replace(/^www\./, "")
  const port = parsed.port === "" || parsed.port === "80" || parsed.port === "443" ? "" : `:${parsed.port}`
  const path = parsed.pathname.replace(/\/index\.(html|htm|php|shtml|xml)$/, "/").replace(/\/+$/, "")
  return `https://${host}${port}${path}${parsed.search}${hash}`
}

/** The parts of a request that change what is fetched, in the form the key is made from. */
export interface CacheVariant {
  readonly url: string
  readonly mobile: boolean
  readonly blockAds: boolean
  readonly enhancedProxy: boolean
  readonly country: string
  readonly languages: ReadonlyArray<string> | null
  readonly screenshot: "none" | "viewport" | "fullPage"
}

const screenshotOf = (request: ScrapeRequest) => {
  const format = request.formats.find((f) => f.type === "screenshot")
  return format === undefined ? undefined : format as Extract<ScrapeRequest["formats"][number], { type: "screenshot" }>
}

export const cacheVariant = (request: ScrapeRequest): CacheVariant => {
  const screenshot = screenshotOf(request)
  const languages = [...new Set(request.location?.languages ?? [])].sort()
  return {
    url: normalizeCacheUrl(request.url),
    mobile: request.mobile,
    blockAds: request.blockAds,
    enhancedProxy: request.proxy === "enhanced",
    country: request.location?.country.toLowerCase() ?? "us-generic",
    languages: languages.length === 0 ? null : languages,
    screenshot: screenshot === undefined ? "none" : screenshot.fullPage ? "fullPage" : "viewport"
  }
}

/** The store key of a variant: SHA-256 (hex) of its fields in a fixed order. */
export const cacheKeyOf = (variant: CacheVariant): string =>
  createHash("sha256").update(JSON.stringify([
    variant.url,
    variant.mobile,
    variant.blockAds,
    variant.enhancedProxy,
    variant.country,
    variant.languages,
    variant.screenshot
  ])).digest("hex")

export const cacheKey = (request: ScrapeRequest): string => cacheKeyOf(cacheVariant(request))

/**
 * Whether a request may be answered from the cache (`read`) and may leave its page there
 * (`write`). Reads are off for `maxAge: 0`, custom headers, actions, a profile, change tracking,
 * branding, a screenshot with its own viewport or quality, and PDF parsers that ask for pages,
 * blocks or page markers (the cache keeps the fetched page, not those); writes are off for
 * `storeInCache: false` (which headers, actions and zero data retention force), a profile, such
 * screenshots and such parsers, and PDF page caps.
 */
export const cacheUse = (request: ScrapeRequest): { readonly read: boolean; readonly write: boolean } => {
  const screenshot = screenshotOf(request)
  const customScreenshot = screenshot !== undefined && (screenshot.viewport !== undefined || screenshot.quality !== undefined)
  const pdfParts = request.parsers.some((p) => p.type === "pdf" && (p.pages || p.blocks || p.pageMarkers))
  const pdfCap = request.parsers.some((p) => p.type === "pdf" && p.maxPages !== undefined)
  const hasHeaders = request.headers !== undefined && Object.keys(request.headers).length > 0
  const hasActions = request.actions !== undefined && request.actions.length > 0
  const tracksChanges = request.formats.some((f) => f.type === "changeTracking" || f.type === "branding")
  const shared = !hasHeaders && !hasActions && request.profile === undefined && !customScreenshot && !pdfParts
  return {
    read: shared && request.maxAge > 0 && !tracksChanges,
    write: shared && request.storeInCache && !request.zeroDataRetention && !pdfCap
  }
}

/** Whether the request must be answered from the cache alone (a miss is an error, nothing is fetched). */
export const cacheOnly = (request: ScrapeRequest): boolean => request.lockdown || request.minAge !== undefined

/**
 * Whether a stored page answers the request at `now` (epoch ms): young enough for `maxAge`, old
 * enough for `minAge`, fetched after at least the wait asked for.
 */
export const cacheHitFits = (
  request: ScrapeRequest,
  page: { readonly fetchedAt: number; readonly meta?: Readonly<Record<string, unknown>> },
  now: number
): boolean => {
  const age = now - page.fetchedAt
  const waited = typeof page.meta?.waitMs === "number" ? page.meta.waitMs : 0
  return age <= request.maxAge && (request.minAge === undefined || age >= request.minAge) && waited >= request.waitFor
}
