/** Routing: which path serves the content, from the TypeDetection stage (the default or one provided). */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { decodeParseOptions, defaultPdfParser, TypeDetection } from "../src/index.ts"
import { type ContentInput, route } from "../src/Routing.ts"

const utf8 = (text: string) => new TextEncoder().encode(text)

const input = (bytes: Uint8Array, extra: Partial<ContentInput> = {}): ContentInput => ({
  bytes,
  contentType: undefined,
  contentTypeHeader: undefined,
  url: "https://example.com/file",
  sourceURL: "https://example.com/file",
  statusCode: 200,
  ...extra
})

const routeOf = (content: ContentInput, rawOptions: unknown = {}) =>
  Effect.flatMap(decodeParseOptions(rawOptions), (options) => route(content, options)).pipe(Effect.provide(TypeDetection.layer))

describe("route", () => {
  it.effect("sends web types to the HTML stages or shows them as JSON or text", () =>
    Effect.gen(function*() {
      assert.deepStrictEqual(yield* routeOf(input(utf8("<!doctype html><p>x</p>"))), { _tag: "Html" })
      assert.deepStrictEqual(yield* routeOf(input(utf8("{\"a\": 1}"))), { _tag: "Text", json: true })
      assert.deepStrictEqual(yield* routeOf(input(utf8("words"))), { _tag: "Text", json: false })
      // Bytes that are no text: the declared type of a fetched page decides.
      const binary = new Uint8Array([0, 1, 2, 3])
      assert.deepStrictEqual(yield* routeOf(input(binary, { contentType: "text/html" })), { _tag: "Html" })
      assert.deepStrictEqual(yield* routeOf(input(binary, { contentType: "text/x-anything" })), { _tag: "Text", json: false })
    }))

  it.effect("sends documents to their reader with the request's parser settings", () =>
    Effect.gen(function*() {
      const pdf = input(utf8("%PDF-1.7\n"), { url: "https://example.com/a/report.pdf" })
      assert.deepStrictEqual(yield* routeOf(pdf), { _tag: "Document", format: "pdf", parser: defaultPdfParser, fileName: "report.pdf" })
      const paged = yield* routeOf(pdf, { parsers: [{ type: "pdf", mode: "fast", pages: true }] })
      assert.deepStrictEqual(paged._tag === "Document" && paged.parser, { ...defaultPdfParser, mode: "fast", pages: true })
      // `parsers: []`: a PDF comes back as Base64, other documents take the defaults.
      assert.deepStrictEqual(yield* routeOf(pdf, { parsers: [] }), { _tag: "Raw" })
      const csv = yield* routeOf(input(utf8("a,b\n1,2\n"), { fileName: "data.csv", upload: true }), { parsers: [] })
      assert.deepStrictEqual(csv, { _tag: "Document", format: "csv", parser: defaultPdfParser, fileName: "data.csv" })
    }))

  it.effect("refuses what nobody reads, and uploads of no document type", () =>
    Effect.gen(function*() {
      const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13])
      const error = yield* Effect.flip(routeOf(input(png, { contentType: "image/png" })))
      assert.strictEqual(error.reason._tag, "UnsupportedFileType")
      const upload = yield* Effect.flip(routeOf(input(new Uint8Array([0, 1, 2]), { fileName: "x.bin", upload: true })))
      assert.strictEqual(upload.reason._tag, "UnsupportedFileType")
    }))

  it.effect("asks the TypeDetection in the context", () =>
    Effect.gen(function*() {
      const everythingCsv = Layer.succeed(TypeDetection, { name: "csv", detect: () => Effect.succeed("csv" as const) })
      const routed = yield* Effect.flatMap(decodeParseOptions({}), (options) => route(input(utf8("<p>x</p>")), options)).pipe(
        Effect.provide(everythingCsv)
      )
      assert.strictEqual(routed._tag === "Document" && routed.format, "csv")
    }))
})
