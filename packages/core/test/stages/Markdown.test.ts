/**
 * The Markdown stage: the default layer writes what `writeMarkdown` writes; a replacement layer
 * changes what a document reads as, page by page, and every block's span stays exact.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer, Stream } from "effect"
import type { Page } from "../../src/Document.ts"
import { DocumentReaders, type Reader } from "../../src/DocumentReader.ts"
import { runDocumentStream } from "../../src/DocumentRun.ts"
import { structuredBlock } from "../../src/markdown/BlockMarkdown.ts"
import { writeMarkdown } from "../../src/MarkdownWriter.ts"
import { Markdown, rewriting } from "../../src/stages/Markdown.ts"

const pages: Array<Page> = [
  { pageNumber: 1, status: "ok", width: null, height: null, blocks: [structuredBlock("section_header", { heading: { level: 2 }, text: "Scope" }), structuredBlock("text", { text: "First page." })] },
  { pageNumber: 2, status: "ok", width: null, height: null, blocks: [structuredBlock("list_item", { list: { depth: 0, ordinal: 1, indent: 0 }, text: "one" }), structuredBlock("list_item", { list: { depth: 0, ordinal: 2, indent: 0 }, text: "two" })] }
]

const reader: Reader = {
  name: "fixed",
  formats: ["docx"],
  read: () => Effect.succeed({ info: { numPages: pages.length, metadata: {} }, pages: Stream.fromIterable(pages) })
}

const written = (markdown: Layer.Layer<Markdown>) =>
  Effect.gen(function*() {
    const { events, writer } = yield* runDocumentStream({ bytes: new Uint8Array(), format: "docx", options: { mode: "fast", deadline: Date.now() + 10_000 } }, true)
    const all = Array.from(yield* Stream.runCollect(events))
    return { markdown: writer.markdown(), chunks: all.map((e) => e.chunk), items: all.flatMap((e) => e.blockPage.items) }
  }).pipe(Effect.scoped, Effect.provide([DocumentReaders.layer([reader]), markdown]))

describe("Markdown stage", () => {
  it.effect("the default layer writes what writeMarkdown writes", () =>
    Effect.gen(function*() {
      const out = yield* written(Markdown.layer)
      const expected = writeMarkdown(pages, { pageMarkers: true })
      assert.strictEqual(out.markdown, expected.markdown)
      assert.strictEqual(out.chunks.join(""), out.markdown)
    }))

  it.effect("a replacement layer changes the output; spans stay exact", () =>
    Effect.gen(function*() {
      // Ordered lists as "1)" and headings in capitals, written from the blocks' structure.
      const custom = Layer.succeed(Markdown, rewriting("custom", (block) =>
        block.list?.ordinal != null ? `${block.list.ordinal}) ${block.text}` : block.heading !== undefined ? `## ${block.text?.toUpperCase()}` : undefined))
      const out = yield* written(custom)
      assert.strictEqual(out.markdown, "## SCOPE\n\nFirst page.\n\n---\n\n<!-- page 2 -->\n\n1) one\n2) two")
      for (const item of out.items) {
        if (item.markdownSpan !== null) assert.strictEqual(out.markdown.slice(item.markdownSpan[0], item.markdownSpan[1]), item.content)
      }
    }))
})
