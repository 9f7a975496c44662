/**
 * One Playwright call as one Effect step: bounded by the request's deadline, and its failure
 * named in the pipeline's words. Chromium gone (the process exited or was killed) is `crashed`
 * whatever the call was; a Playwright timeout at the deadline is the request's `TimedOut`.
 */
import { BrowserFailed, scrapeError, type ScrapeError, StageFailed, TimedOut } from "@strata/core"
import { Effect } from "effect"
import { type Browser, errors, type Page } from "playwright-core"
import { composedHtml } from "./ComposedHtml.ts"

export interface Run {
  readonly browser: Browser
  /** Epoch ms by which the whole render must be done. */
  readonly deadline: number
  readonly url: string
}

/** Milliseconds left before the deadline, at least 1 (Playwright reads 0 as "no timeout"). */
export const remaining = (run: Run): number => Math.max(1, run.deadline - Date.now())

export const messageOf = (error: unknown): string => (error instanceof Error ? error.message : String(error)).split("\n")[0]

export const crashed = (run: Run): ScrapeError =>
  scrapeError(new BrowserFailed({
    kind: "crashed",
    message: `Chromium exited while rendering ${run.url}; the next request starts a new browser`
  }))

export const timedOut = (run: Run): ScrapeError =>
  scrapeError(new TimedOut({ message: `Rendering ${run.url} in the browser did not finish within the request's timeout` }))

const isTimeout = (error: unknown): boolean => error instanceof errors.TimeoutError

/**
 * The failure of a step: a crash and the deadline first, then what `otherwise` makes of it
 * (by default, the browser stage failed with Playwright's message).
 */
export const failureOf = (run: Run, error: unknown, otherwise?: (error: unknown) => ScrapeError): ScrapeError => {
  if (!run.browser.isConnected()) return crashed(run)
  if (isTimeout(error) && Date.now() >= run.deadline - 100) return timedOut(run)
  if (otherwise !== undefined) return otherwise(error)
  return scrapeError(new StageFailed({ stage: "browser", message: messageOf(error) }))
}

/** Runs a Playwright call as a step. */
export const step = <A>(run: Run, call: () => Promise<A>, otherwise?: (error: unknown) => ScrapeError): Effect.Effect<A, ScrapeError> =>
  Effect.tryPromise({ try: call, catch: (error) => failureOf(run, error, otherwise) })

/** A step whose failure does not matter (best-effort clean-up and probes): its value, or `fallback`. */
export const probe = <A>(call: () => Promise<A>, fallback: A): Effect.Effect<A> =>
  Effect.promise(() => call().catch(() => fallback))

/**
 * The page's HTML, open shadow roots included (`ComposedHtml.ts`). A navigation an action started
 * may still be under way ("the page is navigating"): wait for its document once, then read again.
 */
export const contentOf = (page: Page, run: Run): Promise<string> =>
  composedHtml(page).catch(async () => {
    await page.waitForLoadState("domcontentloaded", { timeout: remaining(run) }).catch(() => undefined)
    return composedHtml(page)
  })
