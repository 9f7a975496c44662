/**
 * `npm start`'s supervisor: a small primary process that runs the server as a child, restarts it
 * when it dies (with the backoff in RestartPolicy.ts), logs each exit with the requests it cut
 * short, and forwards SIGINT/SIGTERM so the server drains before both exit.
 *
 * Why `child_process.fork` and not Node's cluster with one worker: with one worker, cluster
 * closes the shared port anyway when the worker dies, so it would keep nothing open during a
 * restart; on Linux its primary accepts every connection and passes it to the worker over IPC,
 * a hop per connection; and the primary would load the HTTP stack. A forked server binds the
 * port itself, and the supervisor stays a script of Node built-ins. The price: while the server
 * restarts (the backoff wait plus about 2 s of start-up) the port is closed and connections are
 * refused. Node listens with SO_REUSEADDR, so a restarted server binds the port again at once.
 *
 * The server runs in its own process group (`detached`): a terminal's Ctrl-C then reaches the
 * supervisor alone, which forwards it once. Otherwise the server would get it twice (from the
 * terminal and forwarded), and a second signal ends a draining server at once. A server whose
 * supervisor dies anyway (SIGKILL) sees its IPC channel close and stops the same graceful way,
 * so it does not hold the port as an orphan.
 *
 * Stopping: the first SIGINT/SIGTERM is forwarded; once the server has drained (up to the
 * adapter's 10 s graceful-shutdown bound) the supervisor exits 0. A second signal at least a
 * second later kills the server and exits 128 + the signal number. Repeats within that second
 * count as one: under `npm start`, npm forwards the Ctrl-C that the supervisor also received.
 */
import { type ChildProcess, fork } from "node:child_process"
import { constants } from "node:os"
import { parseArgs } from "node:util"
import { decideRestart, defaultRestartPolicy, noCrashes, type RestartPolicy } from "./RestartPolicy.ts"
import { isChildMessage, supervisedChildVariable } from "./SupervisedChild.ts"

/** How the bin runs: as the supervisor, as the server under one, or as the server alone. */
export type Supervision = "supervise" | "child" | "direct"

/**
 * `STRATA_SUPERVISE=0` (or `false`, `no`, `off`) or the `--no-supervise` flag: the server runs
 * directly in one process, for systemd, Kubernetes and other process managers that restart it.
 */
export const supervisionFrom = (env: Record<string, string | undefined>, args: ReadonlyArray<string>): Supervision => {
  if (env[supervisedChildVariable] === "1") return "child"
  const { values } = parseArgs({ args: [...args], options: { "no-supervise": { type: "boolean" } }, strict: true })
  const setting = (env.STRATA_SUPERVISE ?? "").trim().toLowerCase()
  if (!["", "0", "1", "true", "false", "yes", "no", "on", "off"].includes(setting)) {
    throw new Error(`STRATA_SUPERVISE must be 1 or 0, got "${env.STRATA_SUPERVISE}"`)
  }
  return values["no-supervise"] === true || ["0", "false", "no", "off"].includes(setting) ? "direct" : "supervise"
}

export interface SuperviseOptions {
  /** The server's script, its arguments and Node flags (for `npm start`, the supervisor's own). */
  readonly script: string
  readonly args: ReadonlyArray<string>
  readonly execArgv: ReadonlyArray<string>
  readonly env: Record<string, string | undefined>
  readonly policy?: RestartPolicy | undefined
  /** Where the supervisor's JSON lines go; stdout by default, beside the request log. */
  readonly writeLog?: ((line: string) => void) | undefined
}

interface InFlight {
  readonly requestId: string
  readonly method: string
  readonly path: string
  readonly since: number
}

const repeatWindowMs = 1000

const isRunning = (child: ChildProcess | undefined): child is ChildProcess =>
  child !== undefined && child.exitCode === null && child.signalCode === null

