/**
 * Everything the HTTP adapter can be told: where to listen, which keys to accept, where to keep
 * its data (API keys, screenshots and PDFs), how its artifact links are made, and the limits it
 * enforces. `fromEnv` reads the documented environment variables so that `npm start`, the CLI and
 * the tests configure the server the same way.
 */
import type { IdleCollectorOptions } from "./IdleCollector.ts"
import type { FileStoreOptions } from "@strata/core"

export interface ServerConfig {
  /** Interface to bind. */
  readonly host: string
  /** Port to bind; 0 picks a free one. */
  readonly port: number
  /** Keys from `STRATA_API_KEYS`; when empty, a key is created (once) under `dataDir`. */
  readonly apiKeys: ReadonlyArray<string>
  /** Folder for the generated key file (`api-keys.json`), the artifact secret and `artifacts/`. */
  readonly dataDir: string
  /**
   * Where clients reach this server (`STRATA_PUBLIC_URL`, e.g. `https://strata.example.com`):
   * artifact links start with it. Default: the address the server is bound to (a wildcard host
   * becomes 127.0.0.1), right only for clients on the same machine.
   */
  readonly publicUrl: string | undefined
  /** Signs artifact links (`STRATA_ARTIFACT_SECRET`); default: a key generated once in `dataDir` (0600). */
  readonly artifactSecret: string | undefined
  /** Link lifetimes (24 h), sweep interval (10 min) and size cap (`STRATA_ARTIFACT_MAX_MB`, 1 GiB) of the artifact store. */
  readonly artifacts: Pick<FileStoreOptions, "lifetimeSeconds" | "sweepIntervalMs" | "maxBytes">
  /** Requests per minute per API key; 0 turns rate limiting off. */
  readonly rateLimitPerMinute: number
  /** Largest accepted JSON body (bytes). */
  readonly maxJsonBytes: number
  /** Largest accepted uploaded file for /v2/parse (bytes). */
  readonly maxUploadBytes: number
  /** Where one JSON line per request goes. */
  readonly writeLog: (line: string) => void
  /** Told the freshly created key, the one time it exists in clear. */
  readonly announceKey: (key: string, file: string) => void
  /**
   * Told when each request starts; the function it returns, once the response is sent or its
   * connection closed. A supervised server reports these to its supervisor (SupervisedChild.ts).
   */
  readonly trackRequest: RequestTracker
  /** Tuning (and test hooks) for the collection run once the server is quiet (IdleCollector.ts). */
  readonly idleCollector?: IdleCollectorOptions | undefined
  /** Requests of one team that may wait for its concurrency slots before more are refused (429); default 100. */
  readonly concurrencyQueueLimit?: number | undefined
  /**
   * Who may read `GET /metrics` (`STRATA_METRICS`): `open` (the default: no key, as /health; the
   * server binds to loopback unless HOST says otherwise, and the text holds counts, no content),
   * `key` (an API key, as /v2), or `off` (404).
   */
  readonly metrics?: MetricsAccess | undefined
  /**
   * Queues whose depth /metrics reports and /ready reaches, when a `JobQueue` is in the server's
   * context (`STRATA_METRICS_QUEUES`, comma-separated; default `corpus`, `strata parse --queue`'s).
   */
  readonly queues?: ReadonlyArray<string> | undefined
  /**
   * On a replica of a fleet (STRATA_DATABASE_URL set), uploads to /v2/parse with more pages than
   * this go to the fleet's queue for a `strata worker` to read (`STRATA_QUEUE_ABOVE_PAGES`; default
   * 50; `off` reads every document here). Only a PDF's page count is known before reading.
   */
  readonly queueAbovePages?: number | "off" | undefined
}

export type MetricsAccess = "off" | "open" | "key"

/** Sees a request's id, method and path (never its query, headers or body); returns its `done`. */
export type RequestTracker = (request: {
  readonly requestId: string
  readonly method: string
  readonly path: string
}) => () => void

export const defaultMaxJsonBytes = 10 * 1024 * 1024
export const defaultMaxUploadBytes = 50 * 1024 * 1024

