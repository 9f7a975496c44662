/**
 * A document cut by `maxPages` says so: the last page kept carries a `pages_truncated` warning
 * with the count kept and the count dropped, in the unit of the format (pages, sheets, slides).
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Stream } from "effect"
import type { Page } from "../src/Document.ts"
import { DocumentReaders, type DocumentFormat, type Reader } from "../src/DocumentReader.ts"
import { pagesTruncated, runDocumentStream } from "../src/DocumentRun.ts"
import { Markdown } from "../src/stages/Markdown.ts"

const page = (pageNumber: number): Page => ({ pageNumber, status: "ok", width: null, height: null, blocks: [] })

/** A reader of `total` empty pages that honours `maxPages` as the real readers do. */
const reader = (formats: ReadonlyArray<DocumentFormat>, total: number): Reader => ({
  name: "fake",
  formats,
  read: (request) => {
    const numPages = Math.min(total, request.options.maxPages ?? total)
    return Effect.succeed({
      info: { numPages, totalPages: total, metadata: {} },
      pages: Stream.fromIterable(Array.from({ length: numPages }, (_, i) => page(i + 1)))
    })
  }
})

const diagnosticsOf = (format: DocumentFormat, total: number, maxPages?: number) =>
  Effect.gen(function*() {
    const { events } = yield* runDocumentStream({ bytes: new Uint8Array(), format, options: { mode: "fast", deadline: Date.now() + 10_000, maxPages } }, false)
    return Array.from(yield* Stream.runCollect(events)).map((event) => event.diagnostics)
  }).pipe(Effect.provide([DocumentReaders.layer([reader(["pdf", "xlsx", "pptx"], total)]), Markdown.layer]))

describe("pages cut by maxPages", () => {
  it.effect("puts the warning on the last page kept, with the counts", () =>
    Effect.gen(function*() {
      const pages = yield* diagnosticsOf("pdf", 12, 5)
      expect(pages).toHaveLength(5)
      expect(pages.slice(0, 4).flat()).toEqual([])
      expect(pages[4]).toEqual([{ severity: "warning", code: "pages_truncated", message: "kept the first 5 of 12 pages, as maxPages asks; 7 pages dropped", page: 5 }])
    }))

  it.effect("says nothing when maxPages keeps every page", () =>
    Effect.gen(function*() {
      expect((yield* diagnosticsOf("pdf", 3, 5)).flat()).toEqual([])
      expect((yield* diagnosticsOf("pdf", 3)).flat()).toEqual([])
    }))

  it("names sheets and slides for workbooks and presentations", () => {
    expect(pagesTruncated("xlsx", 1, 3).message).toBe("kept the first 1 of 3 sheets, as maxPages asks; 2 sheets dropped")
    expect(pagesTruncated("pptx", 10, 1_250).message).toBe("kept the first 10 of 1,250 slides, as maxPages asks; 1,240 slides dropped")
    expect(pagesTruncated("pdf", 2, 3).message).toBe("kept the first 2 of 3 pages, as maxPages asks; 1 page dropped")
  })
})
