/**
 * A PDF's page count for a replica's queue decision (QueuedParse.takes), read where the document
 * would be read: in a reader process when the server has a pool of them (`DocumentReaders` in the
 * context), so that counting cannot hold the server's thread. pdf.js opens a document on the
 * thread that asks, and one whose cross-reference must be rebuilt by scanning held it for 1.2-1.5 s
 * on a 50 MB upload (bench/fleet/count.ts). The reader opens the PDF and reads no page
 * (`maxPages: 0`), and its `totalPages` is the count.
 *
 * - A document the reader refuses (damaged, encrypted) or cannot open within 10 s: `undefined`,
 *   and the replica reads it itself, which answers the reader's error as always.
 * - A pool whose queue is full (it would refuse the document itself), or no pool: the count made
 *   here, as before (`pdfPageCount`, 2 s at most), so a saturated replica still hands long
 *   documents to its workers.
 */
import { DocumentReaders } from "@strata/core"
import { looksLikePdf, pdfPageCount } from "@strata/pdf"
import { Effect, Option } from "effect"

/** What counting may cost here (pdf.js on this thread). */
const HERE_BUDGET_MS = 2_000
/** What counting may cost in a reader: the upload's trip to it, a wait for a free one, the open. */
const READER_BUDGET_MS = 10_000

/** The pages of `bytes` if it is a PDF that opens (see the module comment), else `undefined`. */
export const countPdfPages = (bytes: Uint8Array): Effect.Effect<number | undefined> =>
  Effect.gen(function*() {
    if (!looksLikePdf(bytes)) return undefined
    const readers = yield* Effect.serviceOption(DocumentReaders)
    if (Option.isNone(readers) || readers.value.load === undefined) return yield* pdfPageCount(bytes, HERE_BUDGET_MS)
    const deadline = Date.now() + READER_BUDGET_MS
    return yield* Effect.scoped(readers.value.read({ bytes, format: "pdf", options: { mode: "fast", maxPages: 0, deadline } })).pipe(
      Effect.map((read) => read.info.totalPages ?? read.info.numPages),
      Effect.catch((error) => error.reason._tag === "Busy" ? pdfPageCount(bytes, HERE_BUDGET_MS) : Effect.succeed(undefined))
    )
  })
