/**
 * FormatProjection: the fields the formats ask for, derived where a path does not make them; and
 * the Pipeline takes a FormatProjection or TypeDetection layer of the user's own when one is provided.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import {
  contractProjection,
  decodeParseOptions,
  DocumentReaders,
  Fetcher,
  FormatProjection,
  Pipeline,
  type Produced,
  structuredBlock,
  TypeDetection,
  withContent
} from "../src/index.ts"

const formats = (...types: Array<string>) => Effect.map(decodeParseOptions({ formats: types }), (options) => options.formats)
const bytes = new TextEncoder().encode("raw")
const metadata = { sourceURL: "a.pdf", creditsUsed: 1 }

const document: Produced = { _tag: "Document", bytes, markdown: "See [x](https://e.com/x).", streamed: false, warnings: ["page 2: thin"], metadata }

describe("contractProjection", () => {
  it.effect("asks for markdown only by default", () =>
    Effect.gen(function*() {
      const options = yield* decodeParseOptions({})
      assert.deepStrictEqual(contractProjection.requested(options.formats), { markdown: true, html: false, rawHtml: false, links: false, rawBase64: false })
    }))

  it.effect("derives a document's HTML and links from its markdown, in the contract's key order", () =>
    Effect.gen(function*() {
      const data = yield* contractProjection.project(document, yield* formats("links", "html", "markdown", "rawBase64"))
      assert.deepStrictEqual(Object.keys(data), ["rawBase64", "markdown", "html", "links", "warning", "metadata"])
      assert.strictEqual(data.rawBase64, Buffer.from(bytes).toString("base64"))
      assert.deepStrictEqual(data.links, ["https://e.com/x"])
      assert.include(data.html ?? "", "<a href=\"https://e.com/x\">x</a>")
      assert.strictEqual(data.warning, "page 2: thin")
    }))

  it.effect("writes a document's HTML and links from its blocks when it has them", () =>
    Effect.gen(function*() {
      const blocks = [
        structuredBlock("list_item", { list: { depth: 0, ordinal: 2, indent: 0 }, text: "See [y](https://e.com/y)" }),
        withContent(structuredBlock("text", { text: "secret" }), "[REDACTED](https://e.com/r)")
      ]
      const pages = [{ pageNumber: 1, status: "ok" as const, width: null, height: null, blocks }]
      const data = yield* contractProjection.project({ ...document, source: { pages, pageMarkers: false } }, yield* formats("html", "links"))
      assert.strictEqual(data.html, "<ol start=\"2\">\n<li>See <a href=\"https://e.com/y\">y</a></li>\n</ol>\n<p><a href=\"https://e.com/r\">REDACTED</a></p>")
      assert.deepStrictEqual(data.links, ["https://e.com/y", "https://e.com/r"])
    }))

  it.effect("leaves out the markdown the page events already carried", () =>
    Effect.gen(function*() {
      const data = yield* contractProjection.project({ ...document, streamed: true }, yield* formats("markdown"))
      assert.deepStrictEqual(Object.keys(data), ["warning", "metadata"])
    }))

  it.effect("shows text in a <pre> with no links, and a raw PDF as Base64 whatever the formats", () =>
    Effect.gen(function*() {
      const text = yield* contractProjection.project(
        { _tag: "Text", bytes, text: "a < b", markdown: "a < b", warnings: [], metadata },
        yield* formats("rawHtml", "html", "links")
      )
      assert.deepStrictEqual(text, { rawHtml: "a < b", html: "<pre>a &lt; b</pre>", links: [], metadata })
      const raw = yield* contractProjection.project({ _tag: "Raw", bytes, warnings: [], metadata }, yield* formats("markdown"))
      assert.deepStrictEqual(raw, { rawBase64: Buffer.from(bytes).toString("base64"), metadata })
    }))
})

describe("stages with a default, replaced by a layer", () => {
  const html = new TextEncoder().encode("<html><body><h2>Upload</h2><p>Uploaded content.</p></body></html>")
  const pipeline = (stages: Layer.Layer<never> | Layer.Layer<TypeDetection> | Layer.Layer<FormatProjection>) =>
    Pipeline.layer.pipe(Layer.provide([Fetcher.layer, DocumentReaders.layer([]), stages]))
  const parse = Effect.flatMap(decodeParseOptions({ onlyMainContent: false }), (options) =>
    Pipeline.use((p) => p.parse({ bytes: html, fileName: "page.html" }, options)))

  it.effect("uses the defaults when none is provided", () =>
    Effect.gen(function*() {
      const data = yield* parse.pipe(Effect.provide(pipeline(Layer.empty)))
      assert.strictEqual(data.markdown, "## Upload\n\nUploaded content.")
    }))

  it.effect("takes a FormatProjection of the user's own", () =>
    Effect.gen(function*() {
      const summarising = Layer.succeed(FormatProjection, {
        ...contractProjection,
        name: "summary",
        project: (produced, formats) =>
          Effect.map(contractProjection.project(produced, formats), (data) => ({ ...data, summary: `${data.markdown?.length} chars` }))
      })
      const data = yield* parse.pipe(Effect.provide(pipeline(summarising)))
      assert.strictEqual(data.summary, "28 chars")
    }))

  it.effect("takes a TypeDetection of the user's own", () =>
    Effect.gen(function*() {
      const asText = Layer.succeed(TypeDetection, { name: "text", detect: () => Effect.succeed("text" as const) })
      const data = yield* parse.pipe(Effect.provide(pipeline(asText)))
      assert.strictEqual(data.markdown, new TextDecoder().decode(html))
    }))
})
