/**
 * Turns PDF pages into pixels for OCR: pdf.js (legacy build, in-process) paints onto
 * @napi-rs/canvas at the engine's DPI; when a page is one big embedded image (a scan), its
 * pixels are taken directly, which is faster and avoids resampling the scan twice.
 *
 * This opens its own pdf.js document with image decoding on: the PDF reader's text pass keeps
 * images off because decoding dominates the cost of image-heavy pages.
 */
import { createRequire } from "node:module"
import { dirname, join } from "node:path"
import { pathToFileURL } from "node:url"
import sharp from "sharp"
import * as pdfjs from "pdfjs-dist/legacy/build/pdf.mjs"
import type { PDFDocumentProxy, PDFPageProxy } from "pdfjs-dist/types/src/display/api.d.ts"
import type { Sharp } from "sharp"
import type { DecisionInput } from "./OcrDecision.ts"
import { pageFacts } from "./PdfPageFacts.ts"
import { multiplyMatrix as multiply, type Matrix } from "@strata/core"

const packageRoot = dirname(createRequire(import.meta.url).resolve("pdfjs-dist/package.json"))
if (pdfjs.GlobalWorkerOptions.workerSrc === "") {
  pdfjs.GlobalWorkerOptions.workerSrc = pathToFileURL(join(packageRoot, "legacy/build/pdf.worker.mjs")).href
}

/** 8-bit grey pixels, row-major. */
export interface Gray {
  readonly data: Uint8Array
  readonly width: number
  readonly height: number
}

const toGrayPixels = async (pipeline: Sharp): Promise<Gray> => {
  const { data, info } = await pipeline.toColourspace("b-w").raw().toBuffer({ resolveWithObject: true })
  if (info.channels !== 1) throw new Error(`expected grey pixels, got ${info.channels} channels`)
  return { data: new Uint8Array(data.buffer, data.byteOffset, info.width * info.height), width: info.width, height: info.height }
}

export interface RenderedPage {
  readonly image: Gray
  /** The resolution of `image` against the page's 72-dpi user space. */
  readonly dpi: number
  /** `render` (painted by pdf.js) or `embedded` (the page's own scan). */
  readonly via: "render" | "embedded"
  /** Page size in PDF points (the viewport at scale 1, rotation applied). */
  readonly pageWidth: number
  readonly pageHeight: number
  /** Where `image` lies on the page, normalised [x0, y0, x1, y1] (top-left origin); [0, 0, 1, 1] for renders. */
  readonly region: readonly [number, number, number, number]
}

export interface PageRenderer {
  readonly numPages: number
  readonly render: (pageNumber: number, dpi: number) => Promise<RenderedPage>
  /** Paints only `region` of the page (normalised [x0, y0, x1, y1], top-left origin): words drawn as outlines. */
  readonly renderRegion: (pageNumber: number, dpi: number, region: readonly [number, number, number, number]) => Promise<RenderedPage>
  /** What the auto decision needs about the page (text with render modes, image coverage). */
  readonly facts: (pageNumber: number) => Promise<DecisionInput>
  readonly close: () => Promise<void>
}

/** Opens `bytes` for rendering. The caller must `close()` it. */
export const openRenderer = async (bytes: Uint8Array): Promise<PageRenderer> => {
  const task = pdfjs.getDocument({
    data: new Uint8Array(bytes),
    isEvalSupported: false,
    disableFontFace: true,
    useSystemFonts: false,
    useWorkerFetch: false,
    stopAtErrors: false,
    verbosity: 0,
    standardFontDataUrl: join(packageRoot, "standard_fonts") + "/",
    cMapUrl: join(packageRoot, "cmaps") + "/",
    cMapPacked: true,
    wasmUrl: join(packageRoot, "wasm") + "/",
    enableXfa: false
  } as Parameters<typeof pdfjs.getDocument>[0])
  const doc = await task.promise
  return {
    numPages: doc.numPages,
    render: async (pageNumber, dpi) => {
      const page = await doc.getPage(pageNumber)
      try {
        return (await embeddedScan(doc, page, dpi)) ?? (await paint(doc, page, dpi))
      } finally {
        page.cleanup()
      }
    },
    renderRegion: async (pageNumber, dpi, region) => {
      const page = await doc.getPage(pageNumber)
      try {
        return await paint(doc, page, dpi, region)
      } finally {
        page.cleanup()
      }
    },
    facts: async (pageNumber) => {
      const page = await doc.getPage(pageNumber)
      try {
        return await pageFacts(page)
      } finally {
        page.cleanup()
      }
    },
    close: () => task.destroy().catch(() => undefined)
  }
}

