/**
 * The /v2 HTTP adapter: routes, and the one middleware every request goes through (request id,
 * authentication, rate limit, error capture, one JSON log line). `layer(config)` serves it on a
 * Node HTTP server and needs a `Pipeline`; `layerWithPipeline(config, pipeline)` also gives the
 * pipeline the server's `ArtifactStore`, so the screenshots it stores are the ones the server
 * serves. The server opens one state `Store` (`storeLayer`): API keys, the routes (`yield* Store`)
 * and the pipeline (its cache) all use that one. The CLI and the tests start it with `startServer`.
 */
import { NodeHttpServer, NodeHttpServerRequest } from "@effect/platform-node"
import {
  artifactPathPrefix,
  ArtifactStore,
  CatalogRegistry,
  type ArtifactSetupError,
  type FileStoreOptions,
  layerBuiltinProviders,
  openApiDocument,
  type Pipeline,
  publicUrlFor,
  Store,
  type Team
} from "@strata/core"
import { layerConfigIn, type StoreServices } from "@strata/store"
import { Cause, Effect, Layer, Option } from "effect"
import { RateLimiter } from "effect/persistence"
import { HttpEffect, HttpRouter, HttpServer, type HttpServerError, HttpServerRequest, HttpServerResponse } from "effect/http"
import { randomUUID } from "node:crypto"
import { ApiKeys, type ApiKeyStoreError, type AuthResult, storeFailed } from "./ApiKeys.ts"
import { artifactRoute } from "./ArtifactRoute.ts"
import { createJsonServer } from "./ClientErrors.ts"
import { interactRoute, isInteractPath, rememberScrapes, stopInteractRoute } from "./InteractRoute.ts"
import { authUnavailable, badRequest, rateLimited, routeNotFound, teamRateLimited, unauthorized, unknownError } from "./ErrorReply.ts"
import { takeTeamRate } from "./Limits.ts"
import { auditedPaths, refusedEvent } from "./Audit.ts"
import { fixedEndpoints, probePaths } from "./Metrics.ts"
import { parseRoute } from "./ParseRoute.ts"
import { metricsRoute, readyRoute } from "./Probes.ts"
import { charged, toResponse } from "./Reply.ts"
import { isValidRequestId, RequestContext } from "./RequestContext.ts"
import { writeRequestLog } from "./RequestLog.ts"
import { scrapeRoute } from "./ScrapeRoute.ts"
import type { ServerConfig } from "./ServerConfig.ts"
import { ServerSettings } from "./ServerSettings.ts"

/** Paths served (`/v2/scrape/{scrapeId}/interact` among them), and which of them answer without a key. */
const isKnownPath = (path: string, config: ServerConfig) =>
  (fixedEndpoints.has(path) && (path !== "/metrics" || config.metrics !== "off")) || isInteractPath(path)
const publicPaths = new Set(["/health", "/ready", "/v2/openapi.json"])
/** /metrics answers without a key unless STRATA_METRICS=key (see ServerConfig.metrics). */
const isPublicPath = (path: string, config: ServerConfig) =>
  publicPaths.has(path) || (path === "/metrics" && (config.metrics ?? "open") === "open")
/** `/v2/artifacts/{file}`: known, and public (the signed link is the credential; see ArtifactRoute.ts). */
const isArtifactPath = (path: string) => path.startsWith(artifactPathPrefix)

const healthRoute = Effect.sync(() => HttpServerResponse.jsonUnsafe({ status: "ok", success: true }))

const openApiRoute = Effect.sync(() => HttpServerResponse.jsonUnsafe(openApiDocument()))

/**
 * Route handlers answer every expected failure themselves; this catches the unexpected (defects)
 * so the client gets the contract's 500 body and the log line gets the cause.
 */
const guard = <E, R>(handler: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>) =>
  Effect.catchCause(handler, (cause) => {
    if (Cause.hasInterruptsOnly(cause)) return Effect.failCause(cause)
    return RequestContext.useSync((context) => {
      context.logFields.failure = Cause.pretty(cause).slice(0, 4000)
      context.logFields.code = "UNKNOWN_ERROR"
      return toResponse(charged(unknownError(context.requestId), context))
    })
  })