const defaults: ServerConfig = {
  host: "127.0.0.1",
  port: 3002,
  apiKeys: [],
  dataDir: "./data",
  publicUrl: undefined,
  artifactSecret: undefined,
  artifacts: {},
  rateLimitPerMinute: 0,
  maxJsonBytes: defaultMaxJsonBytes,
  maxUploadBytes: defaultMaxUploadBytes,
  writeLog: (line) => process.stdout.write(line + "\n"),
  announceKey: (key, file) =>
    process.stdout.write(
      `Created an API key (stored hashed in ${file}; it is shown only this once):\n\n  ${key}\n\n` +
        `Send it as "Authorization: Bearer <key>". Set STRATA_API_KEYS to use your own keys instead.\n`
    ),
  trackRequest: () => () => {}
}

/** Fills in defaults for what the caller leaves out. */
export const makeServerConfig = (options: Partial<ServerConfig> = {}): ServerConfig => ({ ...defaults, ...options })

const parseNumber = (name: string, value: string | undefined, fallback: number): number => {
  if (value === undefined || value.trim() === "") return fallback
  const n = Number(value)
  if (!Number.isFinite(n) || n < 0) throw new Error(`${name} must be a non-negative number, got "${value}"`)
  return n
}

const parseMetrics = (value: string | undefined): MetricsAccess => {
  const setting = value?.trim().toLowerCase() || "open"
  if (setting === "off" || setting === "open" || setting === "key") return setting
  throw new Error(`STRATA_METRICS must be off, open or key, got "${value}"`)
}

/**
 * Reads HOST, PORT, STRATA_API_KEYS (comma-separated), STRATA_DATA_DIR, STRATA_RATE_LIMIT
 * (requests per minute per key; unset or 0 = off), STRATA_PUBLIC_URL, STRATA_ARTIFACT_SECRET and
 * STRATA_ARTIFACT_MAX_MB (0 = no cap), STRATA_METRICS (off, open or key), STRATA_METRICS_QUEUES and
 * STRATA_QUEUE_ABOVE_PAGES (a number of pages, or off).
 * `overrides` win over the environment.
 */
export const serverConfigFromEnv = (
  env: Record<string, string | undefined> = process.env,
  overrides: Partial<ServerConfig> = {}
): ServerConfig =>
  makeServerConfig({
    host: env.HOST?.trim() || defaults.host,
    port: parseNumber("PORT", env.PORT, defaults.port),
    apiKeys: (env.STRATA_API_KEYS ?? "").split(",").map((key) => key.trim()).filter((key) => key.length > 0),
    dataDir: env.STRATA_DATA_DIR?.trim() || defaults.dataDir,
    rateLimitPerMinute: parseNumber("STRATA_RATE_LIMIT", env.STRATA_RATE_LIMIT, 0),
    publicUrl: env.STRATA_PUBLIC_URL?.trim() || undefined,
    artifactSecret: env.STRATA_ARTIFACT_SECRET || undefined,
    artifacts: env.STRATA_ARTIFACT_MAX_MB?.trim()
      ? { maxBytes: parseNumber("STRATA_ARTIFACT_MAX_MB", env.STRATA_ARTIFACT_MAX_MB, 1024) * 1024 * 1024 }
      : {},
    metrics: parseMetrics(env.STRATA_METRICS),
    ...(env.STRATA_QUEUE_ABOVE_PAGES?.trim()
      ? {
        queueAbovePages: env.STRATA_QUEUE_ABOVE_PAGES.trim().toLowerCase() === "off"
          ? "off" as const
          : parseNumber("STRATA_QUEUE_ABOVE_PAGES", env.STRATA_QUEUE_ABOVE_PAGES, 0)
      }
      : {}),
    ...(env.STRATA_METRICS_QUEUES === undefined
      ? {}
      : { queues: env.STRATA_METRICS_QUEUES.split(",").map((queue) => queue.trim()).filter((queue) => queue.length > 0) }),
    ...overrides
  })