const paint = async (
  doc: PDFDocumentProxy,
  page: PDFPageProxy,
  dpi: number,
  region: readonly [number, number, number, number] = [0, 0, 1, 1]
): Promise<RenderedPage> => {
  const base = page.getViewport({ scale: 1 })
  const full = page.getViewport({ scale: dpi / 72 })
  // A region is painted by shifting the page so that its corner lands on the canvas origin.
  const [rx0, ry0, rx1, ry1] = region
  const left = Math.floor(rx0 * full.width), top = Math.floor(ry0 * full.height)
  const viewport = left === 0 && top === 0 ? full : page.getViewport({ scale: dpi / 72, offsetX: -left, offsetY: -top })
  const width = Math.max(1, Math.ceil(rx1 * full.width) - left)
  const height = Math.max(1, Math.ceil(ry1 * full.height) - top)
  const factory = (doc as unknown as { canvasFactory: CanvasFactory }).canvasFactory
  const { canvas, context } = factory.create(width, height)
  try {
    // Paper is white: without a fill, transparent areas would read as black after greying.
    context.fillStyle = "#ffffff"
    context.fillRect(0, 0, width, height)
    await page.render({ canvas, canvasContext: context, viewport, background: "#ffffff" } as never).promise
    const rgba = context.getImageData(0, 0, width, height).data
    const grey = new Uint8Array(width * height)
    for (let i = 0, j = 0; j < grey.length; i += 4, j++) {
      grey[j] = (rgba[i] * 77 + rgba[i + 1] * 150 + rgba[i + 2] * 29) >> 8
    }
    return {
      image: { data: grey, width, height }, dpi, via: "render", pageWidth: base.width, pageHeight: base.height,
      region: rx0 === 0 && ry0 === 0 && rx1 === 1 && ry1 === 1 ? [0, 0, 1, 1] : [left / full.width, top / full.height, (left + width) / full.width, (top + height) / full.height]
    }
  } finally {
    factory.destroy({ canvas, context })
  }
}

interface CanvasFactory {
  create(width: number, height: number): { canvas: any; context: any }
  destroy(pair: { canvas: any; context: any }): void
}

/**
 * The page's scan, when it is one image covering at least 85% of the page with no text drawn,
 * unrotated, and at a resolution the engine can use (it is resized to `dpi` when finer).
 */
const embeddedScan = async (doc: PDFDocumentProxy, page: PDFPageProxy, dpi: number): Promise<RenderedPage | undefined> => {
  if (page.rotate % 360 !== 0) return undefined
  const ops = await page.getOperatorList()
  const OPS = pdfjs.OPS
  let ctm: Matrix = [1, 0, 0, 1, 0, 0]
  const stack: Array<Matrix> = []
  let found: { name: string; ctm: Matrix } | undefined
  for (let i = 0; i < ops.fnArray.length; i++) {
    const fn = ops.fnArray[i]
    const args = ops.argsArray[i] as Array<unknown>
    if (fn === OPS.save) stack.push(ctm)
    else if (fn === OPS.restore) ctm = stack.pop() ?? ctm
    else if (fn === OPS.transform) ctm = multiply(ctm, args as unknown as Matrix)
    else if (fn === OPS.showText || fn === OPS.showSpacedText || fn === OPS.paintInlineImageXObject) return undefined
    else if (fn === OPS.paintImageXObject) {
      if (found !== undefined) return undefined
      found = { name: args[0] as string, ctm }
    }
  }
  if (found === undefined) return undefined
  const [a, b, c, d, e, f] = found.ctm
  // Only axis-aligned, upright placements: anything else needs the renderer's geometry.
  if (Math.abs(b) > 1e-3 || Math.abs(c) > 1e-3 || a <= 0 || d <= 0) return undefined
  const [, , pw, ph] = page.view.map((v, i) => (i < 2 ? v : v - page.view[i - 2])) as [number, number, number, number]
  if ((a * d) / (pw * ph) < 0.85) return undefined
  const img = await new Promise<any>((resolve) => {
    const store = found!.name.startsWith("g_") ? (doc as any).commonObjs ?? (page as any).commonObjs : (page as any).objs
    store.get(found!.name, resolve)
  })
  if (img == null || img.data == null) return undefined
  const channels = img.kind === 3 ? 4 : img.kind === 2 ? 3 : 0
  if (channels === 0) return undefined
  const nativeDpi = (img.width / a) * 72
  if (nativeDpi < dpi * 0.66) return undefined // too coarse: a pdf.js render upsamples more smoothly
  let pipeline = sharp(Buffer.from(img.data.buffer, img.data.byteOffset, img.data.byteLength), {
    raw: { width: img.width, height: img.height, channels }
  }).flatten({ background: "#ffffff" })
  let outDpi = nativeDpi
  if (nativeDpi > dpi * 1.25) {
    pipeline = pipeline.resize(Math.round(a * dpi / 72), Math.round(d * dpi / 72), { kernel: "lanczos3" })
    outDpi = dpi
  }
  return {
    image: await toGrayPixels(pipeline),
    dpi: outDpi,
    via: "embedded",
    pageWidth: pw,
    pageHeight: ph,
    region: [(e - page.view[0]) / pw, (page.view[3] - (f + d)) / ph, (e + a - page.view[0]) / pw, (page.view[3] - f) / ph]
  }
}
