/**
 * The PDF reader with OCR: `makePdfReader({ ocr })` wraps `readPdf` so that, in `auto` mode,
 * the pages that need it (no text layer, garbled text, a mostly-image page with little text)
 * and, in `ocr` mode, every page are rendered and recognised by the given `OcrEngine`; their
 * blocks are replaced by OCR blocks (`source: "layout_ocr"`). Without an engine, or in `fast`
 * mode, it is exactly `readPdf`.
 *
 * The decision on a page with plenty of native text is a pure check over its blocks (well under
 * a millisecond); only thin pages pay for the operator-list facts (image coverage, invisible
 * text). The renderer (pdf.js with images, sharp, canvas) is loaded on the first OCR page.
 */
import { Effect, Stream } from "effect"
import { DocumentError, ensureOcrFits, rawImage, Timeout } from "@strata/core"
import type { Diagnostic, OcrEngine, OcrError, Page, ReadRequest, ReadResult, Reader } from "@strata/core"
import { ocrPageToBlocks } from "@strata/ocr/blocks"
import { decideOcr } from "@strata/ocr/decision"
import type { DecisionInput, DecisionReason } from "@strata/ocr/decision"
import type { PageRenderer } from "@strata/ocr/renderer"
import { readPdf } from "./PdfReader.ts"

export interface PdfReaderOptions {
  /** The OCR engine (a single engine or `OcrPool`); none: OCR is never attempted. */
  readonly ocr?: OcrEngine["Service"] | undefined
  /** Render resolution for OCR; default the engine's preferred DPI. */
  readonly dpi?: number | undefined
  /** Native pages with at least this many characters skip the operator-list check (default 200). */
  readonly richPageChars?: number | undefined
}

/** What the native reader produced, as decision input (markdown syntax stripped). */
const nativeInput = (page: Page): DecisionInput => {
  const w = page.width ?? 612
  const h = page.height ?? 792
  return {
    pageWidth: w,
    pageHeight: h,
    imageCoverage: 0,
    // Unknown here: never let "no text and no paths" call a page blank from native data alone.
    pathCount: 1,
    items: page.blocks.map((b) => {
      const [x0, y0, x1, y1] = b.bbox ?? [0, 0, 1, 1]
      return { str: b.content.replace(/[|#*_`>-]+/g, " "), x: x0 * w, y: y0 * h, width: (x1 - x0) * w, height: (y1 - y0) * h }
    })
  }
}

const toDocumentError = (error: OcrError, page: number): DocumentError =>
  new DocumentError({ format: "pdf", reason: new Timeout({ message: error.reason.message }), page })

export const makePdfReader = (options: PdfReaderOptions = {}): Reader => {
  const engine = options.ocr
  const read = (request: ReadRequest): Effect.Effect<ReadResult, DocumentError> => {
    const mode = request.options.mode
    // Without an engine only `fast` has work to do here (its warnings); auto warns in readPdf.
    if (engine === undefined && mode !== "fast") return readPdf(request)
    return Effect.gen(function*() {
      const { info, pages } = yield* readPdf(request)
      const deadline = request.options.deadline
      if (mode === "ocr" && engine !== undefined) {
        yield* ensureOcrFits(engine, info.numPages ?? 0, deadline).pipe(Effect.mapError((e) => toDocumentError(e, 1)))
      }
      let renderer: Promise<PageRenderer> | undefined
      const openRenderer = () =>
        (renderer ??= import("@strata/ocr/renderer").then((m) => m.openRenderer(request.bytes)))
      const richChars = options.richPageChars ?? 200
      const closeRenderer = Effect.promise(async () => {
        if (renderer !== undefined) await (await renderer.catch(() => undefined))?.close()
      })

      const decide = (page: Page): Effect.Effect<DecisionReason | undefined> => {
        if (page.status === "failed") return Effect.succeed(undefined)
        if (mode === "ocr") return Effect.succeed("no_text")
        if (page.diagnostics?.some((d) => d.code === "pdf_no_text_layer")) return Effect.succeed("no_text")
        const native = decideOcr(nativeInput(page))
        if (native.ocr) return Effect.succeed(native.reason)
        if (native.stats.visibleChars >= richChars) return Effect.succeed(undefined)
        return Effect.promise(async () => {
          const d = decideOcr(await (await openRenderer()).facts(page.pageNumber))
          return d.ocr ? d.reason : undefined
        })
      }

      if (mode === "fast" || engine === undefined) {
        // `fast` never OCRs, but says so on every page that clearly needed it.
        const warned = pages.pipe(
          Stream.mapEffect((page) =>
            decide(page).pipe(Effect.map((reason) =>
              reason === undefined
                ? page
                : withDiagnostic(page, "warning", "ocr_skipped", `the page needs OCR (${reason}) but mode is "fast": its text may be missing`)
            ))
          ),
          Stream.ensuring(closeRenderer)
        )
        return { info, pages: warned }
      }

      const ocrPage = (page: Page, reason: DecisionReason): Effect.Effect<Page, DocumentError> =>
        Effect.gen(function*() {
          yield* ensureOcrFits(engine, 1, deadline).pipe(Effect.mapError((e) => toDocumentError(e, page.pageNumber)))
          const dpi = options.dpi ?? engine.preferredDpi
          const rendered = yield* Effect.tryPromise({
            try: async () => (await openRenderer()).render(page.pageNumber, dpi),
            catch: (cause) => String(cause)
          }).pipe(Effect.option)
          if (rendered._tag === "None") return withDiagnostic(page, "warning", "ocr_render_failed", "the page could not be rendered for OCR; its native text is kept")
          const { image, region } = rendered.value
          const result = yield* engine.recognize(rawImage(image.data, image.width, image.height, 1), { deadline, dpi: rendered.value.dpi }).pipe(
            Effect.map((r) => ({ ok: true as const, r })),
            Effect.catch((e: OcrError) =>
              e.reason._tag === "OcrTimeout" ? Effect.fail(toDocumentError(e, page.pageNumber)) : Effect.succeed({ ok: false as const, message: e.message }))
          )
          if (!result.ok) return withDiagnostic(page, "warning", "ocr_failed", `OCR failed (${result.message}); the native text is kept`)
          const blocks = ocrPageToBlocks(result.r, page.width ?? 612, page.height ?? 792, { region })
          return withDiagnostic({ ...page, blocks }, "info", "ocr_applied", `OCR (${result.r.engine}) replaced the text layer: ${reason}`)
        })

      const out = pages.pipe(
        Stream.mapEffect((page) =>
          decide(page).pipe(Effect.flatMap((reason) => (reason === undefined ? Effect.succeed(page) : ocrPage(page, reason)))), {
          concurrency: Math.max(1, engine.concurrency)
        }),
        Stream.ensuring(closeRenderer)
      )
      return { info, pages: out }
    })
  }
  return { name: "pdf", formats: ["pdf"], read }
}

const withDiagnostic = (page: Page, severity: Diagnostic["severity"], code: string, message: string): Page => ({
  ...page,
  // The native reader's "OCR would be needed" warning no longer applies once OCR ran.
  diagnostics: [
    ...(page.diagnostics ?? []).filter((d) => code !== "ocr_applied" || d.code !== "pdf_no_text_layer"),
    { severity, code, message, page: page.pageNumber }
  ]
})
