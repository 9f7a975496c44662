/**
 * The plain parts of reading words drawn as outlines (regions found by OutlinedText.ts): where
 * to crop and at what resolution, and how the recognised words join the page. OcrPages.ts does
 * the rendering and the recognition with the same renderer and engine as scanned pages, and the
 * words then go through the same Layout -> ReadingOrder chain as the text layer: they are runs
 * at the region's place on the page, so reading order puts them where a reader would.
 */
import type { DrawingBox, PageElements, TextRun } from "@strata/core"

/** Glyph height in pixels the crop is rendered at: Tesseract reads best around 30-60 px letters. */
const TARGET_GLYPH_PX = 48
const MIN_DPI = 100
const MAX_DPI = 400
/** Longest side of a crop in pixels: a banner across the page is read at a lower resolution rather than as a huge image. */
const MAX_SIDE_PX = 4000

export interface RegionCrop {
  /** Normalised [x0, y0, x1, y1] of the page, top-left origin, padded. */
  readonly region: readonly [number, number, number, number]
  readonly dpi: number
}

/** The padded crop of a region and the resolution that makes its letters about `TARGET_GLYPH_PX` tall. */
export const regionCrop = (region: DrawingBox & { readonly rows?: number }, pageWidth: number, pageHeight: number): RegionCrop => {
  const rows = Math.max(1, region.rows ?? 1)
  const line = Math.max(1, (region.bottom - region.top) / rows)
  // An engine finds lines better with a margin of paper around them.
  const pad = Math.max(4, line * 0.5)
  const x0 = Math.max(0, region.x0 - pad), x1 = Math.min(pageWidth, region.x1 + pad)
  const top = Math.max(0, region.top - pad), bottom = Math.min(pageHeight, region.bottom + pad)
  let dpi = Math.min(MAX_DPI, Math.max(MIN_DPI, (72 * TARGET_GLYPH_PX) / line))
  const side = Math.max(x1 - x0, bottom - top)
  if ((side * dpi) / 72 > MAX_SIDE_PX) dpi = Math.max(36, (MAX_SIDE_PX * 72) / side)
  return { region: [x0 / pageWidth, top / pageHeight, x1 / pageWidth, bottom / pageHeight], dpi: Math.round(dpi) }
}

const inside = (d: DrawingBox, box: DrawingBox): boolean =>
  d.x0 >= box.x0 - 1 && d.x1 <= box.x1 + 1 && d.top >= box.top - 1 && d.bottom <= box.bottom + 1

/**
 * The page with the words read from its outlined regions: their runs join the text layer's,
 * and the outlines they were read from leave the drawings (else the figure stage would also
 * make a picture of them).
 */
export const withOutlinedRuns = (page: PageElements, read: ReadonlyArray<DrawingBox>, runs: ReadonlyArray<TextRun>): PageElements => {
  const { outlined: _found, ...rest } = page
  if (runs.length === 0) return rest
  return {
    ...rest,
    runs: [...page.runs, ...runs],
    drawings: page.drawings.filter((d) => !read.some((box) => inside(d, box)))
  }
}
