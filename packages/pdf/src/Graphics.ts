/**
 * The operator-list walk of a page: axis-aligned rules (strokes, thin fills, rectangle sides) for
 * the table stage, image placements and the boxes of painted paths (drawings) for the figure
 * stage, in page space, tracking the CTM through saves, transforms and form XObjects. Nothing is
 * drawn or decoded.
 */
import type { DrawingBox, ImageBox, Rule } from "./PageContent.ts"
import { multiplyMatrix as multiply, type Matrix } from "@strata/core"
import { MAX_CONTOURS, type PathContour } from "./OutlinedText.ts"
import { pdfjs } from "./PdfJs.ts"

/**
 * Operators that draw nothing: a save group holding only these (and a transform) is where pdf.js
 * dropped an image. Pixels are never decoded (`maxImageSize: 1` in PdfJs.ts), and pdf.js then
 * leaves out the paint operator itself, but not the `q cm ... Q` that placed it: the group's
 * transform maps the unit square onto the image, as the paint would have.
 */
const neutralOps = (): Set<number> => {
  const OPS = pdfjs.OPS
  return new Set([
    OPS.dependency, OPS.setGState, OPS.clip, OPS.eoClip, OPS.endPath, OPS.beginMarkedContent, OPS.beginMarkedContentProps,
    OPS.endMarkedContent, OPS.markPoint, OPS.markPointProps, OPS.setFillRGBColor, OPS.setStrokeRGBColor, OPS.setFillGray,
    OPS.setStrokeGray, OPS.setFillCMYKColor, OPS.setStrokeCMYKColor, OPS.setFillColorSpace, OPS.setStrokeColorSpace,
    OPS.setFillColor, OPS.setStrokeColor, OPS.setFillColorN, OPS.setStrokeColorN, OPS.setRenderingIntent, OPS.setFlatness,
    OPS.setLineWidth, OPS.setLineCap, OPS.setLineJoin, OPS.setMiterLimit, OPS.setDash, OPS.setCharSpacing,
    OPS.setWordSpacing, OPS.setHScale, OPS.setLeading, OPS.setFont, OPS.setTextRenderingMode, OPS.setTextRise
  ])
}
let neutral: Set<number> | undefined

/**
 * Paths kept per page: enough for any chart or diagram; beyond it (maps, vector art of tens of
 * thousands of strokes) the first ones already outline the picture, and the figure stage's cost
 * stays bounded.
 */
const MAX_DRAWINGS = 4000

/** The box of the path-space rectangle `minX, minY, maxX, maxY` under `m`. */
const pathBox = (m: Matrix, minX: number, minY: number, maxX: number, maxY: number): DrawingBox => {
  const ax = m[0] * minX, bx = m[0] * maxX, cx = m[2] * minY, dx = m[2] * maxY
  const ay = m[1] * minX, by = m[1] * maxX, cy = m[3] * minY, dy = m[3] * maxY
  return {
    x0: Math.min(ax, bx) + Math.min(cx, dx) + m[4], x1: Math.max(ax, bx) + Math.max(cx, dx) + m[4],
    top: Math.min(ay, by) + Math.min(cy, dy) + m[5], bottom: Math.max(ay, by) + Math.max(cy, dy) + m[5]
  }
}

/** The box of the unit square under `m` (where an image is painted). */
const unitBox = (m: Matrix): ImageBox => pathBox(m, 0, 0, 1, 1)

/** The path-space bounds of a path buffer (control points included: a slightly generous box is fine). */
const bufferBounds = (data: Float32Array): [number, number, number, number] | undefined => {
  let minX = Infinity, minY = Infinity, maxX = -Infinity, maxY = -Infinity
  for (let k = 0; k < data.length;) {
    const op = data[k]
    const n = op === 0 || op === 1 ? 2 : op === 2 ? 6 : op === 3 ? 4 : 0
    for (let j = k + 1; j < k + 1 + n; j += 2) {
      minX = Math.min(minX, data[j]); maxX = Math.max(maxX, data[j])
      minY = Math.min(minY, data[j + 1]); maxY = Math.max(maxY, data[j + 1])
    }
    k += 1 + n
  }
  return minX <= maxX ? [minX, minY, maxX, maxY] : undefined
}

