/**
 * What a scrape or parse costs in credits. The content's own cost comes from the pipeline in
 * `metadata.creditsUsed` (1, or 1 per page of a PDF read with the `pdf` parser, a flat 1 for a PDF
 * returned as Base64 with `parsers: []`); the options add to it as Firecrawl's
 * `calculateCreditsToBeBilled` does (notes 8.1):
 *
 * - `json` (or `changeTracking` in `json` mode) makes the base 5 (+4);
 * - `question`, `query`, `highlights`, `audio`, `video`: +4 each;
 * - `redactPII`: +4, and +4 for each PDF page past the first;
 * - zero data retention (asked for, or the team's): +1, except under lockdown;
 * - `lockdown`: +4 on a hit (5 for a plain page); a miss, though an error, costs 1.
 *
 * `summary`, `branding`, `screenshot`, `changeTracking` git-diff, `product` and `menu` cost nothing
 * extra. A failed request costs nothing, except a lockdown miss.
 *
 * An interact call (`interactCost`) is charged for its browser time, as below.
 */
import { type CommonOptions, getFormat, hasFormat, type ScrapeData } from "@strata/core"

/** The options that decide the cost: parse options have no `lockdown`. */
export type BilledOptions = CommonOptions & { readonly lockdown?: boolean }

/** What the options add on top of the content's own cost, for a document of `pages` pages. */
const optionCredits = (options: BilledOptions, pages: number, zdr: boolean): number => {
  let extra = 0
  const changeTracking = getFormat(options, "changeTracking")
  if (hasFormat(options, "json") || changeTracking?.modes.includes("json") === true) extra += 4
  for (const type of ["question", "query", "highlights", "audio", "video"] as const) {
    if (hasFormat(options, type)) extra += 4
  }
  if (options.redactPII !== undefined) extra += 4 + 4 * Math.max(0, pages - 1)
  if (options.lockdown === true) extra += 4
  else if (zdr || options.zeroDataRetention) extra += 1
  return extra
}

/**
 * The least a request can cost, known before anything runs (a one-page result; for lockdown, a
 * miss): a team whose balance is below it gets 402 with nothing executed.
 */
export const minimumCost = (options: BilledOptions, teamZdr: boolean): number =>
  options.lockdown === true ? 1 : 1 + optionCredits(options, 1, teamZdr)

/** What a successful request costs, from what it produced. */
export const costOf = (options: BilledOptions, data: ScrapeData, teamZdr: boolean): number => {
  const metadata = data.metadata
  const content = typeof metadata?.creditsUsed === "number" && metadata.creditsUsed >= 1 ? Math.ceil(metadata.creditsUsed) : 1
  const pages = typeof metadata?.numPages === "number" && metadata.numPages > 1 ? metadata.numPages : 1
  return content + optionCredits(options, pages, teamZdr)
}

/** What a failed request costs: nothing, except a lockdown miss (the cache was searched). */
export const failureCost = (code: unknown): number => code === "SCRAPE_LOCKDOWN_CACHE_MISS" ? 1 : 0

/**
 * Interact's rate: Firecrawl bills 2 credits per browser-minute of a code-only session (7 once a
 * prompt ran), at least one minute, when the session stops (notes 3.5). Here each call is charged
 * once, when it ends, for its own time (opening the session and replaying the scrape included):
 * 2 credits per started minute, at most its time limit's worth, so the check before it runs
 * (`interactLeast`) covers it. Idle time between calls is not billed.
 */
export const INTERACT_CREDITS_PER_MINUTE = 2

/** What an interact call that took `durationMs`, under a limit of `timeoutMs`, costs. */
export const interactCost = (durationMs: number, timeoutMs: number): number =>
  INTERACT_CREDITS_PER_MINUTE * Math.max(1, Math.ceil(Math.min(durationMs, timeoutMs) / 60_000))

/** The most a call with this time limit can cost: a team with less gets 402 before it runs. */
export const interactLeast = (timeoutMs: number): number => interactCost(timeoutMs, timeoutMs)

/** The options metering reads for an interact call (its time limit; nothing it adds to the price). */
export const interactBilling = (timeout: number): BilledOptions => ({
  formats: [],
  onlyMainContent: true,
  parsers: [],
  removeBase64Images: true,
  skipTlsVerification: false,
  blockAds: false,
  timeout,
  zeroDataRetention: false,
  domainTools: false
})
