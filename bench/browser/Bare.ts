/**
 * The baseline Strata is held to: a bare Playwright loop in this process on the same Chromium,
 * one context per page, `goto(url, { waitUntil: "load" })` then `content()`. "simple" is exactly
 * that; "content" also waits (up to `CONTENT_WAIT_MS`) until the page's sentences are in the DOM,
 * shadow roots included, which is the fairest floor when "simple" returns too early: a wait that
 * knows the answer. "idle" is `goto(url, { waitUntil: "networkidle" })` (no request for 500 ms),
 * Playwright's own generic wait, close to what Strata's smart wait does without knowing the
 * answer. None goes through a proxy, fetches the page first or writes markdown.
 */
import { type Browser, chromium } from "playwright-core"
import { found, htmlText, words } from "./Check.ts"

export type BareVariant = "simple" | "content" | "idle"

export const CONTENT_WAIT_MS = 8000

export interface BareAnswer {
  readonly ms: number
  readonly found: number
  readonly error: string
}

export const launchBare = (chromiumPath: string): Promise<Browser> =>
  chromium.launch({ executablePath: chromiumPath, headless: true, args: ["--disable-dev-shm-usage"] })

/** Every text node's words, open shadow roots included (run in the page). */
const allTextScript = (wanted: ReadonlyArray<string>) =>
  `(() => {
    const parts = []
    const walk = (node) => {
      if (node.nodeType === 3) parts.push(node.data)
      if (node.nodeName === "SCRIPT" || node.nodeName === "STYLE" || node.nodeName === "TEMPLATE") return
      if (node.shadowRoot) walk(node.shadowRoot)
      for (const child of node.childNodes) walk(child)
    }
    walk(document.documentElement)
    const text = " " + parts.join(" ").toLowerCase().replace(/[^a-z0-9]+/g, " ").trim() + " "
    return ${JSON.stringify(wanted.map(words))}.every((w) => text.includes(w))
  })()`

export const bareScrape = async (browser: Browser, url: string, sentences: ReadonlyArray<string>, variant: BareVariant): Promise<BareAnswer> => {
  const started = performance.now()
  const context = await browser.newContext()
  let html = ""
  let error = ""
  try {
    const page = await context.newPage()
    await page.goto(url, { waitUntil: variant === "idle" ? "networkidle" : "load", timeout: 30_000 })
    if (variant === "content") {
      await page.waitForFunction(allTextScript(sentences), undefined, { timeout: CONTENT_WAIT_MS, polling: 50 }).catch(() => undefined)
    }
    html = await page.content()
  } catch (cause) {
    error = cause instanceof Error ? cause.message.slice(0, 200) : String(cause)
  } finally {
    // Strata closes its context before it answers, so the close counts here too.
    await context.close().catch(() => undefined)
  }
  return { ms: performance.now() - started, found: found(words(htmlText(html)), sentences), error }
}
