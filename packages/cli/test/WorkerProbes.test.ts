/**
 * The worker's probe listener on loopback, in this process, over the in-process queue: /health,
 * /ready (503 once draining), /metrics as Prometheus text whose counters follow the jobs that
 * the counted handler ran.
 */
import { MemoryJobQueue } from "@strata/core"
import { Effect, Exit, Scope } from "effect"
import { describe, expect, it } from "vitest"
import { parseExposition } from "../../http/test/PrometheusParse.ts"
import { counted, healthPortOf, makeWorkerState, probeListener } from "../src/WorkerProbes.ts"

describe("the worker's probe listener", () => {
  it("answers /health, /ready and /metrics, counts jobs, and is not ready while draining", async () => {
    const scope = Effect.runSync(Scope.make())
    try {
      const queue = await Effect.runPromise(Scope.provide(MemoryJobQueue.make, scope))
      await Effect.runPromise(queue.define("corpus", { retries: 0, backoffMs: 10 }))
      const state = makeWorkerState(2)
      let url = ""
      await Effect.runPromise(Scope.provide(probeListener(queue, state, { host: "127.0.0.1", port: 0, queueName: "corpus", announce: (u) => (url = u) }), scope))
      expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
      const metrics = async () => {
        const response = await fetch(`${url}/metrics`)
        expect(response.headers.get("content-type")).toBe("text/plain; version=0.0.4; charset=utf-8")
        return parseExposition(await response.text())
      }

      expect((await fetch(`${url}/health`)).status).toBe(200)
      expect((await fetch(`${url}/ready`)).status).toBe(200)
      const before = await metrics()
      expect(before.value("strata_worker_slots", { state: "free" })).toBe(2)
      expect(before.value("strata_worker_jobs_total", { outcome: "done" })).toBe(0)

      // Two jobs wait, held; then one succeeds and one fails.
      let release: (() => void) | undefined
      const gate = new Promise<void>((resolve) => (release = resolve))
      await Effect.runPromise(queue.enqueue("corpus", [{ key: "ok", data: { ok: true } }, { key: "bad", data: { ok: false } }]))
      expect((await metrics()).value("strata_queue_jobs", { queue: "corpus", state: "queued" })).toBe(2)
      const handler = counted(state, (job) =>
        Effect.promise(() => gate).pipe(Effect.andThen((job.data as { ok: boolean }).ok ? Effect.void : Effect.fail(new Error("bad"))))
      )
      await Effect.runPromise(Scope.provide(queue.work("corpus", { slots: 2 }, handler), scope))
      await expect.poll(async () => (await metrics()).value("strata_worker_slots", { state: "busy" })).toBe(2)
      release!()
      await expect.poll(async () => (await metrics()).value("strata_worker_jobs_total", { outcome: "failed" })).toBe(1)
      const after = await metrics()
      expect(after.value("strata_worker_jobs_total", { outcome: "done" })).toBe(1)
      expect(after.value("strata_worker_slots", { state: "free" })).toBe(2)
      expect(after.value("strata_worker_draining")).toBe(0)

      state.draining = true
      const draining = await fetch(`${url}/ready`)
      expect(draining.status).toBe(503)
      expect(((await draining.json()) as { status: string }).status).toBe("draining")
      expect((await metrics()).value("strata_worker_draining")).toBe(1)
      expect((await fetch(`${url}/nowhere`)).status).toBe(404)
    } finally {
      await Effect.runPromise(Scope.close(scope, Exit.void))
    }
  })

  it("reads --health-port before STRATA_WORKER_HEALTH_PORT, and refuses what is not a port", () => {
    expect(healthPortOf(undefined, undefined)).toBeUndefined()
    expect(healthPortOf(undefined, " ")).toBeUndefined()
    expect(healthPortOf("9464", "1")).toBe(9464)
    expect(healthPortOf(undefined, "9465")).toBe(9465)
    expect(healthPortOf("http", undefined)).toMatch(/--health-port takes a port number/)
    expect(healthPortOf("70000", undefined)).toMatch(/--health-port/)
  })
})
