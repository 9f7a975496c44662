/**
 * @strata/http: the Firecrawl-v2-compatible HTTP adapter. `layer(config)` for Effect users,
 * `startServer({ pipeline, config })` for tests and embedding, `serveFromEnv()` for `npm start`.
 */
export { artifactStoreLayer, type CatalogProviders, layer, layerWithPipeline, routes, storeLayer } from "./HttpAdapter.ts"
export { serveFromEnv, serveUntilSignal, startServer, type RunningServer } from "./StartServer.ts"
export {
  makeServerConfig,
  serverConfigFromEnv,
  defaultMaxJsonBytes,
  defaultMaxUploadBytes,
  type ServerConfig
} from "./ServerConfig.ts"
export { ApiKeys, ApiKeyStoreError, generateApiKey, type AuthResult } from "./ApiKeys.ts"
export { makeRateLimiter, type RateLimiter, type RateDecision } from "./RateLimiter.ts"
export { artifactErrorReply, scrapeErrorReply, type ErrorReply, type RouteKind } from "./ErrorReply.ts"