/** Walks the operator list for axis-aligned strokes and thin fills, image placements and painted paths, tracking the CTM. */
export const graphicsFrom = (
  fnArray: ArrayLike<number>,
  argsArray: ReadonlyArray<unknown>,
  base: Matrix
): { rules: Array<Rule>; images: Array<ImageBox>; drawings: Array<DrawingBox>; contours: Array<PathContour> } => {
  const OPS = pdfjs.OPS
  neutral ??= neutralOps()
  const rules: Array<Rule> = []
  // The subpaths of filled paths, one box each: words drawn as outlines are found from them (OutlinedText.ts).
  // The current subpath's box (end points only: control points would only widen it a little) and its segments.
  const contours: Array<PathContour> = []
  let cx0 = Infinity, cy0 = Infinity, cx1 = -Infinity, cy1 = -Infinity, cCurves = 0, cSegments = 0
  const track = (x: number, y: number, curve: number) => {
    if (x < cx0) cx0 = x
    if (x > cx1) cx1 = x
    if (y < cy0) cy0 = y
    if (y > cy1) cy1 = y
    cSegments++
    cCurves += curve
  }
  const endContour = () => {
    if (cSegments >= 3 && cx0 <= cx1 && contours.length < MAX_CONTOURS) {
      contours.push({ x0: cx0, x1: cx1, top: cy0, bottom: cy1, curves: cCurves, segments: cSegments - 1 })
    }
    cx0 = cy0 = Infinity
    cx1 = cy1 = -Infinity
    cCurves = cSegments = 0
  }
  const images: Array<ImageBox> = []
  const drawings: Array<DrawingBox> = []
  const stack: Array<Matrix> = []
  let ctm = base
  // The clipping box (drawings outside it are not seen: shading strokes run past a picture's clip).
  let clip: DrawingBox | undefined
  const clipStack: Array<DrawingBox | undefined> = []
  let clipNext = false
  const clipTo = (box: DrawingBox) => {
    clip = clip === undefined ? box : {
      x0: Math.max(clip.x0, box.x0), x1: Math.min(clip.x1, box.x1), top: Math.max(clip.top, box.top), bottom: Math.min(clip.bottom, box.bottom)
    }
  }
  // Per open group: whether it drew anything, and whether its transform changed.
  const drew: Array<boolean> = []
  const moved: Array<boolean> = []
  const open = () => { drew.push(false); moved.push(false) }
  const close = () => {
    const d = drew.pop() ?? true
    const m = moved.pop() ?? false
    if (!d && m) images.push(unitBox(ctm))
    if (d && drew.length > 0) drew[drew.length - 1] = true
  }
  const point = (x: number, y: number): [number, number] => [ctm[0] * x + ctm[2] * y + ctm[4], ctm[1] * x + ctm[3] * y + ctm[5]]
  const addSegment = (ax: number, ay: number, bx: number, by: number, edge = false) => {
    const dx = Math.abs(bx - ax)
    const dy = Math.abs(by - ay)
    const side = edge ? { edge: true } : {}
    if (dy <= 1 && dx > 2) rules.push({ horizontal: true, x0: Math.min(ax, bx), x1: Math.max(ax, bx), y0: (ay + by) / 2, y1: (ay + by) / 2, ...side })
    else if (dx <= 1 && dy > 2) rules.push({ horizontal: false, x0: (ax + bx) / 2, x1: (ax + bx) / 2, y0: Math.min(ay, by), y1: Math.max(ay, by), ...side })
  }
  for (let i = 0; i < fnArray.length; i++) {
    const fn = fnArray[i]
    if (fn === OPS.save) {
      stack.push(ctm)
      clipStack.push(clip)
      open()
    } else if (fn === OPS.restore) {
      close()
      ctm = stack.pop() ?? base
      clip = clipStack.pop()
    } else if (fn === OPS.clip || fn === OPS.eoClip) {
      clipNext = true
    } else if (fn === OPS.transform) {
      ctm = multiply(ctm, argsArray[i] as Matrix)
      if (moved.length > 0) moved[moved.length - 1] = true
    } else if (fn === OPS.paintFormXObjectBegin) {
      stack.push(ctm)
      clipStack.push(clip)
      open()
      const [matrix, bbox] = argsArray[i] as [Matrix | null, ArrayLike<number> | null]
      if (Array.isArray(matrix) || ArrayBuffer.isView(matrix)) {
        ctm = multiply(ctm, matrix as unknown as Matrix)
        moved[moved.length - 1] = true
      }
      // A form draws only inside its bounding box.
      if ((Array.isArray(bbox) || ArrayBuffer.isView(bbox)) && bbox.length === 4) {
        clipTo(pathBox(ctm, Math.min(bbox[0], bbox[2]), Math.min(bbox[1], bbox[3]), Math.max(bbox[0], bbox[2]), Math.max(bbox[1], bbox[3])))
      }
    } else if (fn === OPS.paintFormXObjectEnd) {
      close()
      ctm = stack.pop() ?? base
      clip = clipStack.pop()
    } else if (fn === OPS.paintImageXObject || fn === OPS.paintInlineImageXObject || fn === OPS.paintImageMaskXObject ||
      fn === OPS.paintImageXObjectRepeat || fn === OPS.paintSolidColorImageMask) {
      // Painted images (pdf.js keeps those of one pixel, and masks) fill the unit square of their CTM.
      images.push(unitBox(ctm))
      if (drew.length > 0) drew[drew.length - 1] = true
    } else if (fn === OPS.constructPath) {
      const [paint, [data], minMax] = argsArray[i] as [number, [Float32Array | null], ArrayLike<number> | null | undefined]
      const clipping = clipNext
      clipNext = false
      if (data === null || (paint === OPS.endPath && !clipping)) continue
      if (clipping || drawings.length < MAX_DRAWINGS) {
        // pdf.js gives the path's bounds in its own space (`minMax`); older shapes of the list may not.
        const bounds = minMax !== null && minMax !== undefined && minMax.length === 4 && minMax[0] <= minMax[2]
          ? [minMax[0], minMax[1], minMax[2], minMax[3]]
          : bufferBounds(data)
        if (bounds !== undefined) {
          const box = pathBox(ctm, bounds[0], bounds[1], bounds[2], bounds[3])
          // A clip applies after the path that sets it is painted, but painting and clipping with one path covers the same box.
          if (clipping) clipTo(box)
          if (paint !== OPS.endPath && drawings.length < MAX_DRAWINGS) {
            if (clip === undefined) drawings.push(box)
            else {
              const x0 = Math.max(box.x0, clip.x0), x1 = Math.min(box.x1, clip.x1), top = Math.max(box.top, clip.top), bottom = Math.min(box.bottom, clip.bottom)
              if (x0 <= x1 && top <= bottom) drawings.push({ x0, x1, top, bottom })
            }
          }
        }
      }
      if (paint === OPS.endPath) continue
      if (drew.length > 0) drew[drew.length - 1] = true
      const stroked = paint === OPS.stroke || paint === OPS.closeStroke || paint === OPS.fillStroke ||
        paint === OPS.eoFillStroke || paint === OPS.closeFillStroke || paint === OPS.closeEOFillStroke
      const filled = paint !== OPS.stroke && paint !== OPS.closeStroke && contours.length < MAX_CONTOURS
      // Walk the path: straight segments only; curves end the current run of points.
      let startX = 0, startY = 0, curX = 0, curY = 0
      const points: Array<number> = []
      let curved = false
      const flush = () => {
        const n = points.length / 2
        if (n >= 4 && !curved) {
          let minX = Infinity, minY = Infinity, maxX = -Infinity, maxY = -Infinity
          for (let k = 0; k < points.length; k += 2) {
            minX = Math.min(minX, points[k]); maxX = Math.max(maxX, points[k])
            minY = Math.min(minY, points[k + 1]); maxY = Math.max(maxY, points[k + 1])
          }
          const w = maxX - minX
          const h = maxY - minY
          if (h <= 3 && w > 2) addSegment(minX, (minY + maxY) / 2, maxX, (minY + maxY) / 2)
          else if (w <= 3 && h > 2) addSegment((minX + maxX) / 2, minY, (minX + maxX) / 2, maxY)
          else if (stroked || n <= 5) {
            // A rectangle (or closed polygon): its sides may be cell borders; a filled one's are edges.
            for (let k = 0; k + 3 < points.length; k += 2) addSegment(points[k], points[k + 1], points[k + 2], points[k + 3], !stroked)
            addSegment(points[points.length - 2], points[points.length - 1], points[0], points[1], !stroked)
          }
        } else if (stroked && !curved) {
          for (let k = 0; k + 3 < points.length; k += 2) addSegment(points[k], points[k + 1], points[k + 2], points[k + 3])
        }
        points.length = 0
        curved = false
      }
      for (let k = 0; k < data.length;) {
        const op = data[k]
        if (op === 0) { // moveTo
          flush()
          if (filled) endContour()
          ;[curX, curY] = point(data[k + 1], data[k + 2])
          startX = curX; startY = curY
          points.push(curX, curY)
          if (filled) track(curX, curY, 0)
          k += 3
        } else if (op === 1) { // lineTo
          ;[curX, curY] = point(data[k + 1], data[k + 2])
          points.push(curX, curY)
          if (filled) track(curX, curY, 0)
          k += 3
        } else if (op === 2) { // curveTo
          curved = true
          ;[curX, curY] = point(data[k + 5], data[k + 6])
          if (filled) track(curX, curY, 1)
          k += 7
        } else if (op === 3) { // quadraticCurveTo
          curved = true
          ;[curX, curY] = point(data[k + 3], data[k + 4])
          if (filled) track(curX, curY, 1)
          k += 5
        } else { // closePath
          if (points.length >= 2 && (curX !== startX || curY !== startY) && points.length < 8) points.push(startX, startY)
          k += 1
        }
      }
      flush()
      if (filled) endContour()
    } else if (drew.length > 0 && !neutral.has(fn)) {
      drew[drew.length - 1] = true
    }
  }
  return { rules, images, drawings, contours }
}

