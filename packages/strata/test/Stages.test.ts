/**
 * The stage seams, through the library as a user builds it: a Layout layer of the user's own
 * changes the output; an OcrEngine of the user's own replaces tesseract for scanned pages (and
 * its words go through the same layout chain); a Redaction step masks text before it is written;
 * a Markdown layer of the user's own rewrites how blocks are written, spans kept exact;
 * TypeDetection and FormatProjection layers provided to `Strata.layer` replace the defaults;
 * and cancelling a scanned-PDF request empties the OCR queue and closes the document.
 */
import { describe, expect, it } from "vitest"
import { Effect, Exit, Fiber, Layer, Stream } from "effect"
import { PDFDocument, rgb, StandardFonts } from "pdf-lib"
import { OcrPool } from "@strata/ocr"
import { heuristicLayout, heuristicReadingOrder, heuristicTables, pdfReaderWith } from "@strata/pdf"
import { DocumentReaders, Fetcher } from "@strata/core"
import { contractProjection, createStrata, FormatProjection, Layout, Markdown, OcrEngine, type OcrResult, Pipeline, type Redactor, rewriting, Strata, TypeDetection } from "../src/index.ts"

const textPdf = async (): Promise<Uint8Array> => {
  const doc = await PDFDocument.create()
  const font = await doc.embedFont(StandardFonts.Helvetica)
  const page = doc.addPage([612, 792])
  page.drawText("Quarterly report", { x: 72, y: 700, size: 20, font })
  page.drawText("The committee met on Tuesday and agreed the budget for the year.", { x: 72, y: 660, size: 11, font })
  page.drawText("Contact alice@example.com for the minutes of the meeting.", { x: 72, y: 640, size: 11, font })
  return doc.save()
}

/** Pages with no text layer (a dark box each): `auto` sends every one to OCR. */
const scannedPdf = async (pages: number): Promise<Uint8Array> => {
  const doc = await PDFDocument.create()
  for (let i = 0; i < pages; i++) {
    const page = doc.addPage([612, 792])
    page.drawRectangle({ x: 72, y: 500, width: 300, height: 40, color: rgb(0.1, 0.1, 0.1) })
  }
  return doc.save()
}

/** The heuristic layout, except that every paragraph becomes a level-3 heading. */
const headingsEverywhere = Layer.succeed(Layout, Layout.of({
  name: "all-headings",
  begin: Effect.map(heuristicLayout(heuristicTables).begin, (session) => ({
    analyse: session.analyse,
    label: (page, neighbours) =>
      Effect.map(session.label(page, neighbours), (labelled) => {
        for (const block of labelled.blocks) {
          if (block.kind === "text") {
            block.kind = "section_header"
            block.level = 3
            block.label = "custom"
          }
        }
        return labelled
      })
  }))
}))

/** An engine of the user's own: two lines of fixed words, in pixels of the image it is given. */
const images: Array<{ width: number; height: number }> = []
const fixedEngine = Layer.succeed(OcrEngine, OcrEngine.of({
  name: "fixed",
  preferredDpi: 100,
  concurrency: 1,
  estimateSeconds: () => 0,
  recognize: (image) =>
    Effect.sync((): OcrResult => {
      const width = image._tag === "Raw" ? image.width : 850
      const height = image._tag === "Raw" ? image.height : 1100
      images.push({ width, height })
      const line = (text: string, top: number) => {
        const bbox = [width * 0.1, height * top, width * 0.8, height * (top + 0.015)] as const
        return { text, bbox, confidence: 0.9, words: text.split(" ").map((w, i, all) => ({ text: w, bbox: [bbox[0] + (i / all.length) * 500, bbox[1], bbox[0] + ((i + 1) / all.length) * 500, bbox[3]] as const, confidence: 0.9 })) }
      }
      return { engine: "fixed", width, height, lines: [line("first recognised line here", 0.2), line("second recognised line below", 0.219)] }
    })
}))

