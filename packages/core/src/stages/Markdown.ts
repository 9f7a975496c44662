/**
 * The Markdown stage: a document's blocks, page by page, in; the document markdown (with the
 * span of every block), the contract's `data.blocks` page and `data.pages` entry out. It runs
 * last, after Redaction, where a document is assembled (`DocumentRun`), so a layer of its own
 * changes how every format is written, whichever reader (or reader process) made the blocks.
 *
 * The default is `MarkdownWriter`: each block's `content` as `structuredBlock` wrote it from the
 * block's structure, joined with the spec's separators and page markers. `rewriting` builds a
 * stage that writes some blocks its own way (from their structure: heading level, list, table
 * grid...) and joins them as the default does, so spans stay exact.
 */
import { Context, Effect, Layer } from "effect"
import type { Block, Page } from "../Document.ts"
import { MarkdownWriter, type PushResult, type WriterOptions } from "../MarkdownWriter.ts"
import type { StageError } from "./StageError.ts"

/** One document being written: pages pushed in order. */
export interface DocumentWriter {
  /** Writes a page: the chunk it appended, its `data.blocks` page and its `data.pages` entry. */
  readonly push: (page: Page) => Effect.Effect<PushResult, StageError>
  /** The markdown written so far. */
  readonly markdown: () => string
}

export interface MarkdownStage {
  readonly name: string
  /** A writer for one document. */
  readonly begin: (options: WriterOptions) => DocumentWriter
}

const writerOf = (options: WriterOptions, rewrite?: (page: Page) => Page): DocumentWriter => {
  const writer = new MarkdownWriter(options)
  return {
    push: rewrite === undefined
      ? (page) => Effect.succeed(writer.push(page))
      : (page) => Effect.sync(() => writer.push(rewrite(page))),
    markdown: () => writer.markdown
  }
}

/** Today's writer: blocks' `content` joined, spans recorded. */
export const defaultMarkdown: MarkdownStage = {
  name: "default",
  begin: (options) => writerOf(options)
}

/**
 * A stage that writes a block with `fragment` where it returns a string (`undefined` keeps the
 * block's own `content`), then joins pages as the default writer does; the block's `content` is
 * the new fragment, so `markdown.slice(...markdownSpan) === content` still holds.
 */
export const rewriting = (name: string, fragment: (block: Block) => string | undefined): MarkdownStage => ({
  name,
  begin: (options) =>
    writerOf(options, (page) => ({
      ...page,
      blocks: page.blocks.map((block) => {
        const content = fragment(block)
        return content === undefined || content === block.content ? block : { ...block, content }
      })
    }))
})

export class Markdown extends Context.Service<Markdown, MarkdownStage>()("@strata/core/Markdown") {
  static readonly layer = Layer.succeed(Markdown, defaultMarkdown)
}
