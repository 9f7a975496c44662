/**
 * Bearer-key authentication. Two kinds of key are accepted, both belonging to a team:
 *
 * - the server's own keys, held in memory: those in `STRATA_API_KEYS`, or, with none configured,
 *   the key the first start creates (only its SHA-256 is stored, under the data folder in
 *   `api-keys.json`, mode 0600, and the clear key is handed to `announceKey` that single time).
 *   They belong to the default team, which has no limits, so the quick start stays two commands.
 *   They are compared against every stored hash with `timingSafeEqual`, so neither the comparison
 *   nor the number of keys checked depends on how much of a key matched. Taking a key out of
 *   `STRATA_API_KEYS` takes it out of service: they are never copied into the store.
 * - keys made with `strata keys create --team T`, looked up in the `Store` (hashed there too).
 */
import { defaultTeamId, Store, type StoreError, type Team } from "@strata/core"
import { layerConfigIn } from "@strata/store"
import { type Config, Context, Effect, Layer, Option, Schema } from "effect"
import { createHash, randomBytes, timingSafeEqual } from "node:crypto"
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from "node:fs"
import { join, resolve } from "node:path"
import type { ServerConfig } from "./ServerConfig.ts"

export class ApiKeyStoreError extends Schema.TaggedError<ApiKeyStoreError>()("ApiKeyStoreError", {
  file: Schema.String,
  message: Schema.String
}) {}

const KeyFile = Schema.Struct({
  version: Schema.Literal(1),
  keys: Schema.Array(Schema.Struct({ id: Schema.String, sha256: Schema.String, createdAt: Schema.String }))
})
type KeyFile = typeof KeyFile.Type

export type AuthResult =
  /** `team` is the store's record of it, read with the key (absent for the server's own keys). */
  | { readonly _tag: "Authorized"; readonly keyId: string; readonly teamId: string; readonly team?: Team | undefined }
  | { readonly _tag: "Missing" }
  | { readonly _tag: "Invalid" }
  /** The store could not be asked: whether the key is good is unknown. */
  | { readonly _tag: "Unavailable" }

const sha256 = (text: string): Buffer => createHash("sha256").update(text, "utf8").digest()

/** A stable, non-secret name for a key (for logs and rate-limit buckets). */
const keyIdOf = (hash: Buffer): string => `key_${hash.toString("hex").slice(0, 12)}`

/** Generates a new key: a prefix that makes it recognisable plus 256 random bits. */
export const generateApiKey = (): string => `sk-strata-${randomBytes(32).toString("base64url")}`

interface StoredKey {
  readonly id: string
  readonly hash: Buffer
}

const bearerPattern = /^\s*Bearer\s+(\S+)\s*$/i

/** Checks an `Authorization` header value against the server's own keys (the default team's). */
export const verifyAuthorization = (keys: ReadonlyArray<StoredKey>, header: string | undefined): AuthResult => {
  const match = bearerPattern.exec(header ?? "")
  if (header === undefined || header.trim() === "") return { _tag: "Missing" }
  if (match === null) return { _tag: "Invalid" }
  const presented = sha256(match[1])
  let found: string | undefined
  // Every key is compared, even after a match, so timing says nothing about which one matched.
  for (const key of keys) {
    if (timingSafeEqual(presented, key.hash) && found === undefined) found = key.id
  }
  return found === undefined ? { _tag: "Invalid" } : { _tag: "Authorized", keyId: found, teamId: defaultTeamId }
}

const readKeyFile = (file: string): Effect.Effect<KeyFile | undefined, ApiKeyStoreError> =>
  Effect.try({
    try: () => readFileSync(file, "utf8"),
    catch: (cause) => cause as NodeJS.ErrnoException
  }).pipe(
    Effect.catch((error) =>
      error.code === "ENOENT"
        ? Effect.succeed(undefined)
        : Effect.fail(new ApiKeyStoreError({ file, message: `Cannot read the key file: ${error.message}` }))
    ),
    Effect.flatMap((text) =>
      text === undefined
        ? Effect.succeed(undefined)
        : Schema.decodeUnknownEffect(Schema.fromJsonString(KeyFile))(text).pipe(
          Effect.mapError(() =>
            new ApiKeyStoreError({ file, message: "The key file is not valid; fix it or delete it to create a new key" })
          )
        )
    )
  )

/**
 * Creates the key file with a fresh key. `wx` makes creation exclusive: if another process won
 * the race, its file is read instead and no second key is announced.
 */
