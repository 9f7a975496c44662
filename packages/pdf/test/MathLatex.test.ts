/**
 * The LaTeX writer on glyph boxes laid out as TeX sets them (a 10 pt main line with its baseline at
 * y = 100, 7 pt scripts): scripts off the baseline, a fraction from its rule, a radical's vinculum,
 * limits over and under a big operator, an accent, and a matrix of two rows.
 */
import { assert, describe, it } from "@effect/vitest"
import type { Rule } from "@strata/core"
import { formulaLatex, type MathToken } from "../src/MathLatex.ts"

const glyph = (latex: string, x0: number, baseline: number, size = 10, extra: Partial<MathToken> = {}): MathToken => ({
  latex, glyph: latex.length === 1 ? latex : "", x0, x1: x0 + size * 0.5, top: baseline - size * 0.7, bottom: baseline + size * 0.2,
  baseline, size, ...extra
})
const rule = (x0: number, x1: number, y: number): Rule => ({ horizontal: true, x0, x1, y0: y, y1: y })

describe("formulaLatex", () => {
  it("superscripts and subscripts from the baseline and size", () => {
    const tokens = [glyph("x", 0, 100), glyph("2", 5, 96, 7), glyph("+", 10, 100), glyph("a", 16, 100), glyph("n", 21, 101.5, 7)]
    assert.strictEqual(formulaLatex(tokens, []), "x^{2}+a_{n}")
  })

  it("a fraction from the rule between numerator and denominator", () => {
    const tokens = [glyph("a", 1, 94), glyph("b", 1, 107), glyph("=", 10, 100), glyph("c", 16, 100)]
    assert.strictEqual(formulaLatex(tokens, [rule(0, 7, 97.5)]), "\\frac{a}{b}=c")
  })

  it("a radical and the rule over what it covers", () => {
    const radical = glyph("√", 0, 90, 10, { radical: true, big: true, top: 90, bottom: 102 })
    const tokens = [radical, glyph("x", 5, 100), glyph("+", 10, 100), glyph("1", 16, 100)]
    assert.strictEqual(formulaLatex(tokens, [rule(5, 21, 90.2)]), "\\sqrt{x+1}")
  })

  it("limits above and below a big operator in display", () => {
    const sum = glyph("\\sum", 0, 90, 10, { glyph: "∑", operator: "limits", big: true, x1: 14, top: 90, bottom: 104 })
    const tokens = [sum, glyph("n", 5, 88, 7), glyph("i", 3, 110, 7), glyph("=", 6, 110, 7), glyph("1", 9, 110, 7), glyph("i", 16, 100)]
    assert.strictEqual(formulaLatex(tokens, []), "\\sum_{i=1}^{n}i")
  })

  it("an accent over the glyph under it", () => {
    const tokens = [{ ...glyph("ˆ", 0.2, 100), latex: "ˆ" }, glyph("x", 0, 100)]
    assert.strictEqual(formulaLatex(tokens, []), "\\hat{x}")
  })

  it("two full-size rows between big parentheses: a matrix", () => {
    const open = glyph("(", -8, 90, 10, { big: true, top: 90, bottom: 112 })
    const close = glyph(")", 30, 90, 10, { big: true, top: 90, bottom: 112 })
    const tokens = [open, glyph("a", 0, 96), glyph("b", 20, 96), glyph("c", 0, 108), glyph("d", 20, 108), close]
    assert.strictEqual(formulaLatex(tokens, []), "\\begin{pmatrix} a & b \\\\ c & d \\end{pmatrix}")
  })
})
