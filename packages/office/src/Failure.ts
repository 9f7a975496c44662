/**
 * How the synchronous parsing code of this package reports a failure: it throws a
 * `DocumentError` (built with the helpers here), and `readSafely` turns whatever was thrown
 * into a typed `DocumentError` at the Effect boundary, so no reader can leak a raw exception.
 */
import { Effect } from "effect"
import { Corrupt, DocumentError, LimitExceeded, MissingComponent, readFailure, Timeout, UnsupportedFormat } from "@strata/core"
import { maxXmlDepth, XmlError } from "./Xml.ts"

export const corrupt = (format: string, message: string, page?: number): DocumentError =>
  new DocumentError({ format, reason: new Corrupt({ message }), ...(page !== undefined ? { page } : {}) })

export const limitExceeded = (format: string, message: string): DocumentError =>
  new DocumentError({ format, reason: new LimitExceeded({ message }) })

export const unsupported = (format: string, message: string): DocumentError =>
  new DocumentError({ format, reason: new UnsupportedFormat({ message }) })

export const missingComponent = (format: string, component: string, message: string): DocumentError =>
  new DocumentError({ format, reason: new MissingComponent({ component, message }) })

export const timedOut = (format: string, message: string): DocumentError =>
  new DocumentError({ format, reason: new Timeout({ message }) })

/**
 * Any thrown value as a `DocumentError`: our own pass through; a stack overflow (absurd nesting)
 * or an allocation failure (text too large) is `LimitExceeded`, anything else `Corrupt`, both in
 * our words: the thrown text never reaches a client (core's `readFailure`).
 */
export const toDocumentError = (format: string, error: unknown): DocumentError =>
  error instanceof XmlError && error.tooDeep
    ? limitExceeded(format, `the document nests elements more than ${maxXmlDepth.toLocaleString("en-US")} levels deep, too deeply to read`)
    : readFailure(format, error)

/**
 * Runs a synchronous parse step, mapping every throw onto a typed `DocumentError`. What was
 * really thrown goes to the debug log, for whoever runs the server with it on.
 */
export const readSafely = <A>(format: string, run: () => A): Effect.Effect<A, DocumentError> =>
  Effect.try({ try: run, catch: (error) => error }).pipe(Effect.catch((error) =>
    error instanceof DocumentError
      ? Effect.fail(error)
      : Effect.logDebug(`reading a ${format} file threw`, error).pipe(Effect.andThen(Effect.fail(toDocumentError(format, error))))
  ))

/** Fails with `Timeout` when the request's deadline has passed; called between pages. */
export const checkDeadline = (format: string, deadline: number): void => {
  if (Date.now() > deadline) throw timedOut(format, "the request's timeout ran out while reading the document")
}
