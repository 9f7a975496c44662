/**
 * The corpus job handler on the in-process queue and real corpus run tables (a throwaway
 * Postgres), with a stub conversion: a document whose content was converted already is copied,
 * not converted again, and its result is stored once; an attempt that runs past its deadline has
 * its conversion aborted (in the worker, that kills the reader process) and fails like any other,
 * is retried, and after its last attempt the item is failed with the reason.
 */
import { JobQueue, MemoryJobQueue } from "@strata/core"
import { CorpusRuns, runsLayer, type RunSpec } from "@strata/fleet"
import { Effect, Layer, Option, Redacted } from "effect"
import { mkdir, mkdtemp, readFile, stat, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startPostgres, type TempPostgres } from "../../store/test/support/TempPostgres.ts"
import type { Convert } from "../src/Batch.ts"
import { corpusHandler } from "../src/Worker.ts"

let postgres: TempPostgres
let databases = 0
beforeAll(async () => {
  postgres = await startPostgres()
}, 120_000)
afterAll(() => postgres?.stop())

const services = () =>
  Layer.mergeAll(MemoryJobQueue.layer, runsLayer({ url: Redacted.make(postgres.createDatabase(`w${process.pid}_${++databases}`)) }))

const setup = async (files: Record<string, string>) => {
  const root = await mkdtemp(join(tmpdir(), "strata-worker-"))
  await mkdir(join(root, "in"), { recursive: true })
  for (const [name, text] of Object.entries(files)) await writeFile(join(root, "in", name), text)
  const spec: RunSpec = { id: "run1", outDir: join(root, "out"), options: {}, json: false, formats: undefined }
  return { root, spec }
}

const drain = (spec: RunSpec, root: string, names: ReadonlyArray<string>, convert: Convert, settings: { deadlineMs: number; retries: number; backoffMs: number }) =>
  Effect.gen(function*() {
    const queue = yield* JobQueue
    const runs = yield* CorpusRuns
    yield* runs.record(spec, names)
    yield* queue.define("corpus", settings)
    yield* queue.work("corpus", { slots: 1 }, corpusHandler(runs, convert, () => {}))
    yield* queue.enqueue("corpus", names.map((path) => ({ key: path, data: { runId: spec.id, path, source: join(root, "in", path) } })))
    while (true) {
      const p = Option.getOrThrow(yield* runs.progress(spec.id))
      if (p.done + p.failed === p.total) return p
      yield* Effect.sleep("20 millis")
    }
  })

describe("corpusHandler", () => {
  it("converts a document once: the same content elsewhere is copied, and its result is stored once", async () => {
    const { root, spec } = await setup({ "a.csv": "name\nsame\n", "b.csv": "name\nsame\n", "c.csv": "name\nother\n" })
    let calls = 0
    const convert: Convert = async (bytes) => {
      calls++
      return { markdown: `converted: ${new TextDecoder().decode(bytes).trim()}` }
    }
    const progress = await Effect.runPromise(
      drain(spec, root, ["a.csv", "b.csv", "c.csv"], convert, { deadlineMs: 10_000, retries: 0, backoffMs: 10 }).pipe(
        Effect.scoped,
        Effect.provide(services())
      )
    )
    expect(progress).toMatchObject({ total: 3, done: 3, failed: 0, doubleWrites: 0 })
    expect(calls).toBe(2)
    expect(await readFile(join(spec.outDir, "a.csv.md"), "utf8")).toBe("converted: name\nsame")
    expect(await readFile(join(spec.outDir, "b.csv.md"), "utf8")).toBe("converted: name\nsame")
    expect(await readFile(join(spec.outDir, "c.csv.md"), "utf8")).toBe("converted: name\nother")
  })

  it("an attempt past its deadline aborts its conversion and fails; after the last attempt the item is failed", async () => {
    const { root, spec } = await setup({ "slow.csv": "name\nslow\n" })
    let aborted = 0
    const timeouts: Array<unknown> = []
    const convert: Convert = (_bytes, _name, options) =>
      new Promise((_, reject) => {
        timeouts.push(options.timeout)
        const signal = options.signal as AbortSignal
        signal.addEventListener("abort", () => {
          aborted++
          reject(new Error("aborted"))
        })
      })
    const progress = await Effect.runPromise(
      drain(spec, root, ["slow.csv"], convert, { deadlineMs: 300, retries: 1, backoffMs: 10 }).pipe(Effect.scoped, Effect.provide(services()))
    )
    expect(progress).toMatchObject({ total: 1, done: 0, failed: 1 })
    expect(progress.failures[0]).toMatchObject({ path: "slow.csv", attempts: 2 })
    expect(progress.failures[0]!.error).toMatch(/deadline/)
    expect(aborted).toBe(2)
    // The conversion itself is given the attempt's time (at least 1 s): the reader is killed at it.
    expect(timeouts.every((t) => typeof t === "number" && t >= 1000 && t <= 10_000)).toBe(true)
  })

  it("a retry or a later round removes the temp files a killed attempt left beside its output; a first attempt lists nothing", async () => {
    const { root, spec } = await setup({ "retried.csv": "name\nr\n", "again.csv": "name\na\n", "first.csv": "name\nf\n" })
    await mkdir(spec.outDir, { recursive: true })
    // What a worker killed between writeAtomic's write and its rename leaves.
    const leftover = (path: string) => join(spec.outDir, `${path}.md.0b6c1f9e-3d2a-4c8e-9f1a-2b7d5e4c3a10.tmp`)
    for (const path of ["retried.csv", "again.csv", "first.csv"]) await writeFile(leftover(path), "half a resu")
    const attempts = new Map<string, number>()
    const convert: Convert = async (bytes, name) => {
      attempts.set(name, (attempts.get(name) ?? 0) + 1)
      if (name === "retried.csv" && attempts.get(name) === 1) throw new Error("the first attempt fails")
      return { markdown: new TextDecoder().decode(bytes).trim() }
    }
    const progress = await Effect.runPromise(Effect.gen(function*() {
      const queue = yield* JobQueue
      const runs = yield* CorpusRuns
      const names = ["retried.csv", "again.csv", "first.csv"]
      yield* runs.record(spec, names)
      yield* queue.define("corpus", { deadlineMs: 10_000, retries: 1, backoffMs: 10 })
      yield* queue.work("corpus", { slots: 1 }, corpusHandler(runs, convert, () => {}))
      yield* queue.enqueue("corpus", names.map((path) => ({
        key: path,
        data: { runId: spec.id, path, source: join(root, "in", path), round: path === "again.csv" ? 1 : 0 }
      })))
      while (true) {
        const p = Option.getOrThrow(yield* runs.progress(spec.id))
        if (p.done + p.failed === p.total) return p
        yield* Effect.sleep("20 millis")
      }
    }).pipe(Effect.scoped, Effect.provide(services())))
    expect(progress).toMatchObject({ total: 3, done: 3, failed: 0 })
    const exists = (path: string) => stat(path).then(() => true, () => false)
    expect(await exists(leftover("retried.csv"))).toBe(false)
    expect(await exists(leftover("again.csv"))).toBe(false)
    // Not this handler's to clear: a first attempt of a first round does not list its folder.
    expect(await exists(leftover("first.csv"))).toBe(true)
    expect(await readFile(join(spec.outDir, "retried.csv.md"), "utf8")).toBe("name\nr")
  })
})
