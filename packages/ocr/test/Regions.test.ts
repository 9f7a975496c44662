/** Our own page segmentation (Regions.ts) on a drawn page: columns, a title, lines and a table rule. */
import { describe, expect, it } from "vitest"
import type { Gray } from "../src/ImageOps.ts"
import { crop, linesOf, segment } from "../src/Regions.ts"

/** A 300-dpi strip of white with "words" (dark bars 60 px wide, 15 px apart) drawn as lines of text. */
const page = (): { gray: Gray; lines: number } => {
  const width = 2480
  const height = 1300
  const data = new Uint8Array(width * height).fill(250)
  const fill = (x0: number, y0: number, x1: number, y1: number) => {
    for (let y = y0; y < y1; y++) data.fill(20, y * width + x0, y * width + x1)
  }
  const words = (x0: number, x1: number, y: number) => {
    for (let x = x0; x + 60 <= x1; x += 75) fill(x, y, x + 60, y + 30)
  }
  // A title over the left column only, then two columns 100 px apart, then a rule under both.
  words(200, 1000, 50)
  let lines = 0
  for (let y = 150; y + 30 <= 1100; y += 42) {
    words(200, 1150, y)
    words(1250, 2200, y)
    lines++
  }
  fill(200, 1150, 2200, 1154)
  return { gray: { data, width, height }, lines }
}

describe("segment", () => {
  it("splits columns at a gutter that runs the whole height, keeps a column's pieces together and reads rules as rules", () => {
    const { gray, lines } = page()
    const found = segment(gray)
    expect(found.blocks.length).toBe(2)
    const [left, right] = found.blocks
    // The title joins the left column (a horizontal gap inside an unsplit column does not make two blocks).
    expect(left[0]).toBeLessThanOrEqual(200)
    expect(left[1]).toBeLessThanOrEqual(50)
    expect(left[2]).toBeLessThan(1250)
    expect(right[0]).toBeGreaterThan(1150)
    expect(right[1]).toBeGreaterThan(100)
    // The rule is no text: neither block reaches down to it, and its pixels are whitened in a crop.
    for (const b of found.blocks) expect(b[3]).toBeLessThan(1150)
    expect(found.rules.length).toBeGreaterThanOrEqual(2000 * 4)
    const below = crop(gray, found.rules, [200, 1140, 2200, 1160])
    expect(Math.min(...below.data)).toBeGreaterThan(found.threshold)
    expect(linesOf(gray, found.threshold, right).length).toBe(lines)
    expect(linesOf(gray, found.threshold, left).length).toBe(lines + 1)
  })

  it("leaves a blank page without blocks", () => {
    const gray: Gray = { data: new Uint8Array(600 * 800).fill(255), width: 600, height: 800 }
    expect(segment(gray).blocks).toEqual([])
  })
})
