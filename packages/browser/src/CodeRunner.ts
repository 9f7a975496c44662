/**
 * Runs an interact call's `code` in the session's page: JavaScript evaluated in the page's own
 * world (what the page's scripts can do, nothing more; every request it makes still goes
 * through the SSRF proxy), as the body of an async function, so `return` gives the result.
 *
 * The console is captured around the run (log, info and debug to stdout, warn and error to
 * stderr, at most `MAX_OUTPUT_CHARS` in all). A thrown error is stderr and exit code 1; a run past its time limit is `killed`, exit
 * code 124. A run that is stuck in a synchronous loop holds the page's only thread, so it is
 * stopped with CDP's `Runtime.terminateExecution`, after a probe shows the thread is busy (sent
 * when it is idle, the termination would land on the page's next script instead). The session
 * survives both.
 */
import type { CodeOutcome } from "@strata/core"
import { Effect, Option } from "effect"
import type { CDPSession, Page } from "playwright-core"
import { messageOf, probe } from "./Steps.ts"

/** Each of stdout and stderr keeps at most this many characters; the result at most `MAX_RESULT_CHARS`. */
export const MAX_OUTPUT_CHARS = 1_000_000
export const MAX_RESULT_CHARS = 10_000_000

/** How long a probe may wait for the page's thread before the run is taken to be stuck, ms. */
const BUSY_PROBE_MS = 500

const captureKey = `Symbol.for("strata.interact.console")`

/** Replaces the console methods with ones that also record, until `collectCapture`. */
const installCapture = `(() => {
  const key = ${captureKey}
  const previous = globalThis[key]
  if (previous !== undefined) for (const [method, original] of Object.entries(previous.saved)) console[method] = original
  const state = { stdout: [], stderr: [], size: 0, truncated: false, saved: {} }
  const text = (value) => {
    if (typeof value === "string") return value
    try {
      const json = JSON.stringify(value)
      return json === undefined ? String(value) : json
    } catch {
      return String(value)
    }
  }
  for (const [method, stream] of [["log", "stdout"], ["info", "stdout"], ["debug", "stdout"], ["warn", "stderr"], ["error", "stderr"]]) {
    const original = console[method]
    state.saved[method] = original
    // Recorded, not passed on: each call passed to Chromium's console is a CDP event to Playwright,
    // and 150,000 of them took over 30 s where recording alone takes milliseconds.
    console[method] = (...args) => {
      if (state.truncated) return
      const line = args.map(text).join(" ")
      if (state.size + line.length + 1 <= ${MAX_OUTPUT_CHARS}) {
        state[stream].push(line)
        state.size += line.length + 1
      } else state.truncated = true
    }
  }
  globalThis[key] = state
})()`

/** Puts the console back and returns what was recorded (nothing when the code navigated away). */
const collectCapture = `(() => {
  const key = ${captureKey}
  const state = globalThis[key]
  if (state === undefined) return { stdout: "", stderr: "", truncated: false }
  for (const [method, original] of Object.entries(state.saved)) console[method] = original
  delete globalThis[key]
  const lines = (list) => list.map((line) => line + "\\n").join("")
  return { stdout: lines(state.stdout), stderr: lines(state.stderr), truncated: state.truncated }
})()`

/** The code as an async function's body, its value or error turned into text inside the page (DOM nodes as their HTML). */
const wrapped = (code: string) => `(async () => {
  const format = (value) => {
    if (value === undefined) return null
    if (typeof value === "string") return value
    if (typeof Node !== "undefined" && value instanceof Node) return value.outerHTML ?? value.textContent
    try {
      const json = JSON.stringify(value)
      return json === undefined ? String(value) : json
    } catch {
      return String(value)
    }
  }
  try {
    const value = format(await (async () => {
${code}
    })())
    const truncated = value !== null && value.length > ${MAX_RESULT_CHARS}
    return { ok: true, value: truncated ? value.slice(0, ${MAX_RESULT_CHARS}) : value, truncated }
  } catch (error) {
    return { ok: false, error: error instanceof Error ? String(error) : "Uncaught " + format(error) }
  }
})()`

type Evaluated = { readonly ok: true; readonly value: string | null; readonly truncated: boolean } | { readonly ok: false; readonly error: string }

