/**
 * Finds the math on a page and writes it as LaTeX. Runs in math fonts, and the runs of digits,
 * operators and operator names touching them, are joined into islands by proximity (a fraction's
 * rule joins its numerator and denominator). An island alone on its rows is a display formula: it
 * leaves the text and becomes a `formula` block of its own. An island inside a line of prose is
 * inline math: its runs become one run holding the LaTeX between `INLINE_OPEN` and
 * `INLINE_CLOSE`, which the block writer turns into `$...$` (MathInline.ts).
 *
 * Pages without a run in a math font return at once: the scan costs one test per run.
 */
import type { LayoutBlock, Line, Rule, TextRun } from "@strata/core"
import { ACCENTS, cmexDepth, glyphLatex, isCmex, isMathFont, OPERATOR_NAMES, OPERATOR_WORD } from "./MathGlyphs.ts"
import { INLINE_CLOSE, INLINE_OPEN } from "./MathInline.ts"
import { formulaLatex, type MathToken, operatorKind } from "./MathLatex.ts"

/** What the math pass leaves: the runs for the text layout, and the display formulas as blocks. */
export interface MathSplit {
  readonly runs: ReadonlyArray<TextRun>
  readonly formulas: Array<LayoutBlock>
}

// Digits, operators, accents, and upright capital Greek (CMR sets Γ, Δ, Ω...; the glyph list gives ∆ and Ω as signs).
const OPERATORISH = /^[\s\d+\-−=()[\]<>.,:;!|/'’*·×±∓ˆ¯˜˙¨ˇ˘´`\u0393-\u03a9\u2206\u2126\p{Sm}]+$/u

const PUNCTUATION = /^\s*[.,;:]\s*$/
const SCRIPT_WORD = /^\s*[A-Za-z]{1,8}\s*$/
/** An opening bracket, or an operator name and its bracket, at the end of a prose item ("given by cos("). */
const OPENING_TAIL = /\s((?:sin|cos|tan|log|ln|exp|max|min|det)?[([])$/u
const EQUATION_NUMBER = /^\s*\(\s*[\dA-Za-z.]{1,6}\s*\)\s*$/

/** One or two letters alone in a run: a variable ("x", "dt"). */
const VARIABLE = /^\s*\p{L}{1,2}\s*$/u

const mathFont = (run: TextRun) => run.math || isMathFont(run.font)

/** A run that may belong to a formula: a math font, or digits, operators and operator names. */
const mathish = (run: TextRun) => mathFont(run) || OPERATORISH.test(run.text) || OPERATOR_NAMES.test(run.text.trim()) ||
  (OPERATORISH.test(run.text.replace(OPERATOR_WORD, " ")) && /[=+<>(]/.test(run.text))

interface Box { x0: number; x1: number; top: number; bottom: number }

/** A run's box, with a CMEX glyph's real extent (it hangs below its baseline). */
const boxOf = (run: TextRun): Box => {
  const ch = [...run.text.trim()][0] ?? ""
  // A radical sign hangs below its baseline in every TeX font (CMSY's small one too).
  if (!isCmex(run.font) && !(ch === "√" && run.text.trim().length === 1)) return run
  return { x0: run.x0, x1: run.x1, top: run.baseline, bottom: run.baseline + cmexDepth(ch, (run.x1 - run.x0) / run.size) * run.size }
}

/** A run's glyphs as tokens, spread evenly over its width (operator names stay whole). */
export const tokensOf = (run: TextRun, display: boolean): Array<MathToken> => {
  const box = boxOf(run)
  const chars = [...run.text]
  const step = (run.x1 - run.x0) / Math.max(1, chars.length)
  const pieces: Array<{ text: string; at: number }> = []
  const text = run.text
  if (!mathFont(run) && SCRIPT_WORD.test(text) && text.trim().length > 1 && !OPERATOR_NAMES.test(text.trim())) {
    const word = text.trim()
    return [{ latex: `\\mathrm{${word}}`, glyph: "", x0: run.x0, x1: run.x1, top: box.top, bottom: box.bottom, baseline: run.baseline, size: run.size }]
  }
  const words = !mathFont(run) ? [...text.matchAll(OPERATOR_WORD)] : []
  let i = 0
  let at = 0
  for (const word of words) {
    while (i < (word.index ?? 0)) {
      const ch = chars[at]!
      pieces.push({ text: ch, at })
      i += ch.length
      at++
    }
    pieces.push({ text: `\\${word[0]}`, at })
    at += word[0].length
    i += word[0].length
  }
  while (at < chars.length) {
    pieces.push({ text: chars[at]!, at })
    at++
  }
  const out: Array<MathToken> = []
  for (const piece of pieces) {
    if (piece.text.trim().length === 0) continue
    const width = piece.text.startsWith("\\") ? piece.text.length - 1 : 1
    const latex = piece.text.startsWith("\\") ? piece.text : alphabet(run.font, piece.text) ?? glyphLatex(piece.text)
    out.push({
      latex, glyph: piece.text.startsWith("\\") ? "" : piece.text,
      x0: run.x0 + piece.at * step, x1: run.x0 + (piece.at + width) * step, top: box.top, bottom: box.bottom,
      baseline: run.baseline, size: run.size, operator: operatorKind(latex, display), radical: piece.text === "√", big: isCmex(run.font)
    })
  }
  return out
}

const touches = (a: Box, b: Box, dx: number, dy: number) =>
  a.x0 - dx < b.x1 && b.x0 - dx < a.x1 && a.top - dy < b.bottom && b.top - dy < a.bottom

/** The math of one page: display formulas out of the text, inline math marked in it. */
export const splitMath = (input: ReadonlyArray<TextRun>, rules: ReadonlyArray<Rule>): MathSplit => {
  if (!input.some(mathFont)) return { runs: input, formulas: [] }
  const runs = peelNumbers(input)
  // A word in script size set against a glyph in a math font is its script (`\beta_{\mathrm{rel}}`).
  const scripts = new Set(runs.filter((r) => !mathish(r) && SCRIPT_WORD.test(r.text) && runs.some((m) => mathFont(m) &&
    m.size > r.size * 1.15 && Math.abs(m.baseline - r.baseline) > r.size * 0.15 && r.x0 - m.x1 > -0.5 && r.x0 - m.x1 < 1.5)))
  // A variable set in a text italic (Times or Palatino math takes its letters from the text font)
  // beside a glyph in a math font or an operator on its line is part of the formula too.
  // So is one beside such a variable (a subscript of `a_i`), found over a few passes.
  const variables = new Set<TextRun>()
  const beside = (r: TextRun, m: TextRun) => m !== r && Math.min(m.bottom, r.bottom) - Math.max(m.top, r.top) > 0.3 * Math.min(m.size, r.size) &&
    Math.max(m.x0 - r.x1, r.x0 - m.x1) < 0.6 * Math.min(m.size, r.size)
  const letters = runs.filter((r) => r.italic && VARIABLE.test(r.text) && !mathish(r))
  if (letters.length > 0) {
    // Each letter looks only at the runs level with it (sorted by top, a window as tall as the tallest run).
    const byTop = [...runs].sort((a, b) => a.top - b.top)
    const tops = byTop.map((r) => r.top)
    const tallest = Math.max(...runs.map((r) => r.bottom - r.top))
    const level = new Map(letters.map((r) => [r, byTop.slice(lowerBound(tops, r.top - tallest), lowerBound(tops, r.bottom))] as const))
    const math = new Map<TextRun, boolean>()
    const isMath = (m: TextRun) => {
      let v = math.get(m)
      if (v === undefined) math.set(m, v = mathish(m))
      return v
    }
    for (let pass = 0, grew = true; pass < 4 && grew; pass++) {
      grew = false
      for (const r of letters) {
        if (!variables.has(r) && level.get(r)!.some((m) => beside(r, m) && (variables.has(m) || isMath(m)))) { variables.add(r); grew = true }
      }
    }
  }
  const candidates = runs.filter((r) => !r.rotated && (mathish(r) || scripts.has(r) || variables.has(r)))
  const boxes = candidates.map(boxOf)
  const parent = candidates.map((_, i) => i)
  const find = (i: number): number => {
    while (parent[i] !== i) i = parent[i] = parent[parent[i]!]!
    return i
  }
  const union = (a: number, b: number) => { parent[find(a)] = find(b) }
  const cmex = candidates.map((r) => isCmex(r.font))
  const maxSize = Math.max(...candidates.map((r) => r.size))
  // Islands: glyphs next to each other. Sorted by top, each looks down only as far as it may reach.
  const order = candidates.map((_, i) => i).sort((a, b) => boxes[a]!.top - boxes[b]!.top)
  const tops = order.map((i) => boxes[i]!.top)
  for (let k = 0; k < order.length; k++) {
    const i = order[k]!
    const a = boxes[i]!
    for (let m = k + 1; m < order.length; m++) {
      const j = order[m]!
      const b = boxes[j]!
      if (b.top >= a.bottom + 0.3 * maxSize) break
      const size = Math.max(candidates[i]!.size, candidates[j]!.size)
      const big = cmex[i]! || cmex[j]!
      // A big operator reaches past its limits to the integrand beside it.
      const dy = big ? 0.3 * size : -0.1 * Math.min(candidates[i]!.size, candidates[j]!.size)
      if (touches(a, b, size * (big ? 2.5 : 1.1), dy)) union(i, j)
    }
  }
  const maxHeight = Math.max(...boxes.map((b) => b.bottom - b.top))
  // A short rule joins what lies just above and below it (a fraction), or a radical and what it covers.
  const shortRules = rules.filter((r) => r.horizontal && r.x1 - r.x0 < 300)
  const ruleOf = new Map<number, Array<Rule>>()
  for (const rule of shortRules) {
    const from = lowerBound(tops, rule.y0 - maxHeight - maxSize)
    const to = lowerBound(tops, rule.y0 + maxSize)
    // A radical sign whose end meets the rule's start: the rule is its overbar.
    const radicalBefore = (i: number) => candidates[i]!.text.includes("√") && Math.abs(boxes[i]!.x1 - rule.x0) < 1.5
    const members = order.slice(from, to).filter((i) => {
      const c = (boxes[i]!.x0 + boxes[i]!.x1) / 2
      const size = candidates[i]!.size
      const nearRadical = radicalBefore(i) && Math.abs(boxes[i]!.top - rule.y0) < size * 0.6
      const gap = Math.max(boxes[i]!.top - rule.y0, rule.y0 - boxes[i]!.bottom, 0)
      return nearRadical || (c >= rule.x0 - 0.5 && c <= rule.x1 + 0.5 && gap < size * 0.45)
    })
    if (members.length < 2) continue
    // A fraction's bar is as wide as the wider of its numerator and denominator, both centred on it;
    // a table's rule runs under whole rows of cells (a figure above it and one below are no fraction).
    const above = members.filter((i) => boxes[i]!.bottom <= rule.y0 + 0.5)
    const below = members.filter((i) => boxes[i]!.top >= rule.y0 - 0.5)
    const span = (list: ReadonlyArray<number>) => list.length === 0 ? undefined :
      { x0: Math.min(...list.map((i) => boxes[i]!.x0)), x1: Math.max(...list.map((i) => boxes[i]!.x1)) }
    const top = span(above), bottom = span(below)
    const ruleSize = Math.max(...members.map((i) => candidates[i]!.size))
    const centred = (p: { x0: number; x1: number } | undefined) => p === undefined || Math.abs((p.x0 + p.x1) / 2 - (rule.x0 + rule.x1) / 2) <= 0.15 * (rule.x1 - rule.x0) + 1
    const fits = Math.max((top?.x1 ?? 0) - (top?.x0 ?? 0), (bottom?.x1 ?? 0) - (bottom?.x0 ?? 0)) + 1.5 * ruleSize >= rule.x1 - rule.x0
    if (!members.some(radicalBefore) && !(centred(top) && centred(bottom) && fits)) continue
    for (const m of members.slice(1)) union(members[0]!, m)
    const root = find(members[0]!)
    ruleOf.set(root, [...(ruleOf.get(root) ?? []), rule])
  }
  const islands = new Map<number, Array<number>>()
  for (let i = 0; i < candidates.length; i++) {
    const root = find(i)
    const list = islands.get(root)
    if (list === undefined) islands.set(root, [i])
    else list.push(i)
  }
  const prose = new Set(runs.filter((r) => !mathish(r) && /\p{L}{2}/u.test(r.text)))
  const byTop = [...runs].sort((a, b) => a.top - b.top)
  const runTops = byTop.map((r) => r.top)
  const runHeight = Math.max(...runs.map((r) => r.bottom - r.top))
  const removed = new Set<TextRun>()
  const added: Array<TextRun> = []
  const formulas: Array<LayoutBlock> = []
  for (const members of islands.values()) {
    const islandRuns = members.map((i) => candidates[i]!).sort((a, b) => a.x0 - b.x0)
    const islandRules = [...new Set(members.flatMap((i) => ruleOf.get(find(i)) ?? []))]
    if (!islandRuns.some(mathFont) && islandRules.length === 0) continue
    const box = union4(members.map((i) => boxes[i]!))
    const size = Math.max(...islandRuns.filter((r) => !isCmex(r.font)).map((r) => r.size), 0) || islandRuns[0]!.size
    const onRow = (r: TextRun, reach: number) => r.top < box.bottom - size * 0.3 && box.top + size * 0.3 < r.bottom &&
      r.x0 < box.x1 + size * reach && box.x0 - size * reach < r.x1
    const row = byTop.slice(lowerBound(runTops, box.top - runHeight), lowerBound(runTops, box.bottom))
    const beside = row.find((p) => prose.has(p) && onRow(p, 3))
    // Other text on the row (table cells, a formula in a line of numbers) keeps the island in it, as inline math.
    const own = new Set(islandRuns)
    const inProse = beside !== undefined || row.some((r) => !own.has(r) && !EQUATION_NUMBER.test(r.text) && onRow(r, 7))
    // A full stop or comma after inline math belongs to the sentence.
    while (inProse && islandRuns.length > 1 && PUNCTUATION.test(islandRuns.at(-1)!.text)) islandRuns.pop()
    // So does a bracket at either end that closes or opens nothing inside the formula ("maps $f$)").
    if (inProse && islandRuns.length > 1) {
      const text = islandRuns.map((r) => r.text).join("")
      const opens = (text.match(/[([]/g) ?? []).length
      const closes = (text.match(/[)\]]/g) ?? []).length
      if (closes > opens && /^\s*[)\]]\s*$/.test(islandRuns.at(-1)!.text)) islandRuns.pop()
      else if (opens > closes && /^\s*[([]\s*$/.test(islandRuns[0]!.text)) islandRuns.shift()
    }
    const tokens = islandRuns.flatMap((r) => tokensOf(r, !inProse))
    if (tokens.every((t) => ACCENTS[t.glyph] !== undefined)) continue
    // A footnote mark (a small ∗, †, or digit by a word) is no formula.
    if (beside !== undefined && islandRules.length === 0 && tokens.length <= 2 && tokens.every((t) => t.size < beside.size * 0.85 && !/\p{L}/u.test(t.glyph))) continue
    // Nor is a lone sign opening a line (a list bullet set in Symbol or a TeX math font: "•", "–", "◦", "∗"):
    // nothing on its row to its left but across a gap wider than a word space (another column's line).
    if (tokens.length === 1 && !/[\p{L}\p{N}]/u.test(tokens[0]!.glyph) && !row.some((r) => !own.has(r) && r.x1 <= box.x0 + 0.5 && onRow(r, 1.2))) continue
    const latex = formulaLatex(tokens, islandRules)
    // What could not be written as LaTeX that parses stays text.
    if (latex.length === 0 || !balanced(latex)) continue
    for (const r of islandRuns) removed.add(r)
    const main = islandRuns.filter((r) => r.size >= size * 0.9 && !isCmex(r.font))
    const baseline = main.length > 0 ? mostCommon(main.map((r) => r.baseline)) : box.bottom - size * 0.2
    const run: TextRun = {
      text: inProse ? `${INLINE_OPEN}${latex}${INLINE_CLOSE}` : latex, x0: box.x0, x1: box.x1, top: Math.min(box.top, baseline - size * 0.8),
      bottom: Math.max(box.bottom, baseline + size * 0.2), baseline, size, bold: false, italic: false, mono: false, math: !inProse,
      symbol: false, rotated: false, rtl: false
    }
    if (inProse) {
      // Inline math sits on the prose line: its box is the line's, so that lines are built as before.
      added.push({ ...run, top: baseline - size * 0.8, bottom: baseline + size * 0.2 })
      continue
    }
    // An equation number on the formula's row, to its right (or left, as amsart sets it), is its tag.
    const number = byTop.slice(lowerBound(runTops, box.top - runHeight), lowerBound(runTops, box.bottom))
      .find((r) => !own.has(r) && (r.x0 > box.x1 || r.x1 < box.x0) && EQUATION_NUMBER.test(r.text) && Math.abs(r.baseline - baseline) < size * 0.3)
    if (number !== undefined) removed.add(number)
    const tagged = number === undefined ? latex : `${latex}\\tag{${number.text.trim().slice(1, -1).trim()}}`
    const line: Line = { ...run, text: tagged, runs: [{ ...run, text: tagged }], row: -1 }
    formulas.push({ kind: "formula", lines: [line], x0: run.x0, x1: run.x1, top: run.top, bottom: run.bottom, size, latex: tagged })
  }
  if (removed.size === 0) return { runs, formulas }
  return { runs: [...runs.filter((r) => !removed.has(r)), ...added], formulas }
}

const union4 = (boxes: ReadonlyArray<Box>): Box => ({
  x0: Math.min(...boxes.map((b) => b.x0)), x1: Math.max(...boxes.map((b) => b.x1)),
  top: Math.min(...boxes.map((b) => b.top)), bottom: Math.max(...boxes.map((b) => b.bottom))
})

const mostCommon = (values: ReadonlyArray<number>): number => {
  let best = values[0] ?? 0
  let count = 0
  for (const v of values) {
    const n = values.filter((u) => Math.abs(u - v) < 0.5).length
    if (n > count) { count = n; best = v }
  }
  return best
}

/**
 * Digits or a closing bracket a prose run starts with, right after a glyph in a math font on its
 * baseline, are the end of the formula (`$x > 0$ and` comes as "x", ">", "0 and"; `$(X, f)$ with`
 * as "(", "X, f", ") with"): they become a run of their own; so does an opening bracket a prose
 * run ends with, right before one ("where (" + "X, ∗)"), with an operator name before it ("cos(").
 */
const peelNumbers = (runs: ReadonlyArray<TextRun>): Array<TextRun> => {
  const out: Array<TextRun> = []
  const touching = (run: TextRun, gap: (r: TextRun) => number) =>
    runs.some((r) => mathFont(r) && Math.abs(r.baseline - run.baseline) < run.size * 0.2 && gap(r) > -0.5 && gap(r) < run.size * 0.6)
  const split = (run: TextRun, at: number): [TextRun, TextRun] => {
    const cut = run.x0 + (run.x1 - run.x0) * at / run.text.length
    return [{ ...run, text: run.text.slice(0, at), x1: cut }, { ...run, text: run.text.slice(at), x0: cut }]
  }
  for (const run of runs) {
    if (mathFont(run)) {
      out.push(run)
      continue
    }
    let rest = run
    const head = /^(\s*(?:[\d.]*\d|[)\]]))[\s,.;:]/su.exec(run.text)
    if (head !== null && touching(run, (r) => run.x0 - r.x1)) {
      const [first, second] = split(run, head[1]!.length)
      out.push(first)
      rest = second
    }
    const tail = OPENING_TAIL.exec(rest.text)
    if (tail !== null && tail.index > 0 && touching(rest, (r) => r.x0 - rest.x1)) out.push(...split(rest, rest.text.length - tail[1]!.length))
    else out.push(rest)
  }
  return out
}

/** The first index whose value is at least `value`, in ascending `values`. */
const lowerBound = (values: ReadonlyArray<number>, value: number): number => {
  let lo = 0
  let hi = values.length
  while (lo < hi) {
    const mid = (lo + hi) >> 1
    if (values[mid]! < value) lo = mid + 1
    else hi = mid
  }
  return lo
}

/** Braces balanced (escaped ones aside), and no stray `\\` but the row breaks of a matrix. */
const balanced = (latex: string): boolean => {
  let depth = 0
  for (let i = 0; i < latex.length; i++) {
    const ch = latex[i]
    if (ch === "\\") {
      if (latex[i + 1] === "\\" && !latex.includes("\\begin{")) return false
      i++
    } else if (ch === "{") depth++
    else if (ch === "}" && --depth < 0) return false
  }
  return depth === 0
}

/**
 * Capitals of the math alphabets: the symbol fonts' are calligraphic (CMSY, Latin Modern's, txfonts'
 * and newtx's txsy/ntxsy), the blackboard fonts' blackboard bold (MSBM, txsyb/pxsyb, ntxsyb),
 * EUFM's Fraktur.
 */
const alphabet = (font: string | undefined, ch: string): string | undefined => {
  if (font === undefined || !/^[A-Z]$/.test(ch)) return undefined
  if (/^(?:msbm|r?[tp]xsyb|n[tp]xsyb|bbold|dsrom)/i.test(font)) return `\\mathbb{${ch}}`
  if (/^(?:cmsy|cmbsy|lmmathsymbols|r?[tp]xsy|n[tp]xsy)/i.test(font)) return `\\mathcal{${ch}}`
  if (/^euf[mb]/i.test(font)) return `\\mathfrak{${ch}}`
  return undefined
}
