/**
 * Entry of a page worker thread (see PagePool.ts): opens each document it is sent once, reads
 * the pages it is asked for one after another with `readPage`, and posts back plain
 * `PageContent`. It loads pdf.js and the page stage only (no effect, no @strata/core), so a
 * worker starts in a fraction of the main thread's module-loading time.
 */
import type { PDFDocumentLoadingTask, PDFDocumentProxy } from "pdfjs-dist/types/src/display/api.d.ts"
import { parentPort } from "node:worker_threads"
import { forgetFonts, readPage } from "./PageContent.ts"
import { documentParams, pdfjs, portReady, skipFontFaces } from "./PdfJs.ts"
import type { WorkerReply, WorkerRequest } from "./PagePool.ts"

/** pdf.js caches every page it parsed (and its fonts) until told otherwise: released this often. */
const CLEANUP_EVERY = 64

interface OpenDoc {
  readonly task: PDFDocumentLoadingTask
  readonly doc: Promise<PDFDocumentProxy>
  pagesRead: number
}

const port = parentPort
if (port === null) throw new Error("PageWorker.ts runs as a worker thread")
const docs = new Map<number, OpenDoc>()
/** Documents whose stream ended: pages of theirs still queued are skipped. */
const closed = new Set<number>()
// Pages are read one at a time: pdf.js's cleanup refuses to run while a page is being read, and
// a queue of one keeps the thread busy without holding more pages than needed.
let queue: Promise<void> = Promise.resolve()

const message = (cause: unknown) => (cause instanceof Error ? cause.message : String(cause))

const readOne = async (request: Extract<WorkerRequest, { type: "page" }>): Promise<WorkerReply> => {
  if (closed.has(request.docId)) return { id: request.id, error: "the document was closed" }
  let open = docs.get(request.docId)
  if (open === undefined) {
    if (request.bytes === undefined) return { id: request.id, error: "the document was not sent to this worker" }
    await portReady()
    const task = pdfjs.getDocument(documentParams(request.bytes))
    const doc = task.promise.then((d) => {
      skipFontFaces(d)
      return d
    })
    doc.catch(() => undefined)
    open = { task, doc, pagesRead: 0 }
    docs.set(request.docId, open)
  }
  if (Date.now() >= request.deadline) return { id: request.id, error: "the time budget ran out", timeout: true }
  try {
    const doc = await open.doc
    if (++open.pagesRead % CLEANUP_EVERY === 0) {
      await doc.cleanup().catch(() => undefined)
      forgetFonts(doc)
    }
    return { id: request.id, content: await readPage(doc, request.pageNumber) }
  } catch (cause) {
    return { id: request.id, error: message(cause) }
  }
}

port.on("message", (request: WorkerRequest) => {
  if (request.type === "close") {
    closed.add(request.docId)
    queue = queue.then(async () => {
      closed.delete(request.docId)
      const open = docs.get(request.docId)
      docs.delete(request.docId)
      if (open !== undefined) await open.task.destroy().catch(() => undefined)
    })
    return
  }
  queue = queue.then(async () => port.postMessage(await readOne(request)))
})
