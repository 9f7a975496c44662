/**
 * Two real server processes (`bin.ts`, each with its own data folder) on one Postgres
 * (`STRATA_DATABASE_URL`, a throwaway server from Debian's binaries) behave as one service: a
 * page cached through A is a cache hit through B, credits charged through both add up exactly on
 * one team, and an `x-request-id` completed on A is replayed by B without running again. The
 * in-process replica case (MeteringPostgres) shares one Node process and its module state; this
 * one shares nothing but the database.
 */
import { type ChildProcess, spawn } from "node:child_process"
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { fileURLToPath } from "node:url"
import { Store } from "@strata/core"
import { layerPg } from "@strata/store"
import { Effect, ManagedRuntime, Redacted } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startPostgres, type TempPostgres } from "../../store/test/support/TempPostgres.ts"
import { freePort, tempDir } from "./support.ts"

const node = fileURLToPath(new URL("../../../node_modules/.bin/node", import.meta.url))
const bin = fileURLToPath(new URL("../src/bin.ts", import.meta.url))
const CREDITS = 100

let postgres: TempPostgres | undefined
let database = ""
let store: ManagedRuntime.ManagedRuntime<Store, unknown> | undefined
let pages: Server
let pagesUrl = ""
const hits = new Map<string, number>()
const hitsOf = (path: string) => hits.get(path) ?? 0
const children: Array<{ child: ChildProcess; output: () => string }> = []

/** A server process on the shared database, with a data folder of its own; resolves once it answers /health. */
const startServer = async (): Promise<string> => {
  const port = await freePort()
  const { STRATA_API_KEYS: _keys, STRATA_DATABASE_URL: _db, ...base } = process.env
  const child = spawn(node, ["--conditions=@strata/source", bin], {
    env: {
      ...base,
      HOST: "127.0.0.1",
      PORT: String(port),
      STRATA_ALLOW_PRIVATE_URLS: "1",
      STRATA_SUPERVISE: "0",
      STRATA_DATA_DIR: tempDir("strata-replica-"),
      STRATA_DATABASE_URL: database,
      STRATA_BROWSER: "off"
    },
    stdio: ["ignore", "pipe", "pipe"]
  })
  let output = ""
  child.stdout?.on("data", (chunk: Buffer) => (output += chunk.toString("utf8")))
  child.stderr?.on("data", (chunk: Buffer) => (output += chunk.toString("utf8")))
  children.push({ child, output: () => output })
  const url = `http://127.0.0.1:${port}`
  const deadline = Date.now() + 60_000
  // A 503 while it opens the store (ClientErrors.ts); each try bounded, so a lost request cannot hang the test.
  while (!(await fetch(`${url}/health`, { signal: AbortSignal.timeout(5000) }).then((r) => r.ok, () => false))) {
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`the server did not start:\n${output}`)
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  return url
}

const useStore = <A, E>(body: (store: Store["Service"]) => Effect.Effect<A, E>) => store!.runPromise(Effect.flatMap(Store, body))

const scrape = async (server: string, key: string, body: Record<string, unknown>, headers: Record<string, string> = {}) => {
  const response = await fetch(`${server}/v2/scrape`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json", ...headers },
    body: JSON.stringify(body)
  })
  return { status: response.status, body: (await response.json()) as Record<string, any> }
}

let a = ""
let b = ""
let key = ""

beforeAll(async () => {
  pages = createServer((request, response) => {
    const path = (request.url ?? "/").split("?")[0]
    hits.set(path, hitsOf(path) + 1)
    response.writeHead(200, { "content-type": "text/html; charset=utf-8" })
      .end(`<!doctype html><html><head><title>${path}</title></head><body><main><h1>Quay ${path}</h1><p>${"Boats come in on the tide and go out on it. ".repeat(20)}</p></main></body></html>`)
  })
  await new Promise<void>((resolve) => pages.listen(0, "127.0.0.1", resolve))
  pagesUrl = `http://127.0.0.1:${(pages.address() as AddressInfo).port}`
  postgres = await startPostgres()
  database = postgres.createDatabase(`replicas_${process.pid}`)
  // Migrated here, once, before either server opens the database.
  store = ManagedRuntime.make(layerPg({ url: Redacted.make(database), cacheMaxBytes: 64 * 1024 * 1024, maxConnections: 2 }))
  key = await useStore((store) => Effect.andThen(store.setTeam("quay", { credits: CREDITS }), store.createKey("quay"))).then((created) => created.key)
  ;[a, b] = await Promise.all([startServer(), startServer()])
}, 90_000)

afterAll(async () => {
  for (const { child } of children) if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL")
  await store?.dispose()
  pages?.closeAllConnections()
  await new Promise((resolve) => pages?.close(resolve))
  postgres?.stop()
})

describe("two server processes on one Postgres", () => {
  it("share the cache, the credits and the x-request-id records", async () => {
    // The cache: fetched through A, a hit through B (the row is written after A's answer).
    const before = await useStore((store) => store.cacheBytes)
    const fetched = await scrape(a, key, { url: `${pagesUrl}/cached`, formats: ["markdown"] })
    expect(fetched.status).toBe(200)
    expect(fetched.body.data.metadata.cacheState).toBe("miss")
    for (let n = 0; n < 200 && (await useStore((store) => store.cacheBytes)) === before; n++) await new Promise((resolve) => setTimeout(resolve, 25))
    const hit = await scrape(b, key, { url: `${pagesUrl}/cached`, formats: ["markdown"] })
    expect(hit.status).toBe(200)
    expect(hit.body.data.metadata.cacheState).toBe("hit")
    expect(hit.body.data.markdown).toBe(fetched.body.data.markdown)
    expect(hitsOf("/cached")).toBe(1)

    // Credits: 16 requests at once, half through each, and what the answers say was charged is
    // exactly what the team's balance lost (no charge lost to a race, none made twice).
    const answers = await Promise.all(
      Array.from({ length: 16 }, (_, n) => scrape(n % 2 === 0 ? a : b, key, { url: `${pagesUrl}/many/${n}`, formats: ["markdown"], maxAge: 0 }))
    )
    expect(answers.map((answer) => answer.status)).toEqual(Array.from({ length: 16 }, () => 200))
    const charged = [fetched, hit, ...answers].reduce((sum, answer) => sum + (answer.body.data.metadata.creditsUsed as number), 0)
    expect(charged).toBe(18)
    expect(await useStore((store) => store.balance("quay"))).toBe(CREDITS - charged)

    // Idempotency: completed on A, replayed by B, which neither fetches nor charges.
    const first = await scrape(a, key, { url: `${pagesUrl}/once`, formats: ["markdown"], maxAge: 0 }, { "x-request-id": "quay-order-1" })
    expect(first.status).toBe(200)
    const replayed = await scrape(b, key, { url: `${pagesUrl}/once`, formats: ["markdown"], maxAge: 0 }, { "x-request-id": "quay-order-1" })
    expect(replayed.status).toBe(200)
    expect(replayed.body).toEqual(first.body)
    expect(replayed.body.data.metadata.scrapeId).toBe(first.body.data.metadata.scrapeId)
    expect(hitsOf("/once")).toBe(1)
    expect(await useStore((store) => store.balance("quay"))).toBe(CREDITS - charged - 1)
    // Both really served: neither crashed along the way.
    expect(children.every(({ child }) => child.exitCode === null)).toBe(true)
  }, 60_000)
})
