/**
 * What a reader reports when its parsing code threw something other than a `DocumentError`.
 *
 * The thrown text is never shown to a client: it names our internals ("Cannot read properties of
 * undefined"), the engine ("Maximum call stack size exceeded", "Cannot create a string longer than
 * 0x1fffffe8 characters") or a library's parser, and tells the user nothing they can act on.
 * Instead the throw is sorted into a reason with our own wording: input nested deeper than the
 * stack allows and input too large to hold in memory are limits (422 DOCUMENT_TOO_COMPLEX);
 * anything else means the bytes are damaged. Callers with a log keep the thrown value there.
 */
import { Corrupt, DocumentError, LimitExceeded } from "./DocumentReader.ts"

export type ThrownKind = "nesting" | "size" | "other"

/** V8's and Node's wording for a string, array or buffer that cannot be allocated, or a heap that ran out. */
const sizeMessages = /string longer than|invalid string length|invalid array length|invalid typed array length|array buffer allocation failed|allocation failed|out[ _]of[ _]memory|memory limit|buffer larger than|buffer too large/i

/**
 * How a thrown value came about, as far as the input is concerned. A string is judged by its
 * text alone (the message of an error that crossed a thread boundary).
 */
export const thrownKind = (thrown: unknown): ThrownKind => {
  const message = thrown instanceof Error ? thrown.message : typeof thrown === "string" ? thrown : ""
  if (/maximum call stack size exceeded/i.test(message)) return "nesting"
  const code = thrown !== null && typeof thrown === "object" ? (thrown as { code?: unknown }).code : undefined
  if (code === "ERR_BUFFER_TOO_LARGE" || code === "ERR_STRING_TOO_LONG" || sizeMessages.test(message)) return "size"
  return "other"
}

/**
 * The reason a thrown value stands for, worded about `what` ("the document", "page 3"):
 * "... nests elements too deeply to read", "...'s text is too large to read", or
 * "... is damaged and could not be read".
 */
export const thrownReason = (thrown: unknown, what = "the document"): Corrupt | LimitExceeded => {
  switch (thrownKind(thrown)) {
    case "nesting":
      return new LimitExceeded({ message: `${what} nests elements too deeply to read` })
    case "size":
      return new LimitExceeded({ message: `${what}'s text is too large to read` })
    case "other":
      return new Corrupt({ message: `${what} is damaged and could not be read` })
  }
}

/** Any thrown value as a `DocumentError`: a `DocumentError` passes through, anything else is sorted. */
export const readFailure = (format: string, thrown: unknown, page?: number): DocumentError =>
  thrown instanceof DocumentError
    ? thrown
    : new DocumentError({ format, reason: thrownReason(thrown), ...(page !== undefined ? { page } : {}) })
