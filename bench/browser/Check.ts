/**
 * Whether a page's sentences came back, and the one scrape call the run makes. Text on both
 * sides is reduced to lowercase letters and digits separated by single spaces, so markdown
 * escaping, line wrapping and punctuation do not decide the outcome, only the words.
 */
import { apiKey } from "../reliability/ServerProcess.ts"

export const words = (text: string): string =>
  ` ${text.toLowerCase().replace(/[^a-z0-9]+/g, " ").trim()} `

/** How many of `sentences` appear in `text` (already passed through `words`). */
export const found = (text: string, sentences: ReadonlyArray<string>): number =>
  sentences.filter((s) => text.includes(words(s))).length

/**
 * The visible text of serialized HTML, roughly: scripts, styles, templates and noscript dropped
 * (their source holds the sentences a browser has not run yet), tags removed, entities that
 * `page.content()` writes decoded.
 */
export const htmlText = (html: string): string =>
  html
    .replace(/<(script|style|template|noscript)\b[\s\S]*?<\/\1\s*>/gi, " ")
    .replace(/<[^>]+>/g, " ")
    .replace(/&nbsp;/g, " ")
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&amp;/g, "&")

export interface ScrapeAnswer {
  readonly status: number
  readonly ms: number
  readonly markdown: string
  readonly engine: string | undefined
  /** `data.warning`, when the answer has one. */
  readonly warning: string | undefined
  /** The error code and message of a failed scrape; empty on success. */
  readonly error: string
}

/** POSTs one scrape to the server (`body` as given: the url, and options where a mode adds them). */
export const scrape = async (baseUrl: string, body: Record<string, unknown>, signal?: AbortSignal): Promise<ScrapeAnswer> => {
  const started = performance.now()
  try {
    const response = await fetch(`${baseUrl}/v2/scrape`, {
      method: "POST",
      headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/json" },
      body: JSON.stringify(body),
      signal: signal ?? AbortSignal.timeout(120_000)
    })
    const text = await response.text()
    const ms = performance.now() - started
    let json: { data?: { markdown?: string; warning?: string; metadata?: { engine?: string } }; code?: string; error?: string } = {}
    try {
      json = JSON.parse(text)
    } catch {
      return { status: response.status, ms, markdown: "", engine: undefined, warning: undefined, error: `not JSON: ${text.slice(0, 120)}` }
    }
    return {
      status: response.status,
      ms,
      markdown: json.data?.markdown ?? "",
      engine: json.data?.metadata?.engine,
      warning: json.data?.warning,
      error: response.ok ? "" : `${json.code ?? "?"}: ${json.error ?? ""}`.slice(0, 300)
    }
  } catch (error) {
    return { status: 0, ms: performance.now() - started, markdown: "", engine: undefined, warning: undefined, error: `no answer: ${error instanceof Error ? error.message : String(error)}` }
  }
}

export const quantile = (values: ReadonlyArray<number>, q: number): number => {
  if (values.length === 0) return NaN
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]
}

export const median = (values: ReadonlyArray<number>): number => quantile(values, 0.5)

/** Runs `task` over `items` with at most `concurrency` at once; answers the wall time in ms. */
export const pool = async <A>(items: ReadonlyArray<A>, concurrency: number, task: (item: A) => Promise<void>): Promise<number> => {
  const started = performance.now()
  let next = 0
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, async () => {
    while (next < items.length) await task(items[next++])
  }))
  return performance.now() - started
}