/** What a run did; `stuck` when the page's thread could not be freed (the session is then no use). */
export type RunOutcome = Omit<CodeOutcome, "sessionId"> & { readonly stuck: boolean }

/** Whether the page's thread answers within `ms`. */
const answers = (cdp: CDPSession, ms: number): Effect.Effect<boolean> =>
  Effect.promise(() => cdp.send("Runtime.evaluate", { expression: "0" }).then(() => true, () => true)).pipe(
    Effect.timeoutOption(ms),
    Effect.map(Option.isSome)
  )

/** After a timeout: stops a script still holding the thread; false when even that did not free it. */
const unstick = (cdp: CDPSession): Effect.Effect<boolean> =>
  Effect.gen(function*() {
    if (yield* answers(cdp, BUSY_PROBE_MS)) return true
    yield* probe(() => cdp.send("Runtime.terminateExecution"), undefined)
    return yield* answers(cdp, 5_000)
  })

const lineOf = (text: string) => (text === "" || text.endsWith("\n") ? text : `${text}\n`)

/** How long the page may take to start a run before its thread is taken to be held by its own script, ms. */
const START_MS = 5_000

/** A run given up (the client went away): its script is stopped if it holds the thread, and the console put back. */
const abandon = (page: Page, cdp: CDPSession): Effect.Effect<void> =>
  Effect.gen(function*() {
    if (page.isClosed()) return
    if (yield* unstick(cdp)) yield* probe(() => page.evaluate(collectCapture), undefined).pipe(Effect.timeoutOption(1_000))
  })

/** Runs `code` in `page` for at most `timeoutMs`; interrupted, it leaves no loop holding the page. */
export const runCode = (page: Page, cdp: CDPSession, code: string, timeoutMs: number): Effect.Effect<RunOutcome> =>
  Effect.gen(function*() {
    const started = yield* Effect.promise(() => page.evaluate(installCapture).then(() => undefined, (error: unknown) => messageOf(error))).pipe(
      Effect.timeoutOption(START_MS)
    )
    if (Option.isNone(started)) {
      // The page's own script holds its thread: stop it, and say so.
      const freed = yield* unstick(cdp)
      return { result: null, stdout: "", stderr: lineOf(`The session's page did not respond within ${START_MS} ms (its own script was busy${freed ? " and has been stopped" : ""}); run the code again`), exitCode: 1, killed: false, truncated: false, stuck: !freed }
    }
    const installed = started.value
    if (installed !== undefined) {
      return { result: null, stdout: "", stderr: lineOf(`The session's page cannot run code: ${installed}`), exitCode: 1, killed: false, truncated: false, stuck: page.isClosed() }
    }
    const evaluated = yield* Effect.promise(() =>
      (page.evaluate(wrapped(code)) as Promise<Evaluated>).catch((error: unknown): Evaluated => ({ ok: false, error: messageOf(error).replace(/^page\.evaluate: /, "") }))
    ).pipe(Effect.timeoutOption(Math.max(1, timeoutMs)))
    const freed = Option.isSome(evaluated) ? true : yield* unstick(cdp)
    const captured = freed
      ? yield* probe(() => page.evaluate(collectCapture) as Promise<{ stdout: string; stderr: string; truncated: boolean }>, { stdout: "", stderr: "", truncated: false })
      : { stdout: "", stderr: "", truncated: false }
    const stderr = captured.stderr + (captured.truncated ? `[console output truncated at ${MAX_OUTPUT_CHARS} characters]\n` : "")
    if (Option.isNone(evaluated)) {
      return {
        result: null,
        stdout: captured.stdout,
        stderr: stderr + lineOf(`The code did not finish within its time limit of ${timeoutMs} ms and was stopped`),
        exitCode: 124,
        killed: true,
        truncated: captured.truncated,
        stuck: !freed
      }
    }
    const outcome = evaluated.value
    return outcome.ok
      ? { result: outcome.value, stdout: captured.stdout, stderr, exitCode: 0, killed: false, truncated: captured.truncated || outcome.truncated, stuck: false }
      : { result: null, stdout: captured.stdout, stderr: stderr + lineOf(outcome.error), exitCode: 1, killed: false, truncated: captured.truncated, stuck: page.isClosed() }
  }).pipe(Effect.onInterrupt(() => abandon(page, cdp)))
