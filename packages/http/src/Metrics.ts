/**
 * The server's own counters for `GET /metrics`: requests in flight, and requests by method,
 * endpoint and status. One set per server (kept in `ServerSettings`), never in a module global,
 * so two servers in one process count apart. Endpoints are the route templates
 * (`/v2/scrape/:scrapeId/interact`), never the path asked: a client cannot grow the label set.
 */
import { artifactPathPrefix, type PrometheusText } from "@strata/core"

/** Paths that watch the server rather than use it: not counted in flight (see the middleware). */
export const probePaths: ReadonlySet<string> = new Set(["/health", "/ready", "/metrics"])

/** The paths served as they are (the interact and artifact routes have a parameter); HttpAdapter routes by this set too. */
export const fixedEndpoints: ReadonlySet<string> = new Set(["/v2/scrape", "/v2/parse", "/v2/openapi.json", "/health", "/ready", "/metrics"])

/** The route template a path is served by, or `other` (a 404). */
export const endpointOf = (path: string): string => {
  if (fixedEndpoints.has(path)) return path
  // InteractRoute's isInteractPath, not imported: that module reads ServerSettings, which keeps these.
  if (/^\/v2\/scrape\/[^/]+\/interact$/.test(path)) return "/v2/scrape/:scrapeId/interact"
  if (path.startsWith(artifactPathPrefix)) return `${artifactPathPrefix}:file`
  return "other"
}

export interface ServerMetrics {
  /** A request (not a probe) started; `ended` once its response is closed. */
  readonly started: () => void
  readonly ended: () => void
  /** A response went out (or the client left first: 499). */
  readonly answered: (method: string, path: string, status: number) => void
  readonly families: () => Array<PrometheusText.Family>
}

export const makeServerMetrics = (): ServerMetrics => {
  let inFlight = 0
  const answered = new Map<string, { method: string; endpoint: string; status: string; count: number }>()
  return {
    started: () => void inFlight++,
    ended: () => void (inFlight = Math.max(0, inFlight - 1)),
    answered: (method, path, status) => {
      const endpoint = endpointOf(path)
      // Methods outside the usual few are one label value, for the same reason as endpoints.
      const verb = /^(GET|POST|DELETE|PUT|PATCH|HEAD|OPTIONS)$/.test(method) ? method : "other"
      const key = `${verb} ${endpoint} ${status}`
      const entry = answered.get(key)
      if (entry !== undefined) entry.count++
      else answered.set(key, { method: verb, endpoint, status: String(status), count: 1 })
    },
    families: () => [
      {
        name: "strata_http_requests_in_flight",
        help: "Requests being served now (health, readiness and metrics probes not counted).",
        type: "gauge",
        samples: [{ value: inFlight }]
      },
      {
        name: "strata_http_requests_total",
        help: "Requests answered, by method, endpoint (route template) and status (499: the client left first).",
        type: "counter",
        samples: [...answered.values()].map(({ method, endpoint, status, count }) => ({
          labels: { method, endpoint, status },
          value: count
        }))
      }
    ]
  }
}
