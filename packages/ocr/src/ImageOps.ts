/**
 * Image preparation for OCR with sharp: decoding to grey pixels, skew and orientation
 * estimation, and rotation. Engines see upright, deskewed grey images; the estimates are
 * cheap (projection profiles on a downscaled copy), so they run on every OCR page.
 */
import sharp from "sharp"
import type { Sharp } from "sharp"
import type { OcrImage } from "@strata/core"

/** 8-bit grey pixels, row-major. */
export interface Gray {
  readonly data: Uint8Array
  readonly width: number
  readonly height: number
}

const sharpOf = (image: OcrImage): Sharp =>
  image._tag === "Encoded"
    ? sharp(image.data, { limitInputPixels: 20_000 * 20_000 })
    : sharp(image.data, { raw: { width: image.width, height: image.height, channels: image.channels } })

/** Runs a sharp pipeline to one-channel grey (sharp turns raw grey input into sRGB otherwise). */
export const toGrayPixels = async (pipeline: Sharp): Promise<Gray> => {
  const { data, info } = await pipeline.toColourspace("b-w").raw().toBuffer({ resolveWithObject: true })
  if (info.channels !== 1) throw new Error(`expected grey pixels, got ${info.channels} channels`)
  return { data: new Uint8Array(data.buffer, data.byteOffset, info.width * info.height), width: info.width, height: info.height }
}

export const graySharp = (gray: Gray): Sharp => sharp(gray.data, { raw: { width: gray.width, height: gray.height, channels: 1 } })

/** Decodes any input to grey; alpha is flattened onto white so transparent scans read as paper. */
export const toGray = async (image: OcrImage): Promise<Gray> => {
  if (image._tag === "Raw" && image.channels === 1) return { data: image.data, width: image.width, height: image.height }
  return toGrayPixels(sharpOf(image).flatten({ background: "#ffffff" }))
}

export const grayToPng = async (gray: Gray): Promise<Uint8Array> =>
  new Uint8Array(await sharp(gray.data, { raw: { width: gray.width, height: gray.height, channels: 1 } }).png({ compressionLevel: 1 }).toBuffer())

/** Otsu's threshold over the histogram. */
export const otsuThreshold = (gray: Gray): number => {
  const hist = new Float64Array(256)
  const d = gray.data
  for (let i = 0; i < d.length; i++) hist[d[i]]++
  const total = d.length
  let sum = 0
  for (let t = 0; t < 256; t++) sum += t * hist[t]
  let sumB = 0
  let wB = 0
  let best = 0
  let threshold = 128
  for (let t = 0; t < 256; t++) {
    wB += hist[t]
    if (wB === 0) continue
    const wF = total - wB
    if (wF === 0) break
    sumB += t * hist[t]
    const mB = sumB / wB
    const mF = (sum - sumB) / wF
    const between = wB * wF * (mB - mF) * (mB - mF)
    if (between > best) {
      best = between
      threshold = t
    }
  }
  return threshold
}

/** Ink pixel coordinates of a downscaled copy (about `side` px on the long side), for the estimators. */
export const inkPoints = async (gray: Gray, side = 1200): Promise<{ xs: Int32Array; ys: Int32Array; width: number; height: number }> => {
  const scale = Math.min(1, side / Math.max(gray.width, gray.height))
  const small: Gray = scale < 1
    ? await toGrayPixels(
      graySharp(gray).resize(Math.max(1, Math.round(gray.width * scale)), Math.max(1, Math.round(gray.height * scale)), { kernel: "linear" })
    )
    : gray
  const t = Math.min(otsuThreshold(small), 200)
  let count = 0
  for (let i = 0; i < small.data.length; i++) if (small.data[i] < t) count++
  // Beyond ~60k points the estimates do not improve; stride keeps the cost flat on dense pages.
  const stride = Math.max(1, Math.ceil(count / 60_000))
  const n = Math.ceil(count / stride)
  const xs = new Int32Array(n)
  const ys = new Int32Array(n)
  let k = 0
  let seen = 0
  for (let y = 0; y < small.height; y++) {
    const row = y * small.width
    for (let x = 0; x < small.width; x++) {
      if (small.data[row + x] < t) {
        if (seen++ % stride === 0 && k < n) {
          xs[k] = x
          ys[k] = y
          k++
        }
      }
    }
  }
  return { xs: xs.subarray(0, k), ys: ys.subarray(0, k), width: small.width, height: small.height }
}

