/**
 * What the run watches while a document is parsed: a GET /health every 100 ms (at most a few in
 * flight, so a frozen server is not buried under probes) with the longest gap between successful
 * answers, and the server tree's RSS every 100 ms with its peak.
 *
 * The /health probe runs in a worker thread of its own. On the run's main thread it measured the
 * run as well as the server: judging a 28 MB answer (decoding it, scanning it for /etc/passwd)
 * held that thread for ~310 ms, and the probe's answers waited behind it, a "gap" the server never
 * had (a CPU profile of the server showed no task over 150 ms in that case).
 */
import { Worker } from "node:worker_threads"
import { treeRss } from "./ServerProcess.ts"

export interface ProbeReport {
  /** Longest time between successful /health answers, counting from the start and to the stop. */
  readonly longestGapMs: number
  readonly probes: number
  readonly answered: number
  /** /health latency percentiles over the answered probes (ms). */
  readonly p50Ms: number
  readonly p99Ms: number
  readonly peakRss: number
}

/** The worker: probes `baseUrl`/health every 100 ms; on "stop", posts its figures and exits. */
const workerSource = `
const { parentPort, workerData } = require("node:worker_threads")
const started = performance.now()
let lastOk = started, longestGap = 0, inFlight = 0, probes = 0, answered = 0
const latencies = []
const timer = setInterval(() => {
  if (inFlight >= 4) return
  inFlight++
  probes++
  const sent = performance.now()
  fetch(workerData.baseUrl + "/health", { signal: AbortSignal.timeout(30000) })
    .then(async (response) => {
      await response.arrayBuffer()
      if (!response.ok) return
      const now = performance.now()
      latencies.push(now - sent)
      longestGap = Math.max(longestGap, now - lastOk)
      lastOk = now
      answered++
    })
    .catch(() => undefined)
    .finally(() => inFlight--)
}, 100)
parentPort.on("message", () => {
  clearInterval(timer)
  latencies.sort((a, b) => a - b)
  const at = (p) => latencies.length === 0 ? NaN : latencies[Math.min(latencies.length - 1, Math.floor(p * latencies.length))]
  parentPort.postMessage({ longestGapMs: Math.max(longestGap, performance.now() - lastOk), probes, answered, p50Ms: at(0.5), p99Ms: at(0.99) })
  process.exit(0)
})
`

export class Probe {
  private peak = 0
  private readonly timer: NodeJS.Timeout
  private readonly worker: Worker
  private readonly pid: () => number

  constructor(baseUrl: string, pid: () => number) {
    this.pid = pid
    this.peak = treeRss(pid())
    this.worker = new Worker(workerSource, { eval: true, workerData: { baseUrl } })
    this.timer = setInterval(() => this.sample(), 100)
  }

  /** The latest RSS sample (bytes). */
  rss = 0

  private sample(): void {
    this.rss = treeRss(this.pid())
    if (this.rss > this.peak) this.peak = this.rss
  }

  async stop(): Promise<ProbeReport> {
    clearInterval(this.timer)
    const figures = await new Promise<Omit<ProbeReport, "peakRss">>((done) => {
      this.worker.once("message", done)
      this.worker.postMessage("stop")
    })
    return { ...figures, peakRss: this.peak }
  }
}
