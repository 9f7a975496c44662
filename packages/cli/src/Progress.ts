/**
 * Progress of a batch run, on stderr. On a terminal one bar is redrawn in place (done/total,
 * failures, docs/s, ETA); anywhere else (CI logs, pipes) each finished document is one plain
 * line, so a log reads top to bottom without carriage returns.
 */

/** What one finished document reports to the progress display. */
export interface Outcome {
  readonly path: string
  readonly ok: boolean
  readonly ms: number
  /** `Reason: message` for a failure. */
  readonly detail?: string
}

export interface Progress {
  readonly finished: (outcome: Outcome) => void
  readonly close: () => void
}

/** Where progress goes: `line` appends a whole line; `tty`, when stderr is a terminal, writes raw text. */
export interface ProgressSink {
  readonly line: (text: string) => void
  readonly tty?: ((text: string) => void) | undefined
}

interface Counts {
  done: number
  failed: number
}

const BAR_WIDTH = 24
/** Redraws at most this often: a bar redrawn per document floods a slow terminal on a corpus of small files. */
const REDRAW_MS = 100

const seconds = (ms: number): string => {
  const total = Math.max(0, Math.round(ms / 1000))
  const minutes = Math.floor(total / 60)
  const hours = Math.floor(minutes / 60)
  const ss = String(total % 60).padStart(2, "0")
  return hours > 0 ? `${hours}:${String(minutes % 60).padStart(2, "0")}:${ss}` : `${minutes}:${ss}`
}

/** Documents per second so far and the estimated time left; both undefined until one is done. */
export const rate = (done: number, total: number, elapsedMs: number): { perSecond?: number; etaMs?: number } => {
  if (done === 0 || elapsedMs <= 0) return {}
  const perSecond = done / (elapsedMs / 1000)
  return { perSecond, etaMs: ((total - done) / perSecond) * 1000 }
}

/** The one bar line, without the carriage return: `[#####-----] 12/40  1 failed  3.1 docs/s  ETA 0:09`. */
export const barLine = (counts: Counts, total: number, elapsedMs: number): string => {
  const filled = total === 0 ? BAR_WIDTH : Math.round((counts.done / total) * BAR_WIDTH)
  const { perSecond, etaMs } = rate(counts.done, total, elapsedMs)
  const parts = [
    `[${"#".repeat(filled)}${"-".repeat(BAR_WIDTH - filled)}] ${counts.done}/${total}`,
    counts.failed > 0 ? `${counts.failed} failed` : undefined,
    perSecond === undefined ? undefined : `${perSecond.toFixed(1)} docs/s`,
    etaMs === undefined ? undefined : `ETA ${seconds(etaMs)}`
  ]
  return parts.filter((p) => p !== undefined).join("  ")
}

/** The plain line for one finished document: `[3/40] ok a/b.pdf (120 ms)`. */
export const plainLine = (outcome: Outcome, done: number, total: number): string =>
  `[${done}/${total}] ${outcome.ok ? "ok" : "failed"} ${outcome.path}` +
  (outcome.ok ? ` (${Math.round(outcome.ms)} ms)` : `: ${outcome.detail ?? "unknown error"}`)

const plain = (sink: ProgressSink, total: number): Progress => {
  let done = 0
  return {
    finished: (outcome) => sink.line(plainLine(outcome, ++done, total)),
    close: () => {}
  }
}

const bar = (write: (text: string) => void, total: number, now: () => number): Progress => {
  const started = now()
  const counts: Counts = { done: 0, failed: 0 }
  let drawnAt = -Infinity
  const draw = () => {
    drawnAt = now()
    write(`\r\x1b[2K${barLine(counts, total, drawnAt - started)}`)
  }
  draw()
  return {
    finished: (outcome) => {
      counts.done++
      if (!outcome.ok) {
        counts.failed++
        // A failure is worth a line of its own above the bar, which is then redrawn under it.
        write(`\r\x1b[2Kfailed ${outcome.path}: ${outcome.detail ?? "unknown error"}\n`)
        draw()
      } else if (now() - drawnAt >= REDRAW_MS || counts.done === total) {
        draw()
      }
    },
    close: () => {
      draw()
      write("\n")
    }
  }
}

/** A bar when the sink has a terminal, plain lines otherwise. */
export const makeProgress = (sink: ProgressSink, total: number, now: () => number = Date.now): Progress =>
  sink.tty ? bar(sink.tty, total, now) : plain(sink, total)
