/**
 * The child's side of a reader process (see ReaderPool.ts): it builds the format readers once,
 * then reads the documents the server sends, one at a time, and streams their pages back under
 * credit. Whatever a document does to this process (exhausts its heap, spins in a parser, crashes a
 * native module) costs this process only; the server answers the request and starts another.
 *
 * OCR is not done here: the child's `OcrEngine` forwards each image to the server's engine (one
 * pool of OCR threads per server, shared by every reader process), so OCR'd pages take the same
 * layout chain as native text without a second copy of the OCR models per process.
 *
 * The text a document may produce is capped (`MAX_DOCUMENT_CHARS`): past it the page is cut and
 * the rest of the document left out, with a warning that says how much, so that a page of two
 * hundred million characters cannot freeze the server's thread when it writes the markdown.
 */
import { Cause, Effect, Exit, Fiber, Option, Stream } from "effect"
import { setPriority } from "node:os"
import { type Block, type Diagnostic, type Page, withContent } from "../Document.ts"
import { Corrupt, DocumentError, type DocumentReaders } from "../DocumentReader.ts"
import type { OcrEngine, OcrError, OcrResult } from "../Ocr.ts"
import { type FromReader, type OcrInfo, ocrErrorOf, serialDocumentError, type SerialOcrError, type ToReader } from "./ReaderProtocol.ts"

/** Characters of markdown one document may produce (about 64 MB): well past any real document. */
export const MAX_DOCUMENT_CHARS = 64_000_000

/** Builds the readers a reader process serves, given the OCR engine (absent: never OCR). */
export type BuildReaders = (ocr: OcrEngine["Service"] | undefined) => Effect.Effect<DocumentReaders["Service"]>

/** Cuts pages to what is left of the document's text budget. */
export const capPage = (page: Page, left: number): { readonly page: Page; readonly used: number; readonly cut: boolean } => {
  let used = 0
  const blocks: Array<Block> = []
  for (const block of page.blocks) {
    if (used + block.content.length <= left) {
      blocks.push(block)
      used += block.content.length
      continue
    }
    const room = Math.max(0, left - used)
    if (room > 0) blocks.push(withContent(block, block.content.slice(0, room)))
    used += room
    return { page: { ...page, status: "partial", blocks }, used, cut: true }
  }
  return { page, used, cut: false }
}

const truncationWarning = (pageNumber: number, numPages: number | undefined): Diagnostic => {
  const rest = numPages !== undefined ? numPages - pageNumber : undefined
  const dropped = rest === undefined ? "the pages after it were left out" : rest === 0 ? "no later pages were dropped" : `the ${rest.toLocaleString("en-US")} page(s) after it were left out`
  return {
    severity: "warning",
    code: "text_truncated",
    message: `the document's text reached the limit of ${MAX_DOCUMENT_CHARS.toLocaleString("en-US")} characters on page ${pageNumber}: the rest of that page was cut and ${dropped}`,
    page: pageNumber
  }
}

/**
 * Growth of resident memory, since the reader last collected, past which it collects once its
 * document is done (it is idle then: nobody waits). A fixed 256 MB line left a reader that read a
 * 10,000-page PDF holding +70 MB until it was stopped for idleness (bench/results/reliability.md).
 */
const COLLECT_GROWTH_MB = 32

const makeCollector = () => {
  const gc = (globalThis as { gc?: () => void }).gc
  let settled = process.memoryUsage.rss()
  return () => {
    if (gc === undefined || process.memoryUsage.rss() < settled + COLLECT_GROWTH_MB * 2 ** 20) return
    setImmediate(() => {
      gc()
      settled = process.memoryUsage.rss()
    })
  }
}

