/**
 * File handling options (`parsers`): the PDF parser with its limits and the image parser, in
 * the string or object forms the SDK sends, and their normalised objects with defaults.
 */
import { Schema } from "effect"
import { IntBetween } from "./Primitives.ts"

export const PdfParserInput = Schema.Struct({
  type: Schema.Literal("pdf"),
  maxPages: Schema.optionalKey(IntBetween(1, 10_000).annotate({ description: "Caps the pages parsed." })),
  mode: Schema.optionalKey(Schema.Literals(["fast", "auto", "ocr"]).annotate({
    default: "auto",
    description: "fast: embedded text only; auto: OCR where needed; ocr: OCR on every page."
  })),
  pageMarkers: Schema.optionalKey(Schema.Boolean.annotate({ default: false })),
  pages: Schema.optionalKey(Schema.Boolean.annotate({ default: false, description: "Adds `data.pages`." })),
  // The SDK's deprecated name for `pages`, still accepted as an alias.
  pageMarkdown: Schema.optionalKey(Schema.Boolean.annotate({ deprecated: true, description: "Deprecated alias of `pages`." })),
  blocks: Schema.optionalKey(Schema.Boolean.annotate({ default: false, description: "Adds `data.blocks`." }))
}).annotate({ identifier: "PdfParser" })

export const ImageParserInput = Schema.Struct({
  type: Schema.Literal("image")
}).annotate({ identifier: "ImageParser", description: "OCR raster images as one-page documents." })

export const Parser = Schema.Union([
  Schema.Literals(["pdf", "image"]),
  PdfParserInput,
  ImageParserInput
]).annotate({
  identifier: "Parser",
  message: "Expected a parser: \"pdf\", \"image\", or an object { type: \"pdf\", maxPages?, mode?, pageMarkers?, pages?, blocks? } or { type: \"image\" }"
})

export interface PdfParser {
  readonly type: "pdf"
  readonly mode: "fast" | "auto" | "ocr"
  readonly maxPages?: number
  readonly pageMarkers: boolean
  readonly pages: boolean
  readonly blocks: boolean
}
export interface ImageParser {
  readonly type: "image"
}
export type ResolvedParser = PdfParser | ImageParser

export const defaultPdfParser: PdfParser = { type: "pdf", mode: "auto", pageMarkers: false, pages: false, blocks: false }

/** The default `parsers` of the contract: `[{ type: "pdf" }]`. */
export const defaultParsers: ReadonlyArray<ResolvedParser> = [defaultPdfParser]

export const normalizeParser = (input: typeof Parser.Type): ResolvedParser => {
  if (input === "pdf") return defaultPdfParser
  if (input === "image" || input.type === "image") return { type: "image" }
  const parser: PdfParser = {
    type: "pdf",
    mode: input.mode ?? "auto",
    pageMarkers: input.pageMarkers ?? false,
    pages: input.pages ?? input.pageMarkdown ?? false,
    blocks: input.blocks ?? false
  }
  return input.maxPages === undefined ? parser : { ...parser, maxPages: input.maxPages }
}
