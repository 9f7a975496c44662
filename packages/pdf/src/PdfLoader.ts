/**
 * Opens a PDF with pdf.js, in-process and offline: no worker thread, no font fetching (pdf.js 6 no
 * longer compiles font programs with eval, so there is no `isEvalSupported` to turn off)
 * beyond the standard fonts and CMaps that ship inside the local pdfjs-dist package.
 *
 * pdf.js failures are mapped onto the reader contract's `DocumentError` reasons here, so that the
 * rest of the package never sees pdf.js exception classes.
 */
import { Effect } from "effect"
import { readFile } from "node:fs/promises"
import { createRequire } from "node:module"
import { dirname, join } from "node:path"
import { pathToFileURL } from "node:url"
import * as pdfjs from "pdfjs-dist/legacy/build/pdf.mjs"
import type { PDFDocumentLoadingTask, PDFDocumentProxy } from "pdfjs-dist/types/src/display/api.d.ts"
import { Corrupt, DocumentError, Encrypted, Timeout } from "@strata/core"

const packageRoot = dirname(createRequire(import.meta.url).resolve("pdfjs-dist/package.json"))
// pdf.js in Node reads these with fs when given a path-like URL ending in a slash.
const standardFontDataUrl = join(packageRoot, "standard_fonts") + "/"
const cMapUrl = join(packageRoot, "cmaps") + "/"
const wasmUrl = join(packageRoot, "wasm") + "/"

// The fake (in-process) worker imports this module; pointing at it explicitly avoids a lookup.
pdfjs.GlobalWorkerOptions.workerSrc = pathToFileURL(join(packageRoot, "legacy/build/pdf.worker.mjs")).href

/**
 * Standard fonts and CMaps are read from the pdfjs-dist package for every document that needs
 * them; a service reading many small PDFs would read the same files again and again. They are
 * kept in memory once read (a few MB at most), and each document gets its own copy because pdf.js
 * may transfer the buffer it is given.
 */
const binaryCache = new Map<string, Uint8Array>()
const BINARY_CACHE_BYTES = 32 * 1024 * 1024
let binaryCacheBytes = 0

class CachedBinaryDataFactory {
  private readonly urls: Record<string, string | null>
  constructor(options: { cMapUrl?: string | null; standardFontDataUrl?: string | null; wasmUrl?: string | null }) {
    this.urls = { cMapUrl: options.cMapUrl ?? null, standardFontDataUrl: options.standardFontDataUrl ?? null, wasmUrl: options.wasmUrl ?? null }
  }
  async fetch({ kind, filename }: { kind: string; filename: string }): Promise<Uint8Array> {
    const base = this.urls[kind]
    if (base === null || base === undefined) throw new Error(`no local ${kind} for ${filename}`)
    const path = `${base}${filename}`
    let bytes = binaryCache.get(path)
    if (bytes === undefined) {
      bytes = new Uint8Array(await readFile(path))
      if (binaryCacheBytes + bytes.length <= BINARY_CACHE_BYTES) {
        binaryCache.set(path, bytes)
        binaryCacheBytes += bytes.length
      }
    }
    return bytes.slice()
  }
}

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
  const message = cause instanceof Error ? cause.message : String(cause)
  if (name === "PasswordException") {
    return pdfError(new Encrypted({
      message: code === pdfjs.PasswordResponses.INCORRECT_PASSWORD
        ? "the PDF is encrypted and the password given is wrong"
        : "the PDF is password-protected"
    }))
  }
  if (name === "InvalidPDFException") return pdfError(new Corrupt({ message: `not a readable PDF: ${message}` }))
  return pdfError(new Corrupt({ message: `the PDF could not be opened: ${message}` }))
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

/**
 * Nothing is drawn here, yet pdf.js's display layer turns every font it receives into a base64
 * `@font-face` rule (a tenth of the run time on short documents). Its font loader is replaced by
 * one that only marks fonts attached. This reaches into pdf.js internals, so it is guarded: if the
 * shape ever changes the default loader simply stays.
 */
const skipFontFaces = (doc: PDFDocumentProxy): void => {
  const loader = (doc as unknown as { _transport?: { fontLoader?: { bind?: unknown } } })._transport?.fontLoader
  if (loader !== undefined && typeof loader.bind === "function") {
    loader.bind = (font: { attached?: boolean }) => {
      font.attached = true
      return Promise.resolve()
    }
  }
}

/** Opens the document; the caller owns `task` and must `destroy()` it. */
export const openPdf = (bytes: Uint8Array, deadline: number, password?: string): Effect.Effect<OpenedPdf, DocumentError> =>
  Effect.suspend(() => {
    // pdf.js may transfer (detach) the buffer it is given: hand it a copy so the caller's bytes stay usable.
    const data = new Uint8Array(bytes)
    const task = pdfjs.getDocument({
      data,
      ...(password !== undefined ? { password } : {}),
      // With font faces "disabled" pdf.js compiles every glyph outline into a path while building the
      // operator list; nothing is drawn here, so it is left on (Node has no FontFace: nothing is loaded).
      disableFontFace: false,
      useSystemFonts: false,
      useWorkerFetch: false,
      stopAtErrors: false,
      // Images are never decoded: the reader needs text and line art, and decoding dominates the cost of image-heavy pages.
      maxImageSize: 1,
      // Fonts then carry their PostScript name, read for bold/italic/monospace.
      fontExtraProperties: true,
      verbosity: 0,
      standardFontDataUrl,
      cMapUrl,
      cMapPacked: true,
      wasmUrl,
      enableXfa: false,
      BinaryDataFactory: CachedBinaryDataFactory
    } as Parameters<typeof pdfjs.getDocument>[0])
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
