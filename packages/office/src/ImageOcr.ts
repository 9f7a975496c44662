/**
 * OCR of the pictures stored inside office documents (docx, pptx, odt, odp, epub, and the
 * legacy files converted to them): `withImageOcr(reader, options)` wraps a reader so that the
 * raster images its blocks show are recognised and their text placed right after the image's
 * block (`source: "layout_ocr"`, label `image_text`, the OCR confidence), the alt-text kept.
 *
 * `ocr` mode reads every picture that is not a tiny icon; `auto` only pictures on pages that
 * are scans in disguise (almost no text, a picture covering most of the page); `fast` never,
 * but warns where auto would have. The work is checked against the deadline up front, capped
 * per document, and images are decoded one per OCR call, inside the engine.
 */
import { Effect, type Scope, Stream } from "effect"
import { DocumentError, encodedImage, ensureOcrFits, ocrFailureText, rawImage, Timeout } from "@strata/core"
import type { Block, Diagnostic, OcrEngine, OcrError, OcrImage, OcrResult, Page, ReadRequest, ReadResult, Reader } from "@strata/core"
import { ocrPageToBlocks } from "@strata/ocr/blocks"
import { decodeBitmap } from "./Bitmap.ts"
import { readImageHeader, type ImageHeader } from "./ImageHeader.ts"
import { imagesOf, withoutImages, type ImageRef } from "./ImageRefs.ts"

export interface ImageOcrOptions {
  /** The OCR engine (a single engine or a pool); none: pictures are never recognised. */
  readonly ocr?: OcrEngine["Service"] | undefined
  /** Most pictures recognised in one document (default 200); a warning says when more were left. */
  readonly maxImages?: number | undefined
  /** `auto`: a page with fewer characters of its own than this (per large picture) is a scan (default 200). */
  readonly scanPageChars?: number | undefined
}

/** Pictures smaller than this are icons, bullets and rules, never text worth reading. */
const MIN_WIDTH = 100
const MIN_HEIGHT = 40
/** `auto`: a picture covering this share of the page is a scanned page... */
const SCAN_COVERAGE = 0.4
/** ...or, where the layout does not say, one with this many pixels (a page scanned at ~100 dpi). */
const SCAN_PIXELS = 800_000
const SCAN_MIN_SIDE = 500
/** Lines recognised with less confidence (0..1) are dropped. */
const MIN_CONFIDENCE = 0.5

interface Candidate {
  readonly block: number
  readonly ref: ImageRef
  readonly header: ImageHeader
}

/** Characters of the page's own text: image markdown and markup removed. */
const ownChars = (blocks: ReadonlyArray<Block>): number => {
  let n = 0
  for (const b of blocks) {
    n += b.content
      .replace(/!\[[^\]]*\]\([^)]*\)|<!--[^>]*-->/g, "")
      .replace(/[#>*_|`\-\s]+/g, "").length
  }
  return n
}

const isLarge = (c: Candidate): boolean =>
  c.ref.coverage !== undefined
    ? c.ref.coverage >= SCAN_COVERAGE
    : c.header.width * c.header.height >= SCAN_PIXELS && Math.min(c.header.width, c.header.height) >= SCAN_MIN_SIDE

/** A picture whose entry is broken or over the zip limits is skipped, not a failed document. */
const loadSafely = (ref: ImageRef): Uint8Array | undefined => {
  try {
    return ref.load()
  } catch {
    return undefined
  }
}

/** The pictures of a page worth reading in `mode` ("auto" and "ocr"), in block order. */
const candidatesOf = (page: Page, mode: "auto" | "ocr", scanChars: number): Array<Candidate> => {
  if (page.status === "failed") return []
  // A page with text enough for every picture it shows is no scan: no picture is even inflated.
  if (mode === "auto") {
    const refs = page.blocks.reduce((n, b) => n + imagesOf(b).length, 0)
    if (refs === 0 || ownChars(page.blocks) >= scanChars * refs) return []
  }
  const all: Array<Candidate> = []
  page.blocks.forEach((block, index) => {
    for (const ref of imagesOf(block)) {
      const bytes = loadSafely(ref)
      const header = bytes === undefined ? undefined : readImageHeader(bytes)
      if (header === undefined || header.width < MIN_WIDTH || header.height < MIN_HEIGHT) continue
      all.push({ block: index, ref, header })
    }
  })
  if (mode === "ocr") return all
  const large = all.filter(isLarge)
  if (large.length === 0) return []
  return ownChars(page.blocks) < scanChars * large.length ? large : []
}

/** The picture as the engine takes it: encoded bytes, or grey pixels for bitmaps (which sharp cannot read). */
const ocrImageOf = (bytes: Uint8Array, header: ImageHeader): OcrImage | undefined => {
  if (header.type !== "bmp") return encodedImage(bytes)
  const grey = decodeBitmap(bytes)
  return grey === undefined ? undefined : rawImage(grey.data, grey.width, grey.height, 1)
}

const withDiagnostics = (page: Page, diagnostics: ReadonlyArray<Diagnostic>): Page =>
  diagnostics.length === 0 ? page : { ...page, diagnostics: [...(page.diagnostics ?? []), ...diagnostics] }

const stripped = (page: Page): Page => ({ ...page, blocks: page.blocks.map(withoutImages) })

const timeoutError = (format: string, error: OcrError, page: number): DocumentError =>
  new DocumentError({ format, reason: new Timeout({ message: error.reason.message }), page })

