/** The idle collector collects once the server is quiet and has grown, never while requests run. */
import { describe, expect, it } from "vitest"
import { makeIdleCollector } from "../src/IdleCollector.ts"

const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

describe("makeIdleCollector", () => {
  it("collects after the last request ends, only when memory grew, and never mid-request", async () => {
    let rss = 100
    let collections = 0
    const idle = makeIdleCollector({ idleMs: 30, growthMb: 10, gc: () => void (collections++, rss = 105), rss: () => rss * 2 ** 20 })
    idle.started()
    rss = 200
    await wait(60)
    expect(collections).toBe(0)
    idle.started()
    idle.ended()
    await wait(60)
    expect(collections).toBe(0) // one request still in flight
    idle.ended()
    await wait(60)
    expect(collections).toBe(1)
    idle.started()
    idle.ended()
    await wait(60)
    expect(collections).toBe(1) // no growth since the last collection
  })

  it("does nothing without a gc function", () => {
    const idle = makeIdleCollector({ gc: undefined })
    expect(() => {
      idle.started()
      idle.ended()
    }).not.toThrow()
  })
})
