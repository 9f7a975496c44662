/**
 * The PDF reader: bytes in, `DocumentInfo` plus a lazy `Stream` of pages out, through the page
 * stages it takes from the Effect context: OCR (OcrPages.ts, when an `OcrEngine` is there),
 * `Layout` (with its `Tables`), `ReadingOrder`. Swap any of them by providing another layer.
 *
 * Pages are read in order (by a pool of worker threads a few pages ahead for longer documents,
 * see PagePool.ts; on the calling thread for short ones). Each page is analysed as it enters a
 * small look-ahead window (so font statistics and running headers of the pages around it are
 * known) and labelled, ordered and written when it leaves; at most `2 * WINDOW + 2` analysed pages
 * are held, whatever the document's length. A page that cannot be read or laid out is recorded
 * as `failed` and the stream goes on; the deadline ends the stream with a Timeout error.
 */
import { Effect, Option, type Scope, Stream } from "effect"
import type { PDFDocumentProxy } from "pdfjs-dist/types/src/display/api.d.ts"
import { Corrupt, Layout, OcrEngine, ReadingOrder, thrownReason } from "@strata/core"
import type { DocumentError, DocumentInfo, LayoutPage, LayoutSession, Page, ReadRequest, ReadResult, Reader, StageError } from "@strata/core"
import { ocrPages } from "./OcrPages.ts"
import { type PagePool, PageWorkers } from "./PagePool.ts"
import { inThreadSource, type PageSource, pooledSource } from "./PageSource.ts"
import { failedPage, type OrderedPage, writePage } from "./PageLayout.ts"
import { closePdf, openPdf, pdfError } from "./PdfLoader.ts"

/** The stages a PDF is read with (see `makePdfReader`, which takes them from the context). */
export interface PdfStages {
  readonly layout: Layout["Service"]
  readonly readingOrder: ReadingOrder["Service"]
  /** Absent: pages are never OCR'd. */
  readonly ocr?: OcrEngine["Service"] | undefined
  /** Worker threads that read the pages of longer documents; absent (or size 0): the calling thread. */
  readonly pageWorkers?: PagePool | undefined
}

/** A PDF `Reader` that also says how many of the documents it opened are still open. */
export interface PdfReader extends Reader {
  readonly openDocuments: () => number
}

/** Pages looked at on each side of the page being finished. */
export const WINDOW = 3

/**
 * Documents this short are read on the calling thread: a worker would open the document again and
 * load its fonts again, which costs about as much as reading a page.
 */
const POOL_MIN_PAGES = 3

/** Pages the workers read ahead of the page being read, per worker. */
const LOOKAHEAD_PER_WORKER = 3

const pdfDate = (value: unknown): string | undefined => {
  if (typeof value !== "string" || value.length === 0) return undefined
  const m = /^(?:D:)?(\d{4})(\d{2})?(\d{2})?(\d{2})?(\d{2})?(\d{2})?([Zz]|[+-]\d{2}'?\d{2}'?)?/.exec(value)
  if (m === null) return value
  const [, y, mo = "01", d = "01", h = "00", mi = "00", s = "00", tz] = m
  let zone = "Z"
  if (tz !== undefined && tz.toUpperCase() !== "Z") zone = `${tz.slice(0, 3)}:${tz.replace(/'/g, "").slice(3, 5) || "00"}`
  const iso = `${y}-${mo}-${d}T${h}:${mi}:${s}${zone}`
  return Number.isNaN(Date.parse(iso)) ? value : new Date(iso).toISOString()
}

/** Title, author, dates... from the info dictionary, under the names the rest of the service uses. */
const documentMetadata = (doc: PDFDocumentProxy): Effect.Effect<Record<string, string | Array<string>>> =>
  Effect.promise(() => doc.getMetadata().catch(() => ({ info: {} as Record<string, unknown>, metadata: null }))).pipe(
    Effect.map(({ info }) => {
      const record = info as Record<string, unknown>
      const out: Record<string, string | Array<string>> = {}
      const text = (key: string, name: string) => {
        const value = record[key]
        if (typeof value === "string" && value.trim().length > 0) out[name] = value.trim()
      }
      text("Title", "title")
      text("Author", "author")
      text("Subject", "subject")
      text("Creator", "creator")
      text("Producer", "producer")
      const keywords = record["Keywords"]
      if (typeof keywords === "string" && keywords.trim().length > 0) out["keywords"] = keywords.trim()
      const created = pdfDate(record["CreationDate"])
      if (created !== undefined) out["creationDate"] = created
      const modified = pdfDate(record["ModDate"])
      if (modified !== undefined) out["modificationDate"] = modified
      const version = record["PDFFormatVersion"]
      if (typeof version === "string") out["pdfVersion"] = version
      return out
    })
  )

