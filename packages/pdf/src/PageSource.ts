/**
 * Where the page stream gets each page's content: read on the calling thread from the document
 * already open there, or by the worker pool (PagePool.ts), which reads a few pages ahead. Both
 * give the same `PageContent` for a page; the stream asks for pages in order, one at a time.
 */
import { Effect } from "effect"
import type { PDFDocumentProxy } from "pdfjs-dist/types/src/display/api.d.ts"
import { type DocumentError, thrownReason, Timeout } from "@strata/core"
import { forgetFonts, type PageContent, readPage } from "./PageContent.ts"
import type { PagePool } from "./PagePool.ts"
import { type OpenedPdf, pdfError, withDeadline } from "./PdfLoader.ts"

export interface PageSource {
  read(pageNumber: number): Effect.Effect<PageContent, DocumentError>
  readonly close: Effect.Effect<void>
}

/** pdf.js caches every page it parsed (and its fonts) until told otherwise: release them this often. */
const CLEANUP_EVERY = 64

/**
 * A page pdf.js could not read. What it threw (here, or its text from a page worker) only picks
 * the reason: a limit for absurd nesting or size, else damage, in our words.
 */
const unreadable = (pageNumber: number, thrown: unknown): DocumentError => pdfError(thrownReason(thrown, "the page"), pageNumber)

/**
 * A turn of the event loop. pdf.js inflates streams synchronously here (SyncDecompression.ts), so
 * a long document would otherwise run from its first page to its last in microtasks alone, and
 * V8's garbage-collection tasks, which wait for the event loop, would never run: the heap then
 * grew to 540 MB on the 2,000-page benchmark (380 MB with this turn before each page).
 */
const eventLoopTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve))

/** Reads one page on the calling thread, within the deadline. */
export const readPageContent = (doc: PDFDocumentProxy, pageNumber: number, deadline: number): Effect.Effect<PageContent, DocumentError> =>
  withDeadline(
    Effect.tryPromise({
      try: () => eventLoopTurn().then(() => readPage(doc, pageNumber)),
      catch: (cause) => unreadable(pageNumber, cause)
    }),
    deadline,
    `reading page ${pageNumber}`,
    pageNumber
  )

/**
 * Pages read on this thread from `opened` (the caller closes it). Reading the next page while this
 * one is laid out (pdf.js inflates streams on libuv's pool) was measured: no gain, so none.
 */
export const inThreadSource = (opened: OpenedPdf, deadline: number): PageSource => {
  let read = 0
  const cleanup = Effect.promise(async () => {
    await opened.doc.cleanup().catch(() => undefined)
    forgetFonts(opened.doc)
  })
  return {
    read: (pageNumber) => {
      const page = readPageContent(opened.doc, pageNumber, deadline)
      return ++read % CLEANUP_EVERY === 0 ? Effect.andThen(cleanup, page) : page
    },
    close: Effect.void
  }
}

/** Pages read by the pool, `lookahead` pages ahead of the one asked for. */
export const pooledSource = (pool: PagePool, bytes: Uint8Array, numPages: number, deadline: number, lookahead: number): PageSource => {
  const doc = pool.openDocument(bytes, deadline)
  return {
    read: (pageNumber) => {
      for (let n = pageNumber + 1; n <= Math.min(numPages, pageNumber + lookahead); n++) doc.request(n)
      const outcome = Effect.promise(() => doc.take(pageNumber)).pipe(
        Effect.flatMap((o): Effect.Effect<PageContent, DocumentError> =>
          "content" in o
            ? Effect.succeed(o.content)
            : Effect.fail(o.timeout === true
              ? pdfError(new Timeout({ message: `the time budget ran out before reading page ${pageNumber}` }), pageNumber)
              : unreadable(pageNumber, o.error)))
      )
      return withDeadline(outcome, deadline, `reading page ${pageNumber}`, pageNumber).pipe(
        // A worker past the deadline may be stuck inside pdf.js: it is stopped rather than waited for.
        Effect.tapError((error) => error.reason._tag === "Timeout" ? Effect.sync(() => doc.abort()) : Effect.void)
      )
    },
    close: Effect.sync(() => doc.close())
  }
}
