/**
 * Artifacts through `createStrata`: `getArtifact` reads a signed link in-process (no server),
 * checks it like the server does, and reads `data:` URLs; the default store touches the disk
 * only when something is stored; `artifacts: "inline"` and a layer of one's own are honoured.
 */
import { ArtifactStore } from "@strata/core"
import { Effect } from "effect"
import { existsSync, mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { createStrata } from "../src/index.ts"

const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 9, 8, 7])
const tempDir = () => mkdtempSync(join(tmpdir(), "strata-client-artifacts-"))
const light = { ocr: false, isolation: false } as const

/** A link as the browser engine would make it, with a store on the same folder and secret. */
const storeOne = (options: Parameters<typeof ArtifactStore.layer>[0]) =>
  Effect.runPromise(Effect.scoped(Effect.provide(
    Effect.flatMap(ArtifactStore, (store) => store.put({ bytes: png, contentType: "image/png", kind: "screenshot" })),
    ArtifactStore.layer(options)
  )))

const savedDataDir = process.env.STRATA_DATA_DIR
afterEach(() => {
  if (savedDataDir === undefined) delete process.env.STRATA_DATA_DIR
  else process.env.STRATA_DATA_DIR = savedDataDir
})

describe("createStrata artifacts", () => {
  it("getArtifact reads a link from the default store (STRATA_DATA_DIR) without a server, and refuses a tampered one", async () => {
    const dataDir = tempDir()
    process.env.STRATA_DATA_DIR = dataDir
    const stored = await storeOne({ dataDir, publicUrl: "http://127.0.0.1:3002" })
    await using strata = createStrata(light)
    expect(await strata.getArtifact(stored.url)).toEqual({ bytes: png, contentType: "image/png" })
    const tampered = stored.url.replace(/sig=./, (s) => (s.endsWith("0") ? "sig=1" : "sig=0"))
    await expect(strata.getArtifact(tampered)).rejects.toMatchObject({ _tag: "ArtifactError", reason: { _tag: "BadSignature" } })
    await expect(strata.getArtifact("https://example.com/a.png")).rejects.toMatchObject({ reason: { _tag: "MalformedLink" } })
  })

  it("the default store leaves no data folder behind until something is stored", async () => {
    const dataDir = join(tempDir(), "data")
    process.env.STRATA_DATA_DIR = dataDir
    await using strata = createStrata(light)
    const inline = `data:image/png;base64,${Buffer.from(png).toString("base64")}`
    expect(await strata.getArtifact(inline)).toEqual({ bytes: png, contentType: "image/png" })
    expect(existsSync(dataDir)).toBe(false)
  })

  it("a store layer of one's own is the one used", async () => {
    const dataDir = tempDir()
    const options = { dataDir, publicUrl: "https://strata.example.com", secret: "a secret of our own, long enough" }
    const stored = await storeOne(options)
    expect(stored.url.startsWith("https://strata.example.com/v2/artifacts/")).toBe(true)
    await using strata = createStrata({ ...light, artifacts: ArtifactStore.layer(options) })
    expect((await strata.getArtifact(stored.url)).bytes).toEqual(png)
    await using other = createStrata({ ...light, artifacts: ArtifactStore.layer({ ...options, secret: "another secret, long enough too" }) })
    await expect(other.getArtifact(stored.url)).rejects.toMatchObject({ reason: { _tag: "BadSignature" } })
  })

  it("inline: data: URLs in, bytes out; a file link means nothing to it", async () => {
    await using strata = createStrata({ ...light, artifacts: "inline" })
    const inline = `data:application/pdf;base64,${Buffer.from("%PDF-1.7").toString("base64")}`
    expect(await strata.getArtifact(inline)).toEqual({ bytes: new TextEncoder().encode("%PDF-1.7"), contentType: "application/pdf" })
    await expect(strata.getArtifact("http://127.0.0.1:3002/v2/artifacts/x.png")).rejects.toMatchObject({ reason: { _tag: "MalformedLink" } })
  })
})
