/**
 * The file-backed artifact store. A file lives at `{dataDir}/artifacts/{expires}-{id}.{ext}`:
 * the expiry in the name lets the sweeper judge a file without opening it or keeping an index,
 * and a link (which carries the same expiry, signed) finds its file without one either. Files
 * are written to a temporary name and renamed, so a reader never sees half a file.
 *
 * The sweeper runs on start and every `sweepIntervalMs` in the layer's scope: it deletes expired
 * files and temporaries left by a crash, then, over `maxBytes`, the files that expire first.
 */
import { Clock, Duration, Effect, type Scope, Semaphore, Stream } from "effect"
import { mkdir, open as openFile, readdir, rename, stat, unlink, writeFile } from "node:fs/promises"
import { join } from "node:path"
import { scrapeError, StageFailed } from "../ScrapeError.ts"
import { artifactError, ArtifactMissing, ArtifactSetupError, BadSignature, LinkExpired, MalformedLink } from "./ArtifactError.ts"
import {
  type ArtifactKind,
  contentTypeOf,
  decodeDataUrl,
  extensionFor,
  formatLink,
  newArtifactId,
  parseExpires,
  parseFileName,
  parseLink,
  signLink,
  verifyLink
} from "./ArtifactLinks.ts"
import { loadOrCreateSecret, secretFromText } from "./ArtifactSecret.ts"
import type { ArtifactBytes, ArtifactFile, ArtifactLink, ArtifactStore, SweepReport } from "./ArtifactStore.ts"

export interface FileStoreOptions {
  /** The data folder; files go to its `artifacts/` subfolder. */
  readonly dataDir: string
  /** Where the server that serves this folder is reached, e.g. `https://strata.example.com`. */
  readonly publicUrl: string
  /** The signing key; when undefined, one is generated once and kept in `{dataDir}/artifact-secret`. */
  readonly secret?: string | undefined
  /**
   * How long a link works, by kind, in seconds. Default 24 h for screenshots and PDFs (the
   * contract's screenshot lifetime), 1 h for audio and video (the contract's media lifetime).
   */
  readonly lifetimeSeconds?: Partial<Record<ArtifactKind, number | undefined>> | undefined
  /** Time between sweeps. Default 10 minutes. */
  readonly sweepIntervalMs?: number | undefined
  /** The folder's size cap in bytes; 0 = none. Default 1 GiB. */
  readonly maxBytes?: number | undefined
  /**
   * Create the folder and the generated secret on first use rather than when the layer is
   * built: a library that may never take a screenshot leaves no `data/` folder behind.
   */
  readonly lazy?: boolean | undefined
}

export const defaultLifetimeSeconds = 24 * 60 * 60
export const defaultMediaLifetimeSeconds = 60 * 60
export const defaultSweepIntervalMs = 10 * 60 * 1000
export const defaultMaxBytes = 1024 * 1024 * 1024
/** A temporary file this old was left by a write that never finished. */
const staleTemporaryMs = 60 * 60 * 1000

const temporaryPrefix = ".tmp-"
const diskNamePattern = /^([1-9][0-9]{0,11})-([0-9a-f]{32}\.(?:png|jpg|webp|pdf|mp3|mp4|webm))$/

const messageOf = (cause: unknown): string => cause instanceof Error ? cause.message : String(cause)
const errorCode = (cause: unknown): unknown => (cause as { code?: unknown } | null)?.code

const storeFailed = (message: string) => scrapeError(new StageFailed({ stage: "artifacts", message }))

/** Deletes a file; one already gone counts as deleted by someone else. */
const remove = (path: string): Promise<boolean> =>
  unlink(path).then(() => true, (cause) => {
    if (errorCode(cause) === "ENOENT") return false
    throw cause
  })

const chunkBytes = 64 * 1024

/**
 * The first `size` bytes of a file, chunk by chunk, from a file handle read in a loop. The handle
 * is closed before the last chunk goes out, so the response can end as soon as it is written.
 */
async function* readChunks(path: string, size: number): AsyncGenerator<Uint8Array> {
  const handle = await openFile(path, "r")
  let open = true
  try {
    let position = 0
    while (position < size) {
      const buffer = new Uint8Array(Math.min(chunkBytes, size - position))
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, position)
      if (bytesRead === 0) throw new Error(`${path} is shorter than ${size} bytes`)
      position += bytesRead
      if (position >= size) {
        open = false
        await handle.close()
      }
      yield bytesRead === buffer.length ? buffer : buffer.subarray(0, bytesRead)
    }
  } finally {
    if (open) await handle.close()
  }
}

