/**
 * Post-processing of a DB (differentiable binarisation) text detector's probability map:
 * threshold, connected components, a score per component, and "unclip" (the network predicts
 * shrunk text kernels, so each box is grown back by area x ratio / perimeter).
 *
 * Boxes are axis-aligned: pages are deskewed before detection, so rotated rectangles would buy
 * little for the cost of a min-area-rectangle search.
 */

export interface DbOptions {
  /** Pixels with probability above this are text (PaddleOCR: 0.3). */
  readonly threshold: number
  /** Components whose mean probability is below this are dropped (PaddleOCR: 0.6). */
  readonly boxThreshold: number
  /** How far shrunk kernels are grown back (PaddleOCR: 1.5). */
  readonly unclipRatio: number
  /** Components with a side shorter than this (map pixels) are noise. */
  readonly minSize: number
}

export const defaultDbOptions: DbOptions = { threshold: 0.3, boxThreshold: 0.6, unclipRatio: 1.5, minSize: 3 }

export interface DetectedBox {
  /** [x0, y0, x1, y1] in map pixels, after unclip, clamped to the map. */
  readonly box: readonly [number, number, number, number]
  readonly score: number
}

/** Finds text boxes in a `width` x `height` probability map (row-major). */
export const dbBoxes = (prob: Float32Array, width: number, height: number, options: DbOptions = defaultDbOptions): Array<DetectedBox> => {
  const n = width * height
  const label = new Int32Array(n) // 0 = unvisited / background, -1 = queued or done
  const stack = new Int32Array(n)
  const out: Array<DetectedBox> = []
  for (let start = 0; start < n; start++) {
    if (label[start] !== 0 || prob[start] <= options.threshold) continue
    // Flood fill (8-connected) with an explicit stack: components can be larger than the call stack.
    let top = 0
    stack[top++] = start
    label[start] = -1
    let x0 = width
    let y0 = height
    let x1 = -1
    let y1 = -1
    let sum = 0
    let count = 0
    while (top > 0) {
      const p = stack[--top]
      const y = (p / width) | 0
      const x = p - y * width
      sum += prob[p]
      count++
      if (x < x0) x0 = x
      if (x > x1) x1 = x
      if (y < y0) y0 = y
      if (y > y1) y1 = y
      for (let dy = -1; dy <= 1; dy++) {
        const yy = y + dy
        if (yy < 0 || yy >= height) continue
        for (let dx = -1; dx <= 1; dx++) {
          const xx = x + dx
          if (xx < 0 || xx >= width || (dx === 0 && dy === 0)) continue
          const q = yy * width + xx
          if (label[q] === 0 && prob[q] > options.threshold) {
            label[q] = -1
            stack[top++] = q
          }
        }
      }
    }
    const w = x1 - x0 + 1
    const h = y1 - y0 + 1
    if (Math.min(w, h) < options.minSize) continue
    const score = sum / count
    if (score < options.boxThreshold) continue
    const distance = (w * h * options.unclipRatio) / (2 * (w + h))
    out.push({
      box: [
        Math.max(0, x0 - distance),
        Math.max(0, y0 - distance),
        Math.min(width, x1 + 1 + distance),
        Math.min(height, y1 + 1 + distance)
      ],
      score
    })
  }
  return out
}
