/**
 * 2-D affine matrices as PDF writes them, `[a, b, c, d, e, f]`: the one place the PDF reader,
 * the figure finder and the OCR renderer compose transforms and map points through them.
 */

export type Matrix = [number, number, number, number, number, number]

export const IDENTITY: Matrix = [1, 0, 0, 1, 0, 0]

/** `m` after `n`: the transform that applies `n` first, then `m` (PDF's `cm` concatenation order). */
export const multiplyMatrix = (m: ReadonlyArray<number>, n: ReadonlyArray<number>): Matrix => [
  m[0] * n[0] + m[2] * n[1],
  m[1] * n[0] + m[3] * n[1],
  m[0] * n[2] + m[2] * n[3],
  m[1] * n[2] + m[3] * n[3],
  m[0] * n[4] + m[2] * n[5] + m[4],
  m[1] * n[4] + m[3] * n[5] + m[5]
]

/** The point (x, y) mapped through `m`. */
export const applyMatrix = (m: ReadonlyArray<number>, x: number, y: number): [number, number] => [
  m[0] * x + m[2] * y + m[4],
  m[1] * x + m[3] * y + m[5]
]
