/**
 * A replica's page count (PageCount.ts) with the real reader pool (one reader process): a PDF is
 * counted by the pool, opening no page (`maxPages: 0`), so the server's thread never runs pdf.js
 * on it; a PDF the reader refuses (damaged) gives no count, so the replica reads it itself and
 * answers the reader's error; what is not a PDF never reaches a reader; without a pool the count
 * is made here, as before.
 */
import { assert, describe, it } from "@effect/vitest"
import { DocumentReaders, type ReadRequest } from "@strata/core"
import { Effect, Layer, Option } from "effect"
import { Strata } from "strata"
import { textPdf } from "../../http/test/support.ts"

/** The pipeline with one reader process, and what it asked its readers to read. */
const withPool = <A, E>(body: (asked: Array<ReadRequest["options"]>) => Effect.Effect<A, E, DocumentReaders>) =>
  Effect.gen(function*() {
    const pool = Option.getOrThrow(yield* Effect.serviceOption(DocumentReaders))
    assert.isDefined(pool.load, "the readers are a pool of processes")
    const asked: Array<ReadRequest["options"]> = []
    const watched = DocumentReaders.of({ ...pool, read: (request) => Effect.suspend(() => (asked.push(request.options), pool.read(request))) })
    return yield* body(asked).pipe(Effect.provideService(DocumentReaders, watched))
  }).pipe(Effect.provide(Strata.layer({ isolation: { workers: 1 }, ocr: false, browser: false }) as Layer.Layer<never, unknown>))

describe("a replica's PDF page count", () => {
  it.live("is read by a reader process, which opens no page", () =>
    withPool((asked) =>
      Effect.gen(function*() {
        assert.strictEqual(yield* Strata.countPdfPages(textPdf(12)), 12)
        assert.strictEqual(asked.length, 1)
        assert.strictEqual(asked[0]!.maxPages, 0)
        assert.strictEqual(asked[0]!.mode, "fast")
      })), { timeout: 60_000 })

  it.live("a PDF the reader refuses gives no count; what is not a PDF never reaches a reader", () =>
    withPool((asked) =>
      Effect.gen(function*() {
        const damaged = Buffer.concat([Buffer.from("%PDF-1.7\n"), Buffer.alloc(4096, 0x41)])
        assert.isUndefined(yield* Strata.countPdfPages(damaged))
        assert.strictEqual(asked.length, 1)
        assert.isUndefined(yield* Strata.countPdfPages(Buffer.from("<html><body>not a PDF</body></html>")))
        assert.strictEqual(asked.length, 1)
      })), { timeout: 60_000 })

  it.live("without a pool of readers the count is made here", () =>
    Effect.gen(function*() {
      assert.strictEqual(yield* Strata.countPdfPages(textPdf(7)), 7)
    }))
})
