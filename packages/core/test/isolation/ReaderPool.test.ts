/**
 * The reader pool against real child processes (TestReaderProcess.ts): pages stream back in order,
 * typed errors cross the boundary, and a document that crashes its process, exhausts its memory
 * or never yields fails alone with a typed error, on time, while this thread stays responsive and
 * the next document reads normally. A full queue is refused with `Busy`; OCR is served by this
 * process's engine; a consumer that stops early does not leave the reader working.
 */
import { describe, expect, it } from "vitest"
import { readdirSync, readFileSync } from "node:fs"
import { watchEventLoop } from "../helpers/EventLoopGap.ts"
import { Effect, Exit, Fiber, Layer, type Scope, Stream } from "effect"
import { capPage, DocumentReaders, makeBlock, MAX_DOCUMENT_CHARS, OcrEngine, ReaderPool } from "../../src/index.ts"
import type { DocumentError, Page, ReadRequest } from "../../src/index.ts"


const entry = new URL("./TestReaderProcess.ts", import.meta.url)

const poolLayer = (options: Partial<ReaderPool.ReaderPoolOptions> = {}) =>
  ReaderPool.layer({ entry, supports: (format) => format === "csv", size: 1, queue: 4, memoryMb: 1024, ...options })

const request = (text: string, timeoutMs = 20_000): ReadRequest => ({
  bytes: new TextEncoder().encode(text),
  format: "csv",
  options: { mode: "fast", deadline: Date.now() + timeoutMs }
})

/** Reads a document to the end: its pages' texts, or its error. */
const readAll = (text: string, timeoutMs?: number) =>
  Effect.gen(function*() {
    const readers = yield* DocumentReaders
    const result = yield* readers.read(request(text, timeoutMs))
    const pages = yield* Stream.runCollect(result.pages)
    return pages.map((page: Page) => page.blocks.map((b) => b.content).join(""))
  })

const errorOf = (exit: Exit.Exit<unknown, DocumentError>) => {
  if (Exit.isSuccess(exit)) throw new Error("expected a failure")
  const failure = exit.cause.reasons.find((r) => r._tag === "Fail")
  if (failure === undefined || failure._tag !== "Fail") throw new Error(`expected a typed failure, got ${String(exit.cause)}`)
  return failure.error
}

/** The longest gap between ticks of a 10 ms timer on this thread while `effect` runs. */
/**
 * Runs `effect` while watching this thread: the longest gap between 10 ms ticks, and how long it
 * took. A thread that ran the document itself would show a gap about as long as the whole read;
 * one that stays responsive shows gaps far shorter, even with other work on the machine's cores
 * (a fixed bound in ms failed under load 13-15), so the tests compare the two.
 */
const withLag = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.gen(function*() {
    const loop = watchEventLoop(10)
    const started = performance.now()
    const exit = yield* Effect.exit(effect)
    const elapsedMs = performance.now() - started
    const lagMs = loop.stop()
    return { exit, lagMs, elapsedMs }
  })

const run = <A, E>(effect: Effect.Effect<A, E, DocumentReaders | Scope.Scope>, layer = poolLayer()) =>
  Effect.runPromise(Effect.scoped(effect.pipe(Effect.provide(layer))) as Effect.Effect<A, E>)

