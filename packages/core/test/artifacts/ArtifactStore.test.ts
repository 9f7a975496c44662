/**
 * The file-backed artifact store on real files: put and read back, signatures and tampering,
 * names that try to leave the folder, expiry and the sweeper (on the TestClock), the size cap,
 * the secret kept across two builds, the inline store, and the configuration from the environment.
 */
import { assert, describe, it } from "@effect/vitest"
import { ConfigProvider, Effect, Exit, Layer } from "effect"
import { TestClock } from "effect/testing"
import { existsSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { type ArtifactError } from "../../src/artifacts/ArtifactError.ts"
import { parseLink, signLink } from "../../src/artifacts/ArtifactLinks.ts"
import { ArtifactStore, fileStoreConfig, publicUrlFor } from "../../src/artifacts/ArtifactStore.ts"
import type { FileStoreOptions } from "../../src/artifacts/FileArtifactStore.ts"

const tempDir = () => mkdtempSync(join(tmpdir(), "strata-artifacts-"))
const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3, 4])
const base = "http://127.0.0.1:3002"

const withStore = <A, E>(options: Partial<FileStoreOptions>, body: (store: ArtifactStore["Service"]) => Effect.Effect<A, E>) =>
  Effect.gen(function*() {
    yield* TestClock.setTime(Date.parse("2026-01-01T00:00:00Z"))
    const store = yield* ArtifactStore
    return yield* body(store)
  }).pipe(Effect.provide(ArtifactStore.layer({ dataDir: tempDir(), publicUrl: base, ...options })))

const failureTag = <A>(exit: Exit.Exit<A, ArtifactError>): string =>
  Exit.isFailure(exit) && exit.cause.reasons[0]?._tag === "Fail" ? (exit.cause.reasons[0].error as ArtifactError).reason._tag : "no failure"

const storedFiles = (dataDir: string) => readdirSync(join(dataDir, "artifacts")).filter((name) => !name.startsWith("."))

/** Real time passes while the swept file's deletion (real I/O) finishes. */
const eventually = (check: () => boolean) =>
  Effect.gen(function*() {
    for (let i = 0; i < 100 && !check(); i++) yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 10)))
    return check()
  })

