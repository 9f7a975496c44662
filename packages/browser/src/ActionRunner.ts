/**
 * Runs a request's actions in order on the page, with Firecrawl's Playwright semantics (see
 * NOTES-firecrawl-behaviour 3.2): `write` types into the focused element, `scroll` without a
 * selector turns the mouse wheel by 800 px, `executeJavascript` runs its script as the body of
 * an async function (so `return` gives the value), `click` with no match does nothing. After an
 * action that can change the page, the page settles briefly (`ACTION_SETTLE_MAX_MS`).
 *
 * A click that opens a new tab (a `target="_blank"` link, `window.open`) moves the run there: the
 * actions after it, the screenshot and the content read the new tab, once it has loaded and
 * settled; the first tab stays open behind it. (Firecrawl's engine is closed on this point.)
 *
 * A failing action stops the run with `BrowserFailed` naming its index and type; the deadline
 * and a crash keep their own reasons. The total of the waits was checked when the request was
 * decoded (60 s at most).
 */
import { type ActionOutput, type BrowserFile, BrowserFailed, type ResolvedAction, type ScreenshotOptions, scrapeError, type ScrapeError } from "@strata/core"
import { Effect } from "effect"
import type { Page, Response } from "playwright-core"
import { ACTION_QUIET_CREDIT_MS, ACTION_SETTLE_MAX_MS, NetworkTracker, settle, SMART_WAIT_MAX_MS } from "./SmartWait.ts"
import { contentOf, messageOf, probe, remaining, type Run, step } from "./Steps.ts"

/** A tab: its page, its requests in flight, and its main document's last response. */
export interface Tab {
  readonly page: Page
  readonly network: NetworkTracker
  readonly main: () => Response | null
}

/** Follows a page from its creation: requests in flight and the main document's response (an action may navigate). */
export const trackTab = (page: Page): Tab => {
  const network = new NetworkTracker(page)
  let main: Response | null = null
  page.on("response", (r) => {
    if (r.request().isNavigationRequest() && r.frame() === page.mainFrame()) main = r
  })
  return { page, network, main: () => main }
}

/**
 * The tab the actions act on, and every tab the page opened, in order. `requested` counts the
 * windows the pages asked for (CDP `Page.windowOpen`, sent as the click is handled): Playwright
 * reports the new tab itself only once it has set it up, which under load came after the click
 * had settled, and the run stayed on the opener (a full-suite run at load average 13).
 */
export interface Tabs {
  current: Tab
  readonly opened: Array<Tab>
  requested: number
}

/** How long a tab a click opened may take to show its document. */
const NEW_TAB_LOAD_MS = 10_000

/** How long a click may wait for its element to become clickable, within the deadline. */
const CLICK_TIMEOUT_MS = 10_000
/** A selector wait gives up after 30 s, as Firecrawl's documentation says. */
const SELECTOR_WAIT_MS = 30_000
const WHEEL_PX = 800

const actionFailed = (index: number, action: ResolvedAction, error: unknown): ScrapeError =>
  scrapeError(new BrowserFailed({
    kind: "action",
    message: `Action ${index} (${action.type}) failed: ${messageOf(error)}`,
    action: { index, type: action.type }
  }))

/** A screenshot, PNG unless a JPEG quality is given; the viewport is resized first when asked. */
export const screenshot = (page: Page, options: ScreenshotOptions, run: Run, otherwise?: (error: unknown) => ScrapeError): Effect.Effect<BrowserFile, ScrapeError> =>
  Effect.gen(function*() {
    if (options.viewport !== undefined) {
      const viewport = options.viewport
      yield* step(run, () => page.setViewportSize(viewport), otherwise)
    }
    const jpeg = options.quality !== undefined
    const bytes = yield* step(run, () =>
      page.screenshot({
        fullPage: options.fullPage,
        type: jpeg ? "jpeg" : "png",
        ...(jpeg ? { quality: options.quality } : {}),
        timeout: remaining(run)
      }), otherwise)
    return { bytes: new Uint8Array(bytes), contentType: jpeg ? "image/jpeg" : "image/png" }
  })

/** The value of `executeJavascript`, tagged with its JavaScript type as Firecrawl's engine does. */
const scriptExpression = (script: string): string =>
  `(async () => { const value = await (async () => {\n${script}\n})(); return { type: value === null ? "null" : typeof value, value } })()`

