/**
 * The PDF reader: bytes in, `DocumentInfo` plus a lazy `Stream` of pages out.
 *
 * Pages are read in order (by a pool of worker threads a few pages ahead for longer documents,
 * see PagePool.ts; on the calling thread for short ones). Each page is analysed as it enters a small look-ahead window
 * (so font statistics and running headers of the pages around it are known) and finished when it
 * leaves; at most `2 * WINDOW + 2` analysed pages are held, whatever the document's length. A page
 * pdf.js cannot read is recorded as `failed` and the stream goes on; the deadline ends the stream
 * with a Timeout error.
 */
import { Effect, Option, Stream } from "effect"
import type { PDFDocumentProxy } from "pdfjs-dist/types/src/display/api.d.ts"
import { Corrupt, type DocumentError, type DocumentInfo, type Page, type ReadRequest, type ReadResult, type Reader } from "@strata/core"
import { FontStats } from "./FontStats.ts"
import { pagePool } from "./PagePool.ts"
import { inThreadSource, type PageSource, pooledSource } from "./PageSource.ts"
import { analysePage, type AnalyseOptions, carryOver, failedPage, type OrderedPage, orderPage, type PageAnalysis, writePage } from "./PageLayout.ts"
import { closePdf, openPdf, type OpenedPdf, pdfError } from "./PdfLoader.ts"

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
  readonly analysed: Map<number, PageAnalysis>
  /** Pages with kinds and order (the page being written and the one after it). */
  readonly ordered: Map<number, OrderedPage>
  readonly failed: Map<number, string>
}

/** The stream of pages; `opened` is closed when the stream ends, fails or is interrupted. */
const pageStream = (opened: OpenedPdf, source: PageSource, numPages: number, options: AnalyseOptions): Stream.Stream<Page, DocumentError> => {
  const stats = new FontStats()
  const state: WindowState = { nextRead: 1, nextEmit: 1, analysed: new Map(), ordered: new Map(), failed: new Map() }
  const readNext = Effect.suspend(() => {
    const pageNumber = state.nextRead++
    return source.read(pageNumber).pipe(
      Effect.map((content) => {
        // A layout bug on one odd page must not take the document down: the page is recorded as failed.
        try {
          state.analysed.set(pageNumber, analysePage(content, stats, options))
        } catch (cause) {
          state.failed.set(pageNumber, `the page's layout could not be analysed: ${cause instanceof Error ? cause.message : String(cause)}`)
        }
      }),
      Effect.catch((error: DocumentError): Effect.Effect<void, DocumentError> =>
        error.reason._tag === "Timeout"
          ? Effect.fail(error)
          : Effect.sync(() => {
            state.failed.set(pageNumber, error.reason.message)
          }))
    )
  })
  const step = Effect.suspend((): Effect.Effect<readonly [ReadonlyArray<Page>, Option.Option<WindowState>], DocumentError> => {
    const pageNumber = state.nextEmit
    const fill = Effect.whileLoop({
      // One page beyond the window: page + 1 is ordered early (see carryOver) and needs its own window.
      while: () => state.nextRead <= Math.min(numPages, pageNumber + WINDOW + 1),
      body: () => readNext,
      step: () => undefined
    })
    return fill.pipe(Effect.map(() => {
      const order = (n: number): OrderedPage | undefined => {
        const done = state.ordered.get(n)
        if (done !== undefined) return done
        const analysis = state.analysed.get(n)
        if (analysis === undefined) return undefined
        const neighbours: Array<PageAnalysis> = []
        for (let p = n - WINDOW; p <= n + WINDOW; p++) {
          const other = state.analysed.get(p)
          if (other !== undefined && p !== n) neighbours.push(other)
        }
        const ordered = orderPage(analysis, neighbours, stats)
        state.ordered.set(n, ordered)
        return ordered
      }
      let page: Page
      try {
        const current = order(pageNumber)
        if (current === undefined) {
          page = failedPage(pageNumber, state.failed.get(pageNumber) ?? "the page could not be read")
        } else {
          // The next page is ordered now so that a paragraph running over the break stays whole.
          const next = pageNumber < numPages ? order(pageNumber + 1) : undefined
          if (next !== undefined) carryOver(current, next)
          page = writePage(current)
        }
      } catch (cause) {
        page = failedPage(pageNumber, `the page's layout could not be finished: ${cause instanceof Error ? cause.message : String(cause)}`)
      }
      state.ordered.delete(pageNumber)
      state.failed.delete(pageNumber)
      state.analysed.delete(pageNumber - WINDOW)
      state.nextEmit++
      return [[page], state.nextEmit <= numPages ? Option.some(state) : Option.none()] as const
    }))
  })
  const close = Effect.andThen(source.close, closePdf(opened))
  if (numPages === 0) return Stream.empty.pipe(Stream.ensuring(close))
  return Stream.paginate(state, () => step).pipe(Stream.ensuring(close))
}

/** Reads a PDF. `fileName` is unused; the password, when the caller has one, is not part of the contract yet. */
export const readPdf = (request: ReadRequest): Effect.Effect<ReadResult, DocumentError> =>
  Effect.gen(function*() {
    const { deadline, maxPages, mode } = request.options
    const opened = yield* openPdf(request.bytes, deadline)
    const totalPages = opened.doc.numPages
    if (!(totalPages >= 0)) {
      yield* closePdf(opened)
      return yield* Effect.fail(pdfError(new Corrupt({ message: "the PDF has no page tree" })))
    }
    const numPages = maxPages !== undefined && maxPages >= 0 ? Math.min(totalPages, Math.floor(maxPages)) : totalPages
    const metadata = yield* documentMetadata(opened.doc)
    const info: DocumentInfo = { numPages, totalPages, metadata }
    const pool = numPages >= POOL_MIN_PAGES ? pagePool() : undefined
    const source = pool === undefined
      ? inThreadSource(opened, deadline)
      : pooledSource(pool, request.bytes, numPages, deadline, LOOKAHEAD_PER_WORKER * pool.size)
    const pages = pageStream(opened, source, numPages, { tables: true, warnNoText: mode === "auto" })
    return { info, pages }
  })

/** The `Reader` the pipeline registers for `pdf`. */
export const pdfReader: Reader = {
  name: "pdf",
  formats: ["pdf"],
  read: readPdf
}