export const withImageOcr = (reader: Reader, options: ImageOcrOptions = {}): Reader => {
  const engine = options.ocr
  const maxImages = options.maxImages ?? 200
  const scanChars = options.scanPageChars ?? 200

  const read = (request: ReadRequest): Effect.Effect<ReadResult, DocumentError, Scope.Scope> =>
    Effect.gen(function*() {
      const { info, pages } = yield* reader.read(request)
      const mode = request.options.mode
      const format = request.format

      if (mode === "fast" || engine === undefined) {
        // Nothing is recognised; say so where `auto` (or the asked-for `ocr`) would have read pictures.
        const why = mode === "fast" ? `mode is "fast"` : "no OCR engine is installed"
        const warned = pages.pipe(Stream.map((page) => {
          const missed = candidatesOf(page, mode === "ocr" ? "ocr" : "auto", scanChars)
          const code = mode === "fast" ? "ocr_skipped" : "ocr_unavailable"
          return withDiagnostics(
            stripped(page),
            missed.length === 0 ? [] : [{
              severity: "warning",
              code,
              message: `${missed.length} picture(s) on this page look like scanned text but were not recognised (${why})`,
              page: page.pageNumber
            }]
          )
        }))
        return { info, pages: warned }
      }

      // Which pictures to read is known only once every page is built; pages are small (blocks), pictures stay in the zip.
      const all = yield* Stream.runCollect(pages)
      const plans = Array.from(all, (page) => ({ page, candidates: candidatesOf(page, mode, scanChars) }))
      const unique = new Set(plans.flatMap((p) => p.candidates.map((c) => c.ref.part)))
      let budget = Math.min(unique.size, maxImages)
      const deadline = request.options.deadline
      yield* ensureOcrFits(engine, budget, deadline).pipe(Effect.mapError((e) => timeoutError(format, e, 1)))

      // A picture shown on several pages (a slide background) is recognised once.
      const results = new Map<string, Effect.Effect<OcrResult | string, DocumentError>>()
      const recognise = (c: Candidate, pageNumber: number): Effect.Effect<OcrResult | string, DocumentError> => {
        const known = results.get(c.ref.part)
        if (known !== undefined) return known
        const run = Effect.suspend(() => {
          const bytes = loadSafely(c.ref)
          const image = bytes === undefined ? undefined : ocrImageOf(bytes, c.header)
          if (image === undefined) return Effect.succeed(`${c.ref.part} could not be decoded`)
          return engine.recognize(image, { deadline }).pipe(
            Effect.catch((e: OcrError) =>
              e.reason._tag === "OcrTimeout" ? Effect.fail(timeoutError(format, e, pageNumber)) : Effect.succeed(ocrFailureText(e)))
          )
        })
        const cached = Effect.runSync(Effect.cached(run))
        results.set(c.ref.part, cached)
        return cached
      }

      const ocrPage = (plan: (typeof plans)[number]): Effect.Effect<Page, DocumentError> =>
        Effect.gen(function*() {
          const { page } = plan
          const diagnostics: Array<Diagnostic> = []
          const chosen: Array<Candidate> = []
          let capped = 0
          for (const c of plan.candidates) {
            if (results.has(c.ref.part)) chosen.push(c)
            else if (budget > 0) {
              budget--
              chosen.push(c)
              // Registers the picture, so a later page (or a second use on this one) shares its result.
              recognise(c, page.pageNumber)
            } else capped++
          }
          if (capped > 0) {
            diagnostics.push({ severity: "warning", code: "ocr_image_cap", message: `${capped} picture(s) on this page were not recognised: at most ${maxImages} pictures are read per document`, page: page.pageNumber })
          }
          const outcomes = yield* Effect.forEach(chosen, (c) => recognise(c, page.pageNumber), { concurrency: Math.max(1, engine.concurrency) })
          const after = new Map<number, Array<Block>>()
          let recognised = 0
          outcomes.forEach((outcome, i) => {
            const c = chosen[i]
            if (typeof outcome === "string") {
              diagnostics.push({ severity: "warning", code: "ocr_failed", message: `OCR of ${c.ref.part} failed: ${outcome}`, page: page.pageNumber })
              return
            }
            // Photos and drawings give tesseract noise it is unsure of: a higher bar than for scanned pages.
            const blocks = ocrPageToBlocks(outcome, outcome.width, outcome.height, { minConfidence: MIN_CONFIDENCE })
              .map((b): Block => ({ ...b, bbox: null, label: "image_text" }))
            if (blocks.length === 0) return
            recognised++
            after.set(c.block, [...(after.get(c.block) ?? []), ...blocks])
          })
          if (recognised > 0) {
            diagnostics.push({ severity: "info", code: "ocr_applied", message: `OCR (${engine.name}) read the text of ${recognised} picture(s)`, page: page.pageNumber })
          }
          const blocks = page.blocks.flatMap((b, i) => [withoutImages(b), ...(after.get(i) ?? [])])
          return withDiagnostics({ ...page, blocks }, diagnostics)
        })

      const out = Stream.fromIterable(plans).pipe(
        Stream.mapEffect((plan) => (plan.candidates.length === 0 ? Effect.succeed(stripped(plan.page)) : ocrPage(plan)), {
          concurrency: Math.max(1, engine.concurrency)
        })
      )
      return { info, pages: out }
    })

  return { name: reader.name, formats: reader.formats, read }
}