export const makeFileStore = (options: FileStoreOptions) =>
  Effect.gen(function*() {
    const folder = join(options.dataDir, "artifacts")
    const configured = options.secret === undefined ? undefined : yield* secretFromText(options.secret)
    // The folder and the generated secret, made once; on the first use when `lazy`.
    let secret: Uint8Array | undefined
    const preparing = yield* Semaphore.make(1)
    const setUp = Effect.gen(function*() {
      yield* Effect.tryPromise({
        try: () => mkdir(folder, { recursive: true, mode: 0o700 }),
        catch: (cause) => new ArtifactSetupError({ message: `Cannot create the artifact folder ${folder}: ${messageOf(cause)}` })
      })
      return configured ?? (yield* loadOrCreateSecret(options.dataDir))
    })
    const ready: Effect.Effect<Uint8Array, ArtifactSetupError> = Effect.suspend(() =>
      secret !== undefined
        ? Effect.succeed(secret)
        : preparing.withPermits(1)(Effect.suspend(() =>
          secret !== undefined ? Effect.succeed(secret) : Effect.tap(setUp, (made) => Effect.sync(() => (secret = made)))
        ))
    )
    if (options.lazy !== true) yield* ready
    const lifetimes: Record<ArtifactKind, number> = {
      screenshot: options.lifetimeSeconds?.screenshot ?? defaultLifetimeSeconds,
      pdf: options.lifetimeSeconds?.pdf ?? defaultLifetimeSeconds,
      audio: options.lifetimeSeconds?.audio ?? defaultMediaLifetimeSeconds,
      video: options.lifetimeSeconds?.video ?? defaultMediaLifetimeSeconds
    }
    const maxBytes = options.maxBytes ?? defaultMaxBytes
    const sweepIntervalMs = options.sweepIntervalMs ?? defaultSweepIntervalMs
    const sweeping = yield* Semaphore.make(1)
    // Bytes on disk as of the last sweep plus what was put since: tells `put` when to sweep early.
    let storedBytes = 0

    const sweepNow = Effect.fn("ArtifactStore.sweep")(function*() {
      const now = yield* Clock.currentTimeMillis
      const report = yield* Effect.tryPromise(async () => {
        const kept: Array<{ readonly path: string; readonly expires: number; readonly size: number }> = []
        let deleted = 0
        // No folder yet (a lazy store nothing was put in): nothing to sweep.
        const names = await readdir(folder).catch((cause) => {
          if (errorCode(cause) === "ENOENT") return [] as Array<string>
          throw cause
        })
        for (const name of names) {
          const path = join(folder, name)
          const match = diskNamePattern.exec(name)
          if (match !== null && Number(match[1]) * 1000 > now) {
            const info = await stat(path).catch(() => undefined)
            if (info !== undefined) kept.push({ path, expires: Number(match[1]), size: info.size })
          } else if (match !== null) {
            if (await remove(path)) deleted++
          } else if (name.startsWith(temporaryPrefix)) {
            const info = await stat(path).catch(() => undefined)
            if (info !== undefined && now - info.mtimeMs > staleTemporaryMs && await remove(path)) deleted++
          }
        }
        let keptBytes = kept.reduce((sum, file) => sum + file.size, 0)
        let evicted = 0
        if (maxBytes > 0 && keptBytes > maxBytes) {
          kept.sort((a, b) => a.expires - b.expires)
          for (const file of kept) {
            if (keptBytes <= maxBytes) break
            if (await remove(file.path)) evicted++
            keptBytes -= file.size
          }
        }
        return { deleted, evicted, keptBytes }
      })
      storedBytes = report.keptBytes
      return report
    })
    const sweep: Effect.Effect<SweepReport> = sweeping.withPermits(1)(sweepNow()).pipe(
      Effect.catch((error) =>
        Effect.as(Effect.logWarning(`artifact sweep failed: ${messageOf(error.cause)}`), { deleted: 0, evicted: 0, keptBytes: storedBytes })
      )
    )

    const put: ArtifactStore["Service"]["put"] = Effect.fn("ArtifactStore.put")(function*(artifact) {
      const extension = extensionFor(artifact.contentType)
      if (extension === undefined) {
        return yield* storeFailed(`A ${artifact.kind} of type ${artifact.contentType} cannot be stored (png, jpeg, webp, pdf, mp3, mp4 and webm can)`)
      }
      if (maxBytes > 0 && artifact.bytes.byteLength > maxBytes) {
        return yield* storeFailed(`A ${artifact.kind} of ${artifact.bytes.byteLength} bytes is larger than the artifact store's cap of ${maxBytes} bytes`)
      }
      const key = yield* Effect.mapError(ready, (error) => storeFailed(error.message))
      const now = yield* Clock.currentTimeMillis
      const expires = Math.floor(now / 1000) + lifetimes[artifact.kind]
      const id = newArtifactId()
      const fileName = `${id}.${extension}`
      const temporary = join(folder, `${temporaryPrefix}${id}`)
      yield* Effect.tryPromise({
        try: async () => {
          await writeFile(temporary, artifact.bytes, { mode: 0o600 })
          await rename(temporary, join(folder, `${expires}-${fileName}`))
        },
        catch: (cause) => storeFailed(`The ${artifact.kind} could not be written to ${folder}: ${messageOf(cause)}`)
      }).pipe(
        Effect.onError(() => Effect.promise(() => remove(temporary).catch(() => false))),
        // Half a write would be left for the sweeper; finish it instead.
        Effect.uninterruptible
      )
      storedBytes += artifact.bytes.byteLength
      if (maxBytes > 0 && storedBytes > maxBytes) yield* sweep
      return { id, url: formatLink(options.publicUrl, fileName, expires, signLink(key, fileName, expires)), expiresAt: expires * 1000 }
    })

    const open = Effect.fn("ArtifactStore.open")(function*(link: ArtifactLink) {
      const name = parseFileName(link.fileName)
      if (name === undefined) return yield* artifactError(new MalformedLink({ message: "No such artifact" }))
      const expires = parseExpires(link.expires)
      // The secret is readable whenever a file was ever put: failing here is the folder vanishing under us.
      const key = yield* Effect.orDie(ready)
      if (expires === undefined || !verifyLink(key, link.fileName, expires, link.sig)) {
        return yield* artifactError(new BadSignature({ message: "The link's signature is missing or does not match" }))
      }
      const now = yield* Clock.currentTimeMillis
      if (now >= expires * 1000) {
        return yield* artifactError(new LinkExpired({ message: "The link has expired", expiredAt: expires * 1000 }))
      }
      const path = join(folder, `${expires}-${link.fileName}`)
      const missing = artifactError(new ArtifactMissing({ message: "The artifact is no longer stored" }))
      const size = yield* Effect.tryPromise(() => stat(path)).pipe(
        Effect.map((info) => info.size),
        Effect.catch(() => Effect.fail(missing))
      )
      const file: ArtifactFile = {
        fileName: link.fileName,
        contentType: contentTypeOf(name.extension),
        size,
        expiresAt: expires * 1000,
        // Opened when pulled, closed when done or interrupted (the generator's `finally`).
        stream: Stream.suspend(() => Stream.fromAsyncIterable(readChunks(path, size), () => missing))
      }
      return file
    })

    const read = Effect.fn("ArtifactStore.read")(function*(url: string) {
      const inline = decodeDataUrl(url)
      if (inline !== undefined) return inline
      const link = parseLink(url)
      if (link === undefined) return yield* artifactError(new MalformedLink({ message: "Not an artifact link" }))
      const file = yield* open(link)
      const bytes = file.size === 0 ? new Uint8Array(0) : yield* Stream.mkUint8Array(file.stream)
      return { bytes, contentType: file.contentType } satisfies ArtifactBytes
    })

    // On start, then every interval, until the layer's scope closes.
    yield* sweep.pipe(
      Effect.andThen(Effect.forever(Effect.sleep(Duration.millis(sweepIntervalMs)).pipe(Effect.andThen(sweep)))),
      Effect.forkScoped
    )

    return { put, open, read, sweep }
  }) satisfies Effect.Effect<ArtifactStore["Service"], ArtifactSetupError, Scope.Scope>
