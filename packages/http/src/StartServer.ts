/**
 * Promise-style entry points around `layer`: `startServer` (tests, embedding: returns the bound
 * URL and a `close`) and `serveFromEnv` (`npm start`, `strata serve`: configured from the
 * environment, runs until SIGINT/SIGTERM, then stops accepting and lets requests in flight end).
 */
import type { ArtifactStore, Pipeline, Store } from "@strata/core"
import { Cause, Context, Effect, Exit, Layer, Redacted, Scope } from "effect"
import { HttpServer } from "effect/http"
import { type CatalogProviders, layerWithPipeline } from "./HttpAdapter.ts"
import { makeServerConfig, type ServerConfig, serverConfigFromEnv } from "./ServerConfig.ts"

export interface RunningServer {
  /** `http://host:port`, with the port actually bound. */
  readonly url: string
  readonly port: number
  /** Stops accepting connections and waits for requests in flight. */
  readonly close: () => Promise<void>
}

const toUrl = (address: HttpServer.HttpServer["Service"]["address"]) => {
  const url = new URL(HttpServer.formatAddress(address))
  return { url: url.origin, port: Number(url.port) }
}

/**
 * Starts the server with the given pipeline; `config` overrides the defaults (not the
 * environment). The pipeline may need an `ArtifactStore` and a `Store`: it gets the server's own
 * (the artifacts whose links this server serves; the database its keys live in, for the cache).
 */
export const startServer = async <E, E2 = never>(options: {
  readonly pipeline: Layer.Layer<Pipeline, E, ArtifactStore | Store>
  readonly config?: Partial<ServerConfig> | undefined
  /** Catalog providers beside the built-in ones (see `CatalogProviders`). */
  readonly catalog?: CatalogProviders<E2> | undefined
}): Promise<RunningServer> => {
  const config = makeServerConfig(options.config)
  const scope = Effect.runSync(Scope.make())
  const exit = await Effect.runPromiseExit(
    Layer.buildWithScope(layerWithPipeline(config, options.pipeline, options.catalog), scope)
  )
  if (Exit.isFailure(exit)) {
    await Effect.runPromise(Scope.close(scope, exit))
    throw Cause.squash(exit.cause)
  }
  const { url, port } = toUrl(Context.get(exit.value, HttpServer.HttpServer).address)
  let closed: Promise<void> | undefined
  return {
    url,
    port,
    close: () => (closed ??= Effect.runPromise(Scope.close(scope, Exit.void)))
  }
}

/** What the supervised server (SupervisedChild.ts) adds to serving until a signal. */
export interface ServeHooks {
  /** Told once the port is bound. */
  readonly onListening?: ((server: RunningServer) => void) | undefined
  /** Another reason to stop, besides SIGINT and SIGTERM; resolves to the reason logged. */
  readonly stopWhen?: Promise<string> | undefined
}

/**
 * Serves until SIGINT or SIGTERM (or `stopWhen`), then stops accepting connections, lets
 * requests in flight finish, and resolves.
 */
export const serveUntilSignal = async <E>(options: {
  readonly pipeline: Layer.Layer<Pipeline, E, ArtifactStore | Store>
  readonly config: ServerConfig
} & ServeHooks): Promise<void> => {
  const server = await startServer(options)
  process.stdout.write(`Strata listening on ${server.url} (POST /v2/scrape, POST /v2/parse, GET /health, GET /ready, GET /metrics)\n`)
  options.onListening?.(server)
  await new Promise<void>((resolve) => {
    let stopping = false
    const stop = (reason: string) => {
      if (stopping) return
      stopping = true
      process.off("SIGINT", stop)
      process.off("SIGTERM", stop)
      process.stdout.write(`Received ${reason}; finishing requests in flight\n`)
      server.close().then(resolve, resolve)
    }
    process.on("SIGINT", stop)
    process.on("SIGTERM", stop)
    options.stopWhen?.then(stop)
  })
}

/**
 * `npm start` and `strata serve`: the full pipeline, configured from HOST, PORT,
 * STRATA_API_KEYS, STRATA_DATA_DIR, STRATA_RATE_LIMIT, STRATA_PUBLIC_URL, STRATA_ARTIFACT_SECRET
 * and STRATA_ARTIFACT_MAX_MB. With STRATA_DATABASE_URL it is a replica of a fleet: the pg-boss
 * queue is in its context (/ready, /metrics) and documents over STRATA_QUEUE_ABOVE_PAGES pages are
 * parsed by `strata worker` processes (@strata/fleet's Replica.ts). Resolves once a signal stopped it.
 */
export const serveFromEnv = async (overrides: Partial<ServerConfig> = {}, hooks: ServeHooks = {}): Promise<void> => {
  const { Strata } = await import("strata")
  const config = serverConfigFromEnv(process.env, overrides)
  const database = process.env.STRATA_DATABASE_URL?.trim()
  if (!database) return serveUntilSignal({ pipeline: Strata.StrataLive, config, ...hooks })
  // A replica of a fleet: the fleet's queue beside the pipeline (loaded only here: pg-boss is not
  // needed on SQLite), long documents handed to its workers.
  const fleet = await import("@strata/fleet")
  const pagesAbove = config.queueAbovePages ?? fleet.defaultQueueAbovePages
  const replica = fleet.replicaLayer({
    url: Redacted.make(database),
    pagesAbove: pagesAbove === "off" ? Infinity : pagesAbove,
    countPages: (bytes) => Strata.countPdfPages(bytes)
  })
  await serveUntilSignal({ pipeline: Layer.merge(Strata.StrataLive, replica), config, ...hooks })
}
