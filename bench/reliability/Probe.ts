/**
 * What the run watches while a document is parsed: a GET /health every 100 ms (at most a few in
 * flight, so a frozen server is not buried under probes) with the longest gap between successful
 * answers, and the server tree's RSS every 100 ms with its peak.
 */
import { treeRss } from "./ServerProcess.ts"

export interface ProbeReport {
  /** Longest time between successful /health answers, counting from the start and to the stop. */
  readonly longestGapMs: number
  readonly probes: number
  readonly answered: number
  readonly peakRss: number
}

export class Probe {
  private readonly started = performance.now()
  private lastOk = this.started
  private longestGap = 0
  private inFlight = 0
  private probes = 0
  private answered = 0
  private peak = 0
  private readonly timer: NodeJS.Timeout
  private readonly baseUrl: string
  private readonly pid: () => number

  constructor(baseUrl: string, pid: () => number) {
    this.baseUrl = baseUrl
    this.pid = pid
    this.peak = treeRss(pid())
    this.timer = setInterval(() => this.tick(), 100)
  }

  /** The latest RSS sample (bytes). */
  rss = 0

  private tick(): void {
    this.rss = treeRss(this.pid())
    if (this.rss > this.peak) this.peak = this.rss
    if (this.inFlight >= 4) return
    this.inFlight++
    this.probes++
    fetch(`${this.baseUrl}/health`, { signal: AbortSignal.timeout(30_000) })
      .then(async (response) => {
        await response.arrayBuffer()
        if (!response.ok) return
        const now = performance.now()
        this.longestGap = Math.max(this.longestGap, now - this.lastOk)
        this.lastOk = now
        this.answered++
      })
      .catch(() => undefined)
      .finally(() => this.inFlight--)
  }

  stop(): ProbeReport {
    clearInterval(this.timer)
    const gapToEnd = performance.now() - this.lastOk
    return { longestGapMs: Math.max(this.longestGap, gapToEnd), probes: this.probes, answered: this.answered, peakRss: this.peak }
  }
}
