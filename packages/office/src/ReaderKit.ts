/**
 * Glue between the synchronous format parsers of this package and the `Reader` contract: a
 * parser returns document info plus page thunks; the kit runs it with every throw mapped to a
 * typed `DocumentError`, honours `maxPages` and the deadline, and streams the pages lazily so
 * a big workbook is converted sheet by sheet.
 */
import { Effect, Stream } from "effect"
import type { Block, DocumentError, DocumentFormat, DocumentInfo, Page, ReadRequest, Reader } from "@strata/core"
import { checkDeadline, readSafely, toDocumentError } from "./Failure.ts"

export interface ParsedDocument {
  readonly info: DocumentInfo
  /** One thunk per page, in order; each builds its page on demand. */
  readonly pages: ReadonlyArray<() => Page>
}

export type Parser = (request: ReadRequest) => ParsedDocument | Promise<ParsedDocument>

export const page = (pageNumber: number, blocks: Array<Block>, extra: Partial<Page> = {}): Page => ({
  pageNumber,
  status: "ok",
  width: null,
  height: null,
  blocks,
  ...extra
})

export const makeReader = (name: string, formats: ReadonlyArray<DocumentFormat>, parse: Parser): Reader => ({
  name,
  formats,
  read: (request) =>
    Effect.gen(function*() {
      const format = request.format
      const parsed = yield* Effect.flatMap(
        readSafely(format, () => {
          checkDeadline(format, request.options.deadline)
          return parse(request)
        }),
        (result) =>
          result instanceof Promise
            ? Effect.tryPromise({ try: () => result, catch: (error) => toDocumentError(format, error) })
            : Effect.succeed(result)
      )
      const total = parsed.pages.length
      const cap = request.options.maxPages
      const thunks = cap !== undefined && cap > 0 ? parsed.pages.slice(0, cap) : parsed.pages
      const info: DocumentInfo = { ...parsed.info, numPages: thunks.length, totalPages: total }
      const pages: Stream.Stream<Page, DocumentError> = Stream.fromIterable(thunks).pipe(
        Stream.mapEffect((thunk) =>
          readSafely(format, () => {
            checkDeadline(format, request.options.deadline)
            return thunk()
          })
        )
      )
      return { info, pages }
    })
})

