/**
 * OCR as part of reading a page, before layout: in `auto` mode the pages that need it (no text
 * layer, garbled or invisible text, a mostly-image page with little text) and in `ocr` mode every
 * page are rendered and recognised by the `OcrEngine`, and the recognised words become the page's
 * text runs. An OCR'd page then goes through the same Layout -> Tables -> ReadingOrder -> markdown
 * chain as native text: columns, tables, headings and furniture work the same on scans.
 *
 * The decision on a page with plenty of native text is a pure pass over its runs (well under a
 * millisecond); only thin pages pay for the operator-list facts (image coverage, invisible text),
 * read by the renderer, which opens its own pdf.js document on the first page that needs it.
 *
 * Pages to OCR are started `concurrency` pages ahead, as fibers in a scope that the page stream
 * closes when it ends, fails or is interrupted: cancelling a request interrupts its queued
 * recognitions (the engine drops them from its queue) and closes the renderer.
 */
import { Effect, Exit, Fiber, Scope, Semaphore } from "effect"
import { DocumentError, ensureOcrFits, ocrFailureText, rawImage, Timeout } from "@strata/core"
import type { Diagnostic, DrawingBox, OcrEngine, OcrError, OcrResult, PageElements, ParseMode, TextRun } from "@strata/core"
import { decideOcr, type DecisionInput, type DecisionReason } from "./OcrDecision.ts"
import type { PageRenderer, RenderedPage } from "./PageRenderer.ts"
import { isRtlText } from "./Lines.ts"
import { cropGroups, cropWords, outlinedLines, outlinesDominate, regionCrop, withOutlinedRuns } from "./OutlinedOcr.ts"
import type { PageSource } from "./PageSource.ts"

export interface OcrPagesOptions {
  /** The OCR engine; none: pages are never OCR'd (`auto` then only warns about pages without text). */
  readonly engine: OcrEngine["Service"] | undefined
  readonly mode: ParseMode
  readonly bytes: Uint8Array
  readonly deadline: number
  readonly numPages: number
}

/** Native pages with at least this many visible characters skip the operator-list check. */
const RICH_PAGE_CHARS = 200

/** The page's runs as decision input (the native check: no image facts yet). */
const nativeInput = (page: PageElements): DecisionInput => ({
  pageWidth: page.width,
  pageHeight: page.height,
  imageCoverage: 0,
  // Unknown here: never let "no text and no paths" call a page blank from native data alone.
  pathCount: 1,
  items: page.runs.map((run) => ({ str: run.text, x: run.x0, y: run.top, width: run.x1 - run.x0, height: run.bottom - run.top }))
})

const withDiagnostic = (page: PageElements, severity: Diagnostic["severity"], code: string, message: string): PageElements => ({
  ...page,
  diagnostics: [...(page.diagnostics ?? []), { severity, code, message, page: page.pageNumber }]
})

const toDocumentError = (error: OcrError, page: number): DocumentError =>
  new DocumentError({ format: "pdf", reason: new Timeout({ message: error.reason.message }), page })

/**
 * The recognised words as text runs in page points. A word takes its line's height as its size,
 * so that the words of one line agree (word boxes vary with ascenders and descenders).
 */
export const ocrRuns = (result: OcrResult, rendered: Pick<RenderedPage, "region">, pageWidth: number, pageHeight: number): Array<TextRun> => {
  const [rx0, ry0, rx1, ry1] = rendered.region
  const sx = ((rx1 - rx0) * pageWidth) / Math.max(1, result.width)
  const sy = ((ry1 - ry0) * pageHeight) / Math.max(1, result.height)
  const ox = rx0 * pageWidth
  const oy = ry0 * pageHeight
  const runs: Array<TextRun> = []
  for (const line of result.lines) {
    const top = oy + line.bbox[1] * sy
    const bottom = oy + line.bbox[3] * sy
    const height = Math.max(1, bottom - top)
    const size = Math.round(height * 0.8 * 2) / 2
    const words = line.words.length > 0 ? line.words : [{ text: line.text, bbox: line.bbox, confidence: line.confidence }]
    let first = true
    for (const word of words) {
      const trimmed = word.text.trim()
      if (trimmed.length === 0) continue
      // The engine separated the words: the space is kept whatever the gap between their boxes.
      const text = first ? trimmed : ` ${trimmed}`
      first = false
      runs.push({
        text,
        x0: ox + word.bbox[0] * sx,
        x1: ox + word.bbox[2] * sx,
        top,
        bottom,
        baseline: bottom - height * 0.2,
        size,
        bold: false,
        italic: false,
        mono: false,
        math: false,
        symbol: false,
        rotated: false,
        rtl: isRtlText(trimmed),
        confidence: word.confidence
      })
    }
  }
  return runs
}

