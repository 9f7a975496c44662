/**
 * The wait after load, before `waitFor` and the actions: until the network has been quiet for
 * `NETWORK_QUIET_MS` and the DOM unchanged for `DOM_QUIET_MS`, or `SMART_WAIT_MAX_MS` at most.
 * The design follows Jina Reader's "resource-idle" (no new requests for 0.5 s and the DOM
 * unchanged for 0.2 s); Firecrawl's own smart wait is closed. Long-lived connections
 * (websockets, event streams) never count as pending, or a chat widget would hold every page
 * to the bound.
 *
 * The windows are short because the work still to come is tracked where it is known: requests
 * in flight, short timers and intervals armed early (below). Quiet from before the wait counts:
 * a page whose requests ended and whose DOM settled while it was parsing is done at once. bench/
 * browser's sweep (`bench/browser/wait.ts`, 30 JavaScript pages x 2, engine called directly,
 * load average 8-16 from other work): 500/300 ms counted from the wait's start brought back
 * 60/60 in 1.54x the time of a bare loop that waits for the known text; 200/150 with quiet
 * before the wait counting 60/60 in 1.25x; 150/100 and 100/100 60/60 in 1.27x and 1.25x (the
 * same within the noise; the wider windows are kept for a margin on chained requests under load).
 * A 150 ms DOM window without the interval rule missed the page that adds a paragraph every 200 ms.
 */
import { Effect } from "effect"
import type { Page, Request } from "playwright-core"
import { probe } from "./Steps.ts"

export const NETWORK_QUIET_MS = 200
export const DOM_QUIET_MS = 150
/** The bound after navigation; after an action the bound is `ACTION_SETTLE_MAX_MS`. */
export const SMART_WAIT_MAX_MS = 6000
export const ACTION_SETTLE_MAX_MS = 2000
/** After an action, quiet from before it counts up to this much (so a quiet page costs 100 ms + polling, not 200). */
export const ACTION_QUIET_CREDIT_MS = 100
/**
 * A `setTimeout` of `TIMER_MIN_MS` to `TIMER_MAX_MS` armed in the first `TIMER_ARMED_BEFORE_MS`
 * of the document holds the wait until it has fired (bench/browser: text added 700 to 1,500 ms
 * after load came back missing, the DOM had been quiet since load). Shorter timers are a frame's
 * work; longer ones and those armed later (a carousel, a poll re-arming itself) are not waited for,
 * and the wait's bound holds in any case.
 */
export const TIMER_MIN_MS = 50
export const TIMER_MAX_MS = 2000
export const TIMER_ARMED_BEFORE_MS = 3000
/**
 * A `setInterval` of `TIMER_MIN_MS` to `INTERVAL_SHORT_MS` armed early is content arriving in
 * ticks (bench/browser's interval-ticks: a paragraph every 200 ms, missed with a 150 ms DOM
 * window): while one runs, the DOM counts as quiet only once unchanged for its period and
 * `INTERVAL_MARGIN_MS` more, so a short window still waits out the gap between two ticks. Longer
 * intervals (a carousel turning every few seconds) do not hold the wait.
 */
export const INTERVAL_SHORT_MS = 400
export const INTERVAL_MARGIN_MS = 100

/** The wait's windows; `BrowserOptions.smartWait` overrides them (bench/browser sweeps them). */
export interface WaitTuning {
  /** The network must have been quiet this long. */
  readonly networkQuietMs: number
  /** And the DOM unchanged this long. */
  readonly domQuietMs: number
  /** How often the page is looked at. */
  readonly pollMs: number
  /**
   * Count quiet from the network's last activity even when it came before the wait started
   * (true), or from the wait's start (false: every render pays the whole window after load).
   */
  readonly creditBeforeWait: boolean
}

export const DEFAULT_WAIT: WaitTuning = { networkQuietMs: NETWORK_QUIET_MS, domQuietMs: DOM_QUIET_MS, pollMs: 50, creditBeforeWait: true }

/**
 * Installed in every frame before the page's own scripts: a mutation observer on the whole
 * document, read through a non-enumerable function the page is unlikely to touch.
 */