describe("ArtifactStore (files)", () => {
  it.effect("put writes one private file and its signed link reads back the same bytes and type", () => {
    const dataDir = tempDir()
    return withStore({ dataDir }, (store) =>
      Effect.gen(function*() {
        const stored = yield* store.put({ bytes: png, contentType: "image/png", kind: "screenshot" })
        assert.match(stored.url, /^http:\/\/127\.0\.0\.1:3002\/v2\/artifacts\/[0-9a-f]{32}\.png\?expires=\d+&sig=[0-9a-f]{64}$/)
        assert.strictEqual(stored.expiresAt, Date.parse("2026-01-02T00:00:00Z"))
        assert.isTrue(stored.url.includes(stored.id))
        const files = storedFiles(dataDir)
        assert.deepStrictEqual(files, [`${stored.expiresAt / 1000}-${stored.id}.png`])
        assert.strictEqual(statSync(join(dataDir, "artifacts", files[0])).mode & 0o777, 0o600)
        const read = yield* store.read(stored.url)
        assert.deepStrictEqual(read, { bytes: png, contentType: "image/png" })
        const pdf = yield* store.put({ bytes: new TextEncoder().encode("%PDF-1.7"), contentType: "application/pdf", kind: "pdf" })
        assert.strictEqual((yield* store.read(pdf.url)).contentType, "application/pdf")
      }))
  })

  it.effect("a content type it does not keep fails the put with a stage error", () =>
    withStore({}, (store) =>
      Effect.gen(function*() {
        const exit = yield* Effect.exit(store.put({ bytes: png, contentType: "text/html", kind: "screenshot" }))
        assert.isTrue(Exit.isFailure(exit))
        assert.match(String(Exit.isFailure(exit) ? exit.cause.reasons[0] : ""), /StageFailed|cannot be stored/)
      })))

  it.effect("a changed signature, expiry or name is refused", () =>
    withStore({}, (store) =>
      Effect.gen(function*() {
        const stored = yield* store.put({ bytes: png, contentType: "image/png", kind: "screenshot" })
        const link = parseLink(stored.url)!
        const flipped = link.sig!.replace(/^./, (c) => (c === "0" ? "1" : "0"))
        assert.strictEqual(failureTag(yield* Effect.exit(store.open({ ...link, sig: flipped }))), "BadSignature")
        assert.strictEqual(failureTag(yield* Effect.exit(store.open({ ...link, sig: undefined }))), "BadSignature")
        assert.strictEqual(failureTag(yield* Effect.exit(store.open({ ...link, sig: link.sig!.toUpperCase() }))), "BadSignature")
        assert.strictEqual(failureTag(yield* Effect.exit(store.open({ ...link, expires: String(Number(link.expires) + 3600) }))), "BadSignature")
        assert.strictEqual(failureTag(yield* Effect.exit(store.open({ ...link, expires: undefined }))), "BadSignature")
        const otherName = `${"0".repeat(32)}.png`
        assert.strictEqual(failureTag(yield* Effect.exit(store.open({ ...link, fileName: otherName }))), "BadSignature")
        assert.strictEqual((yield* store.open(link)).contentType, "image/png")
      })))

  it.effect("names that leave the folder or are not the store's are refused before anything is read", () => {
    const dataDir = tempDir()
    return withStore({ dataDir }, (store) =>
      Effect.gen(function*() {
        yield* store.put({ bytes: png, contentType: "image/png", kind: "screenshot" })
        const secretFile = readFileSync(join(dataDir, "artifact-secret"), "utf8").trim()
        const secret = new Uint8Array(Buffer.from(secretFile, "hex"))
        const expires = Math.floor(Date.parse("2026-01-01T12:00:00Z") / 1000)
        for (const fileName of ["../artifact-secret", "..%2Fartifact-secret", `../artifacts/${"a".repeat(32)}.png`, "/etc/passwd", "", ".", "..", `${"a".repeat(32)}.png/..`, `${"a".repeat(32)}.html`, `${"A".repeat(32)}.png`, `${"a".repeat(32)}.png\u0000`]) {
          // Even a correctly signed bad name is refused: the name is checked first.
          const exit = yield* Effect.exit(store.open({ fileName, expires: String(expires), sig: signLink(secret, fileName, expires) }))
          assert.strictEqual(failureTag(exit), "MalformedLink", fileName)
        }
        assert.strictEqual(failureTag(yield* Effect.exit(store.read(`${base}/v2/artifacts/..%2F..%2Fartifact-secret?expires=${expires}&sig=00`))), "MalformedLink")
        assert.strictEqual(failureTag(yield* Effect.exit(store.read(`${base}/v2/scrape`))), "MalformedLink")
      }))
  })

  it.effect("a link stops working at its expiry, and the sweeper deletes the file", () => {
    const dataDir = tempDir()
    return withStore({ dataDir, sweepIntervalMs: 60_000 }, (store) =>
      Effect.gen(function*() {
        const stored = yield* store.put({ bytes: png, contentType: "image/png", kind: "screenshot" })
        yield* TestClock.adjust("23 hours")
        assert.strictEqual((yield* store.read(stored.url)).bytes.length, png.length)
        yield* TestClock.adjust("1 hour")
        assert.strictEqual(failureTag(yield* Effect.exit(store.read(stored.url))), "LinkExpired")
        assert.strictEqual(storedFiles(dataDir).length, 1, "not swept before the next sweep")
        // The sweeper's fiber does real file I/O between its sleeps, so a sweep may still be running
        // when the clock moves; each further minute wakes its next sleep (no direct sweep call).
        let swept = false
        for (let minute = 0; minute < 5 && !swept; minute++) {
          yield* TestClock.adjust("1 minute")
          swept = yield* eventually(() => storedFiles(dataDir).length === 0)
        }
        assert.isTrue(swept, "the sweeper deleted the expired file")
        // Expired is still expired (not missing): the signature proves the link was genuine.
        assert.strictEqual(failureTag(yield* Effect.exit(store.read(stored.url))), "LinkExpired")
      }))
  })

  it.effect("lifetimes are per kind", () =>
    withStore({ lifetimeSeconds: { screenshot: 60, pdf: 120 } }, (store) =>
      Effect.gen(function*() {
        const shot = yield* store.put({ bytes: png, contentType: "image/png", kind: "screenshot" })
        const pdf = yield* store.put({ bytes: png, contentType: "application/pdf", kind: "pdf" })
        assert.strictEqual(pdf.expiresAt - shot.expiresAt, 60_000)
        yield* TestClock.adjust("90 seconds")
        assert.strictEqual(failureTag(yield* Effect.exit(store.read(shot.url))), "LinkExpired")
        assert.strictEqual((yield* store.read(pdf.url)).contentType, "application/pdf")
      })))

  it.live("on start, the sweeper deletes files that expired while the store was down, and stale temporaries", () =>
    Effect.gen(function*() {
      const dataDir = tempDir()
      const folder = join(dataDir, "artifacts")
      const write = Effect.provide(
        Effect.flatMap(ArtifactStore, (store) => store.put({ bytes: png, contentType: "image/png", kind: "screenshot" })),
        ArtifactStore.layer({ dataDir, publicUrl: base })
      )
      const kept = yield* write
      writeFileSync(join(folder, `1700000000-${"b".repeat(32)}.png`), png)
      writeFileSync(join(folder, ".tmp-old"), png)
      const { utimesSync } = yield* Effect.promise(() => import("node:fs"))
      utimesSync(join(folder, ".tmp-old"), new Date(Date.now() - 2 * 3600_000), new Date(Date.now() - 2 * 3600_000))
      writeFileSync(join(folder, ".tmp-fresh"), png)
      const report = yield* Effect.provide(Effect.flatMap(ArtifactStore, (store) => store.sweep), ArtifactStore.layer({ dataDir, publicUrl: base }))
      assert.strictEqual(report.deleted, 2)
      assert.deepStrictEqual(readdirSync(folder).sort(), [".tmp-fresh", `${kept.expiresAt / 1000}-${kept.id}.png`])
    }))

  it.effect("over the size cap, the files that expire first are evicted; their links find nothing", () =>
    withStore({ maxBytes: 3 * png.length }, (store) =>
      Effect.gen(function*() {
        const first = yield* store.put({ bytes: png, contentType: "image/png", kind: "screenshot" })
        yield* TestClock.adjust("1 second")
        const later = []
        for (let i = 0; i < 3; i++) {
          later.push(yield* store.put({ bytes: png, contentType: "image/png", kind: "screenshot" }))
          yield* TestClock.adjust("1 second")
        }
        assert.strictEqual(failureTag(yield* Effect.exit(store.read(first.url))), "ArtifactMissing")
        for (const stored of later) assert.strictEqual((yield* store.read(stored.url)).bytes.length, png.length)
        const tooBig = yield* Effect.exit(store.put({ bytes: new Uint8Array(4 * png.length), contentType: "image/png", kind: "screenshot" }))
        assert.isTrue(Exit.isFailure(tooBig))
      })))

  it.live("the generated secret is kept (0600) and links survive a second build; a configured secret writes no file", () =>
    Effect.gen(function*() {
      const dataDir = tempDir()
      const put = Effect.flatMap(ArtifactStore, (store) => store.put({ bytes: png, contentType: "image/png", kind: "screenshot" }))
      const read = (url: string) => Effect.flatMap(ArtifactStore, (store) => store.read(url))
      const stored = yield* Effect.provide(put, ArtifactStore.layer({ dataDir, publicUrl: base }))
      assert.strictEqual(statSync(join(dataDir, "artifact-secret")).mode & 0o777, 0o600)
      const again = yield* Effect.provide(read(stored.url), ArtifactStore.layer({ dataDir, publicUrl: base }))
      assert.deepStrictEqual(again.bytes, png)
      // Another key does not open it.
      const other = yield* Effect.exit(Effect.provide(read(stored.url), ArtifactStore.layer({ dataDir, publicUrl: base, secret: "x".repeat(32) })))
      assert.strictEqual(failureTag(other as Exit.Exit<unknown, ArtifactError>), "BadSignature")

      const configured = tempDir()
      yield* Effect.provide(put, ArtifactStore.layer({ dataDir: configured, publicUrl: base, secret: "a long enough secret" }))
      assert.isFalse(existsSync(join(configured, "artifact-secret")))
      const short = yield* Effect.exit(Effect.provide(put, ArtifactStore.layer({ dataDir: configured, publicUrl: base, secret: "short" })))
      assert.isTrue(Exit.isFailure(short))
    }))

  it.live("a lazy store makes its folder and secret on the first put, not when built", () => {
    const dataDir = join(tempDir(), "data")
    return Effect.gen(function*() {
      const store = yield* ArtifactStore
      assert.strictEqual((yield* store.sweep).keptBytes, 0)
      assert.isFalse(existsSync(dataDir))
      const stored = yield* store.put({ bytes: png, contentType: "image/png", kind: "screenshot" })
      assert.isTrue(existsSync(join(dataDir, "artifact-secret")))
      assert.deepStrictEqual((yield* store.read(stored.url)).bytes, png)
    }).pipe(Effect.provide(ArtifactStore.layer({ dataDir, publicUrl: base, lazy: true })))
  })

  it.live("two builds racing on an empty folder agree on one secret", () =>
    Effect.gen(function*() {
      const dataDir = tempDir()
      const put = Effect.flatMap(ArtifactStore, (store) => store.put({ bytes: png, contentType: "image/png", kind: "screenshot" }))
      const links = yield* Effect.all(
        Array.from({ length: 4 }, () => Effect.provide(put, ArtifactStore.layer({ dataDir, publicUrl: base }))),
        { concurrency: "unbounded" }
      )
      for (const stored of links) {
        const read = yield* Effect.provide(Effect.flatMap(ArtifactStore, (store) => store.read(stored.url)), ArtifactStore.layer({ dataDir, publicUrl: base }))
        assert.strictEqual(read.bytes.length, png.length)
      }
      assert.deepStrictEqual(readdirSync(dataDir).sort(), ["artifact-secret", "artifacts"])
    }))
})

