/**
 * The engines the PDF benchmark compares, each a function from bytes to markdown (or text):
 * Strata's reader through the shared MarkdownWriter, Firecrawl's pdf-inspector, pdf-parse, and
 * poppler's pdftotext when it is installed.
 */
import { Effect, Scope, Stream } from "effect"
import { spawnSync } from "node:child_process"
import { MarkdownWriter } from "@strata/core"
import { type PdfReader, heuristicLayout, heuristicReadingOrder, heuristicTables, learnedLayout, onnxClassifier, pdfReader, pdfReaderWith } from "@strata/pdf"

export interface EngineOutput {
  readonly markdown: string
  readonly pages: number
}

export type Engine = (bytes: Uint8Array, path: string) => Promise<EngineOutput>

/** Strata's reader through the shared MarkdownWriter; `reader` with other page stages (the learned layout). */
export const strataWith = (reader: PdfReader): Engine => (bytes) =>
  Effect.runPromise(Effect.scoped(Effect.gen(function*() {
    const result = yield* reader.read({ bytes, format: "pdf", options: { mode: "fast", deadline: Date.now() + 120_000 } })
    const writer = new MarkdownWriter()
    let pages = 0
    yield* Stream.runForEach(result.pages, (page) => Effect.sync(() => {
      writer.push(page)
      pages++
    }))
    return { markdown: writer.markdown, pages }
  })))

export const strata: Engine = strataWith(pdfReader)

/** The same reader with models/layout's classifier relabelling the heuristic's blocks (`STRATA_PDF_LAYOUT=learned`). */
let learnedReader: Promise<Engine> | undefined
export const strataLearned: Engine = async (bytes, path) => {
  learnedReader ??= Effect.runPromise(Effect.flatMap(Scope.make(), (scope) => Scope.provide(onnxClassifier(), scope))).then((classifier) =>
    strataWith(pdfReaderWith({ layout: learnedLayout(heuristicLayout(heuristicTables), classifier), readingOrder: heuristicReadingOrder }))
  )
  return (await learnedReader)(bytes, path)
}

export const pdfInspector: Engine = async (bytes) => {
  const inspector = await import("@firecrawl/pdf-inspector")
  const result = inspector.processPdf(Buffer.from(bytes))
  return { markdown: result.markdown ?? "", pages: result.pageCount ?? 0 }
}

/**
 * pdf-inspector's markdown one string a page: `processPdf` restricted to each page in turn (its
 * `pages` are 1-indexed), the path run.ts scores. Not `extractPagesMarkdown`: it leaves a page it
 * flags for OCR empty (3 of redp5110_sampled's 18 pages), where `processPdf` keeps the page's text.
 */
export const pdfInspectorPages = async (bytes: Uint8Array): Promise<Array<string>> => {
  const inspector = await import("@firecrawl/pdf-inspector")
  const buffer = Buffer.from(bytes)
  const first = await inspector.processPdfAsync(buffer, [1])
  const pages = [first.markdown ?? ""]
  for (let n = 2; n <= first.pageCount; n++) pages.push((await inspector.processPdfAsync(buffer, [n])).markdown ?? "")
  return pages
}

export const pdfParse: Engine = async (bytes) => {
  const { PDFParse } = await import("pdf-parse")
  const parser = new PDFParse({ data: new Uint8Array(bytes) })
  try {
    const result = await parser.getText()
    return { markdown: result.text, pages: result.total ?? result.pages?.length ?? 0 }
  } finally {
    await parser.destroy()
  }
}

export const hasPdftotext = (): boolean => spawnSync("pdftotext", ["-v"]).status === 0

export const pdftotext: Engine = async (_bytes, path) => {
  const out = spawnSync("pdftotext", ["-enc", "UTF-8", path, "-"], { encoding: "utf8", maxBuffer: 256 * 1024 * 1024 })
  const info = spawnSync("pdfinfo", [path], { encoding: "utf8" })
  const pages = Number(/Pages:\s+(\d+)/.exec(info.stdout ?? "")?.[1] ?? 0)
  return { markdown: out.stdout ?? "", pages }
}

export const engines: Record<string, Engine> = { strata, "strata-learned": strataLearned, "pdf-inspector": pdfInspector, "pdf-parse": pdfParse, pdftotext }