describe("ReaderPool", () => {
  it("streams a document's pages back in order, and reuses the process", async () => {
    const [first, second] = await run(Effect.all([readAll("pages 30"), readAll("pages 2")]))
    expect(first).toHaveLength(30)
    expect(first[0]).toBe("page 1 of 30")
    expect(first[29]).toBe("page 30 of 30")
    expect(second).toEqual(["page 1 of 2", "page 2 of 2"])
  })

  it("passes a reader's typed error through unchanged", async () => {
    const exit = await run(Effect.exit(readAll("fail")))
    const error = errorOf(exit)
    expect(error.reason._tag).toBe("Corrupt")
    expect(error.reason.message).toBe("the test document is corrupt")
  })

  it("fails only the document whose process crashes; the next one reads", async () => {
    const [crashed, next] = await run(Effect.gen(function*() {
      const crashed = yield* Effect.exit(readAll("crash"))
      const next = yield* readAll("pages 1")
      return [crashed, next] as const
    }))
    const error = errorOf(crashed)
    expect(error.reason._tag).toBe("Corrupt")
    expect(error.reason.message).toContain("stop unexpectedly (SIGSEGV)")
    expect(next).toEqual(["page 1 of 1"])
  })

  it("stops a document that exhausts its memory, with LimitExceeded, and stays responsive", async () => {
    const { exit, lagMs, elapsedMs, next } = await run(
      Effect.gen(function*() {
        const { exit, lagMs, elapsedMs } = yield* withLag(readAll("hog"))
        const next = yield* readAll("pages 1")
        return { exit, lagMs, elapsedMs, next }
      }),
      poolLayer({ memoryMb: 300 })
    )
    const error = errorOf(exit)
    expect(error.reason._tag).toBe("LimitExceeded")
    expect(error.reason.message).toContain("300 MB")
    expect(lagMs).toBeLessThan(elapsedMs / 2)
    expect(next).toEqual(["page 1 of 1"])
  })

  it("kills a document that never yields at its deadline", async () => {
    const started = Date.now()
    const { exit, lagMs, elapsedMs } = await run(withLag(readAll("spin", 1500)))
    const took = Date.now() - started
    expect(errorOf(exit).reason._tag).toBe("Timeout")
    // Deadline + grace + the reader process's start, never the spin's forever. The start alone
    // took ~9 s once on a loaded 2-core CI run (10.7 s in all), so the bound only catches a hang;
    // the Timeout reason above is what shows the kill.
    expect(took).toBeLessThan(1500 + 20_000)
    expect(lagMs).toBeLessThan(elapsedMs / 2)
  })

  it("refuses a document when every reader is busy and the queue is full", async () => {
    const exit = await run(
      Effect.gen(function*() {
        const readers = yield* DocumentReaders
        // Holds the only process (its pages are not taken yet).
        const holding = yield* readers.read(request("slow 5"))
        const refused = yield* Effect.exit(readers.read(request("pages 1")))
        yield* Stream.runDrain(holding.pages)
        return refused
      }),
      poolLayer({ queue: 0 })
    )
    const error = errorOf(exit)
    expect(error.reason._tag).toBe("Busy")
    expect(error.isRetryable).toBe(true)
  })

  it("reports its load: a process busy, a document queued behind it, then the process idle", async () => {
    const seen = await run(Effect.gen(function*() {
      const readers = yield* DocumentReaders
      const load = readers.load!
      const before = load()
      const holding = yield* readers.read(request("slow 3"))
      const reading = load()
      const waiting = yield* Effect.forkChild(readAll("pages 1"))
      while (load().queued === 0) yield* Effect.sleep(20)
      const queued = load()
      yield* Stream.runDrain(holding.pages)
      expect(yield* Fiber.join(waiting)).toEqual(["page 1 of 1"])
      while (load().busy > 0) yield* Effect.sleep(20)
      return { before, reading, queued, after: load() }
    }))
    expect(seen.before).toEqual({ size: 1, busy: 0, idle: 0, queued: 0 })
    expect(seen.reading).toEqual({ size: 1, busy: 1, idle: 0, queued: 0 })
    expect(seen.queued).toEqual({ size: 1, busy: 1, idle: 0, queued: 1 })
    expect(seen.after).toEqual({ size: 1, busy: 0, idle: 1, queued: 0 })
  })

  it("serves a reader's OCR with this process's engine", async () => {
    const engine = OcrEngine.of({
      name: "fake",
      preferredDpi: 300,
      concurrency: 1,
      estimateSeconds: (pages) => pages,
      recognize: (image) =>
        Effect.succeed({
          engine: "fake",
          width: 1,
          height: 1,
          lines: [{ text: `read ${image._tag === "Encoded" ? image.data.length : 0} bytes`, bbox: [0, 0, 1, 1], confidence: 1, words: [] }]
        })
    })
    const pages = await run(readAll("ocr"), poolLayer().pipe(Layer.provide(Layer.succeed(OcrEngine, engine))))
    expect(pages).toEqual(["fake: read 3 bytes"])
  })

  it("stops the reader when the consumer stops early, and reads the next document at once", async () => {
    const { taken, nextMs } = await run(Effect.gen(function*() {
      const readers = yield* DocumentReaders
      const taken = yield* Effect.scoped(Effect.gen(function*() {
        const result = yield* readers.read(request("slow 50"))
        return yield* Stream.runCollect(Stream.take(result.pages, 2))
      }))
      const started = Date.now()
      yield* readAll("pages 1")
      return { taken, nextMs: Date.now() - started }
    }))
    expect(taken.map((p) => p.pageNumber)).toEqual([1, 2])
    // The 48 slow pages left (about 10 s) were not read first.
    expect(nextMs).toBeLessThan(3000)
  })
})

