/**
 * A document's `html` and `links` through the pipeline: written from the blocks the reader made
 * (after redaction), in `parse` and in `parseStream`'s `done` event alike; the pages are kept only
 * when one of the two is asked for.
 */
import { describe, expect, it } from "vitest"
import { Effect, Layer, Stream } from "effect"
import {
  DocumentReaders,
  Fetcher,
  makeBlock,
  Pipeline,
  type Reader,
  structuredBlock,
  validateParseOptions
} from "../../src/index.ts"

const pdfBytes = new TextEncoder().encode("%PDF-1.4\n%fake but sniffable\n")

/** Two pages: a heading and a list that goes on over the page break, a table with spans, furniture. */
const reader: Reader = {
  name: "test-pdf",
  formats: ["pdf"],
  read: () =>
    Effect.succeed({
      info: { numPages: 2, metadata: {} },
      pages: Stream.fromIterable([
        {
          pageNumber: 1,
          status: "ok" as const,
          width: 612,
          height: 792,
          blocks: [
            makeBlock("page_header", "Running head"),
            structuredBlock("title", { heading: { level: 1 }, text: "1. Report" }),
            structuredBlock("list_item", { list: { depth: 0, ordinal: 1, indent: 0 }, text: "first, see [x](https://e.com/x)" })
          ]
        },
        {
          pageNumber: 2,
          status: "ok" as const,
          width: 612,
          height: 792,
          blocks: [
            structuredBlock("list_item", { list: { depth: 0, ordinal: 2, indent: 0 }, text: "second" }),
            structuredBlock("table", {
              table: { rows: 2, cols: 2, headerRows: 1, cells: [{ row: 0, col: 0, text: "a", colSpan: 2 }, { row: 1, col: 0, text: "1" }, { row: 1, col: 1, text: "2" }] }
            })
          ]
        }
      ])
    })
}

const layer = Pipeline.layer.pipe(Layer.provide([Fetcher.layer, DocumentReaders.layer([reader])]))
const expectedHtml = [
  "<h1>1. Report</h1>",
  "<ol>",
  "<li>first, see <a href=\"https://e.com/x\">x</a></li>",
  "<li>second</li>",
  "</ol>",
  "<table>",
  "<thead>",
  "<tr><th colspan=\"2\">a</th></tr>",
  "</thead>",
  "<tbody>",
  "<tr><td>1</td><td>2</td></tr>",
  "</tbody>",
  "</table>"
].join("\n")

describe("a document's html and links", () => {
  it("are written from its blocks by parse and by parseStream", async () => {
    const { data, done } = await Effect.runPromise(Effect.gen(function*() {
      const pipeline = yield* Pipeline
      const options = yield* validateParseOptions({ formats: ["html", "links"] })
      const data = yield* pipeline.parse({ bytes: pdfBytes, fileName: "doc.pdf" }, options)
      const events = Array.from(yield* Stream.runCollect(pipeline.parseStream({ bytes: pdfBytes, fileName: "doc.pdf" }, options)))
      const done = events.find((event) => event.type === "done")
      return { data, done: done?.type === "done" ? done.data : undefined }
    }).pipe(Effect.provide(layer)))
    expect(data.html).toBe(expectedHtml)
    expect(data.links).toEqual(["https://e.com/x"])
    expect(done?.html).toBe(expectedHtml)
    expect(done?.links).toEqual(["https://e.com/x"])
  })

  it("mark page breaks when the markdown has page markers", async () => {
    const data = await Effect.runPromise(Effect.gen(function*() {
      const options = yield* validateParseOptions({ formats: ["html"], parsers: [{ type: "pdf", pageMarkers: true }] })
      return yield* (yield* Pipeline).parse({ bytes: pdfBytes, fileName: "doc.pdf" }, options)
    }).pipe(Effect.provide(layer)))
    expect(data.html).toContain("<li>first, see <a href=\"https://e.com/x\">x</a></li>\n</ol>\n<hr>\n<!-- page 2 -->\n<ol start=\"2\">\n<li>second</li>")
  })
})
