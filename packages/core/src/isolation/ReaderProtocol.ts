/**
 * The messages between the server and a reader process (ReaderPool.ts on the server's side,
 * ReaderHost.ts in the child). Everything here crosses a process boundary by structured clone
 * (`serialization: "advanced"`), so it is plain data: errors travel as their tag and message and
 * are rebuilt on the other side.
 *
 * One reader process reads one document at a time. Pages flow back under credit: the child sends
 * a page only while it holds a credit, and the server hands one back as each page is taken, so a
 * fast reader and a slow consumer never pile pages up in either process.
 */
import type { DocumentInfo, Page } from "../Document.ts"
import { Busy, Corrupt, DocumentError, Encrypted, LimitExceeded, MissingComponent, Timeout, UnsupportedFormat } from "../DocumentReader.ts"
import type { DocumentFormat, ReadOptions } from "../DocumentReader.ts"
import { OcrEngineFailed, OcrEngineUnavailable, OcrError, OcrInvalidImage, OcrTimeout } from "../Ocr.ts"
import type { OcrImage, OcrResult, RecognizeOptions } from "../Ocr.ts"

/** What the child needs to stand in for the server's OCR engine (its estimates are taken at two points). */
export interface OcrInfo {
  readonly name: string
  readonly preferredDpi: number
  readonly concurrency: number
  /** `estimateSeconds(1)` and `estimateSeconds(100)` on the server, interpolated in the child. */
  readonly oneSeconds: number
  readonly hundredSeconds: number
}

export type ToReader =
  | {
    readonly type: "read"
    readonly job: number
    readonly bytes: Uint8Array
    readonly format: DocumentFormat
    readonly fileName?: string | undefined
    readonly options: ReadOptions
    readonly ocr?: OcrInfo | undefined
    /** Pages the child may send before it waits for more credit. */
    readonly credit: number
  }
  | { readonly type: "credit"; readonly job: number; readonly n: number }
  | { readonly type: "cancel"; readonly job: number }
  | { readonly type: "ocr-done"; readonly job: number; readonly id: number; readonly result?: OcrResult; readonly error?: SerialOcrError }

export type FromReader =
  | { readonly type: "ready" }
  | { readonly type: "info"; readonly job: number; readonly info: DocumentInfo }
  | { readonly type: "page"; readonly job: number; readonly page: Page }
  | { readonly type: "end"; readonly job: number }
  | { readonly type: "failed"; readonly job: number; readonly error: SerialDocumentError }
  | { readonly type: "ocr"; readonly job: number; readonly id: number; readonly image: OcrImage; readonly options: RecognizeOptions }
  | { readonly type: "ocr-cancel"; readonly job: number; readonly id: number }

// ---- errors across the boundary ----------------------------------------------------------------

export interface SerialDocumentError {
  readonly format: string
  readonly tag: DocumentError["reason"]["_tag"]
  readonly message: string
  readonly component?: string | undefined
  readonly page?: number | undefined
}

export const serialDocumentError = (error: DocumentError): SerialDocumentError => ({
  format: error.format,
  tag: error.reason._tag,
  message: error.reason.message,
  component: error.reason._tag === "MissingComponent" ? error.reason.component : undefined,
  page: error.page
})

export const documentErrorOf = (error: SerialDocumentError): DocumentError => {
  const message = error.message
  const reason = (() => {
    switch (error.tag) {
      case "Encrypted":
        return new Encrypted({ message })
      case "Corrupt":
        return new Corrupt({ message })
      case "UnsupportedFormat":
        return new UnsupportedFormat({ message })
      case "MissingComponent":
        return new MissingComponent({ component: error.component ?? "unknown", message })
      case "LimitExceeded":
        return new LimitExceeded({ message })
      case "Timeout":
        return new Timeout({ message })
      case "Busy":
        return new Busy({ message, retryAfterSeconds: 1 })
    }
  })()
  return new DocumentError({ format: error.format, reason, ...(error.page !== undefined ? { page: error.page } : {}) })
}

export interface SerialOcrError {
  readonly engine: string
  readonly tag: OcrError["reason"]["_tag"]
  readonly message: string
  readonly page?: number | undefined
}

export const serialOcrError = (error: OcrError): SerialOcrError => ({
  engine: error.engine,
  tag: error.reason._tag,
  message: error.reason.message,
  page: error.page
})

export const ocrErrorOf = (error: SerialOcrError): OcrError => {
  const message = error.message
  const reason = (() => {
    switch (error.tag) {
      case "OcrEngineUnavailable":
        return new OcrEngineUnavailable({ message })
      case "OcrInvalidImage":
        return new OcrInvalidImage({ message })
      case "OcrEngineFailed":
        return new OcrEngineFailed({ message })
      case "OcrTimeout":
        return new OcrTimeout({ message })
    }
  })()
  return new OcrError({ engine: error.engine, reason, ...(error.page !== undefined ? { page: error.page } : {}) })
}