describe("ArtifactStore (inline and configuration)", () => {
  it.effect("the inline store answers data: URLs and reads them back", () =>
    Effect.gen(function*() {
      const store = yield* ArtifactStore
      const stored = yield* store.put({ bytes: png, contentType: "image/png", kind: "screenshot" })
      assert.strictEqual(stored.url, `data:image/png;base64,${Buffer.from(png).toString("base64")}`)
      assert.deepStrictEqual(yield* store.read(stored.url), { bytes: png, contentType: "image/png" })
    }).pipe(Effect.provide(ArtifactStore.layerInline)))

  it.effect("the configuration: STRATA_PUBLIC_URL, else HOST and PORT; the data folder and the cap", () =>
    Effect.gen(function*() {
      const read = (env: Record<string, string>) => Effect.provide(fileStoreConfig, ConfigProvider.layer(ConfigProvider.fromEnvRecord(env)))
      const defaults = yield* read({})
      assert.deepStrictEqual(defaults, { dataDir: "./data", secret: undefined, publicUrl: "http://127.0.0.1:3002", maxBytes: 1024 * 1024 * 1024 })
      const set = yield* read({ STRATA_DATA_DIR: "/srv/strata", STRATA_ARTIFACT_SECRET: "s".repeat(20), HOST: "0.0.0.0", PORT: "8080", STRATA_ARTIFACT_MAX_MB: "0" })
      assert.deepStrictEqual(set, { dataDir: "/srv/strata", secret: "s".repeat(20), publicUrl: "http://127.0.0.1:8080", maxBytes: 0 })
      assert.strictEqual((yield* read({ STRATA_PUBLIC_URL: "https://strata.example.com", PORT: "1" })).publicUrl, "https://strata.example.com")
      assert.strictEqual((yield* read({ PORT: "0" })).publicUrl, "http://127.0.0.1:3002")
      assert.strictEqual((yield* read({ PORT: "http" })).publicUrl, "http://127.0.0.1:3002")
      assert.strictEqual(publicUrlFor("::", 3002), "http://[::1]:3002")
      assert.strictEqual(publicUrlFor("example.org", 80), "http://example.org:80")
    }))

  it.effect("layerConfig builds a working store from the environment", () =>
    Effect.gen(function*() {
      const store = yield* ArtifactStore
      const stored = yield* store.put({ bytes: png, contentType: "image/jpeg", kind: "screenshot" })
      assert.match(stored.url, /^https:\/\/cdn\.example\/v2\/artifacts\/[0-9a-f]{32}\.jpg\?/)
    }).pipe(Effect.provide(ArtifactStore.layerConfig.pipe(
      Layer.provide(ConfigProvider.layer(ConfigProvider.fromEnvRecord({ STRATA_DATA_DIR: tempDir(), STRATA_PUBLIC_URL: "https://cdn.example/" })))
    ))))
})
