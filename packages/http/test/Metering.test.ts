/**
 * Billing, limits, idempotency and audit through the real server on SQLite (the cases in
 * MeteringCases.ts), a full concurrency queue, and a store that cannot charge.
 */
import { chargeIdFor } from "@strata/core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { balanceOf, deploy, hitsOf, meteringCases, scrape, siteUrl, sleep, startSite, stopSite, teamWith } from "./MeteringCases.ts"

beforeAll(startSite)
afterAll(stopSite)

meteringCases("sqlite")

describe("a full concurrency queue", () => {
  it("answers 429 with { error } only to a request that finds the team's queue full", async () => {
    const deployment = await deploy("sqlite", { config: { concurrencyQueueLimit: 1 } })
    try {
      const key = await teamWith(deployment, "crowded", { concurrency: 1 })
      const running = scrape(deployment.server, key, { url: `${siteUrl}/crowded/a?ms=1500` })
      await sleep(300)
      const queued = scrape(deployment.server, key, { url: `${siteUrl}/crowded/b` })
      await sleep(300)
      const before = hitsOf("/crowded/c")
      const refused = await scrape(deployment.server, key, { url: `${siteUrl}/crowded/c` })
      expect(refused.status).toBe(429)
      expect(Object.keys(refused.body)).toEqual(["error"])
      expect(hitsOf("/crowded/c")).toBe(before)
      expect((await running).status).toBe(200)
      expect((await queued).body.data.metadata.concurrencyLimited).toBe(true)
    } finally {
      await deployment.close()
    }
  })
})

describe("billing on a store that cannot charge", () => {
  it("answers 503 billing_unavailable and returns nothing", async () => {
    const deployment = await deploy("sqlite")
    try {
      const key = await teamWith(deployment, "stuck", { credits: 10 })
      // The ledger is gone: keys and teams still read, a charge fails.
      const { DatabaseSync } = await import("node:sqlite")
      const db = new DatabaseSync(deployment.database)
      db.exec("ALTER TABLE credit_ledger RENAME TO credit_ledger_gone")
      db.close()
      const answer = await scrape(deployment.server, key, { url: `${siteUrl}/stuck` }, { "x-request-id": "stuck-1" })
      expect(answer.status).toBe(503)
      expect(answer.body).toMatchObject({ success: false, code: "billing_unavailable", chargeId: chargeIdFor("stuck", "stuck-1") })
      expect(answer.body).not.toHaveProperty("data")
      expect(await balanceOf(deployment, "stuck")).toBe(10)
    } finally {
      await deployment.close()
    }
  })
})

