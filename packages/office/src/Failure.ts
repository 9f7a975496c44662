/**
 * How the synchronous parsing code of this package reports a failure: it throws a
 * `DocumentError` (built with the helpers here), and `readSafely` turns whatever was thrown
 * into a typed `DocumentError` at the Effect boundary, so no reader can leak a raw exception.
 */
import { Effect } from "effect"
import { Corrupt, DocumentError, LimitExceeded, MissingComponent, Timeout, UnsupportedFormat } from "@strata/core"

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

/** Any thrown value as a `DocumentError`: our own pass through, anything else means the bytes are corrupt. */
export const toDocumentError = (format: string, error: unknown): DocumentError => {
  if (error instanceof DocumentError) return error
  // Stack overflows on absurdly nested input and allocation failures are input problems too.
  const message = error instanceof Error ? error.message : String(error)
  return corrupt(format, `cannot be read: ${message}`)
}

/** Runs a synchronous parse step, mapping every throw onto a typed `DocumentError`. */
export const readSafely = <A>(format: string, run: () => A): Effect.Effect<A, DocumentError> =>
  Effect.try({ try: run, catch: (error) => toDocumentError(format, error) })

/** Fails with `Timeout` when the request's deadline has passed; called between pages. */
export const checkDeadline = (format: string, deadline: number): void => {
  if (Date.now() > deadline) throw timedOut(format, "the request's timeout ran out while reading the document")
}
