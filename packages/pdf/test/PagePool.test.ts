/**
 * Reading pages in worker threads (opt-in, the `PageWorkers` layer) gives exactly the pages read
 * on the calling thread, in order, stays lazy, and shuts its workers' documents; and pdf.js's in-thread port, which
 * hands messages over without copying them, keeps concurrent documents apart.
 */
import { assert, describe, it } from "@effect/vitest"
import { ConfigProvider, Effect, Stream } from "effect"
import { heuristicLayout, heuristicReadingOrder, heuristicTables, type PagePool, pdfReaderWith, PageWorkers, WINDOW } from "../src/index.ts"
import { goldenCases } from "./helpers/GoldenCases.ts"
import { DUIS, LOREM, makePdf } from "./helpers/MakePdf.ts"
import { readAll } from "./helpers/ReadAll.ts"

/** Headings, paragraphs and a ruled table on every page, with a running header: every stage has work. */
const doc = (n: number, tag: string) => makePdf((b) => {
  for (let i = 1; i <= n; i++) {
    b.page((c) => {
      c.text(72, 40, `${tag} running header`, 8)
      c.text(72, 72, `${tag} page ${i} heading`, 16, "bold")
      let top = c.paragraph(72, 100, 460, i % 2 === 0 ? LOREM : DUIS)
      top += 20
      for (let r = 0; r <= 3; r++) c.line(72, top + r * 18, 372, top + r * 18, 0.5)
      for (const x of [72, 222, 372]) c.line(x, top, x, top + 54, 0.5)
      for (let r = 0; r < 3; r++) for (let k = 0; k < 2; k++) c.text(76 + k * 150, top + r * 18 + 4, r === 0 ? `Column ${k + 1}` : `${tag}-${i}-${r}-${k}`, 9)
    })
  }
})

/** A reader with a pool of `count` page workers, stopped when the test's scope closes. */
const pooledReader = (count: number) =>
  Effect.map(PageWorkers.make(count), (pool: PagePool) => ({
    pool,
    reader: pdfReaderWith({ layout: heuristicLayout(heuristicTables), readingOrder: heuristicReadingOrder, pageWorkers: pool })
  }))

describe("page worker pool", () => {
  it.effect("pages read by two workers equal the pages read on this thread", () =>
    Effect.scoped(Effect.gen(function*() {
      const bytes = yield* Effect.promise(() => doc(12, "Pooled"))
      const local = yield* readAll(bytes)
      const { pool, reader } = yield* pooledReader(2)
      const start = pool.pagesRequested
      const pooled = yield* readAll(bytes, { reader })
      assert.strictEqual(pool.pagesRequested - start, 12)
      assert.strictEqual(pooled.pages.length, 12)
      assert.deepStrictEqual(pooled.pages.map((p) => p.pageNumber), local.pages.map((p) => p.pageNumber))
      assert.deepStrictEqual(pooled.pages, local.pages)
      assert.strictEqual(pooled.markdown, local.markdown)
      assert.include(pooled.markdown, "Pooled-7-2-1")
      assert.include(pooled.markdown, "| Column 1 | Column 2 |")
    })))

  it.effect("golden documents read the same through the pool", () =>
    Effect.scoped(Effect.gen(function*() {
      const { reader } = yield* pooledReader(2)
      for (const [name, make] of Object.entries(goldenCases)) {
        const bytes = yield* Effect.promise(make)
        const pooled = yield* readAll(bytes, { reader })
        const local = yield* readAll(bytes)
        assert.strictEqual(pooled.markdown, local.markdown, name)
      }
    })))

  it.effect("the pooled stream is lazy: the first page asks for the window and the read-ahead only", () =>
    Effect.scoped(Effect.gen(function*() {
      const bytes = yield* Effect.promise(() => doc(60, "Lazy"))
      const { pool, reader } = yield* pooledReader(2)
      const start = pool.pagesRequested
      const result = yield* reader.read({ bytes, format: "pdf", options: { mode: "fast", deadline: Date.now() + 30_000 } })
      const first = yield* Stream.runCollect(Stream.take(result.pages, 1))
      assert.include(first[0].blocks.map((b) => b.content).join("\n"), "Lazy page 1 heading")
      const asked = pool.pagesRequested - start
      assert.isAtLeast(asked, WINDOW + 2)
      assert.isBelow(asked, 30)
    })))

  it.effect("the layer's workers are sized by STRATA_PDF_WORKERS and a size of 0 reads on this thread", () =>
    Effect.gen(function*() {
      const sized = yield* PageWorkers.use((pool) => Effect.succeed(pool.size)).pipe(
        Effect.provide(PageWorkers.layer),
        Effect.provide(ConfigProvider.layer(ConfigProvider.fromUnknown({ STRATA_PDF_WORKERS: "3" })))
      )
      assert.strictEqual(sized, 3)
      const bytes = yield* Effect.promise(() => doc(4, "Zero"))
      const zero = yield* Effect.scoped(Effect.flatMap(pooledReader(0), ({ pool, reader }) =>
        Effect.map(readAll(bytes, { reader }), (read) => ({ read, requested: pool.pagesRequested }))))
      assert.strictEqual(zero.requested, 0)
      assert.include(zero.read.markdown, "Zero-3-1-0")
    }))

  it.effect("concurrent documents on this thread keep their own text", () =>
    Effect.gen(function*() {
      const a = yield* Effect.promise(() => doc(4, "Alpha"))
      const b = yield* Effect.promise(() => doc(4, "Bravo"))
      const [ra, rb] = yield* Effect.all([readAll(a), readAll(b)], { concurrency: 2 })
      assert.include(ra.markdown, "Alpha-3-1-0")
      assert.include(rb.markdown, "Bravo-3-1-0")
      assert.notInclude(ra.markdown, "Bravo")
      assert.notInclude(rb.markdown, "Alpha")
      const again = yield* readAll(a)
      assert.strictEqual(again.markdown, ra.markdown)
    }))
})

describe("synchronous DecompressionStream", () => {
  it.effect("inflates deflate, gzip and raw input like zlib, and fails on corrupt input", () =>
    Effect.promise(async () => {
      const { deflateSync, gzipSync, deflateRawSync } = await import("node:zlib")
      const { installSyncDecompression } = await import("../src/SyncDecompression.ts")
      installSyncDecompression()
      assert.strictEqual(DecompressionStream.name, "SyncDecompressionStream")
      const text = new TextEncoder().encode(LOREM.repeat(50))
      const read = async (format: CompressionFormat, input: Uint8Array) =>
        new Uint8Array(await new Response(new Blob([input as Uint8Array<ArrayBuffer>]).stream().pipeThrough(new DecompressionStream(format))).arrayBuffer())
      assert.deepStrictEqual(await read("deflate", deflateSync(text)), text)
      assert.deepStrictEqual(await read("gzip", gzipSync(text)), text)
      assert.deepStrictEqual(await read("deflate-raw", deflateRawSync(text)), text)
      const corrupt = deflateSync(text).slice(0, 40)
      const failed = await read("deflate", corrupt).then(() => false, () => true)
      assert.isTrue(failed)
      assert.throws(() => new DecompressionStream("nope" as CompressionFormat))
    }))
})
