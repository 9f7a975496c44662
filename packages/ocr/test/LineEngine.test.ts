/**
 * The pieces of our own line engine that do not need the model: finding a line's ink, scaling it
 * to the model's 32-pixel input, and placing decoded characters back on the page as words.
 */
import { describe, expect, it } from "vitest"
import type { CtcLine } from "../src/CtcDecode.ts"
import type { Gray } from "../src/ImageOps.ts"
import { fillLine, inkBox, readCharset, wordsOf } from "../src/LineEngine.ts"
import { fileURLToPath } from "node:url"

/** A white page with black rectangles. */
const page = (width: number, height: number, rects: ReadonlyArray<readonly [number, number, number, number]>): Gray => {
  const data = new Uint8Array(width * height).fill(255)
  for (const [x0, y0, x1, y1] of rects) for (let y = y0; y < y1; y++) for (let x = x0; x < x1; x++) data[y * width + x] = 0
  return { data, width, height }
}

describe("line engine pieces", () => {
  it("cuts a line to its ink with a margin of a tenth of its height, ignoring lone specks", () => {
    const g = page(400, 100, [[50, 30, 300, 70], [380, 5, 381, 6]])
    const box = inkBox(g, 128, [0, 0, 400, 100])
    expect(box).toEqual([40, 26, 309, 73])
  })

  it("finds no line in a box without glyph-sized ink", () => {
    expect(inkBox(page(100, 40, [[10, 10, 11, 11]]), 128, [0, 0, 100, 40])).toBeUndefined()
    expect(inkBox(page(100, 40, []), 128, [0, 0, 100, 40])).toBeUndefined()
  })

  it("scales a line to 32 px high with ink 1 and paper 0, keeping area (antialiased) and whitening rules", () => {
    // Left half ink, right half paper, 64 px high: at half scale the halves stay, the seam averages.
    const g = page(128, 64, [[0, 0, 64, 64]])
    const out = new Float32Array(32 * 80).fill(-1)
    fillLine(g, undefined, [0, 0, 128, 64], 64, 80, out, 0)
    for (let y = 0; y < 32; y++) {
      expect(out[y * 80 + 10]).toBeCloseTo(1, 5)
      expect(out[y * 80 + 50]).toBeCloseTo(0, 5)
      // Padding beyond the line's width is left to the caller.
      expect(out[y * 80 + 70]).toBe(-1)
    }
    let total = 0
    for (let y = 0; y < 32; y++) for (let x = 0; x < 64; x++) total += out[y * 80 + x]
    expect(total).toBeCloseTo(32 * 32, 1)
    // The same page with its ink marked as a rule reads as paper.
    const mask = new Uint8Array(128 * 64)
    for (let y = 0; y < 64; y++) for (let x = 0; x < 64; x++) mask[y * 128 + x] = 1
    fillLine(g, mask, [0, 0, 128, 64], 64, 80, out, 0)
    expect(Math.max(...out.subarray(0, 64))).toBeCloseTo(0, 5)
  })

  it("splits a decoded line into words at its spaces, placed by their steps", () => {
    const chars = [..."ab cd"].map((char, i) => ({ char, step: i * 3, prob: char === " " ? 0.9 : 0.8 }))
    const line: CtcLine = { text: "ab cd", chars, confidence: 0.8 }
    const words = wordsOf(line, [100, 10, 400, 42], 4)
    expect(words.map((w) => w.text)).toEqual(["ab", "cd"])
    expect(words[0].bbox).toEqual([100, 10, 118, 42])
    expect(words[1].bbox).toEqual([134, 10, 154, 42])
    expect(words[0].confidence).toBeCloseTo(0.8)
  })

  it("reads the committed model's character set with the CTC blank first", () => {
    const charset = readCharset(fileURLToPath(new URL("../../../models/ocr/line-model/conv-tiny.json", import.meta.url)))
    expect(charset[0]).toBe("")
    expect(charset[1]).toBe(" ")
    expect(charset).toContain("€")
    expect(new Set(charset).size).toBe(charset.length)
  })
})
