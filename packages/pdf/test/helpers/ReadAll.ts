/** Runs the PDF reader over bytes and writes the markdown, as the pipeline would. */
import { Effect, Stream } from "effect"
import { type DocumentInfo, type Page, writeMarkdown, type ParseMode } from "@strata/core"
import { pdfReader, type PdfReader } from "../../src/index.ts"

export interface ReadAllResult {
  readonly info: DocumentInfo
  readonly pages: ReadonlyArray<Page>
  readonly markdown: string
  readonly blocks: ReturnType<typeof writeMarkdown>["blocks"]
}

export const readAll = (bytes: Uint8Array, options: { mode?: ParseMode; maxPages?: number; deadline?: number; reader?: PdfReader } = {}) =>
  Effect.scoped(Effect.gen(function*() {
    const result = yield* (options.reader ?? pdfReader).read({
      bytes,
      format: "pdf",
      options: { mode: options.mode ?? "fast", deadline: options.deadline ?? Date.now() + 30_000, ...(options.maxPages !== undefined ? { maxPages: options.maxPages } : {}) }
    })
    const pages = yield* Stream.runCollect(result.pages)
    const written = writeMarkdown(pages)
    return { info: result.info, pages, markdown: written.markdown, blocks: written.blocks } satisfies ReadAllResult
  }))
