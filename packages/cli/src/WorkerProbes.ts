/**
 * The small HTTP listener of `strata worker` (`--health-port`, STRATA_WORKER_HEALTH_PORT; off by
 * default), for an orchestrator's probes and a Prometheus scraper:
 * - `GET /health`: 200 while the process runs (liveness).
 * - `GET /ready`: 200 while the worker takes jobs: its queue answers (one depth read, 2 s bound)
 *   and it is not draining; 503 with the reason otherwise (after SIGTERM it is 503 at once, while
 *   the running jobs finish).
 * - `GET /metrics`: Prometheus text: slots busy and free, attempts done and failed since the
 *   start, whether it is draining, and the queue's depth and oldest waiting job.
 * Plain node:http: three fixed answers need no router, and the listener lives in the worker's
 * scope, closed after the running jobs end.
 */
import { type Job, type JobQueue, probeFailureReason, PrometheusText, withinProbeTimeout } from "@strata/core"
import { Effect, Exit } from "effect"
import { createServer } from "node:http"

/** What the worker counts, read when scraped. */
export interface WorkerState {
  readonly slots: number
  busy: number
  done: number
  failed: number
  draining: boolean
}

export const makeWorkerState = (slots: number): WorkerState => ({ slots, busy: 0, done: 0, failed: 0, draining: false })

/** `handler`, counted: busy while it runs, then done or failed. */
export const counted = <E, R>(state: WorkerState, handler: (job: Job<unknown>) => Effect.Effect<void, E, R>) =>
  (job: Job<unknown>): Effect.Effect<void, E, R> =>
    Effect.suspend(() => {
      state.busy++
      return handler(job).pipe(Effect.onExit((exit) =>
        Effect.sync(() => {
          state.busy--
          if (Exit.isSuccess(exit)) state.done++
          else state.failed++
        })
      ))
    })

const families = (state: WorkerState): Array<PrometheusText.Family> => [
  {
    name: "strata_worker_slots",
    help: "The worker's job slots: busy (converting) or free.",
    type: "gauge",
    samples: [
      { labels: { state: "busy" }, value: state.busy },
      { labels: { state: "free" }, value: Math.max(0, state.slots - state.busy) }
    ]
  },
  {
    name: "strata_worker_jobs_total",
    help: "Job attempts this worker ended since it started, by outcome (a failed attempt may be retried elsewhere).",
    type: "counter",
    samples: [{ labels: { outcome: "done" }, value: state.done }, { labels: { outcome: "failed" }, value: state.failed }]
  },
  {
    name: "strata_worker_draining",
    help: "1 once the worker was told to stop (SIGTERM, SIGINT) and is finishing its running jobs.",
    type: "gauge",
    samples: [{ value: state.draining ? 1 : 0 }]
  }
]

export interface ProbeListenerOptions {
  readonly host: string
  readonly port: number
  readonly queueName: string
  /** Told the bound address (`http://host:port`), once listening. */
  readonly announce: (url: string) => void
}

/** Serves the probes until the scope closes. */
export const probeListener = (queue: JobQueue["Service"], state: WorkerState, options: ProbeListenerOptions) =>
  Effect.gen(function*() {
    const depth = Effect.result(withinProbeTimeout(queue.depth(options.queueName)))
    const answer = async (path: string): Promise<readonly [number, string, string]> => {
      const json = "application/json"
      if (path === "/health") return [200, json, JSON.stringify({ status: "ok", success: true })]
      if (path === "/ready") {
        if (state.draining) return [503, json, JSON.stringify({ status: "draining", success: false, error: "the worker is draining: it takes no new jobs" })]
        const read = await Effect.runPromise(depth)
        if (read._tag === "Failure") {
          return [503, json, JSON.stringify({ status: "unavailable", success: false, error: `queue ${options.queueName}: ${probeFailureReason(read.failure)}` })]
        }
        return [200, json, JSON.stringify({ status: "ready", success: true })]
      }
      if (path === "/metrics") {
        const read = await Effect.runPromise(depth)
        const queueFamilies = PrometheusText.queueFamilies(read._tag === "Success" ? [[options.queueName, read.success]] : [])
        return [200, PrometheusText.contentType, PrometheusText.render([...families(state), ...queueFamilies])]
      }
      return [404, json, JSON.stringify({ success: false, error: `No route for ${path}. Routes: GET /health, GET /ready, GET /metrics.` })]
    }
    const server = createServer((request, response) => {
      const path = (request.url ?? "/").split(/[?#]/)[0]!
      const reply = request.method === "GET" || request.method === "HEAD"
        ? answer(path)
        : Promise.resolve([405, "application/json", JSON.stringify({ success: false, error: "Only GET." })] as const)
      void reply.then(([status, contentType, body]) => {
        response.writeHead(status, { "content-type": contentType, "content-length": Buffer.byteLength(body) })
        response.end(request.method === "HEAD" ? undefined : body)
      })
    })
    yield* Effect.acquireRelease(
      Effect.callback<void, Error>((resume) => {
        server.once("error", (error) => resume(Effect.fail(error)))
        server.listen(options.port, options.host, () => resume(Effect.void))
      }),
      () => Effect.callback<void>((resume) => {
        server.close(() => resume(Effect.void))
        server.closeAllConnections()
      })
    )
    const address = server.address()
    const port = typeof address === "object" && address !== null ? address.port : options.port
    const host = options.host.includes(":") ? `[${options.host}]` : options.host
    options.announce(`http://${host}:${port}`)
  })

/** `--health-port` (or STRATA_WORKER_HEALTH_PORT) as a port; undefined when neither is set, an error text when bad. */
export const healthPortOf = (flag: string | undefined, env: string | undefined): number | string | undefined => {
  const value = flag ?? (env?.trim() || undefined)
  if (value === undefined) return undefined
  const port = Number(value)
  return Number.isInteger(port) && port >= 0 && port < 65536 ? port : `--health-port takes a port number (0-65535), got "${value}"`
}