/** Lines below this confidence (0..1) are dropped as noise. */
const MIN_LINE_CONFIDENCE = 0.3

/** Outlined regions may be a false find (an icon row): what is read there must be surer. */
const MIN_OUTLINED_CONFIDENCE = 0.5

/** Wraps a page source so that the pages that need OCR come back with recognised runs. */
export const ocrPages = (inner: PageSource, options: OcrPagesOptions): Effect.Effect<PageSource, DocumentError> =>
  Effect.gen(function*() {
    const { engine, mode, deadline } = options
    if (mode === "ocr" && engine !== undefined) {
      yield* ensureOcrFits(engine, options.numPages, deadline).pipe(Effect.mapError((e) => toDocumentError(e, 1)))
    }
    const scope = yield* Scope.make()
    let renderer: Promise<PageRenderer> | undefined
    const openRenderer = () => (renderer ??= import("./PageRenderer.ts").then((m) => m.openRenderer(options.bytes)))
    const closeRenderer = Effect.promise(async () => {
      if (renderer !== undefined) await (await renderer.catch(() => undefined))?.close()
    })

    /** Why the page needs OCR, or undefined. */
    const decide = (page: PageElements): Effect.Effect<DecisionReason | undefined> => {
      if (mode === "ocr") return Effect.succeed("no_text")
      const native = decideOcr(nativeInput(page))
      const chars = native.stats.visibleChars
      if (chars === 0) return Effect.succeed("no_text")
      if (page.unmapped > chars * 0.3) return Effect.succeed("garbled_text")
      if (native.ocr) return Effect.succeed(native.reason)
      // `auto` without an engine only warns, from what the page itself says: no renderer is opened for a warning.
      if (chars >= RICH_PAGE_CHARS || (engine === undefined && mode === "auto")) return Effect.succeed(undefined)
      return Effect.promise(async () => {
        const facts = await (await openRenderer()).facts(page.pageNumber)
        const d = decideOcr(facts)
        return d.ocr ? d.reason : undefined
      }).pipe(Effect.catchCause(() => Effect.succeed(undefined)))
    }

    const recognise = (page: PageElements, reason: DecisionReason | "outlined_text", ocr: OcrEngine["Service"]): Effect.Effect<PageElements, DocumentError> =>
      Effect.gen(function*() {
        yield* ensureOcrFits(ocr, 1, deadline).pipe(Effect.mapError((e) => toDocumentError(e, page.pageNumber)))
        const rendered = yield* Effect.tryPromise({
          try: async () => (await openRenderer()).render(page.pageNumber, ocr.preferredDpi),
          catch: (cause) => String(cause)
        }).pipe(Effect.option)
        if (rendered._tag === "None") return withDiagnostic(page, "warning", "ocr_render_failed", "the page could not be rendered for OCR; its native text is kept")
        const { image } = rendered.value
        const result = yield* ocr.recognize(rawImage(image.data, image.width, image.height, 1), { deadline, dpi: rendered.value.dpi }).pipe(
          Effect.map((r) => ({ ok: true as const, r })),
          Effect.catch((e: OcrError) =>
            e.reason._tag === "OcrTimeout" ? Effect.fail(toDocumentError(e, page.pageNumber)) : Effect.succeed({ ok: false as const, message: ocrFailureText(e) }))
        )
        if (!result.ok) return withDiagnostic(page, "warning", "ocr_failed", `OCR failed (${result.message}); the native text is kept`)
        const lines = result.r.lines.filter((l) => l.text.trim() !== "" && l.confidence >= MIN_LINE_CONFIDENCE)
        const runs = ocrRuns({ ...result.r, lines }, rendered.value, page.width, page.height)
        return withDiagnostic(
          // The scan and the drawings are in the picture that was read: only the rules stay (they help tables).
          { ...page, runs, images: [], drawings: [], unmapped: 0, textSource: "layout_ocr" },
          "info",
          "ocr_applied",
          `OCR (${result.r.engine}) replaced the text layer: ${reason}`
        )
      })

    /** Words drawn as outlines (OutlinedText.ts): each region rendered alone and read; its words join the page's runs. */
    const recogniseOutlined = (page: PageElements, regions: ReadonlyArray<DrawingBox>, ocr: OcrEngine["Service"]): Effect.Effect<PageElements, DocumentError> =>
      Effect.gen(function*() {
        yield* ensureOcrFits(ocr, 1, deadline).pipe(Effect.mapError((e) => toDocumentError(e, page.pageNumber)))
        const runs: Array<TextRun> = []
        const read: Array<DrawingBox> = []
        let failed = 0
        const groups = cropGroups(regions)
        for (const region of groups) {
          const crop = regionCrop(region, page.width, page.height)
          if ((crop.region[2] - crop.region[0]) * page.width < 4 || (crop.region[3] - crop.region[1]) * page.height < 4) continue
          const rendered = yield* Effect.tryPromise(async () => (await openRenderer()).renderRegion(page.pageNumber, crop.dpi, crop.region)).pipe(Effect.option)
          if (rendered._tag === "None") {
            failed++
            continue
          }
          const { image } = rendered.value
          // The crop is upright and straight (it is a render): no rotation or skew to look for.
          const result = yield* ocr.recognize(rawImage(image.data, image.width, image.height, 1), { deadline, dpi: crop.dpi, autoRotate: false }).pipe(
            Effect.map((r) => r as OcrResult | undefined),
            Effect.catch((e: OcrError) => e.reason._tag === "OcrTimeout" ? Effect.fail(toDocumentError(e, page.pageNumber)) : Effect.succeed(undefined))
          )
          if (result === undefined) {
            failed++
            continue
          }
          const words = cropWords(page.runs, ocrRuns({ ...result, lines: outlinedLines(result, MIN_OUTLINED_CONFIDENCE) }, rendered.value, page.width, page.height), region.glyphs)
          if (words.length === 0) continue
          runs.push(...words)
          // Only the outlines of crops that gave words leave the drawings: the others were a picture after all.
          const [x0, y0, x1, y1] = rendered.value.region
          read.push({ x0: x0 * page.width, x1: x1 * page.width, top: y0 * page.height, bottom: y1 * page.height })
        }
        const next = withOutlinedRuns(page, read, runs)
        const words = next.runs.length - page.runs.length
        return failed > 0
          ? withDiagnostic(next, "warning", "ocr_failed", `${failed} of ${groups.length} crops of outlined text could not be read`)
          : withDiagnostic(next, "info", "ocr_applied", `OCR (${ocr.name}) read ${regions.length} regions of outlined text in ${groups.length} crops: ${words} words`)
      })

    /** A page as read: decided, and recognised when it needs it (or marked when it cannot be). */
    const process = (page: PageElements): Effect.Effect<PageElements, DocumentError> =>
      Effect.flatMap(decide(page), (reason): Effect.Effect<PageElements, DocumentError> => {
        if (reason === undefined) {
          const regions = page.outlined ?? []
          if (regions.length === 0) return Effect.succeed(page)
          if (engine !== undefined && mode !== "fast") {
            return outlinesDominate(page) ? recognise(page, "outlined_text", engine) : recogniseOutlined(page, regions, engine)
          }
          return Effect.succeed(withDiagnostic(page, "warning", mode === "fast" ? "ocr_skipped" : "pdf_no_text_layer",
            `${regions.length} regions of the page are words drawn as outlines: OCR would be needed to read them`))
        }
        if (engine !== undefined && mode !== "fast") return recognise(page, reason, engine)
        if (mode === "fast") {
          return Effect.succeed(withDiagnostic(page, "warning", "ocr_skipped", `the page needs OCR (${reason}) but mode is "fast": its text may be missing`))
        }
        return Effect.succeed(withDiagnostic(
          page,
          "warning",
          "pdf_no_text_layer",
          reason === "no_text"
            ? "the page has no text layer (a scan or an image): OCR would be needed"
            : `the page's text layer is unusable (${reason}): OCR would be needed`
        ))
      })

    // Without an engine there is nothing slow to start ahead: pages are read one by one as asked.
    const ahead = engine !== undefined && mode !== "fast" ? Math.max(1, engine.concurrency) : 1
    // The native reader reads one page at a time; recognition runs `ahead` pages at once.
    const native = yield* Semaphore.make(1)
    const started = new Map<number, Fiber.Fiber<PageElements, DocumentError>>()
    const start = (pageNumber: number) =>
      started.has(pageNumber) || pageNumber > options.numPages
        ? Effect.void
        : Effect.map(
          Effect.forkIn(Effect.flatMap(native.withPermits(1)(inner.read(pageNumber)), process), scope),
          (fiber) => void started.set(pageNumber, fiber)
        )

    return {
      read: (pageNumber) =>
        ahead === 1
          ? Effect.flatMap(inner.read(pageNumber), process)
          : Effect.gen(function*() {
            for (let n = pageNumber; n < pageNumber + ahead; n++) yield* start(n)
            const fiber = started.get(pageNumber)!
            started.delete(pageNumber)
            return yield* Fiber.join(fiber)
          }),
      close: Effect.andThen(Scope.close(scope, Exit.void), Effect.andThen(closeRenderer, inner.close))
    }
  })