/** Supervises the server until a signal stops it or it crash-loops; resolves to the exit code. */
export const supervise = (options: SuperviseOptions): Promise<number> =>
  new Promise((resolve) => {
    const policy = options.policy ?? defaultRestartPolicy
    const write = options.writeLog ?? ((line: string) => process.stdout.write(line + "\n"))
    const log = (level: "info" | "warn" | "error", msg: string, fields: Record<string, unknown>) =>
      write(JSON.stringify({ time: new Date().toISOString(), level, msg, ...fields }))

    let history = noCrashes
    let starts = 0
    let server: ChildProcess | undefined
    /** The running server's requests in flight, by the sequence number it gave them. */
    let inFlight = new Map<number, InFlight>()
    let restartTimer: NodeJS.Timeout | undefined
    let stop: { readonly signal: NodeJS.Signals; readonly at: number } | undefined
    let finished = false

    /** Logs the requests the server's end cut short; returns how many. */
    const logLost = (pid: number | undefined): number => {
      const now = performance.now()
      for (const { requestId, method, path, since } of inFlight.values()) {
        log("error", "request lost", { pid, requestId, method, path, ms: Math.round(now - since) })
      }
      const lost = inFlight.size
      inFlight.clear()
      return lost
    }

    const finish = (code: number) => {
      if (finished) return
      finished = true
      process.off("SIGINT", onSignal)
      process.off("SIGTERM", onSignal)
      resolve(code)
    }

    const start = () => {
      restartTimer = undefined
      const startNumber = ++starts
      const startedAt = performance.now()
      inFlight = new Map()
      let listened = false
      const child = fork(options.script, [...options.args], {
        execArgv: [...options.execArgv],
        // glibc gives freed memory back (fixed mmap threshold, earlier trim; as core's ReaderPool
        // does for its readers): 51 MB less resident after two 23 MB uploads. An operator's setting wins.
        env: { MALLOC_MMAP_THRESHOLD_: "131072", MALLOC_TRIM_THRESHOLD_: "1048576", ...options.env, [supervisedChildVariable]: "1" },
        stdio: ["ignore", "inherit", "inherit", "ipc"],
        detached: true
      })
      server = child
      child.on("message", (message) => {
        if (!isChildMessage(message)) return
        if (message.strata === "requests") {
          const since = performance.now()
          for (const { seq, requestId, method, path } of message.started) inFlight.set(seq, { requestId, method, path, since })
          for (const seq of message.done) inFlight.delete(seq)
        } else {
          listened = true
          log("info", "server listening", { pid: child.pid, start: startNumber, url: message.url })
        }
      })
      child.on("error", (error) => log("error", "server process error", { pid: child.pid, error: error.message }))
      // `close`, not `exit`: it comes after the IPC channel closed, so every message the server
      // sent before it died has been read and its in-flight list is complete.
      child.once("close", (code, signal) => {
        const uptimeMs = Math.round(performance.now() - startedAt)
        const ended = { pid: child.pid, code, signal, uptimeMs, lost: logLost(child.pid) }
        if (stop !== undefined) {
          log("info", "server stopped", ended)
          return finish(code === 0 || signal === stop.signal ? 0 : 1)
        }
        const decision = decideRestart(policy, history, { uptimeMs, listened, firstStart: startNumber === 1 })
        history = decision.history
        if (decision._tag === "GiveUp") {
          log("error", "supervisor giving up", { ...ended, reason: decision.reason })
          return finish(code !== null && code > 0 ? code : 1)
        }
        log("error", "server exited", { ...ended, restartInMs: decision.delayMs, crashesInARow: decision.history.crashes })
        restartTimer = setTimeout(start, decision.delayMs)
      })
    }

    const onSignal = (signal: NodeJS.Signals) => {
      const now = performance.now()
      if (stop === undefined) {
        stop = { signal, at: now }
        log("info", "supervisor stopping", { signal, pid: server?.pid })
        clearTimeout(restartTimer)
        if (isRunning(server)) server.kill(signal)
        else finish(0)
        return
      }
      if (now - stop.at < repeatWindowMs) return
      log("warn", "supervisor forced to stop", { signal, pid: server?.pid })
      if (isRunning(server)) server.kill("SIGKILL")
      logLost(server?.pid)
      finish(128 + constants.signals[signal])
    }

    process.on("SIGINT", onSignal)
    process.on("SIGTERM", onSignal)
    start()
  })