/** Concentration of a projection profile (sum of squares over the squared total): text lines pack ink into bands. */
const concentration = (bins: Float64Array, binSize = 1): number => {
  let sq = 0
  let total = 0
  for (let i = 0; i < bins.length; i += binSize) {
    let v = 0
    for (let k = i; k < Math.min(bins.length, i + binSize); k++) v += bins[k]
    sq += v * v
    total += v
  }
  return total === 0 ? 0 : sq / (total * total)
}

const projectAt = (xs: Int32Array, ys: Int32Array, size: number, angleDeg: number): Float64Array => {
  const a = (angleDeg * Math.PI) / 180
  const sin = Math.sin(a)
  const cos = Math.cos(a)
  const offset = size
  const bins = new Float64Array(size * 3)
  for (let i = 0; i < xs.length; i++) {
    const r = Math.round(ys[i] * cos - xs[i] * sin) + offset
    if (r >= 0 && r < bins.length) bins[r]++
  }
  return bins
}

export interface Orientation {
  /** Clockwise rotation (0, 90, 180, 270) that makes the text upright. */
  readonly rotation: 0 | 90 | 180 | 270
  /** Degrees to rotate (after `rotation`) to level the lines; positive is clockwise. */
  readonly skew: number
}

/** The points split into `n` vertical strips by x (columns of text fall into different strips). */
const strips = (xs: Int32Array, ys: Int32Array, n: number): Array<{ xs: Int32Array; ys: Int32Array }> => {
  let max = 1
  for (const x of xs) if (x + 1 > max) max = x + 1
  const counts = new Int32Array(n)
  for (const x of xs) counts[Math.min(n - 1, Math.floor((x * n) / max))]++
  const out = Array.from(counts, (c) => ({ xs: new Int32Array(c), ys: new Int32Array(c), k: 0 }))
  for (let i = 0; i < xs.length; i++) {
    const s = out[Math.min(n - 1, Math.floor((xs[i] * n) / max))]
    s.xs[s.k] = xs[i]
    s.ys[s.k++] = ys[i]
  }
  return out
}

/** The angle whose projection packs the ink into the tightest bands, summed over `parts` (weighted by their points). */
const skewSearch = (parts: ReadonlyArray<{ readonly xs: Int32Array; readonly ys: Int32Array }>, size: number) => {
  const score = (angle: number) => {
    let total = 0
    for (const p of parts) total += concentration(projectAt(p.xs, p.ys, size, angle)) * p.xs.length
    return total
  }
  let best = { angle: 0, score: -1 }
  for (let angle = -6; angle <= 6.0001; angle += 0.5) {
    const s = score(angle)
    if (s > best.score) best = { angle, score: s }
  }
  const coarse = best.angle
  for (let angle = coarse - 0.4; angle <= coarse + 0.4001; angle += 0.1) {
    const s = score(angle)
    if (s > best.score) best = { angle, score: s }
  }
  return best
}

/**
 * Estimates how far the page is turned. Which axis packs the ink into bands (measured at a
 * scale coarser than letter stems) decides 0/180 against 90/270; within a pair, Latin text has
 * more ink above its x-height band (ascenders, capitals) than below it (descenders).
 */