interface WindowState {
  /** Next page to read from pdf.js. */
  nextRead: number
  /** Next page to finish and emit. */
  nextEmit: number
  readonly analysed: Map<number, LayoutPage>
  /** Pages with kinds and order (the page being written and the one after it). */
  readonly ordered: Map<number, OrderedPage>
  readonly failed: Map<number, string>
}

const stageFailure = (what: string, error: StageError) => `the page's layout could not be ${what}: ${error.message}`

/** The stream of pages; `close` runs when the stream ends, fails or is interrupted. */
const pageStream = (
  close: Effect.Effect<void>,
  source: PageSource,
  numPages: number,
  layout: LayoutSession,
  readingOrder: ReadingOrder["Service"]
): Stream.Stream<Page, DocumentError> => {
  const state: WindowState = { nextRead: 1, nextEmit: 1, analysed: new Map(), ordered: new Map(), failed: new Map() }
  const readNext = Effect.suspend(() => {
    const pageNumber = state.nextRead++
    return source.read(pageNumber).pipe(
      Effect.flatMap((content) =>
        // A layout bug on one odd page must not take the document down: the page is recorded as failed.
        layout.analyse(content).pipe(
          Effect.match({
            onSuccess: (analysis) => void state.analysed.set(pageNumber, analysis),
            onFailure: (error) => void state.failed.set(pageNumber, stageFailure("analysed", error))
          })
        )
      ),
      Effect.catch((error: DocumentError): Effect.Effect<void, DocumentError> =>
        error.reason._tag === "Timeout"
          ? Effect.fail(error)
          : Effect.sync(() => {
            state.failed.set(pageNumber, error.reason.message)
          }))
    )
  })
  /** Labels and orders page `n` once (undefined when it was never analysed or its stages failed). */
  const order = (n: number): Effect.Effect<OrderedPage | undefined> =>
    Effect.suspend(() => {
      const done = state.ordered.get(n)
      if (done !== undefined) return Effect.succeed(done)
      const analysis = state.analysed.get(n)
      if (analysis === undefined) return Effect.succeed(undefined)
      const neighbours: Array<LayoutPage> = []
      for (let p = n - WINDOW; p <= n + WINDOW; p++) {
        const other = state.analysed.get(p)
        if (other !== undefined && p !== n) neighbours.push(other)
      }
      return layout.label(analysis, neighbours).pipe(
        Effect.flatMap((labelled) => Effect.map(readingOrder.order(labelled), (ordered): OrderedPage => ({ page: labelled, ordered }))),
        Effect.tap((ordered) => Effect.sync(() => state.ordered.set(n, ordered))),
        Effect.catch((error: StageError) =>
          Effect.sync(() => {
            state.analysed.delete(n)
            state.failed.set(n, stageFailure("finished", error))
            return undefined
          }))
      )
    })
  const step = Effect.suspend((): Effect.Effect<readonly [ReadonlyArray<Page>, Option.Option<WindowState>], DocumentError> => {
    const pageNumber = state.nextEmit
    const fill = Effect.whileLoop({
      // One page beyond the window: page + 1 is ordered early (see continueAcross) and needs its own window.
      while: () => state.nextRead <= Math.min(numPages, pageNumber + WINDOW + 1),
      body: () => readNext,
      step: () => undefined
    })
    const finish = Effect.gen(function*() {
      const current = yield* order(pageNumber)
      if (current === undefined) return failedPage(pageNumber, state.failed.get(pageNumber) ?? "the page could not be read")
      // The next page is ordered now so that a paragraph running over the break stays whole.
      const next = pageNumber < numPages ? yield* order(pageNumber + 1) : undefined
      if (next !== undefined) {
        const joined = yield* Effect.result(readingOrder.continueAcross(current.ordered, next.ordered))
        if (joined._tag === "Failure") return failedPage(pageNumber, stageFailure("finished", joined.failure))
      }
      try {
        return writePage(current)
      } catch (cause) {
        // What was thrown is ours to debug, not the client's to read: the page is recorded as failed, in our words.
        return failedPage(pageNumber, `the page's layout could not be finished: ${thrownReason(cause, "the page").message}`)
      }
    })
    return fill.pipe(
      Effect.andThen(finish),
      Effect.map((page) => {
        state.ordered.delete(pageNumber)
        state.failed.delete(pageNumber)
        state.analysed.delete(pageNumber - WINDOW)
        state.nextEmit++
        return [[page], state.nextEmit <= numPages ? Option.some(state) : Option.none()] as const
      })
    )
  })
  const closeAll = Effect.andThen(source.close, close)
  if (numPages === 0) return Stream.empty.pipe(Stream.ensuring(closeAll))
  return Stream.paginate(state, () => step).pipe(Stream.ensuring(closeAll))
}

