/**
 * Opens a PDF with pdf.js, in-process and offline: no worker thread, no font fetching (pdf.js 6 no
 * longer compiles font programs with eval, so there is no `isEvalSupported` to turn off)
 * beyond the standard fonts and CMaps that ship inside the local pdfjs-dist package.
 *
 * pdf.js failures are mapped onto the reader contract's `DocumentError` reasons here, so that the
 * rest of the package never sees pdf.js exception classes.
 */
import { Effect } from "effect"
import type { PDFDocumentLoadingTask, PDFDocumentProxy } from "pdfjs-dist/types/src/display/api.d.ts"
import { Corrupt, DocumentError, Encrypted, thrownReason, Timeout } from "@strata/core"
import { documentParams, pdfjs, portReady, skipFontFaces } from "./PdfJs.ts"

export interface OpenedPdf {
  readonly task: PDFDocumentLoadingTask
  readonly doc: PDFDocumentProxy
}

export const pdfError = (reason: DocumentError["reason"], page?: number): DocumentError =>
  new DocumentError({ format: "pdf", reason, ...(page !== undefined ? { page } : {}) })

/** Maps whatever pdf.js threw while opening into a reason. */
const openFailure = (cause: unknown): DocumentError => {
  const name = (cause as { name?: unknown } | null)?.name
  const code = (cause as { code?: unknown } | null)?.code
  if (name === "PasswordException") {
    return pdfError(new Encrypted({
      message: code === pdfjs.PasswordResponses.INCORRECT_PASSWORD
        ? "the PDF is encrypted and the password given is wrong"
        : "the PDF is password-protected"
    }))
  }
  // pdf.js's own text ("Invalid PDF structure.", stack overflows, allocation failures) stays out of the answer.
  if (name === "InvalidPDFException") return pdfError(new Corrupt({ message: "the file is not a readable PDF: its structure is damaged" }))
  return pdfError(thrownReason(cause, "the PDF"))
}

/** Fails with Timeout once `deadline` (epoch ms) has passed, interrupting nothing inside pdf.js. */
export const withDeadline = <A>(
  effect: Effect.Effect<A, DocumentError>,
  deadline: number,
  what: string,
  page?: number
): Effect.Effect<A, DocumentError> => {
  const left = deadline - Date.now()
  if (left <= 0) return Effect.fail(pdfError(new Timeout({ message: `the time budget ran out before ${what}` }), page))
  return effect.pipe(
    Effect.timeoutOrElse({
      duration: left,
      orElse: () => Effect.fail(pdfError(new Timeout({ message: `the time budget ran out during ${what}` }), page))
    })
  )
}

/** Opens the document; the caller owns `task` and must `destroy()` it. */
export const openPdf = (bytes: Uint8Array, deadline: number, password?: string): Effect.Effect<OpenedPdf, DocumentError> =>
  Effect.andThen(Effect.promise(portReady), () => {
    // pdf.js may transfer (detach) the buffer it is given: hand it a copy so the caller's bytes stay usable.
    const data = new Uint8Array(bytes)
    const task = pdfjs.getDocument(documentParams(data, password))
    const open = Effect.tryPromise({ try: () => task.promise, catch: openFailure }).pipe(
      Effect.map((doc): OpenedPdf => {
        skipFontFaces(doc)
        return { task, doc }
      })
    )
    return withDeadline(open, deadline, "opening the PDF").pipe(
      Effect.tapError(() => Effect.promise(() => task.destroy().catch(() => undefined)))
    )
  })

/** Closes the document, never failing. */
export const closePdf = (opened: OpenedPdf): Effect.Effect<void> =>
  Effect.promise(() => opened.task.destroy().catch(() => undefined))