describe("stage seams", () => {
  it("a Layout layer of the user's own changes the output", async () => {
    const bytes = await textPdf()
    await using plain = createStrata({ ocr: false })
    await using custom = createStrata({ ocr: false, stages: { layout: headingsEverywhere } })
    const options = { parsers: [{ type: "pdf" as const, blocks: true }] }
    const before = await plain.parse({ bytes, fileName: "report.pdf" }, options)
    const after = await custom.parse({ bytes, fileName: "report.pdf" }, options)
    expect(before.markdown).toContain("The committee met on Tuesday")
    expect(before.markdown).not.toContain("### The committee met")
    expect(after.markdown).toContain("### The committee met on Tuesday")
    expect(after.blocks?.[0].items.some((b) => b.label === "custom" && b.type === "section_header")).toBe(true)
  }, 60_000)

  it("an OcrEngine of the user's own replaces tesseract; its words go through the layout chain", async () => {
    const bytes = await scannedPdf(1)
    await using strata = createStrata({ stages: { ocr: fixedEngine } })
    images.length = 0
    const data = await strata.parse({ bytes, fileName: "scan.pdf" }, { parsers: [{ type: "pdf", blocks: true }] })
    expect(images).toHaveLength(1)
    // Rendered at the engine's preferred 100 dpi: a US Letter page is 850 x 1100 pixels.
    expect(images[0]).toEqual({ width: 850, height: 1100 })
    expect(data.markdown).toBe("first recognised line here second recognised line below")
    const items = data.blocks?.[0].items ?? []
    expect(items.every((b) => b.source === "layout_ocr" && b.confidence.ocr === 0.9)).toBe(true)
  }, 60_000)

  it("a Redaction step masks text before anything is written", async () => {
    const mask: Redactor = {
      name: "emails",
      redactPage: (page) =>
        Effect.succeed({ ...page, blocks: page.blocks.map((b) => ({ ...b, content: b.content.replace(/\S+@\S+\.\w+/g, "<EMAIL>") })) }),
      redactText: (markdown) => Effect.succeed(markdown.replace(/\S+@\S+\.\w+/g, "<EMAIL>"))
    }
    await using strata = createStrata({ ocr: false, stages: { redaction: mask } })
    const data = await strata.parse({ bytes: await textPdf(), fileName: "report.pdf" }, { formats: ["markdown", "html"], parsers: [{ type: "pdf", blocks: true }] })
    expect(data.markdown).toContain("Contact <EMAIL> for the minutes")
    expect(JSON.stringify(data)).not.toContain("alice@example.com")
  }, 60_000)

  it("a Markdown layer of the user's own changes how blocks are written, with exact spans", async () => {
    const bytes = await textPdf()
    // Headings as setext underlines, paragraphs unchanged: the writer decides from the block's structure.
    const setext = Layer.succeed(Markdown, rewriting("setext", (block) =>
      block.heading !== undefined && block.text !== undefined ? `${block.text}\n${"=".repeat(block.text.length)}` : undefined))
    const options = { parsers: [{ type: "pdf" as const, blocks: true }] }
    await using plain = createStrata({ ocr: false })
    await using custom = createStrata({ ocr: false, stages: { markdown: setext } })
    const before = await plain.parse({ bytes, fileName: "report.pdf" }, options)
    const after = await custom.parse({ bytes, fileName: "report.pdf" }, options)
    expect(before.markdown).toMatch(/^# Quarterly report\n\n/)
    expect(after.markdown).toBe(before.markdown?.replace("# Quarterly report", "Quarterly report\n================"))
    for (const item of after.blocks?.[0].items ?? []) {
      if (item.markdownSpan !== null) expect(after.markdown?.slice(...item.markdownSpan)).toBe(item.content)
    }
    // The Effect way: the layer provided to `Strata.layer`, as for TypeDetection.
    const parse = Effect.flatMap(Strata.validateParseOptions({}), (parseOptions) =>
      Pipeline.use((p) => p.parse({ bytes, fileName: "report.pdf" }, parseOptions)))
    const provided = await Effect.runPromise(parse.pipe(Effect.provide(Strata.layer({ ocr: false }).pipe(Layer.provide(setext)))))
    expect(provided.markdown).toBe(after.markdown)
  }, 60_000)

  it("a TypeDetection or FormatProjection layer provided to Strata.layer replaces the default", async () => {
    const bytes = new TextEncoder().encode("<html><body><h2>Upload</h2><p>Uploaded content.</p></body></html>")
    const parse = Effect.flatMap(Strata.validateParseOptions({ onlyMainContent: false }), (options) =>
      Pipeline.use((p) => p.parse({ bytes, fileName: "page.html" }, options)))
    const asText = Layer.succeed(TypeDetection, { name: "text", detect: () => Effect.succeed("text" as const) })
    const withSummary = Layer.succeed(FormatProjection, {
      ...contractProjection,
      project: (produced, formats) => Effect.map(contractProjection.project(produced, formats), (data) => ({ ...data, summary: "custom" }))
    })
    const plain = await Effect.runPromise(parse.pipe(Effect.provide(Strata.layer({ ocr: false }))))
    const custom = await Effect.runPromise(parse.pipe(Effect.provide(Strata.layer({ ocr: false }).pipe(Layer.provide([asText, withSummary])))))
    expect(plain.markdown).toBe("## Upload\n\nUploaded content.")
    expect(plain.summary).toBeUndefined()
    expect(custom.markdown).toBe(new TextDecoder().decode(bytes))
    expect(custom.summary).toBe("custom")
  }, 60_000)

  it("cancelling a scanned-PDF request empties the OCR queue and closes the document", async () => {
    const bytes = await scannedPdf(8)
    const outcome = await Effect.runPromise(Effect.scoped(Effect.gen(function*() {
      const pool = yield* OcrPool.make({ size: 1 })
      // One thread, but the reader is told it may keep four pages in flight: three wait in the queue.
      const reader = pdfReaderWith({ layout: heuristicLayout(heuristicTables), readingOrder: heuristicReadingOrder, ocr: { ...pool, concurrency: 4 } })
      const pipeline = yield* Layer.build(Pipeline.layer.pipe(Layer.provide(Layer.mergeAll(Fetcher.layer, DocumentReaders.layer([reader])))))
      const options = yield* Strata.validateParseOptions({ parsers: [{ type: "pdf", mode: "ocr" }] })
      const request = Pipeline.use((p) => Stream.runDrain(p.parseStream({ bytes, fileName: "scan.pdf" }, options)))
      const fiber = yield* Effect.forkChild(Effect.provide(request, pipeline))
      // Wait until pages are queued behind the busy thread, then cancel.
      let queuedWhileRunning = 0
      for (let i = 0; i < 200 && queuedWhileRunning === 0; i++) {
        yield* Effect.sleep(25)
        queuedWhileRunning = pool.queued()
      }
      const openWhileRunning = reader.openDocuments()
      const exit = yield* Fiber.interrupt(fiber).pipe(Effect.andThen(Fiber.await(fiber)))
      return { queuedWhileRunning, openWhileRunning, queuedAfter: pool.queued(), interrupted: Exit.hasInterrupts(exit), openAfter: reader.openDocuments() }
    })))
    expect(outcome.queuedWhileRunning).toBeGreaterThan(0)
    expect(outcome.openWhileRunning).toBe(1)
    expect(outcome.interrupted).toBe(true)
    expect(outcome.queuedAfter).toBe(0)
    expect(outcome.openAfter).toBe(0)
  }, 120_000)

  it("an aborted call rejects with an AbortError, and a closed handle rejects", async () => {
    const slow = Layer.succeed(OcrEngine, OcrEngine.of({
      name: "slow",
      preferredDpi: 72,
      concurrency: 1,
      estimateSeconds: () => 0,
      recognize: () => Effect.never
    }))
    const strata = createStrata({ stages: { ocr: slow } })
    const controller = new AbortController()
    const pending = strata.parse({ bytes: await scannedPdf(1), fileName: "scan.pdf" }, { signal: controller.signal })
    setTimeout(() => controller.abort(), 200)
    await expect(pending).rejects.toMatchObject({ name: "AbortError" })
    await strata.close()
    await expect(strata.parse({ bytes: await textPdf(), fileName: "report.pdf" })).rejects.toThrow("closed")
  }, 60_000)
})
