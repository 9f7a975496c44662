/**
 * Authentication on a real server: missing, wrong and right keys; STRATA_API_KEYS; the generated
 * key file (created once with mode 0600, announced once, reused by later starts); keys made for a
 * team in the store, and revoked there.
 */
import { defaultTeamId, Store, StoreError, StoreUnavailable } from "@strata/core"
import { layerSqlite, sqliteFileIn } from "@strata/store"
import { Effect, Option } from "effect"
import { readFileSync, statSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { ApiKeys, generateApiKey, serverConfigFromEnv } from "../src/index.ts"
import { pipelineDouble, startTestServer, tempDir } from "./support.ts"

const echo = pipelineDouble({
  scrape: (request) => Effect.succeed({ markdown: "ok", metadata: { sourceURL: (request as { url: string }).url } }),
  parse: (file) => Effect.succeed({ markdown: "ok", metadata: { sourceURL: file.fileName } })
})

const scrapeWith = (url: string, authorization?: string) =>
  fetch(`${url}/v2/scrape`, {
    method: "POST",
    headers: { "content-type": "application/json", ...(authorization === undefined ? {} : { authorization }) },
    body: JSON.stringify({ url: "https://example.com" })
  })

describe("bearer keys from STRATA_API_KEYS", () => {
  it("accepts each configured key and refuses missing or wrong ones with 401", async () => {
    const config = serverConfigFromEnv({ STRATA_API_KEYS: " alpha-key , beta-key,," }, { port: 0 })
    expect(config.apiKeys).toEqual(["alpha-key", "beta-key"])
    const server = await startTestServer(echo, { apiKeys: config.apiKeys })
    try {
      expect((await scrapeWith(server.url, "Bearer alpha-key")).status).toBe(200)
      expect((await scrapeWith(server.url, "bearer beta-key")).status).toBe(200)

      const missing = await scrapeWith(server.url)
      expect(missing.status).toBe(401)
      const missingBody = await missing.json()
      expect(missingBody).toEqual({ success: false, error: expect.stringMatching(/^Unauthorized/) })

      for (const wrong of ["Bearer alpha-ke", "Bearer alpha-key2", "Basic alpha-key", "alpha-key", "Bearer ", "Bearer a b"]) {
        const response = await scrapeWith(server.url, wrong)
        expect(response.status, wrong).toBe(401)
        const body = await response.json()
        expect(body.success).toBe(false)
        expect(body.error).toMatch(/^Unauthorized/)
      }
      // No key was written to disk and none was announced: the environment's keys are the keys.
      expect(server.announced).toEqual([])
    } finally {
      await server.close()
    }
  })

  it("refuses an unauthenticated upload without reading it", async () => {
    const server = await startTestServer(echo, { apiKeys: ["k"] })
    try {
      const form = new FormData()
      form.append("file", new Blob([new Uint8Array(1024 * 1024)]), "big.pdf")
      const response = await fetch(`${server.url}/v2/parse`, { method: "POST", body: form })
      expect(response.status).toBe(401)
    } finally {
      await server.close()
    }
  })
})

describe("generated key file", () => {
  it("creates one key on first start, announces it once, and reuses it later", async () => {
    const dataDir = join(tempDir(), "nested", "data")
    const first = await startTestServer(echo, { dataDir, apiKeys: [] })
    let key: string
    try {
      expect(first.announced).toHaveLength(1)
      key = first.announced[0]
      expect(key).toMatch(/^sk-strata-[A-Za-z0-9_-]{43}$/)
      const file = join(dataDir, "api-keys.json")
      expect(statSync(file).mode & 0o777).toBe(0o600)
      const stored = readFileSync(file, "utf8")
      // Only a hash is stored: the clear key exists in the announcement alone.
      expect(stored).not.toContain(key)
      expect(JSON.parse(stored).keys).toHaveLength(1)
      expect((await scrapeWith(first.url, `Bearer ${key}`)).status).toBe(200)
      expect((await scrapeWith(first.url, `Bearer ${generateApiKey()}`)).status).toBe(401)
    } finally {
      await first.close()
    }
    const before = readFileSync(join(dataDir, "api-keys.json"), "utf8")
    const second = await startTestServer(echo, { dataDir, apiKeys: [] })
    try {
      expect(second.announced).toEqual([])
      expect(readFileSync(join(dataDir, "api-keys.json"), "utf8")).toBe(before)
      expect((await scrapeWith(second.url, `Bearer ${key}`)).status).toBe(200)
    } finally {
      await second.close()
    }
  })

  it("refuses to start on a corrupt key file rather than minting a new key", async () => {
    const dataDir = tempDir()
    writeFileSync(join(dataDir, "api-keys.json"), "{ not json", { mode: 0o600 })
    await expect(startTestServer(echo, { dataDir, apiKeys: [] })).rejects.toMatchObject({
      _tag: "ApiKeyStoreError",
      message: expect.stringMatching(/not valid/)
    })
  })
})

describe("keys from the store", () => {
  const withStore = <A, E>(dataDir: string, body: (store: Store["Service"]) => Effect.Effect<A, E>) =>
    Effect.runPromise(
      Effect.gen(function*() {
        return yield* body(yield* Store)
      }).pipe(Effect.provide(layerSqlite({ filename: sqliteFileIn(dataDir), cacheMaxBytes: 1024 * 1024 })))
    )

  it("a key made for a team authenticates beside STRATA_API_KEYS until it is revoked", async () => {
    const dataDir = tempDir()
    const created = await withStore(dataDir, (store) =>
      Effect.andThen(store.setTeam("acme", { credits: 10 }), store.createKey("acme")))
    const server = await startTestServer(echo, { dataDir, apiKeys: ["env-key"] })
    try {
      expect((await scrapeWith(server.url, `Bearer ${created.key}`)).status).toBe(200)
      expect((await scrapeWith(server.url, "Bearer env-key")).status).toBe(200)
      expect((await scrapeWith(server.url, `Bearer ${created.key}x`)).status).toBe(401)
      await withStore(dataDir, (store) => store.revokeKey(created.id))
      expect((await scrapeWith(server.url, `Bearer ${created.key}`)).status).toBe(401)
      // The environment's keys belong to the default team, which the server created without limits.
      const team = await withStore(dataDir, (store) => store.getTeam(defaultTeamId))
      expect(Option.getOrThrow(team).credits).toBeUndefined()
    } finally {
      await server.close()
    }
  })

  it("a key taken out of STRATA_API_KEYS no longer authenticates (the environment's keys are not copied into the store)", async () => {
    const dataDir = tempDir()
    const first = await startTestServer(echo, { dataDir, apiKeys: ["old-key"] })
    await first.close()
    const second = await startTestServer(echo, { dataDir, apiKeys: ["new-key"] })
    try {
      expect((await scrapeWith(second.url, "Bearer old-key")).status).toBe(401)
      expect((await scrapeWith(second.url, "Bearer new-key")).status).toBe(200)
    } finally {
      await second.close()
    }
  })
})

describe("a store that cannot be asked", () => {
  it("gives Unavailable for a key the server does not hold itself, never Authorized; its own keys still work", async () => {
    const down = new StoreError({ reason: new StoreUnavailable({ operation: "authenticate", message: "connection refused" }) })
    const failing = {
      getTeam: () => Effect.succeed(Option.some({ id: defaultTeamId })),
      authenticate: () => Effect.fail(down)
    } as unknown as Store["Service"]
    const keys = await Effect.runPromise(
      ApiKeys.make({ apiKeys: ["env-key"], dataDir: tempDir(), announceKey: () => {} }).pipe(Effect.provideService(Store, failing))
    )
    expect(await Effect.runPromise(keys.verify("Bearer sk-strata-000000000000_x"))).toEqual({ _tag: "Unavailable" })
    expect(await Effect.runPromise(keys.verify("Bearer env-key"))).toMatchObject({ _tag: "Authorized", teamId: defaultTeamId })
    expect(await Effect.runPromise(keys.verify(undefined))).toEqual({ _tag: "Missing" })
    expect(await Effect.runPromise(keys.verify("Basic x"))).toEqual({ _tag: "Invalid" })
  })
})
