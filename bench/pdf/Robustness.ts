/**
 * The robustness run over odd PDFs (pdf.js's own test files): every file is read in a child
 * process with a time budget; the parent counts results, clean errors (a DocumentError with its
 * reason), crashes (anything else, or the child dying) and time-outs (the reader's own Timeout, or
 * the watchdog killing the child). Crashes and time-outs must both be zero.
 */
import { type ChildProcess, fork } from "node:child_process"
import type { RobustAnswer } from "./RobustWorker.ts"

export interface RobustSummary {
  readonly files: number
  readonly ok: number
  readonly okWithText: number
  readonly pagesFailed: number
  readonly errors: Record<string, number>
  readonly crashes: number
  readonly timeouts: number
  readonly seconds: number
  readonly slowest: Array<{ file: string; ms: number }>
  readonly problems: Array<RobustAnswer | { file: string; outcome: "timeout" }>
}

export const runRobustness = (files: ReadonlyArray<string>, budgetMs: number, watchdogMs: number): Promise<RobustSummary> =>
  new Promise((resolve) => {
    const t0 = performance.now()
    const answers: Array<RobustAnswer> = []
    const problems: Array<RobustAnswer | { file: string; outcome: "timeout" }> = []
    let timeouts = 0
    let crashes = 0
    let index = 0
    let child: ChildProcess | undefined
    let timer: NodeJS.Timeout | undefined
    let current: string | undefined
    let served = 0
    const start = () => {
      child = fork(new URL("./RobustWorker.ts", import.meta.url), [], { stdio: ["ignore", "ignore", "ignore", "ipc"] })
      served = 0
      const me = child
      me.on("message", (message: RobustAnswer | { ready: true }) => {
        if ("ready" in message) return next()
        if (timer !== undefined) clearTimeout(timer)
        current = undefined
        answers.push(message)
        if (message.outcome === "crash") {
          crashes++
          problems.push(message)
        } else if (message.outcome === "error" && message.reason === "Timeout") {
          timeouts++
          problems.push(message)
        }
        next()
      })
      me.on("exit", () => {
        if (child !== me) return
        if (current !== undefined) {
          if (timer !== undefined) clearTimeout(timer)
          crashes++
          problems.push({ file: current, outcome: "crash", message: "the child process died", ms: 0 })
          current = undefined
          start()
        }
      })
    }
    const next = () => {
      if (index >= files.length) {
        child?.kill("SIGKILL")
        child = undefined
        const errors: Record<string, number> = {}
        for (const a of answers) if (a.outcome === "error" && a.reason !== "Timeout") errors[a.reason ?? "?"] = (errors[a.reason ?? "?"] ?? 0) + 1
        resolve({
          files: files.length,
          ok: answers.filter((a) => a.outcome === "ok").length,
          okWithText: answers.filter((a) => a.outcome === "ok" && (a.chars ?? 0) > 0).length,
          pagesFailed: answers.reduce((n, a) => n + (a.failedPages ?? 0), 0),
          errors,
          crashes,
          timeouts,
          seconds: (performance.now() - t0) / 1000,
          slowest: [...answers].sort((a, b) => b.ms - a.ms).slice(0, 5).map((a) => ({ file: a.file.replace(/.*\//, ""), ms: Math.round(a.ms) })),
          problems
        })
        return
      }
      // A fresh child now and then keeps one file's leftovers from affecting the next hundred.
      if (served >= 150) {
        const old = child
        child = undefined
        old?.kill("SIGKILL")
        start()
        return
      }
      const file = files[index++]
      current = file
      served++
      timer = setTimeout(() => {
        timeouts++
        problems.push({ file, outcome: "timeout" })
        current = undefined
        const old = child
        child = undefined
        old?.kill("SIGKILL")
        start()
      }, watchdogMs)
      child?.send({ file, budgetMs })
    }
    start()
  })
