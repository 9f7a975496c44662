/**
 * The operator-list walk of a page: axis-aligned rules (strokes, thin fills, rectangle sides) for
 * the table stage and image placements for the figure stage, in page space, tracking the CTM
 * through saves, transforms and form XObjects. Nothing is drawn or decoded.
 */
import type { ImageBox, Rule } from "./PageContent.ts"
import { multiplyMatrix as multiply, type Matrix } from "@strata/core"
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

/** The box of the unit square under `m`. */
const unitBox = (m: Matrix): ImageBox => {
  const xs = [m[4], m[0] + m[4], m[2] + m[4], m[0] + m[2] + m[4]]
  const ys = [m[5], m[1] + m[5], m[3] + m[5], m[1] + m[3] + m[5]]
  return { x0: Math.min(...xs), x1: Math.max(...xs), top: Math.min(...ys), bottom: Math.max(...ys) }
}

/** Walks the operator list for axis-aligned strokes and thin fills and for image placements, tracking the CTM. */
export const graphicsFrom = (fnArray: ArrayLike<number>, argsArray: ReadonlyArray<unknown>, base: Matrix): { rules: Array<Rule>; images: Array<ImageBox> } => {
  const OPS = pdfjs.OPS
  neutral ??= neutralOps()
  const rules: Array<Rule> = []
  const images: Array<ImageBox> = []
  const stack: Array<Matrix> = []
  let ctm = base
  let lineWidth = 1
  const widthStack: Array<number> = []
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
  const addSegment = (ax: number, ay: number, bx: number, by: number, thickness: number) => {
    const dx = Math.abs(bx - ax)
    const dy = Math.abs(by - ay)
    if (dy <= 1 && dx > 2) rules.push({ horizontal: true, x0: Math.min(ax, bx), x1: Math.max(ax, bx), y0: (ay + by) / 2, y1: (ay + by) / 2 })
    else if (dx <= 1 && dy > 2) rules.push({ horizontal: false, x0: (ax + bx) / 2, x1: (ax + bx) / 2, y0: Math.min(ay, by), y1: Math.max(ay, by) })
    void thickness
  }
  for (let i = 0; i < fnArray.length; i++) {
    const fn = fnArray[i]
    if (fn === OPS.save) {
      stack.push(ctm)
      widthStack.push(lineWidth)
      open()
    } else if (fn === OPS.restore) {
      close()
      ctm = stack.pop() ?? base
      lineWidth = widthStack.pop() ?? 1
    } else if (fn === OPS.transform) {
      ctm = multiply(ctm, argsArray[i] as Matrix)
      if (moved.length > 0) moved[moved.length - 1] = true
    } else if (fn === OPS.paintFormXObjectBegin) {
      stack.push(ctm)
      widthStack.push(lineWidth)
      open()
      const matrix = (argsArray[i] as [Matrix | null])[0]
      if (Array.isArray(matrix) || ArrayBuffer.isView(matrix)) {
        ctm = multiply(ctm, matrix as unknown as Matrix)
        moved[moved.length - 1] = true
      }
    } else if (fn === OPS.paintFormXObjectEnd) {
      close()
      ctm = stack.pop() ?? base
      lineWidth = widthStack.pop() ?? 1
    } else if (fn === OPS.setLineWidth) {
      lineWidth = (argsArray[i] as [number])[0]
    } else if (fn === OPS.paintImageXObject || fn === OPS.paintInlineImageXObject || fn === OPS.paintImageMaskXObject ||
      fn === OPS.paintImageXObjectRepeat || fn === OPS.paintSolidColorImageMask) {
      // Painted images (pdf.js keeps those of one pixel, and masks) fill the unit square of their CTM.
      images.push(unitBox(ctm))
      if (drew.length > 0) drew[drew.length - 1] = true
    } else if (fn === OPS.constructPath) {
      const [paint, [data]] = argsArray[i] as [number, [Float32Array | null]]
      if (data === null || paint === OPS.endPath) continue
      if (drew.length > 0) drew[drew.length - 1] = true
      const stroked = paint === OPS.stroke || paint === OPS.closeStroke || paint === OPS.fillStroke ||
        paint === OPS.eoFillStroke || paint === OPS.closeFillStroke || paint === OPS.closeEOFillStroke
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
          if (h <= 3 && w > 2) addSegment(minX, (minY + maxY) / 2, maxX, (minY + maxY) / 2, h)
          else if (w <= 3 && h > 2) addSegment((minX + maxX) / 2, minY, (minX + maxX) / 2, maxY, w)
          else if (stroked || n <= 5) {
            // A rectangle (or closed polygon): its sides may be cell borders.
            for (let k = 0; k + 3 < points.length; k += 2) addSegment(points[k], points[k + 1], points[k + 2], points[k + 3], lineWidth)
            addSegment(points[points.length - 2], points[points.length - 1], points[0], points[1], lineWidth)
          }
        } else if (stroked && !curved) {
          for (let k = 0; k + 3 < points.length; k += 2) addSegment(points[k], points[k + 1], points[k + 2], points[k + 3], lineWidth)
        }
        points.length = 0
        curved = false
      }
      for (let k = 0; k < data.length;) {
        const op = data[k]
        if (op === 0) { // moveTo
          flush()
          ;[curX, curY] = point(data[k + 1], data[k + 2])
          startX = curX; startY = curY
          points.push(curX, curY)
          k += 3
        } else if (op === 1) { // lineTo
          ;[curX, curY] = point(data[k + 1], data[k + 2])
          points.push(curX, curY)
          k += 3
        } else if (op === 2) { // curveTo
          curved = true
          ;[curX, curY] = point(data[k + 5], data[k + 6])
          k += 7
        } else if (op === 3) { // quadraticCurveTo
          curved = true
          ;[curX, curY] = point(data[k + 3], data[k + 4])
          k += 5
        } else { // closePath
          if (points.length >= 2 && (curX !== startX || curY !== startY) && points.length < 8) points.push(startX, startY)
          k += 1
        }
      }
      flush()
    } else if (drew.length > 0 && !neutral.has(fn)) {
      drew[drew.length - 1] = true
    }
  }
  return { rules, images }
}