const runOne = (tabs: Tabs, action: ResolvedAction, index: number, run: Run): Effect.Effect<ReadonlyArray<ActionOutput>, ScrapeError> => {
  const { page, network } = tabs.current
  const fail = (error: unknown) => actionFailed(index, action, error)
  const settled = (outputs: ReadonlyArray<ActionOutput> = []) => Effect.as(settle(page, network, ACTION_SETTLE_MAX_MS, run.deadline, ACTION_QUIET_CREDIT_MS), outputs)
  switch (action.type) {
    case "wait":
      if (action.milliseconds !== undefined) return Effect.as(Effect.sleep(Math.min(action.milliseconds, remaining(run))), [])
      return step(run, () => page.waitForSelector(action.selector, { state: "visible", timeout: Math.min(SELECTOR_WAIT_MS, remaining(run)) }), fail).pipe(Effect.as([]))
    case "screenshot":
      return Effect.map(screenshot(page, action, run, fail), (file) => [{ _tag: "Screenshot", index, file }])
    case "click":
      return Effect.gen(function*() {
        const matches = page.locator(action.selector)
        const count = yield* step(run, () => matches.count(), fail)
        const targets = action.all ? count : Math.min(count, 1)
        const tabsBefore = tabs.opened.length
        const requestedBefore = tabs.requested
        for (let i = 0; i < targets; i++) {
          yield* step(run, () => matches.nth(i).click({ timeout: Math.min(CLICK_TIMEOUT_MS, remaining(run)) }), fail)
        }
        yield* settled()
        // A window was asked for and Playwright has not reported its tab yet: wait for it.
        const asked = Date.now()
        while (tabs.opened.length === tabsBefore && tabs.requested > requestedBefore && Date.now() - asked < Math.min(NEW_TAB_LOAD_MS, remaining(run))) {
          yield* Effect.sleep(20)
        }
        if (tabs.opened.length === tabsBefore) return []
        // The click opened a tab: the run goes on there, once its document is in and it has settled.
        const tab = tabs.opened[tabs.opened.length - 1]
        yield* probe(() => tab.page.waitForLoadState("domcontentloaded", { timeout: Math.min(NEW_TAB_LOAD_MS, remaining(run)) }), undefined)
        tabs.current = tab
        return yield* Effect.as(settle(tab.page, tab.network, SMART_WAIT_MAX_MS, run.deadline), [])
      })
    case "write":
      return step(run, () => page.keyboard.type(action.text), fail).pipe(Effect.andThen(settled()))
    case "press":
      return step(run, () => page.keyboard.press(action.key), fail).pipe(Effect.andThen(settled()))
    case "scroll": {
      const sign = action.direction === "up" ? -1 : 1
      const selector = action.selector
      const scroll = selector === undefined
        ? step(run, () => page.mouse.wheel(0, sign * WHEEL_PX), fail)
        : step(run, () =>
          page.evaluate(([selector, sign]) => {
            const element = document.querySelector(selector)
            if (element === null) throw new Error(`no element matches ${selector}`)
            element.scrollBy(0, sign * window.innerHeight)
          }, [selector, sign] as const), fail)
      return Effect.andThen(scroll, settled())
    }
    case "scrape":
      return Effect.gen(function*() {
        const html = yield* step(run, () => contentOf(page, run), fail)
        return [{ _tag: "Scrape", index, url: page.url(), html }]
      })
    case "executeJavascript":
      return Effect.gen(function*() {
        const result = yield* step(run, () => page.evaluate(scriptExpression(action.script)) as Promise<{ type: string; value: unknown }>, (error) =>
          actionFailed(index, action, new Error(`Javascript execution failed: ${messageOf(error)}`)))
        return yield* settled([{ _tag: "JavascriptReturn", index, type: result.type, value: result.value ?? null }])
      })
    case "pdf":
      return Effect.gen(function*() {
        const bytes = yield* step(run, () => page.pdf({ format: action.format, landscape: action.landscape, scale: action.scale, printBackground: true }), fail)
        return [{ _tag: "Pdf", index, file: { bytes: new Uint8Array(bytes), contentType: "application/pdf" } }]
      })
  }
}

/** Runs the actions in order; what they produced, in action order. */
export const runActions = (tabs: Tabs, actions: ReadonlyArray<ResolvedAction>, run: Run): Effect.Effect<Array<ActionOutput>, ScrapeError> =>
  Effect.gen(function*() {
    const outputs: Array<ActionOutput> = []
    for (const [index, action] of actions.entries()) outputs.push(...(yield* runOne(tabs, action, index, run)))
    return outputs
  })
