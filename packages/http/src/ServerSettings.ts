/**
 * The resolved server configuration, the per-key rate limiter, the audit event writer and the
 * request counters of /metrics, as a service the middleware and the route handlers read.
 */
import { Context, Layer } from "effect"
import { type AuditWriter, makeAuditWriter } from "./Audit.ts"
import { type IdleCollector, makeIdleCollector } from "./IdleCollector.ts"
import { makeServerMetrics, type ServerMetrics } from "./Metrics.ts"
import { makeRateLimiter, type RateLimiter } from "./RateLimiter.ts"
import type { ServerConfig } from "./ServerConfig.ts"

export class ServerSettings extends Context.Service<ServerSettings, {
  readonly config: ServerConfig
  readonly rateLimiter: RateLimiter
  readonly idle: IdleCollector
  readonly audit: AuditWriter
  readonly metrics: ServerMetrics
}>()("@strata/http/ServerSettings") {
  static readonly layer = (config: ServerConfig) =>
    Layer.sync(ServerSettings, () =>
      ServerSettings.of({
        config,
        rateLimiter: makeRateLimiter(config.rateLimitPerMinute),
        idle: makeIdleCollector(config.idleCollector),
        audit: makeAuditWriter({ writeStdout: (line) => process.stdout.write(line), log: config.writeLog }),
        metrics: makeServerMetrics()
      }))
}
