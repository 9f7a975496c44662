/**
 * Math from the glyph stream, on PDFs built with pdflatex from the .tex files beside them
 * (fixtures/math, rebuilt by its build.sh): display equations become `formula` blocks whose source
 * is `formula_glyphs` and whose markdown is `$$...$$`, inline math stays in its paragraph as
 * `$...$`; scripts, fractions from their rules, radicals, limits, accents and matrices.
 */
import { readFileSync } from "node:fs"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { readAll } from "./helpers/ReadAll.ts"

const fixture = (name: string) => new Uint8Array(readFileSync(new URL(`./fixtures/math/${name}.pdf`, import.meta.url)))

describe("math as LaTeX", () => {
  it.effect("display equations are formula blocks with their LaTeX", () =>
    Effect.gen(function*() {
      const { pages, markdown } = yield* readAll(fixture("display"))
      const formulas = pages.flatMap((p) => p.blocks).filter((b) => b.kind === "formula")
      assert.strictEqual(formulas.length, 12)
      for (const block of formulas) assert.strictEqual(block.source, "formula_glyphs")
      const sources = formulas.map((b) => b.formula?.source)
      assert.deepStrictEqual(sources, [
        "x^{2}+y^{2}=z^{2}",
        "E=mc^{2}",
        "a_{n+1}=a_{n}+d",
        "\\frac{a}{b}+\\frac{c}{d}",
        "\\sum_{i=1}^{n}i=\\frac{n(n+1)}{2}",
        "\\int_{0}^{1}x^{2}dx",
        "\\alpha+\\beta=\\gamma",
        "\\sqrt{x^{2}+1}",
        "\\hat{x}+\\bar{y}",
        "\\begin{pmatrix} a & b \\\\ c & d \\end{pmatrix}",
        "f(x)=\\sin x+\\cos x",
        "\\lim_{x\\to 0}\\frac{\\sin x}{x}=1"
      ])
      assert.include(markdown, "$$\\sum_{i=1}^{n}i=\\frac{n(n+1)}{2}$$")
      // The prose above them stays a paragraph.
      assert.include(markdown, "Display equations for the math reader’s tests.")
    }))

  it.effect("inline math stays in its paragraph between single dollars", () =>
    Effect.gen(function*() {
      const { pages, markdown } = yield* readAll(fixture("inline"))
      assert.strictEqual(pages.flatMap((p) => p.blocks).filter((b) => b.kind === "formula").length, 0)
      assert.include(markdown, "Let $x$ be a real number and $x_{i}$ the $i$-th sample.")
      assert.include(markdown, "and $a^{2}+b^{2}=c^{2}$ holds. Half of it is $\\frac{1}{2}$ and we need $n\\leq m$ here.")
    }))

  it.effect("an integral's lower limit reaching the integrand, a negated relation, digits closing inline math", () =>
    Effect.gen(function*() {
      const { pages, markdown } = yield* readAll(fixture("limits"))
      const sources = pages.flatMap((p) => p.blocks).filter((b) => b.kind === "formula").map((b) => b.formula?.source)
      assert.deepStrictEqual(sources, ["\\int_{-1}^{1}g(s)ds", "\\phi\\neq\\psi"])
      // The "0" is drawn in the text font, in one item with the prose after it; the full stop stays prose.
      assert.include(markdown, "Let $\\epsilon>0$ and $y_{n}\\to 0$ for large $N$.")
    }))

  it.effect("math in table cells stays in the table as inline math", () =>
    Effect.gen(function*() {
      const { pages, markdown } = yield* readAll(fixture("table"))
      const blocks = pages.flatMap((p) => p.blocks)
      assert.strictEqual(blocks.filter((b) => b.kind === "formula").length, 0)
      assert.strictEqual(blocks.filter((b) => b.kind === "table").length, 1)
      assert.include(markdown, "| A | $1.5\\times 10^{3}$ | $2\\times 10^{4}$ |")
    }))

  it.effect("stretchy delimiters, calligraphic and blackboard capitals, upright capital Greek", () =>
    Effect.gen(function*() {
      const { pages } = yield* readAll(fixture("sized"))
      const sources = pages.flatMap((p) => p.blocks).filter((b) => b.kind === "formula").map((b) => b.formula?.source)
      assert.deepStrictEqual(sources, ["\\left(\\frac{x}{y}\\right)^{3}", "\\mathcal{F}\\subset\\mathbb{N}", "\\Delta u=\\Omega"])
    }))

  it.effect("an equation number beside a display formula becomes its tag", () =>
    Effect.gen(function*() {
      const { markdown } = yield* readAll(fixture("numbered"))
      assert.include(markdown, "$$y=mx+c\\tag{1}$$")
      assert.notInclude(markdown, "(1)")
    }))

  it.effect("brackets around inline math join it; a bracket of the sentence stays out", () =>
    Effect.gen(function*() {
      const { markdown } = yield* readAll(fixture("brackets"))
      assert.include(markdown, "A semigroup $(X,f)$ with a map, where $(Y,g)$ is another (and it holds for maps $h$).")
    }))

  it.effect("upright words in script size are scripts; an operator name and its bracket join the formula", () =>
    Effect.gen(function*() {
      const { markdown } = yield* readAll(fixture("scripts"))
      assert.include(markdown, "The angle is given by $\\cos(\\theta_{h})=\\beta_{\\mathrm{rel}}$, where $\\delta\\theta_{\\max}$ is small.")
    }))

  it.effect("math in Times: italic text-font letters beside math glyphs join the formula; a table rule between two numbers is no fraction", () =>
    Effect.gen(function*() {
      const { markdown } = yield* readAll(fixture("times"))
      assert.include(markdown, "significant at $p<0.05$ and the sum $\\sum_{i=1}^{n}a_{i}$ is finite.")
      assert.include(markdown, "$$k=\\theta^{4}\\cdot\\frac{\\lambda}{\\beta+6}\\tag{1}$$")
      assert.include(markdown, "46.92")
      assert.notInclude(markdown, "\\frac{46.92}")
    }))

  it.effect("math in txfonts: big operators from txex read by CMEX's code table, blackboard capitals from txsyb", () =>
    Effect.gen(function*() {
      const { markdown } = yield* readAll(fixture("txfonts"))
      assert.include(markdown, "The sum $\\sum_{i=1}^{n}a_{i}$ and the test $p<0.05$ hold for $x\\in\\mathbb{R}$.")
      assert.include(markdown, "$$k=\\theta^{4}\\cdot\\frac{\\lambda}{\\beta+6}+\\sum_{i=1}^{n}x_{i}^{2}\\tag{1}$$")
    }))

  it.effect("a displayed equation level with the other column's prose stays displayed, its number a tag, not the other column's list marker", () =>
    Effect.gen(function*() {
      const { pages, markdown } = yield* readAll(fixture("columns"))
      const latex = "x=\\lambda_{i}\\leq\\frac{\\alpha}{k+6}+\\beta^{2}-\\theta_{j}+\\gamma^{3}-\\alpha_{k}\\tag{1}"
      assert.include(markdown, `\n\n$$${latex}$$\n\n`)
      assert.notInclude(markdown, "(1)")
      assert.isFalse(pages.flatMap((p) => p.blocks).some((b) => b.kind === "list_item"))
      // A displayed equation that ends its sentence with a comma is displayed, the comma inside.
      const second = "y=\\frac{\\partial^{2}C}{\\partial X^{2}}+\\alpha_{k}\\beta_{j}-\\gamma^{2}\\delta_{i}+\\theta,"
      assert.include(markdown, `\n\n$$${second}$$\n\n`)
      assert.deepStrictEqual(pages.flatMap((p) => p.blocks).filter((b) => b.kind === "formula").map((b) => b.formula?.source), [latex, second])
    }))

  it.effect("a list bullet set in a math font stays a bullet", () =>
    Effect.gen(function*() {
      const { markdown } = yield* readAll(fixture("itemize"))
      assert.include(markdown, "- the first item, plain words;\n- the second item, with $x^{2}$ in it;\n- the third item.")
      assert.notInclude(markdown, "\\bullet")
    }))
})
