/**
 * Billing, limits, idempotency and audit through the real server on Postgres (the cases in
 * MeteringCases.ts; a throwaway server from Debian's binaries), and two servers on one database
 * behaving as one service.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startPostgres, type TempPostgres } from "../../store/test/support/TempPostgres.ts"
import { balanceOf, deploy, hitsOf, meteringCases, scrape, siteUrl, sleep, startSite, stopSite, teamWith } from "./MeteringCases.ts"

let postgres: TempPostgres | undefined
const databaseUrlBefore = process.env.STRATA_DATABASE_URL

beforeAll(async () => {
  await startSite()
  postgres = await startPostgres()
  // Before the first server: effect reads the environment once.
  process.env.STRATA_DATABASE_URL = postgres.createDatabase(`metering_${process.pid}`)
}, 120_000)

afterAll(async () => {
  if (databaseUrlBefore === undefined) delete process.env.STRATA_DATABASE_URL
  else process.env.STRATA_DATABASE_URL = databaseUrlBefore
  await stopSite()
  postgres?.stop()
})

meteringCases("pg")

describe("two servers on one Postgres", () => {
  it("agree on credits, rate limits, the concurrency queue and idempotency", async () => {
    const one = await deploy("pg")
    const two = await deploy("pg")
    try {
      const key = await teamWith(one, "shared", { credits: 30, rateLimit: 1000 })
      const answers = await Promise.all(
        Array.from({ length: 16 }, (_, n) => scrape(n % 2 === 0 ? one.server : two.server, key, { url: `${siteUrl}/shared/${n}` }))
      )
      expect(answers.every((answer) => answer.status === 200)).toBe(true)
      expect(await balanceOf(two, "shared")).toBe(14)
      // Idempotency: run on one, replayed by two; in flight on one, refused by two.
      const first = await scrape(one.server, key, { url: `${siteUrl}/shared/idem` }, { "x-request-id": "both-1" })
      const hitsAfter = hitsOf("/shared/idem")
      const replayed = await scrape(two.server, key, { url: `${siteUrl}/shared/idem` }, { "x-request-id": "both-1" })
      expect(replayed.body.data.metadata.scrapeId).toBe(first.body.data.metadata.scrapeId)
      expect(hitsOf("/shared/idem")).toBe(hitsAfter)
      const running = scrape(one.server, key, { url: `${siteUrl}/shared/slow?ms=1000` }, { "x-request-id": "both-2" })
      await sleep(300)
      expect((await scrape(two.server, key, { url: `${siteUrl}/shared/slow?ms=1000` }, { "x-request-id": "both-2" })).status).toBe(409)
      expect((await running).status).toBe(200)
      expect(await balanceOf(one, "shared")).toBe(12)
      // The rate limit counts both servers' requests.
      const limitedKey = await teamWith(one, "shared-limited", { rateLimit: 2, concurrency: 1 })
      expect((await scrape(one.server, limitedKey, { url: `${siteUrl}/shared/r1` })).status).toBe(200)
      expect((await scrape(two.server, limitedKey, { url: `${siteUrl}/shared/r2` })).status).toBe(200)
      expect((await scrape(one.server, limitedKey, { url: `${siteUrl}/shared/r3` })).status).toBe(429)
      // The concurrency queue is one queue.
      const queueKey = await teamWith(one, "shared-queue", { concurrency: 1 })
      const holder = scrape(one.server, queueKey, { url: `${siteUrl}/shared/q1?ms=1000` })
      await sleep(300)
      const waiter = await scrape(two.server, queueKey, { url: `${siteUrl}/shared/q2` })
      expect(waiter.status).toBe(200)
      expect(waiter.body.data.metadata.concurrencyLimited).toBe(true)
      expect((await holder).body.data.metadata.concurrencyLimited).toBe(false)
    } finally {
      await Promise.all([one.close(), two.close()])
    }
  })
})