export const estimateOrientation = async (gray: Gray): Promise<Orientation> => {
  const pts = await inkPoints(gray)
  if (pts.xs.length < 200) return { rotation: 0, skew: 0 }
  const size = Math.max(pts.width, pts.height)
  const rows = skewSearch([{ xs: pts.xs, ys: pts.ys }], size)
  const cols = skewSearch([{ xs: pts.ys, ys: pts.xs }], size)
  const coarseRows = concentration(projectAt(pts.xs, pts.ys, size, rows.angle), 4)
  const coarseCols = concentration(projectAt(pts.ys, pts.xs, size, cols.angle), 4)
  const sideways = coarseCols > coarseRows * 1.15
  const xs = sideways ? pts.ys : pts.xs
  const ys = sideways ? pts.xs : pts.ys
  // The angle and the upside-down test are measured per half of the page: two columns whose lines
  // do not line up across the gutter pack best, as a whole, at a slight tilt (a clean two-column
  // page read as turned -1 degree, which tilted every line the line engine cut), and blur each
  // other's bands. Which axis holds the lines is still decided on the whole page, as before.
  const halves = strips(xs, ys, 2)
  const level = skewSearch(halves, size)
  let above = 0
  let below = 0
  for (const half of halves) {
    const ink = inkAroundCore(projectAt(half.xs, half.ys, size, level.angle))
    above += ink.above
    below += ink.below
  }
  const flip = below > above * 1.1
  // With axes swapped (x' = y, y' = x) the frame is mirrored: "upright" there means the page was
  // turned 90 degrees counter-clockwise (a clockwise 90 undoes it), "upside down" the other way.
  const rotation: Orientation["rotation"] = sideways ? (flip ? 270 : 90) : (flip ? 180 : 0)
  // A projection angle a levels lines by turning points by -a; sharp's rotate is clockwise-positive.
  const skew = sideways ? level.angle : -level.angle
  return { rotation, skew: Math.abs(skew) < 0.15 ? 0 : Math.round(skew * 10) / 10 }
}

/** Per text line of the profile, the ink above and below its core (x-height) band, summed: Latin text has more above. */
const inkAroundCore = (bins: Float64Array): { above: number; below: number } => {
  let max = 0
  for (const v of bins) if (v > max) max = v
  if (max === 0) return { above: 0, below: 0 }
  const floor = max * 0.02
  let above = 0
  let below = 0
  let i = 0
  while (i < bins.length) {
    if (bins[i] <= floor) {
      i++
      continue
    }
    let j = i
    let lineMax = 0
    while (j < bins.length && bins[j] > floor) lineMax = Math.max(lineMax, bins[j++])
    let c0 = i
    while (c0 < j && bins[c0] < lineMax * 0.5) c0++
    let c1 = j - 1
    while (c1 > c0 && bins[c1] < lineMax * 0.5) c1--
    for (let k = i; k < c0; k++) above += bins[k]
    for (let k = c1 + 1; k < j; k++) below += bins[k]
    i = j
  }
  return { above, below }
}

/** Applies an orientation: the 90-degree turn, then the skew, on a white background. */
export const applyOrientation = async (gray: Gray, o: Orientation): Promise<Gray> => {
  let out = gray
  if (o.rotation !== 0) out = await toGrayPixels(graySharp(out).rotate(o.rotation))
  if (o.skew !== 0) out = await toGrayPixels(graySharp(out).rotate(o.skew, { background: "#ffffff" }))
  return out
}

/** Global Otsu binarisation: helps tesseract on noisy or low-contrast scans, hurts nothing on clean ones. */
export const binarise = (gray: Gray): Gray => {
  const t = otsuThreshold(gray)
  const out = new Uint8Array(gray.data.length)
  for (let i = 0; i < out.length; i++) out[i] = gray.data[i] < t ? 0 : 255
  return { data: out, width: gray.width, height: gray.height }
}

/** Median filter (3x3) through sharp: removes salt-and-pepper noise before binarisation. */
export const denoise = async (gray: Gray): Promise<Gray> => {
  return toGrayPixels(graySharp(gray).median(3))
}
