/**
 * A PDF's page count, known before reading it: pdf.js opens the document (header, cross-reference
 * table or stream, trailer, catalog) and reads the page tree's `/Count`, without parsing a page.
 * What a replica asks to decide whether a document goes to the fleet's queue (QueuedParse).
 *
 * Not a PDF (no `%PDF-` in the first 1024 bytes, where readers look for it), or one that cannot be
 * opened within the budget (damaged, encrypted): `undefined`, and the caller reads it as it would
 * any other document. pdf.js can repair a damaged cross-reference by scanning the whole file, so
 * the budget bounds what counting may cost.
 */
import { Effect } from "effect"
import { closePdf, openPdf } from "./PdfLoader.ts"

const HEADER = Buffer.from("%PDF-", "latin1")

/** Whether the bytes carry a PDF header where readers look for one. */
export const looksLikePdf = (bytes: Uint8Array): boolean =>
  Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.length, 1024)).includes(HEADER)

/** The page count of a PDF, or `undefined` (not a PDF, or not opened within `budgetMs`). */
export const pdfPageCount = (bytes: Uint8Array, budgetMs = 2_000): Effect.Effect<number | undefined> =>
  looksLikePdf(bytes)
    ? Effect.acquireUseRelease(openPdf(bytes, Date.now() + budgetMs), (opened) => Effect.succeed(opened.doc.numPages), closePdf).pipe(
      Effect.orElseSucceed(() => undefined)
    )
    : Effect.succeed(undefined)
