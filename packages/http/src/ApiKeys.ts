/**
 * Bearer-key authentication. Keys come from `STRATA_API_KEYS`; with none configured, the first
 * start creates one, stores only its SHA-256 under the data folder (`api-keys.json`, mode 0600)
 * and hands the clear key to `announceKey` that single time. Presented keys are hashed and
 * compared against every stored hash with `timingSafeEqual`, so neither the comparison nor the
 * number of keys checked depends on how much of a key matched.
 */
import { Context, Effect, Layer, Schema } from "effect"
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
  | { readonly _tag: "Authorized"; readonly keyId: string }
  | { readonly _tag: "Missing" }
  | { readonly _tag: "Invalid" }

const sha256 = (text: string): Buffer => createHash("sha256").update(text, "utf8").digest()

/** A stable, non-secret name for a key (for logs and rate-limit buckets). */
const keyIdOf = (hash: Buffer): string => `key_${hash.toString("hex").slice(0, 12)}`

/** Generates a new key: a prefix that makes it recognisable plus 256 random bits. */
export const generateApiKey = (): string => `sk-strata-${randomBytes(32).toString("base64url")}`

interface StoredKey {
  readonly id: string
  readonly hash: Buffer
}

/** Checks an `Authorization` header value against the stored hashes. */
export const verifyAuthorization = (keys: ReadonlyArray<StoredKey>, header: string | undefined): AuthResult => {
  const match = /^\s*Bearer\s+(\S+)\s*$/i.exec(header ?? "")
  if (header === undefined || header.trim() === "") return { _tag: "Missing" }
  if (match === null) return { _tag: "Invalid" }
  const presented = sha256(match[1])
  let found: string | undefined
  // Every key is compared, even after a match, so timing says nothing about which one matched.
  for (const key of keys) {
    if (timingSafeEqual(presented, key.hash) && found === undefined) found = key.id
  }
  return found === undefined ? { _tag: "Invalid" } : { _tag: "Authorized", keyId: found }
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

export class ApiKeys extends Context.Service<ApiKeys, {
  readonly verify: (authorization: string | undefined) => AuthResult
  /** Where generated keys live, or undefined when keys come from the environment. */
  readonly file: string | undefined
}>()("@strata/http/ApiKeys") {
  static readonly make = Effect.fnUntraced(function*(
    config: Pick<ServerConfig, "apiKeys" | "dataDir" | "announceKey">
  ) {
    if (config.apiKeys.length > 0) {
      const keys = config.apiKeys.map((key) => {
        const hash = sha256(key)
        return { id: keyIdOf(hash), hash }
      })
      return ApiKeys.of({ verify: (header) => verifyAuthorization(keys, header), file: undefined })
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
    return ApiKeys.of({ verify: (header) => verifyAuthorization(keys, header), file })
  })

  static readonly layer = (config: Pick<ServerConfig, "apiKeys" | "dataDir" | "announceKey">) =>
    Layer.effect(ApiKeys, ApiKeys.make(config))
}
