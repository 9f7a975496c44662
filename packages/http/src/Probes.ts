/**
 * What a load balancer and a scraper ask a replica, none of it work (not counted in flight, so a
 * probe every second never keeps the IdleCollector from finding the server quiet):
 * - `GET /ready`: 200 when the server can serve: its store answers (Postgres, when
 *   STRATA_DATABASE_URL is set; else SQLite) and, when a `JobQueue` is in its context, the queue
 *   does too. 503 with the reasons otherwise, so a load balancer sends traffic elsewhere while the
 *   database is away. No key needed, as /health (which says only that the process runs).
 * - `GET /metrics`: the Prometheus text (PrometheusText.ts): requests in flight and answered
 *   (Metrics.ts), the reader pool's load and, with a `JobQueue`, each queue's depth and the age of
 *   its oldest waiting job. Who may read it is `ServerConfig.metrics`.
 */
import { DocumentReaders, JobQueue, PROBE_TIMEOUT, probeFailureReason, PrometheusText, type QueueDepth, Store, withinProbeTimeout } from "@strata/core"
import { Effect, Option } from "effect"
import { HttpServerResponse } from "effect/http"
import { ServerSettings } from "./ServerSettings.ts"

/** `undefined` when `check` answered in time, else why not. */
const probe = (what: string, check: Effect.Effect<unknown, unknown>) =>
  withinProbeTimeout(check).pipe(
    Effect.match({ onSuccess: () => undefined, onFailure: (error) => `${what}: ${probeFailureReason(error)}` })
  )

export const readyRoute = Effect.gen(function*() {
  const store = yield* Store
  const { config } = yield* ServerSettings
  const queue = yield* Effect.serviceOption(JobQueue)
  // A team id no key has: one indexed read, answered by the database itself, never by a cache.
  const checks = [probe("store", store.getTeam("strata-readiness-probe"))]
  if (Option.isSome(queue)) {
    for (const name of config.queues ?? ["corpus"]) checks.push(probe(`queue ${name}`, queue.value.depth(name)))
  }
  const problems = (yield* Effect.all(checks, { concurrency: "unbounded" })).filter((p): p is string => p !== undefined)
  return problems.length === 0
    ? HttpServerResponse.jsonUnsafe({ status: "ready", success: true })
    : HttpServerResponse.jsonUnsafe({ status: "unavailable", success: false, error: problems.join("; ") }, { status: 503 })
})

const readerFamilies = (load: ReturnType<NonNullable<DocumentReaders["Service"]["load"]>>): Array<PrometheusText.Family> => [
  {
    name: "strata_reader_pool_processes",
    help: "Reader processes of the isolation pool by state: busy (reading a document) or idle (started, waiting).",
    type: "gauge",
    samples: [{ labels: { state: "busy" }, value: load.busy }, { labels: { state: "idle" }, value: load.idle }]
  },
  { name: "strata_reader_pool_size", help: "Reader processes the pool may run at once.", type: "gauge", samples: [{ value: load.size }] },
  { name: "strata_reader_pool_queued", help: "Documents waiting for a reader process.", type: "gauge", samples: [{ value: load.queued }] }
]

export const metricsRoute = Effect.gen(function*() {
  const { config, metrics } = yield* ServerSettings
  const families = metrics.families()
  const readers = yield* Effect.serviceOption(DocumentReaders)
  const load = Option.isSome(readers) ? readers.value.load?.() : undefined
  if (load !== undefined) families.push(...readerFamilies(load))
  const queue = yield* Effect.serviceOption(JobQueue)
  if (Option.isSome(queue)) {
    const depths: Array<readonly [string, QueueDepth]> = []
    for (const name of config.queues ?? ["corpus"]) {
      // A queue that cannot be read now is left out of this scrape (its series goes stale), not a 500.
      const depth = yield* queue.value.depth(name).pipe(Effect.timeoutOption(PROBE_TIMEOUT), Effect.orElseSucceed(() => Option.none()))
      if (Option.isSome(depth)) depths.push([name, depth.value])
    }
    families.push(...PrometheusText.queueFamilies(depths))
  }
  return HttpServerResponse.text(PrometheusText.render(families), { contentType: PrometheusText.contentType })
})
