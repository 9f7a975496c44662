/**
 * pdf.js set up for this package, in-process and offline, with no dependency on effect or
 * @strata/core so that the page worker threads can load it cheaply: the document parameters
 * (no font fetching beyond the standard fonts and CMaps inside the local pdfjs-dist package, no
 * image decoding), the font-face shortcut, and the in-thread port that hands pdf.js's messages
 * over without deep copies (`portReady`, awaited before the first document).
 */
import { readFile } from "node:fs/promises"
import { createRequire } from "node:module"
import { dirname, join } from "node:path"
import { pathToFileURL } from "node:url"
import * as pdfjs from "pdfjs-dist/legacy/build/pdf.mjs"
import type { PDFDocumentProxy } from "pdfjs-dist/types/src/display/api.d.ts"
import { installSyncDecompression } from "./SyncDecompression.ts"

export { pdfjs }

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

/** The `getDocument` parameters; `data` may be transferred (detached) by pdf.js. */
export const documentParams = (data: Uint8Array, password?: string): Parameters<typeof pdfjs.getDocument>[0] => ({
  data,
  ...(password !== undefined ? { password } : {}),
  // With font faces "disabled" pdf.js compiles every glyph outline into a path while building the
  // operator list; nothing is drawn here, so it is left on (Node has no FontFace: nothing is loaded).
  disableFontFace: false,
  useSystemFonts: false,
  useWorkerFetch: false,
  stopAtErrors: false,
  // Images are never decoded: the reader needs text and line art, and decoding dominates the cost of image-heavy pages.
  // pdf.js then drops the paint operator but keeps the `q cm ... Q` around it: PageContent.ts reads figure boxes from that.
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

/**
 * Nothing is drawn here, yet pdf.js's display layer turns every font it receives into a base64
 * `@font-face` rule (a tenth of the run time on short documents). Its font loader is replaced by
 * one that only marks fonts attached. This reaches into pdf.js internals, so it is guarded: if the
 * shape ever changes the default loader simply stays.
 */
export const skipFontFaces = (doc: PDFDocumentProxy): void => {
  const loader = (doc as unknown as { _transport?: { fontLoader?: { bind?: unknown } } })._transport?.fontLoader
  if (loader !== undefined && typeof loader.bind === "function") {
    loader.bind = (font: { attached?: boolean }) => {
      font.attached = true
      return Promise.resolve()
    }
  }
}

/**
 * pdf.js runs its "worker" in this thread behind a loopback port that deep-copies every message
 * with `structuredClone`: text items, operator lists and font files are copied once more on their
 * way to the same thread (7% of the run time on long documents). The port's prototype is
 * patched so that messages are handed over as they are, except stream chunks, which pdf.js
 * changes after sending (new arrays for the text items, emptied operator-list arrays): their top
 * level is copied. Guarded: if the
 * port's shape is not what is expected, nothing is patched.
 */
const handOver = async (): Promise<void> => {
  const probe = new pdfjs.PDFWorker()
  try {
    await probe.promise
    const port = probe.port as unknown as Record<string, unknown> | null
    const proto = port === null ? null : Object.getPrototypeOf(port) as Record<string, unknown>
    if (proto === null || typeof proto["postMessage"] !== "function" || typeof proto["addEventListener"] !== "function" ||
      typeof proto["removeEventListener"] !== "function" || typeof proto["terminate"] !== "function") return
    type Listener = (this: unknown, event: { data: unknown }) => void
    const registry = new WeakMap<object, Set<Listener>>()
    const add = proto["addEventListener"] as (this: object, name: string, listener: Listener, options?: unknown) => void
    const remove = proto["removeEventListener"] as (this: object, name: string, listener: Listener) => void
    const terminate = proto["terminate"] as (this: object) => void
    proto["addEventListener"] = function(this: object, name: string, listener: Listener, options?: unknown) {
      add.call(this, name, listener, options)
      let set = registry.get(this)
      if (set === undefined) registry.set(this, (set = new Set()))
      set.add(listener)
    }
    proto["removeEventListener"] = function(this: object, name: string, listener: Listener) {
      remove.call(this, name, listener)
      registry.get(this)?.delete(listener)
    }
    proto["terminate"] = function(this: object) {
      terminate.call(this)
      registry.delete(this)
    }
    proto["postMessage"] = function(this: object, obj: Record<string, unknown>) {
      // Stream chunks are the payloads pdf.js changes after sending (the text content object gets
      // new item arrays, the operator list empties its arrays): their top level is copied.
      const chunk = obj?.["chunk"] as Record<string, unknown> | undefined
      let data: unknown = obj
      if (chunk !== undefined && chunk !== null && typeof chunk === "object" && !ArrayBuffer.isView(chunk)) {
        const copy: Record<string, unknown> = Array.isArray(chunk) ? [...chunk] as unknown as Record<string, unknown> : { ...chunk }
        if (Array.isArray(copy["fnArray"])) copy["fnArray"] = (copy["fnArray"] as Array<unknown>).slice()
        if (Array.isArray(copy["argsArray"])) copy["argsArray"] = (copy["argsArray"] as Array<unknown>).slice()
        data = { ...obj, chunk: copy }
      }
      const event = { data }
      const listeners = registry.get(this)
      if (listeners === undefined) return
      void Promise.resolve().then(() => {
        for (const listener of listeners) listener.call(this, event)
      })
    }
  } finally {
    probe.destroy()
  }
}
let handedOver: Promise<void> | undefined

/**
 * Patches the port once, before the first document (module loading stays free of pdf.js's
 * worker), and installs the synchronous DecompressionStream (SyncDecompression.ts): without it
 * the reader waited on libuv's thread pool for a sixth of its time on ordinary documents
 * (bench/results/pdf.md, measured with the switch that turned it off, since removed).
 */
export const portReady = (): Promise<void> =>
  (handedOver ??= Promise.resolve(installSyncDecompression()).then(handOver).catch(() => undefined))
