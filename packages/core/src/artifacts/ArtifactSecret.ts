/**
 * The key that signs artifact links. `STRATA_ARTIFACT_SECRET` when it is set; otherwise one
 * generated on first use and kept in `{dataDir}/artifact-secret` (mode 0600), so links handed
 * out before a restart still open after it. Two processes starting together agree on one key:
 * each writes its candidate to a temporary file and hard-links it into place, and the link only
 * succeeds for the first.
 */
import { Effect } from "effect"
import { randomBytes } from "node:crypto"
import { chmod, link, mkdir, readFile, stat, unlink, writeFile } from "node:fs/promises"
import { join } from "node:path"
import { ArtifactSetupError } from "./ArtifactError.ts"

export const secretFileName = "artifact-secret"

/** Shorter secrets are refused: HMAC is only as strong as its key. */
export const minSecretLength = 16

const setupError = (what: string) => (cause: unknown) =>
  new ArtifactSetupError({ message: `${what}: ${cause instanceof Error ? cause.message : String(cause)}` })

const errorCode = (cause: unknown): unknown => (cause as { code?: unknown } | null)?.code

/** The configured secret as bytes, refused when too short to be one. */
export const secretFromText = (text: string): Effect.Effect<Uint8Array, ArtifactSetupError> =>
  text.length >= minSecretLength
    ? Effect.succeed(new TextEncoder().encode(text))
    : Effect.fail(new ArtifactSetupError({ message: `STRATA_ARTIFACT_SECRET must be at least ${minSecretLength} characters` }))

const readSecretFile = (file: string): Effect.Effect<Uint8Array | undefined, ArtifactSetupError> =>
  Effect.tryPromise({
    try: async () => {
      const text = (await readFile(file, "utf8")).trim()
      if (!/^[0-9a-f]{64}$/.test(text)) throw new Error(`${file} does not hold a 64-digit hex secret; delete it to make a new one`)
      // Someone loosened it: only this user should read the key.
      if (((await stat(file)).mode & 0o077) !== 0) await chmod(file, 0o600)
      return new Uint8Array(Buffer.from(text, "hex"))
    },
    catch: (cause) => cause
  }).pipe(
    Effect.catch((cause) => errorCode(cause) === "ENOENT" ? Effect.succeed(undefined) : Effect.fail(setupError("Cannot read the artifact secret")(cause)))
  )

/** The secret kept under `dataDir`, created (0600) when there is none. */
export const loadOrCreateSecret = (dataDir: string): Effect.Effect<Uint8Array, ArtifactSetupError> =>
  Effect.gen(function*() {
    const file = join(dataDir, secretFileName)
    const existing = yield* readSecretFile(file)
    if (existing !== undefined) return existing
    const candidate = join(dataDir, `.${secretFileName}-${randomBytes(6).toString("hex")}`)
    yield* Effect.tryPromise({
      try: async () => {
        await mkdir(dataDir, { recursive: true })
        await writeFile(candidate, randomBytes(32).toString("hex") + "\n", { mode: 0o600, flag: "wx" })
        try {
          await link(candidate, file)
        } catch (cause) {
          // Another process put its key there first: use that one.
          if (errorCode(cause) !== "EEXIST") throw cause
        } finally {
          await unlink(candidate).catch(() => undefined)
        }
      },
      catch: setupError(`Cannot create the artifact secret in ${dataDir}`)
    })
    const created = yield* readSecretFile(file)
    if (created === undefined) return yield* new ArtifactSetupError({ message: `The artifact secret ${file} vanished as it was created` })
    return created
  })