/** Runs this process as a reader process. Call it from the module a `ReaderPool` forks. */
export const serveReaders = (build: BuildReaders): void => {
  const collect = makeCollector()
  const send = (message: FromReader) => {
    if (process.connected) process.send?.(message)
  }
  // Reading is batch work: the server's own thread (health checks, cache hits, streaming) comes first.
  try {
    setPriority(10)
  } catch {
    // Not permitted here (some containers): the process keeps the default priority.
  }
  // The server is gone: nothing will read what this process produces.
  process.on("disconnect", () => process.exit(0))

  const readers = new Map<boolean, Promise<DocumentReaders["Service"]>>()
  let current: { job: number; ocr: OcrInfo | undefined } | undefined
  let fiber: Fiber.Fiber<void, unknown> | undefined
  let credits = 0
  let wake: (() => void) | undefined
  let nextOcr = 1
  const pendingOcr = new Map<number, (reply: { result?: OcrResult | undefined; error?: SerialOcrError | undefined }) => void>()

  /** The server's OCR engine, seen from here. Its info is the current job's. */
  const proxy: OcrEngine["Service"] = {
    get name() {
      return current?.ocr?.name ?? "none"
    },
    get preferredDpi() {
      return current?.ocr?.preferredDpi ?? 300
    },
    get concurrency() {
      return current?.ocr?.concurrency ?? 1
    },
    estimateSeconds: (pages) => {
      const info = current?.ocr
      if (info === undefined || pages <= 0) return 0
      return info.oneSeconds + ((info.hundredSeconds - info.oneSeconds) * (pages - 1)) / 99
    },
    recognize: (image, options) =>
      Effect.callback<OcrResult, OcrError>((resume) => {
        const job = current?.job ?? -1
        const id = nextOcr++
        pendingOcr.set(id, (reply) => {
          if (reply.result !== undefined) resume(Effect.succeed(reply.result))
          else {
            resume(Effect.fail(ocrErrorOf(reply.error ?? { engine: "ocr", tag: "OcrEngineFailed", message: "the OCR engine gave no answer" })))
          }
        })
        send({ type: "ocr", job, id, image, options: options ?? {} })
        return Effect.sync(() => {
          if (pendingOcr.delete(id)) send({ type: "ocr-cancel", job, id })
        })
      })
  }

  const readersFor = (withOcr: boolean) => {
    let made = readers.get(withOcr)
    if (made === undefined) {
      made = Effect.runPromise(build(withOcr ? proxy : undefined))
      readers.set(withOcr, made)
    }
    return Effect.promise(() => made)
  }

  const takeCredit = Effect.callback<void>((resume) => {
    if (credits > 0) {
      credits--
      resume(Effect.void)
      return
    }
    wake = () => {
      wake = undefined
      credits--
      resume(Effect.void)
    }
    return Effect.sync(() => {
      wake = undefined
    })
  })

  const read = (message: Extract<ToReader, { type: "read" }>) =>
    Effect.gen(function*() {
      const registry = yield* readersFor(message.ocr !== undefined)
      const result = yield* registry.read({ bytes: message.bytes, format: message.format, fileName: message.fileName, options: message.options })
      send({ type: "info", job: message.job, info: result.info })
      let left = MAX_DOCUMENT_CHARS
      let stopped = false
      yield* result.pages.pipe(
        Stream.takeWhile(() => !stopped),
        Stream.runForEach((page) =>
          Effect.andThen(takeCredit, Effect.sync(() => {
            const capped = capPage(page, left)
            left -= capped.used
            let out = capped.page
            if (capped.cut) {
              stopped = true
              out = { ...out, diagnostics: [...(out.diagnostics ?? []), truncationWarning(page.pageNumber, result.info.numPages)] }
            }
            send({ type: "page", job: message.job, page: out })
          }))
        )
      )
    })

  const start = (message: Extract<ToReader, { type: "read" }>) => {
    current = { job: message.job, ocr: message.ocr }
    credits = message.credit
    const job = message.job
    fiber = Effect.runFork(Effect.scoped(read(message)).pipe(
      Effect.onExit((exit) =>
        Effect.sync(() => {
          fiber = undefined
          current = undefined
          pendingOcr.clear()
          collect()
          if (Exit.isSuccess(exit) || Cause.hasInterruptsOnly(exit.cause)) return send({ type: "end", job })
          const error = Cause.findErrorOption(exit.cause)
          if (Option.isSome(error) && error.value instanceof DocumentError) {
            return send({ type: "failed", job, error: serialDocumentError(error.value) })
          }
          // A bug or an engine's exception: logged here, never shown to the client as it is.
          process.stderr.write(`reader process: reading a ${message.format} document failed: ${Cause.pretty(exit.cause)}\n`)
          send({
            type: "failed",
            job,
            error: serialDocumentError(new DocumentError({ format: message.format, reason: new Corrupt({ message: `the ${message.format} document could not be read` }) }))
          })
        })
      )
    ))
  }

  process.on("message", (message: ToReader) => {
    switch (message.type) {
      case "read":
        if (fiber !== undefined) {
          send({ type: "failed", job: message.job, error: { format: message.format, tag: "Corrupt", message: "the reader process is busy" } })
          return
        }
        start(message)
        return
      case "credit":
        if (current?.job !== message.job) return
        credits += message.n
        if (credits > 0) wake?.()
        return
      case "cancel":
        if (current?.job === message.job && fiber !== undefined) Effect.runFork(Fiber.interrupt(fiber))
        else send({ type: "end", job: message.job })
        return
      case "ocr-done": {
        const resolve = pendingOcr.get(message.id)
        pendingOcr.delete(message.id)
        resolve?.(message)
        return
      }
    }
  })
  send({ type: "ready" })
}
