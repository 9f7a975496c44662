/**
 * Two servers on one Postgres (STRATA_DATABASE_URL, a throwaway server from Debian's binaries)
 * are one service for accounts: a key made for a team works on both, and once revoked through
 * either store it stops on both; the default team is created once.
 */
import { defaultTeamId, Store } from "@strata/core"
import { layerPg } from "@strata/store"
import { Effect, Redacted } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startPostgres, type TempPostgres } from "../../store/test/support/TempPostgres.ts"
import { pipelineDouble, startTestServer } from "./support.ts"

const echo = pipelineDouble({
  scrape: (request) => Effect.succeed({ markdown: "ok", metadata: { sourceURL: (request as { url: string }).url } }),
  parse: (file) => Effect.succeed({ markdown: "ok", metadata: { sourceURL: file.fileName } })
})

let postgres: TempPostgres
let url = ""
let previous: string | undefined

beforeAll(async () => {
  postgres = await startPostgres()
  url = postgres.createDatabase("accounts")
  previous = process.env.STRATA_DATABASE_URL
  process.env.STRATA_DATABASE_URL = url
}, 120_000)

afterAll(() => {
  if (previous === undefined) delete process.env.STRATA_DATABASE_URL
  else process.env.STRATA_DATABASE_URL = previous
  postgres?.stop()
})

const withStore = <A, E>(body: (store: Store["Service"]) => Effect.Effect<A, E>) =>
  Effect.runPromise(
    Effect.gen(function*() {
      return yield* body(yield* Store)
    }).pipe(Effect.provide(layerPg({ url: Redacted.make(url), cacheMaxBytes: 1024 })))
  )

const scrapeWith = (server: string, key: string) =>
  fetch(`${server}/v2/scrape`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${key}` },
    body: JSON.stringify({ url: "https://example.com" })
  }).then((response) => response.status)

describe("two servers on one Postgres", () => {
  it("agree on a team's keys: made once, accepted by both, revoked for both", async () => {
    // Each server has its own data folder: nothing is shared but the database.
    const [one, two] = await Promise.all([startTestServer(echo, { apiKeys: ["env-one"] }), startTestServer(echo, { apiKeys: ["env-two"] })])
    try {
      const created = await withStore((store) => Effect.andThen(store.setTeam("acme", { credits: 100 }), store.createKey("acme")))
      expect(await scrapeWith(one.url, created.key)).toBe(200)
      expect(await scrapeWith(two.url, created.key)).toBe(200)
      // Each server's environment keys are its own.
      expect(await scrapeWith(one.url, "env-one")).toBe(200)
      expect(await scrapeWith(two.url, "env-one")).toBe(401)
      await withStore((store) => store.revokeKey(created.id))
      expect(await scrapeWith(one.url, created.key)).toBe(401)
      expect(await scrapeWith(two.url, created.key)).toBe(401)
      const teams = await withStore((store) => store.listTeams)
      expect(teams.map((team) => team.id)).toEqual(["acme", defaultTeamId])
    } finally {
      await Promise.all([one.close(), two.close()])
    }
  })
})