/** Counts the documents a reader opened and has not closed yet. */
interface OpenCount {
  opened(): void
  closed(): void
}

/** Reads a PDF with the given stages. `fileName` is unused; a password is not part of the contract yet. */
const readPdf = (request: ReadRequest, stages: PdfStages, count: OpenCount): Effect.Effect<ReadResult, DocumentError, Scope.Scope> =>
  Effect.gen(function*() {
    const { deadline, maxPages, mode } = request.options
    const opened = yield* openPdf(request.bytes, deadline)
    count.opened()
    let closed = false
    const close = Effect.suspend(() => {
      if (closed) return Effect.void
      closed = true
      return Effect.andThen(closePdf(opened), Effect.sync(() => count.closed()))
    })
    // The caller's scope closes the document even if its pages are never read.
    yield* Effect.addFinalizer(() => close)
    const totalPages = opened.doc.numPages
    if (!(totalPages >= 0)) {
      yield* close
      return yield* Effect.fail(pdfError(new Corrupt({ message: "the PDF has no page tree" })))
    }
    const numPages = maxPages !== undefined && maxPages >= 0 ? Math.min(totalPages, Math.floor(maxPages)) : totalPages
    const metadata = yield* documentMetadata(opened.doc)
    const info: DocumentInfo = { numPages, totalPages, metadata }
    const pool = numPages >= POOL_MIN_PAGES && stages.pageWorkers !== undefined && stages.pageWorkers.size > 0 ? stages.pageWorkers : undefined
    const native = pool === undefined
      ? inThreadSource(opened, deadline)
      : pooledSource(pool, request.bytes, numPages, deadline, LOOKAHEAD_PER_WORKER * pool.size)
    const source = yield* ocrPages(native, { engine: stages.ocr, mode, bytes: request.bytes, deadline, numPages }).pipe(
      Effect.tapError(() => Effect.andThen(native.close, close))
    )
    let sourceClosed = false
    const closeSource = Effect.suspend(() => {
      if (sourceClosed) return Effect.void
      sourceClosed = true
      return source.close
    })
    yield* Effect.addFinalizer(() => closeSource)
    const session = yield* stages.layout.begin
    return { info, pages: pageStream(close, { read: (pageNumber) => source.read(pageNumber), close: closeSource }, numPages, session, stages.readingOrder) }
  })

/** A PDF `Reader` over fixed stages (benchmarks and tests that build their own). */
export const pdfReaderWith = (stages: PdfStages): PdfReader => {
  let open = 0
  const count: OpenCount = { opened: () => void open++, closed: () => void open-- }
  return {
    name: "pdf",
    formats: ["pdf"],
    read: (request) => readPdf(request, stages, count),
    openDocuments: () => open
  }
}

/**
 * The PDF `Reader` with the stages of the context: `Layout` and `ReadingOrder` (required), the
 * `OcrEngine` when one is provided (else pages are never OCR'd), and `PageWorkers` when provided
 * (else pages are read on the calling thread).
 */
export const makePdfReader: Effect.Effect<PdfReader, never, Layout | ReadingOrder> = Effect.gen(function*() {
  const layout = yield* Layout
  const readingOrder = yield* ReadingOrder
  const ocr = Option.getOrUndefined(yield* Effect.serviceOption(OcrEngine))
  const pageWorkers = Option.getOrUndefined(yield* Effect.serviceOption(PageWorkers))
  return pdfReaderWith({ layout, readingOrder, ocr, pageWorkers })
})