export const mutationClockScript = `(() => {
  if (Object.prototype.hasOwnProperty.call(window, "__strataQuietMs")) return
  let last = performance.now()
  new MutationObserver(() => { last = performance.now() })
    .observe(document, { subtree: true, childList: true, attributes: true, characterData: true })
  // Short timers armed early are work still to come: the DOM is not quiet while one is pending.
  const pending = new Set()
  const set = window.setTimeout, clear = window.clearTimeout
  // Methods, so that name, length and the missing prototype look like the native ones to the page.
  window.setTimeout = { setTimeout(handler) {
    const args = Array.prototype.slice.call(arguments)
    const ms = Number(args[1]) || 0
    if (typeof handler !== "function" || ms < ${TIMER_MIN_MS} || ms > ${TIMER_MAX_MS} || performance.now() > ${TIMER_ARMED_BEFORE_MS}) return set.apply(window, args)
    const id = set.apply(window, [function () { pending.delete(id); return handler.apply(this, arguments) }, ...args.slice(1)])
    pending.add(id)
    return id
  } }.setTimeout
  window.clearTimeout = { clearTimeout(id) { pending.delete(id); return clear.apply(window, arguments) } }.clearTimeout
  // Short intervals armed early, by id: their periods.
  const ticking = new Map()
  const every = window.setInterval, stop = window.clearInterval
  window.setInterval = { setInterval(handler) {
    const id = every.apply(window, arguments)
    const ms = Number(arguments[1]) || 0
    if (typeof handler === "function" && ms >= ${TIMER_MIN_MS} && ms <= ${INTERVAL_SHORT_MS} && performance.now() <= ${TIMER_ARMED_BEFORE_MS}) ticking.set(id, ms)
    return id
  } }.setInterval
  window.clearInterval = { clearInterval(id) { ticking.delete(id); return stop.apply(window, arguments) } }.clearInterval
  // The page's own fetch and XMLHttpRequest calls, seen here at once: Chromium's network events
  // reach the engine later, and under load a script's request made during parsing was not yet
  // known when the wait first looked (bench/browser: xhr-json missed once in 60 at load average 18).
  // A request's end counts as a change, so the window runs again from there while the answer is rendered.
  let inflight = 0
  const settled = () => { inflight = Math.max(0, inflight - 1); last = performance.now() }
  const nativeFetch = window.fetch
  if (typeof nativeFetch === "function") {
    window.fetch = { fetch(resource) {
      inflight++
      let answer
      try { answer = nativeFetch.apply(this, arguments) } catch (error) { settled(); throw error }
      answer.then(settled, settled)
      return answer
    } }.fetch
  }
  const nativeSend = XMLHttpRequest.prototype.send
  XMLHttpRequest.prototype.send = { send(body) {
    inflight++
    this.addEventListener("loadend", settled, { once: true })
    try { return nativeSend.apply(this, arguments) } catch (error) { settled(); throw error }
  } }.send
  const quiet = () => {
    if (pending.size > 0 || inflight > 0) return 0
    const ms = performance.now() - last
    let hold = 0
    for (const period of ticking.values()) hold = Math.max(hold, period + ${INTERVAL_MARGIN_MS})
    return ms >= hold ? ms : 0
  }
  Object.defineProperty(window, "__strataQuietMs", { value: quiet, enumerable: false })
})()`

/** Resolves once the scroll position has held for three frames (a wheel scroll is applied asynchronously), one second at most. */
const framesScript = `new Promise((resolve) => {
  let last = -1, still = 0, frames = 0
  const tick = () => {
    const now = window.scrollY + window.scrollX * 1e6
    still = now === last ? still + 1 : 0
    last = now
    if (still >= 3 || ++frames > 60) resolve(undefined)
    else requestAnimationFrame(tick)
  }
  requestAnimationFrame(tick)
})`

const longLived = new Set(["websocket", "eventsource"])

/** Counts the page's requests in flight and when the last one started or ended. */
export class NetworkTracker {
  private pending = new Set<Request>()
  private lastActivity = Date.now()

  constructor(page: Page) {
    page.on("request", (request) => {
      if (longLived.has(request.resourceType())) return
      this.pending.add(request)
      this.lastActivity = Date.now()
    })
    const done = (request: Request) => {
      if (this.pending.delete(request)) this.lastActivity = Date.now()
    }
    page.on("requestfinished", done)
    page.on("requestfailed", done)
  }

  /** Milliseconds since the network went quiet; 0 while a request is pending. */
  quietMs(): number {
    return this.pending.size > 0 ? 0 : Date.now() - this.lastActivity
  }
}

/**
 * Waits until the page settles, `maxMs` or the deadline at most; never fails. Quiet is counted
 * from the wait's start at least `sinceMs` back: after an action, the page has not yet reacted
 * (a scroll's observers, a click's fetch run a frame or two later), so quiet from before the
 * action does not count.
 */
export const settle = (page: Page, network: NetworkTracker, maxMs: number, deadline: number, sinceMs = 0, tuning: WaitTuning = DEFAULT_WAIT): Effect.Effect<void> =>
  Effect.gen(function*() {
    // Let the page run a couple of frames first: scroll, resize and intersection observers fire there.
    if (sinceMs > 0) yield* probe(() => page.evaluate(framesScript), undefined).pipe(Effect.timeoutOption(1000))
    const started = Date.now()
    const end = Math.min(started + maxMs, deadline - 250)
    const credit = sinceMs === 0 && tuning.creditBeforeWait ? Infinity : sinceMs
    const quiet = (ms: number) => Math.min(ms, Date.now() - started + credit)
    while (Date.now() < end) {
      if (quiet(network.quietMs()) >= tuning.networkQuietMs) {
        // A page busy in a loop cannot answer: treat it as not quiet, and the bound ends the wait.
        const dom = yield* probe(() => page.evaluate("window.__strataQuietMs ? window.__strataQuietMs() : 1e9") as Promise<number>, 0).pipe(
          Effect.timeoutOption(1000)
        )
        if (dom._tag === "Some" && quiet(dom.value) >= tuning.domQuietMs) return
      }
      yield* Effect.sleep(tuning.pollMs)
    }
  })
