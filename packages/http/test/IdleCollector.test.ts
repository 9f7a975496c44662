/** The idle collector collects once the server is quiet and has grown, never while requests run. */
import { Effect } from "effect"
import { describe, expect, it } from "vitest"
import { makeIdleCollector } from "../src/IdleCollector.ts"
import { pipelineDouble, startTestServer } from "./support.ts"

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

describe("the idle collector on the real server", () => {
  it("collects after a request although /health is probed all the while (a probe is not work)", async () => {
    let collections = 0
    let rss = 100
    const server = await startTestServer(
      pipelineDouble({ scrape: () => Effect.sync(() => ((rss += 100), { markdown: "done" })), parse: () => Effect.succeed({}) }),
      { apiKeys: ["k"], idleCollector: { idleMs: 250, growthMb: 10, gc: () => void collections++, rss: () => rss * 2 ** 20 } }
    )
    let probing = true
    const probe = (async () => {
      while (probing) {
        await (await fetch(`${server.url}/health`)).arrayBuffer()
        await wait(10)
      }
    })()
    try {
      const response = await fetch(`${server.url}/v2/scrape`, {
        method: "POST",
        headers: { authorization: "Bearer k", "content-type": "application/json" },
        body: JSON.stringify({ url: "https://example.com/" })
      })
      expect(response.status).toBe(200)
      await response.arrayBuffer()
      // Quiet for 250 ms: the probe's own requests (every ~20 ms) must not count as work.
      await wait(900)
      expect(collections).toBe(1)
    } finally {
      probing = false
      await probe
      await server.close()
    }
  })
})