const createKeyFile = (file: string, dataDir: string) =>
  Effect.try({
    try: () => {
      mkdirSync(dataDir, { recursive: true, mode: 0o700 })
      const key = generateApiKey()
      const hash = sha256(key)
      const content: KeyFile = {
        version: 1,
        keys: [{ id: keyIdOf(hash), sha256: hash.toString("hex"), createdAt: new Date().toISOString() }]
      }
      writeFileSync(file, JSON.stringify(content, null, 2) + "\n", { flag: "wx", mode: 0o600 })
      // The umask may have narrowed the mode further, never widened it; make it exact.
      chmodSync(file, 0o600)
      return { key, content }
    },
    catch: (cause) => cause as NodeJS.ErrnoException
  })

/** The server's own keys (see the module comment): from the environment, or the generated key file. */
const ownKeys = Effect.fnUntraced(function*(config: Pick<ServerConfig, "apiKeys" | "dataDir" | "announceKey">) {
  if (config.apiKeys.length > 0) {
    const keys = config.apiKeys.map((key) => {
      const hash = sha256(key)
      return { id: keyIdOf(hash), hash }
    })
    return { keys, file: undefined }
  }
  const dataDir = resolve(config.dataDir)
  const file = join(dataDir, "api-keys.json")
  let stored = yield* readKeyFile(file)
  if (stored === undefined) {
    const created = yield* createKeyFile(file, dataDir).pipe(
      Effect.map((result): { key: string | undefined; content: KeyFile } => result),
      Effect.catch((error) =>
        error.code === "EEXIST"
          ? Effect.map(readKeyFile(file), (content) => ({ key: undefined, content: content! }))
          : Effect.fail(new ApiKeyStoreError({ file, message: `Cannot create the key file: ${error.message}` }))
      )
    )
    if (created.key !== undefined) config.announceKey(created.key, file)
    stored = created.content
  }
  const keys = stored.keys.map((key) => ({ id: key.id, hash: Buffer.from(key.sha256, "hex") }))
    .filter((key) => key.hash.length === 32)
  if (keys.length === 0) {
    return yield* new ApiKeyStoreError({ file, message: "The key file holds no usable key; delete it to create one" })
  }
  return { keys, file }
})

/** A store that cannot be opened or asked at start, as the server's start-up error. */
export const storeFailed = (error: StoreError | Config.ConfigError) =>
  new ApiKeyStoreError({ file: "store", message: `The state store cannot be opened: ${error.message}` })

export class ApiKeys extends Context.Service<ApiKeys, {
  readonly verify: (authorization: string | undefined) => Effect.Effect<AuthResult>
  /** Where generated keys live, or undefined when keys come from the environment. */
  readonly file: string | undefined
}>()("@strata/http/ApiKeys") {
  /** The server's own keys first (in memory), then the store's; the default team is created if missing. */
  static readonly make = Effect.fnUntraced(function*(
    config: Pick<ServerConfig, "apiKeys" | "dataDir" | "announceKey">
  ) {
    const store = yield* Store
    const own = yield* ownKeys(config)
    if (Option.isNone(yield* store.getTeam(defaultTeamId).pipe(Effect.mapError(storeFailed)))) {
      yield* store.setTeam(defaultTeamId, {}).pipe(Effect.mapError(storeFailed))
    }
    const verify = (header: string | undefined): Effect.Effect<AuthResult> => {
      const local = verifyAuthorization(own.keys, header)
      if (local._tag !== "Invalid") return Effect.succeed(local)
      const match = bearerPattern.exec(header ?? "")
      if (match === null) return Effect.succeed(local)
      return store.authenticate(match[1]).pipe(
        Effect.map(Option.match({
          onNone: (): AuthResult => ({ _tag: "Invalid" }),
          onSome: (found): AuthResult => ({ _tag: "Authorized", keyId: found.keyId, teamId: found.team.id, team: found.team })
        })),
        Effect.catch(() => Effect.succeed<AuthResult>({ _tag: "Unavailable" }))
      )
    }
    return ApiKeys.of({ verify, file: own.file })
  })

  /** On a `Store` from the context (shared with the rest of the server). */
  static readonly layerWithStore = (config: Pick<ServerConfig, "apiKeys" | "dataDir" | "announceKey">) =>
    Layer.effect(ApiKeys, ApiKeys.make(config))

  /** With its own store: the one the environment names (STRATA_DATABASE_URL), else SQLite under `config.dataDir`. */
  static readonly layer = (config: Pick<ServerConfig, "apiKeys" | "dataDir" | "announceKey">) =>
    Layer.effect(
      ApiKeys,
      Effect.gen(function*() {
        // Built in the layer's scope: the store closes with the server.
        const context = yield* Layer.build(layerConfigIn(config.dataDir)).pipe(Effect.mapError(storeFailed))
        return yield* ApiKeys.make(config).pipe(Effect.provideContext(context))
      })
    )
}
