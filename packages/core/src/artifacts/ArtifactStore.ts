/**
 * The artifact store: where screenshots, PDFs, audio and video made while scraping are kept, and the signed
 * links the response carries to them. The browser engine calls `put`; the HTTP adapter serves
 * `GET /v2/artifacts/{file}` through `open`; library users turn a link back into bytes with
 * `read`.
 *
 * Three layers: `layer(options)` keeps files under `{dataDir}/artifacts` behind HMAC-signed,
 * expiring links (FileArtifactStore.ts); `layerConfig` is the same, configured from the
 * environment; `layerInline` keeps nothing and answers `data:` URLs (what self-hosted Firecrawl
 * returns when no bucket is configured).
 */
import { Config, Context, Effect, Layer, type Stream } from "effect"
import { type ScrapeError } from "../ScrapeError.ts"
import { artifactError, type ArtifactError, ArtifactMissing, type ArtifactSetupError, MalformedLink } from "./ArtifactError.ts"
import { type ArtifactKind, decodeDataUrl } from "./ArtifactLinks.ts"
import { type FileStoreOptions, makeFileStore } from "./FileArtifactStore.ts"

/** What the engine hands in: the bytes, their content type (png, jpeg, webp or pdf) and what they are. */
export interface Artifact {
  readonly bytes: Uint8Array
  readonly contentType: string
  readonly kind: ArtifactKind
}

/** A stored artifact: its id, the link to put in the response, and when the link stops working (epoch ms). */
export interface StoredArtifact {
  readonly id: string
  readonly url: string
  readonly expiresAt: number
}

/** The parts of a link the route received: the file name from the path, `expires` and `sig` from the query. */
export interface ArtifactLink {
  readonly fileName: string
  readonly expires: string | undefined
  readonly sig: string | undefined
}

/** A file a link opened: what to send, and how long it may be cached (`expiresAt`, epoch ms). */
export interface ArtifactFile {
  readonly fileName: string
  readonly contentType: string
  readonly size: number
  readonly expiresAt: number
  /** The bytes, read from disk as they are pulled. */
  readonly stream: Stream.Stream<Uint8Array, ArtifactError>
}

export interface ArtifactBytes {
  readonly bytes: Uint8Array
  readonly contentType: string
}

/** What a sweep did: expired files and stale temporaries deleted, files evicted by the size cap, bytes kept. */
export interface SweepReport {
  readonly deleted: number
  readonly evicted: number
  readonly keptBytes: number
}

/** Where `npm start` listens by default (packages/http/src/ServerConfig.ts says the same). */
const defaultHost = "127.0.0.1"
const defaultPort = 3002

/** A URL a client can reach for a bind address: a wildcard becomes loopback, IPv6 gets brackets. */
export const publicUrlFor = (host: string, port: number): string => {
  const reachable = host === "" || host === "0.0.0.0" ? "127.0.0.1" : host === "::" ? "::1" : host
  return `http://${reachable.includes(":") ? `[${reachable}]` : reachable}:${port}`
}

/** The file store's options from the environment (see `layerConfig`). */
export const fileStoreConfig: Effect.Effect<FileStoreOptions, Config.ConfigError> = Effect.gen(function*() {
  const dataDir = yield* Config.String("STRATA_DATA_DIR").pipe(Config.withDefault("./data"))
  const secret = yield* Config.String("STRATA_ARTIFACT_SECRET").pipe(Config.withDefault(""))
  const publicUrl = yield* Config.String("STRATA_PUBLIC_URL").pipe(Config.withDefault(""))
  const host = yield* Config.String("HOST").pipe(Config.withDefault(defaultHost))
  // PORT is a common name (an app embedding the library may use it for itself): one that is not a port is not ours.
  const portText = yield* Config.String("PORT").pipe(Config.withDefault(""))
  const port = /^[1-9][0-9]{0,4}$/.test(portText.trim()) && Number(portText) <= 65535 ? Number(portText) : defaultPort
  const maxMb = yield* Config.Number("STRATA_ARTIFACT_MAX_MB").pipe(Config.withDefault(1024))
  return {
    dataDir: dataDir.trim() || "./data",
    secret: secret === "" ? undefined : secret,
    publicUrl: publicUrl.trim() || publicUrlFor(host.trim() || defaultHost, port),
    maxBytes: Math.max(0, maxMb) * 1024 * 1024
  }
})

export class ArtifactStore extends Context.Service<ArtifactStore, {
  readonly put: (artifact: {
    readonly bytes: Uint8Array
    readonly contentType: string
    readonly kind: ArtifactKind
  }) => Effect.Effect<{ readonly id: string; readonly url: string; readonly expiresAt: number }, ScrapeError>
  /** Checks a link (name, signature in constant time, expiry) and opens its file. */
  readonly open: (link: ArtifactLink) => Effect.Effect<ArtifactFile, ArtifactError>
  /** The bytes behind a link `put` returned (absolute, or path and query), or behind a `data:` URL. */
  readonly read: (url: string) => Effect.Effect<ArtifactBytes, ArtifactError>
  /** Deletes expired files now (the layer also does it on start and every `sweepIntervalMs`). */
  readonly sweep: Effect.Effect<SweepReport>
}>()("@strata/core/ArtifactStore") {
  /** Files under `{options.dataDir}/artifacts`, links under `options.publicUrl`, a sweeper fiber in the layer's scope. */
  static readonly layer = (options: FileStoreOptions): Layer.Layer<ArtifactStore, ArtifactSetupError> =>
    Layer.effect(ArtifactStore, Effect.map(makeFileStore(options), ArtifactStore.of))

  /**
   * `layer` configured from the environment: STRATA_DATA_DIR (default `./data`),
   * STRATA_ARTIFACT_SECRET (default: a key generated once under the data folder),
   * STRATA_PUBLIC_URL (default `http://{HOST}:{PORT}`, the address `npm start` binds) and
   * STRATA_ARTIFACT_MAX_MB (default 1024; 0 = no cap).
   */
  static readonly layerConfig: Layer.Layer<ArtifactStore, ArtifactSetupError | Config.ConfigError> = Layer.unwrap(
    Effect.map(fileStoreConfig, (options) => ArtifactStore.layer(options))
  )

  /** Nothing on disk: `put` answers a `data:` URL with the bytes (they never expire). */
  static readonly layerInline: Layer.Layer<ArtifactStore> = Layer.succeed(ArtifactStore, ArtifactStore.of({
    put: (artifact) =>
      Effect.succeed({
        id: "inline",
        url: `data:${artifact.contentType};base64,${Buffer.from(artifact.bytes).toString("base64")}`,
        expiresAt: Number.MAX_SAFE_INTEGER
      }),
    open: () => Effect.fail(artifactError(new ArtifactMissing({ message: "This store keeps no files; its links are data: URLs" }))),
    read: (url) => {
      const decoded = decodeDataUrl(url)
      return decoded === undefined
        ? Effect.fail(artifactError(new MalformedLink({ message: "Not a data: URL" })))
        : Effect.succeed(decoded)
    },
    sweep: Effect.succeed({ deleted: 0, evicted: 0, keptBytes: 0 })
  }))
}
