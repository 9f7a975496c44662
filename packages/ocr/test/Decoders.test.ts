/** The DB post-processing and CTC decoding on hand-made model outputs. */
import { describe, expect, it } from "vitest"
import { ctcDecode, paddleCharset } from "../src/CtcDecode.ts"
import { dbBoxes, defaultDbOptions } from "../src/DbPostprocess.ts"
import { characterErrorRate, wordErrorRate } from "../src/ErrorRate.ts"

describe("dbBoxes", () => {
  it("finds each text kernel, scores it, and grows it back by unclip", () => {
    const w = 100
    const h = 40
    const prob = new Float32Array(w * h)
    const fill = (x0: number, y0: number, x1: number, y1: number, v: number) => {
      for (let y = y0; y < y1; y++) for (let x = x0; x < x1; x++) prob[y * w + x] = v
    }
    fill(10, 10, 50, 16, 0.9) // a line kernel
    fill(60, 10, 90, 16, 0.4) // above threshold but scores below boxThreshold
    fill(10, 30, 12, 32, 0.95) // too small
    const boxes = dbBoxes(prob, w, h)
    expect(boxes).toHaveLength(1)
    const [x0, y0, x1, y1] = boxes[0].box
    const d = (40 * 6 * defaultDbOptions.unclipRatio) / (2 * (40 + 6))
    expect(x0).toBeCloseTo(10 - d)
    expect(y0).toBeCloseTo(10 - d)
    expect(x1).toBeCloseTo(50 + d)
    expect(y1).toBeCloseTo(16 + d)
    expect(boxes[0].score).toBeCloseTo(0.9)
  })
})

describe("ctcDecode", () => {
  it("collapses repeats, drops blanks, maps the dictionary and the trailing space class", () => {
    const charset = paddleCharset("a\nb\nc\n", 5) // blank, a, b, c, space
    expect(charset).toEqual(["", "a", "b", "c", " "])
    const seq = [1, 1, 0, 1, 2, 4, 4, 3, 0, 0]
    const data = new Float32Array(seq.length * 5)
    seq.forEach((c, t) => {
      data[t * 5 + c] = 0.8
    })
    const line = ctcDecode(data, 0, seq.length, 5, charset)
    expect(line.text).toBe("aab c")
    expect(line.chars.map((c) => c.step)).toEqual([0, 3, 4, 5, 7])
    expect(line.confidence).toBeCloseTo(0.8)
  })

  it("recovers a space the model left as runner-up between two words", () => {
    const charset = paddleCharset("a\nb\n", 4) // blank, a, b, space
    const seq = [1, 0, 0, 0, 2]
    const data = new Float32Array(seq.length * 4)
    seq.forEach((c, t) => {
      data[t * 4 + c] = 0.7
    })
    data[2 * 4 + 3] = 0.25 // space runner-up in the middle of the gap
    expect(ctcDecode(data, 0, seq.length, 4, charset).text).toBe("a b")
    data[2 * 4 + 3] = 0.05
    expect(ctcDecode(data, 0, seq.length, 4, charset).text).toBe("ab")
  })
})

describe("error rates", () => {
  it("measures edits over the reference length after normalising whitespace and quotes", () => {
    expect(characterErrorRate("hello  world", "hello world")).toBe(0)
    expect(characterErrorRate("abcd", "abxd")).toBeCloseTo(0.25)
    expect(characterErrorRate("\u201cquoted\u201d", "\"quoted\"")).toBe(0)
    expect(wordErrorRate("the cat sat", "the bat sat")).toBeCloseTo(1 / 3)
  })
})