export const routes = HttpRouter.addAll([
  HttpRouter.route("POST", "/v2/scrape", guard(rememberScrapes(scrapeRoute))),
  HttpRouter.route("POST", "/v2/scrape/:scrapeId/interact", guard(interactRoute)),
  HttpRouter.route("DELETE", "/v2/scrape/:scrapeId/interact", guard(stopInteractRoute)),
  HttpRouter.route("POST", "/v2/parse", guard(parseRoute)),
  HttpRouter.route("GET", "/v2/openapi.json", guard(openApiRoute)),
  HttpRouter.route("GET", `${artifactPathPrefix}:file`, guard(artifactRoute)),
  HttpRouter.route("GET", "/health", healthRoute),
  HttpRouter.route("GET", "/ready", guard(readyRoute)),
  HttpRouter.route("GET", "/metrics", guard(metricsRoute))
])

const pathOf = (url: string): string => {
  const end = url.search(/[?#]/)
  return end === -1 ? url : url.slice(0, end)
}

/**
 * Bodiless error responses come from the HTTP layer itself (a known path with the wrong method,
 * a failure outside any route); give them the contract's JSON shape too.
 */
const withContractBody = (
  response: HttpServerResponse.HttpServerResponse,
  method: string,
  path: string,
  requestId: string
): HttpServerResponse.HttpServerResponse => {
  // 499: the client closed the connection; nobody reads this response.
  if (response.status < 400 || response.status === 499 || response.body._tag !== "Empty") return response
  if (response.status === 404 || response.status === 405) return toResponse(routeNotFound(method, path))
  if (response.status >= 500) return toResponse(unknownError(requestId))
  return toResponse(badRequest(`The request could not be processed (HTTP ${response.status})`))
}

/**
 * Calls `done` once the Node response behind `request` is closed: sent (streamed bodies
 * included) or its connection gone. At once when there is none (a server other than Node's).
 */
const whenResponseCloses = (request: HttpServerRequest.HttpServerRequest, done: () => void): void => {
  // `closed` is on every Node response at runtime, though not in its type.
  const response = NodeHttpServerRequest.toServerResponse(request) as
    | { readonly closed?: boolean; readonly once?: (event: "close", listener: () => void) => unknown }
    | undefined
  if (response?.once === undefined || response.closed === true) return done()
  response.once("close", done)
}

/**
 * The team a verified key belongs to, with its limits: read with the key from the store, or for
 * the server's own keys (the default team), read now. A store that cannot say leaves the request
 * unmetered (the default team has no limits; a store key could not have been verified).
 */
const teamOf = (auth: Extract<AuthResult, { _tag: "Authorized" }>) =>
  auth.team !== undefined
    ? Effect.succeed<Team | undefined>(auth.team)
    : Effect.flatMap(Store, (store) => store.getTeam(auth.teamId)).pipe(
      Effect.map(Option.getOrUndefined),
      Effect.orElseSucceed(() => undefined)
    )

/**
 * Wraps every request: request id, authentication and rate limit before any route runs (so an
 * unauthenticated upload is refused without being read), then one log line and the
 * `x-request-id` header on whatever response goes out.
 */
const middleware = <E, R>(app: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>) =>
  Effect.gen(function*() {
    const started = performance.now()
    const request = yield* HttpServerRequest.HttpServerRequest
    const { audit, config, rateLimiter, idle, metrics } = yield* ServerSettings
    const keys = yield* ApiKeys
    const path = pathOf(request.url)
    const suppliedId = request.headers["x-request-id"]
    const requestId = isValidRequestId(suppliedId) ? suppliedId : randomUUID()
    const context: RequestContext = {
      requestId,
      idempotencyKey: suppliedId === requestId ? requestId : undefined,
      keyId: undefined,
      logFields: {}
    }
    // In flight until the response is out; the supervisor logs the ones a crash cut short.
    const untrack = config.trackRequest({ requestId, method: request.method, path })
    // A health check is not work: counted in flight, a probe every 100 ms kept the collector from
    // ever finding the server quiet (bench/reliability's own probe did). Nor are /ready and /metrics.
    const work = !probePaths.has(path)
    if (work) {
      idle.started()
      metrics.started()
    }
    whenResponseCloses(request, () => {
      untrack()
      if (work) {
        idle.ended()
        metrics.ended()
      }
    })

    let logged = false
    const log = (status: number) => {
      if (logged) return
      logged = true
      metrics.answered(request.method, path, status)
      writeRequestLog(config.writeLog, {
        requestId,
        method: request.method,
        path,
        status,
        ms: Math.round((performance.now() - started) * 10) / 10,
        keyId: context.keyId,
        ...context.logFields
      })
    }
    const finish = (response: HttpServerResponse.HttpServerResponse) => {
      const final = withContractBody(response, request.method, path, requestId)
      log(final.status)
      // A scrape or parse refused before it was metered (its team's rate limit, a bad body) is audited too.
      if (context.audited !== true && context.team?.auditSink !== undefined && auditedPaths.has(path)) {
        audit.send(context.team.auditSink, refusedEvent(context, path, final.status, performance.now() - started))
      }
      return HttpServerResponse.setHeader(final, "x-request-id", requestId)
    }

    if (!isKnownPath(path, config) && !isArtifactPath(path)) return finish(toResponse(routeNotFound(request.method, path)))
    if (!isPublicPath(path, config) && !isArtifactPath(path)) {
      const auth = yield* keys.verify(request.headers["authorization"])
      if (auth._tag === "Unavailable") return finish(toResponse(authUnavailable()))
      if (auth._tag !== "Authorized") return finish(toResponse(unauthorized(auth._tag)))
      context.keyId = auth.keyId
      const decision = rateLimiter.take(auth.keyId)
      if (!decision.allowed) {
        return finish(toResponse(rateLimited(config.rateLimitPerMinute, decision.retryAfterSeconds), {
          "retry-after": String(decision.retryAfterSeconds)
        }))
      }
      context.team = yield* teamOf(auth)
      const teamRate = context.team === undefined ? undefined : yield* takeTeamRate(yield* RateLimiter.make, context.team)
      if (teamRate !== undefined && !teamRate.allowed) {
        return finish(toResponse(teamRateLimited(context.team!.rateLimit ?? 0, teamRate.retryAfterSeconds)))
      }
    }
    // The app sends its own response; this hook is the last look at it before it goes out.
    yield* HttpEffect.appendPreResponseHandler((_request, response) => Effect.sync(() => finish(response)))
    return yield* app.pipe(
      Effect.provideService(RequestContext, context),
      // The client went away before an answer: still one line, with nginx's "client closed" 499.
      Effect.onInterrupt(() => Effect.sync(() => log(499)))
    )
  })

const listen = (config: ServerConfig) =>
  NodeHttpServer.layerServer(createJsonServer, {
    host: config.host,
    port: config.port,
    gracefulShutdownTimeout: "10 seconds"
  })

/** The routes and middleware on whatever `HttpServer` is provided. */
const serve = (config: ServerConfig) =>
  HttpRouter.serve(routes, { disableLogger: true, disableListenLog: true, middleware }).pipe(
    Layer.provide(ServerSettings.layer(config)),
    Layer.provide(ApiKeys.layerWithStore(config))
  )

/**
 * The server's state store (and effect's rate-limiter store beside it): Postgres when
 * STRATA_DATABASE_URL is set, else SQLite under `config.dataDir`. Built once per server and
 * shared: the keys, the routes and the pipeline's cache see the same database.
 */
export const storeLayer = (config: Pick<ServerConfig, "dataDir" | "artifactSecret">): Layer.Layer<StoreServices, ApiKeyStoreError> =>
  // Built in the layer's scope: the database closes with the server. Interact records are sealed with the artifact secret.
  Layer.effectContext(Layer.build(layerConfigIn(config.dataDir, config.artifactSecret)).pipe(Effect.mapError(storeFailed)))

const storeOptions = (config: ServerConfig, publicUrl: string): FileStoreOptions => ({
  ...config.artifacts,
  dataDir: config.dataDir,
  publicUrl,
  secret: config.artifactSecret
})

/**
 * The server's artifact store: files under `config.dataDir`, links under `config.publicUrl`, or
 * else under the address the server is bound to (read once it listens, so port 0 works).
 */
export const artifactStoreLayer = (
  config: ServerConfig
): Layer.Layer<ArtifactStore, ArtifactSetupError, HttpServer.HttpServer> =>
  Layer.unwrap(Effect.gen(function*() {
    const { address } = yield* HttpServer.HttpServer
    const bound = address._tag === "UnixPathAddress"
      ? publicUrlFor(config.host, config.port)
      : publicUrlFor(new URL(HttpServer.formatAddress(address)).hostname.replace(/^\[|\]$/g, ""), address.port)
    return ArtifactStore.layer(storeOptions(config, config.publicUrl ?? bound))
  }))

/**
 * Catalog providers added to the built-in ones (`service`, `web`, `sitemap`, `wikipedia`): layers
 * that register into the server's `CatalogRegistry` (`CatalogRegistry.provider`), and may use its
 * pipeline and store.
 */
export type CatalogProviders<E = never> = Layer.Layer<never, E, CatalogRegistry | Pipeline | ArtifactStore | Store>

/**
 * The pipeline with the stores it shares, and the server's catalog beside it: one registry per
 * server (fresh, so two servers in one process never share one), filled by the built-in
 * providers and `extra`, which may use the pipeline.
 */
const withCatalog = <ROut, E, RIn, E2>(
  pipelineAndStores: Layer.Layer<ROut, E, RIn>,
  extra: CatalogProviders<E2>
) =>
  Layer.provideMerge(
    Layer.provideMerge(Layer.mergeAll(layerBuiltinProviders, extra), Layer.fresh(CatalogRegistry.layer)),
    pipelineAndStores
  )

/**
 * The adapter, the pipeline and the artifact store and state store they share, in the order they
 * start. The store and the pipeline start before the port is bound (a client never reaches a port
 * that cannot answer yet), except when links must name a port the system picks (port 0 without
 * `publicUrl`: tests, embedding), where the server listens first to learn it.
 */
const compose = <ROut, E, E2>(
  config: ServerConfig,
  pipeline: Layer.Layer<ROut, E, ArtifactStore | Store>,
  catalog: CatalogProviders<E2> = Layer.empty
) => {
  const listening = listen(config)
  const store = storeLayer(config)
  if (config.publicUrl !== undefined || config.port !== 0) {
    const artifacts = ArtifactStore.layer(storeOptions(config, config.publicUrl ?? publicUrlFor(config.host, config.port)))
    return serve(config).pipe(
      Layer.provideMerge(listening),
      Layer.provide(withCatalog(Layer.provideMerge(pipeline, Layer.merge(artifacts, store)), catalog))
    )
  }
  // One value used twice: layers are memoised by identity within a build, so this is one server.
  const artifacts = artifactStoreLayer(config).pipe(Layer.provide(listening))
  return serve(config).pipe(
    Layer.provide(withCatalog(Layer.provideMerge(pipeline, Layer.merge(artifacts, store)), catalog)),
    Layer.provideMerge(listening)
  )
}

/**
 * Serves the adapter on `config.host:config.port` (port 0 picks one; read it from the
 * `HttpServer` service's `address`) with its own artifact store and state store, and gives
 * `pipeline` those same stores (a pipeline that reads `Store` caches pages in it). Closing the
 * layer's scope stops accepting connections, lets requests in flight finish, stops the artifact
 * sweeper and closes the database.
 */
export const layerWithPipeline = <E, E2 = never>(
  config: ServerConfig,
  pipeline: Layer.Layer<Pipeline, E, ArtifactStore | Store>,
  catalog?: CatalogProviders<E2>
): Layer.Layer<HttpServer.HttpServer, E | E2 | ApiKeyStoreError | ArtifactSetupError | HttpServerError.ServeError> =>
  compose(config, pipeline, catalog)

/**
 * Serves the adapter on `config.host:config.port` (port 0 picks one; read it from the
 * `HttpServer` service's `address`) with its own artifact store; the `Pipeline` comes from
 * outside (use `layerWithPipeline` for a pipeline that stores artifacts). Closing the layer's
 * scope stops accepting connections and lets requests in flight finish (graceful shutdown).
 */
export const layer = (
  config: ServerConfig
): Layer.Layer<HttpServer.HttpServer, ApiKeyStoreError | ArtifactSetupError | HttpServerError.ServeError, Pipeline> =>
  compose(config, Layer.empty)
