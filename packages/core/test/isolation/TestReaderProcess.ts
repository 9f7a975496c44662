/**
 * A reader process for the ReaderPool tests: one `csv` reader whose document text says what to do —
 * `pages N` (N pages), `crash` (the process dies by a signal), `hog` (allocates until the heap
 * cap), `spin` (never yields), `slow N` (N pages, 200 ms each), `ocr` (one page with what the
 * server's OCR engine read), `big N` (one page of N characters), `fail` (a typed error), `keep N`
 * (one page, and N MB kept resident for the process's life: memory a collection cannot return).
 */
import { Effect, Stream } from "effect"
import { Corrupt, DocumentError, DocumentReaders, encodedImage, makeBlock, serveReaders } from "@strata/core"
import type { Page, Reader } from "@strata/core"

/** What `keep` holds on to. */
const kept: Array<Buffer> = []

const page = (pageNumber: number, text: string): Page => ({
  pageNumber,
  status: "ok",
  width: null,
  height: null,
  blocks: [makeBlock("text", text)]
})

serveReaders((ocr) =>
  Effect.succeed(DocumentReaders.make([{
    name: "test",
    formats: ["csv"],
    read: (request) => {
      const [command, arg] = new TextDecoder().decode(request.bytes).trim().split(" ")
      const n = Number(arg ?? "1")
      const info = { numPages: command === "pages" || command === "slow" ? n : 1, metadata: {} }
      switch (command) {
        case "crash":
          return Effect.sync(() => process.kill(process.pid, "SIGSEGV")).pipe(Effect.andThen(Effect.never))
        case "hog":
          return Effect.sync(() => {
            const keep: Array<Array<number>> = []
            for (;;) keep.push(Array.from({ length: 1_000_000 }, (_, i) => i))
          })
        case "spin":
          return Effect.sync(() => {
            for (;;) {
              // never yields
            }
          })
        case "fail":
          return Effect.fail(new DocumentError({ format: "csv", reason: new Corrupt({ message: "the test document is corrupt" }) }))
        case "keep":
          return Effect.sync(() => {
            for (let i = 0; i < n; i++) kept.push(Buffer.alloc(2 ** 20, 1))
            return { info, pages: Stream.make(page(1, `kept ${n} MB`)) }
          })
        case "big":
          return Effect.succeed({ info, pages: Stream.make(page(1, "x".repeat(n))) })
        case "ocr":
          return Effect.gen(function*() {
            if (ocr === undefined) return { info, pages: Stream.make(page(1, "no engine")) }
            const result = yield* Effect.orDie(ocr.recognize(encodedImage(new Uint8Array([1, 2, 3]))))
            return { info, pages: Stream.make(page(1, `${ocr.name}: ${result.lines.map((l) => l.text).join(" ")}`)) }
          })
        case "slow":
          return Effect.succeed({
            info,
            pages: Stream.range(1, n).pipe(Stream.mapEffect((i) => Effect.as(Effect.sleep(200), page(i, `slow page ${i}`))))
          })
        default:
          return Effect.succeed({ info, pages: Stream.range(1, n).pipe(Stream.map((i) => page(i, `page ${i} of ${n}`))) })
      }
    }
  } satisfies Reader]))
)