/** Live child processes of this process (Linux: the parent pid in /proc/<pid>/stat). */
const children = () => {
  let count = 0
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8")
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
      if (Number(fields[1]) === process.pid && fields[0] !== "Z") count++
    } catch {
      // gone meanwhile
    }
  }
  return count
}

/** The nice values of this process's live children (field 19 of /proc/<pid>/stat). */
const childNiceness = (): Array<number> => {
  const out: Array<number> = []
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8")
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
      if (Number(fields[1]) === process.pid && fields[0] !== "Z") out.push(Number(fields[16]))
    } catch {
      // gone meanwhile
    }
  }
  return out
}

describe("ReaderPool priority", () => {
  it("runs its readers at a lower CPU priority than the server", async () => {
    const seen = await run(Effect.gen(function*() {
      yield* readAll("pages 1")
      // The process stays for the next document: its priority is still readable.
      return childNiceness()
    }), poolLayer({ idleMs: 5000 }))
    expect(seen.length).toBeGreaterThan(0)
    expect(seen.every((nice) => nice === 10)).toBe(true)
  })
})

describe("ReaderPool when idle", () => {
  it("stops a process left idle, and starts one for the next document", async () => {
    // Earlier tests' stopped readers may still be exiting.
    await new Promise((resolve) => setTimeout(resolve, 1500))
    const seen = await run(Effect.gen(function*() {
      const before = children()
      yield* readAll("pages 1")
      const working = children()
      yield* Effect.sleep(1500)
      const idle = children()
      const next = yield* readAll("pages 2")
      return { before, working, idle, next }
    }), poolLayer({ idleMs: 500 }))
    expect(seen.working).toBe(seen.before + 1)
    expect(seen.idle).toBe(seen.before)
    expect(seen.next).toEqual(["page 1 of 2", "page 2 of 2"])
  })
})

describe("ReaderPool trimming", () => {
  it("stops an idle process that kept too much memory after its document, and starts a fresh one", async () => {
    await new Promise((resolve) => setTimeout(resolve, 1500))
    const seen = await run(Effect.gen(function*() {
      const before = children()
      // 200 MB kept over a test reader's ~130 MB: past the 256 MB trim line, under the 384 MB recycle line checked at release.
      const kept = yield* readAll("keep 200")
      const after = children()
      yield* Effect.sleep(4000)
      const trimmed = children()
      const next = yield* readAll("pages 1")
      return { before, kept, after, trimmed, next }
    }))
    expect(seen.kept).toEqual(["kept 200 MB"])
    expect(seen.after).toBe(seen.before + 1)
    expect(seen.trimmed).toBe(seen.before)
    expect(seen.next).toEqual(["page 1 of 1"])
  })

  it("keeps an idle process whose memory stayed small", async () => {
    await new Promise((resolve) => setTimeout(resolve, 1500))
    const seen = await run(Effect.gen(function*() {
      const before = children()
      yield* readAll("pages 3")
      yield* Effect.sleep(3000)
      return { before, idle: children() }
    }))
    expect(seen.idle).toBe(seen.before + 1)
  })
})

describe("capPage", () => {
  const page: Page = { pageNumber: 3, status: "ok", width: null, height: null, blocks: [makeBlock("text", "abcde"), { ...makeBlock("text", "fghij"), text: "fghij" }] }
  it("keeps a page that fits, and cuts the block that crosses the budget", () => {
    expect(capPage(page, 100)).toEqual({ page, used: 10, cut: false })
    const cut = capPage(page, 7)
    expect(cut.cut).toBe(true)
    expect(cut.used).toBe(7)
    expect(cut.page.status).toBe("partial")
    expect(cut.page.blocks.map((b) => b.content)).toEqual(["abcde", "fg"])
    // The structure described the whole block; the cut one stands on its content alone.
    expect(cut.page.blocks[1]).not.toHaveProperty("text")
  })
  it("budgets tens of millions of characters per document", () => {
    expect(MAX_DOCUMENT_CHARS).toBeGreaterThanOrEqual(10_000_000)
  })
})

