/**
 * A formula's glyphs and drawn rules to LaTeX, from geometry alone. Glyphs are tokens with a box
 * and a baseline; accents sit over the next glyph; the shortest rules are taken first, so inner
 * structures are built before outer ones: a rule starting at a radical's right edge is its
 * vinculum (`\sqrt`), any other has a numerator above and a denominator below (`\frac`). Then the
 * main baseline is the one most full-size glyphs share; glyphs above or below a big operator
 * (or `\lim`) are its limits, other glyphs off the baseline are sub- or superscripts of the glyph
 * to their left, and a formula of two or more full-size rows is a matrix.
 */
import type { Rule } from "@strata/core"
import { ACCENTS, BIG_OPERATORS, isNegation, LIMIT_NAMES } from "./MathGlyphs.ts"

/** One glyph (or a built group) of a formula. */
export interface MathToken {
  /** LaTeX of the token. */
  latex: string
  /** The glyph's own character, when it is one glyph ("" for groups). */
  readonly glyph: string
  x0: number
  x1: number
  top: number
  bottom: number
  baseline: number
  size: number
  /** A big operator (∑, ∫) or limit-taking name (`\lim`): its box, not its baseline, places it. */
  readonly operator?: "limits" | "side" | undefined
  readonly radical?: boolean | undefined
  /** A glyph of the extension font (CMEX): a big operator, radical or sized delimiter. */
  readonly big?: boolean | undefined
  /** A built group (fraction, radical): on the main line whatever its baseline. */
  readonly group?: boolean | undefined
}

const centreX = (t: MathToken) => (t.x0 + t.x1) / 2
const centreY = (t: MathToken) => (t.top + t.bottom) / 2

const join = (parts: ReadonlyArray<string>): string => {
  let out = ""
  for (const part of parts) {
    if (part.length === 0) continue
    // A command name followed by a letter needs a space between them.
    if (/\\[A-Za-z]+$/.test(out) && /^[A-Za-z0-9]/.test(part)) out += " "
    // A prime after a superscript would be a second one: it goes on an empty group.
    if (part.startsWith("'") && out.endsWith("}")) out += "{}"
    out += part
  }
  return out
}

/** Accents over the glyph they sit on, and negation slashes over their relation. */
const applyOverlays = (tokens: Array<MathToken>): Array<MathToken> => {
  const out = [...tokens]
  for (const accent of tokens) {
    const command = ACCENTS[accent.glyph]
    const negation = isNegation(accent.glyph)
    if (command === undefined && !negation) continue
    let best: MathToken | undefined
    let distance = Infinity
    for (const t of out) {
      if (t === accent || ACCENTS[t.glyph] !== undefined || isNegation(t.glyph)) continue
      const d = Math.abs(centreX(t) - centreX(accent))
      if (d < distance && t.top < accent.bottom + accent.size) { best = t; distance = d }
    }
    if (best === undefined || distance > Math.max(accent.x1 - accent.x0, best.x1 - best.x0)) continue
    best.latex = negation ? (best.latex === "=" ? "\\neq" : `\\not${best.latex}`) : `${command}{${best.latex}}`
    out.splice(out.indexOf(accent), 1)
  }
  return out
}

const group = (latex: string, members: ReadonlyArray<MathToken>, baseline: number, size: number, extra: Partial<MathToken> = {}): MathToken => ({
  latex, glyph: "", group: true, baseline, size,
  x0: Math.min(...members.map((t) => t.x0)), x1: Math.max(...members.map((t) => t.x1)),
  top: Math.min(...members.map((t) => t.top)), bottom: Math.max(...members.map((t) => t.bottom)), ...extra
})

/** Radicals and fractions from the drawn rules, innermost (shortest) first. */
const applyRules = (tokens: Array<MathToken>, rules: ReadonlyArray<Rule>): Array<MathToken> => {
  let out = tokens
  const sorted = rules.filter((r) => r.horizontal).sort((a, b) => (a.x1 - a.x0) - (b.x1 - b.x0))
  for (const rule of sorted) {
    const y = rule.y0
    const within = (t: MathToken) => centreX(t) >= rule.x0 - 0.5 && centreX(t) <= rule.x1 + 0.5
    const radical = out.find((t) => t.radical === true && Math.abs(t.x1 - rule.x0) < 1.5 && Math.abs(t.top - y) < t.size * 0.6)
    if (radical !== undefined) {
      const inner = out.filter((t) => t !== radical && within(t) && centreY(t) > y && t.top < radical.bottom + 1)
      if (inner.length === 0) continue
      const body = layout(inner, [])
      const members = [radical, ...inner]
      out = [...out.filter((t) => !members.includes(t)), group(`\\sqrt{${body.latex}}`, members, body.baseline, body.size)]
      continue
    }
    const near = (t: MathToken) => within(t) && Math.abs(centreY(t) - y) < t.size * 2.5
    const numerator = out.filter((t) => near(t) && t.baseline <= y + 0.2)
    const denominator = out.filter((t) => near(t) && t.baseline > y + 0.2)
    if (numerator.length === 0 || denominator.length === 0) continue
    const num = layout(numerator, [])
    const den = layout(denominator, [])
    const size = Math.max(num.size, den.size)
    // The fraction bar sits on the math axis, a quarter of the font size above the baseline.
    out = [...out.filter((t) => !numerator.includes(t) && !denominator.includes(t)),
      group(`\\frac{${num.latex}}{${den.latex}}`, [...numerator, ...denominator], y + size * 0.25, size, { x0: rule.x0, x1: rule.x1 })]
  }
  return out
}

/** The baseline most full-size glyphs share (groups count at theirs). */
const mainBaseline = (tokens: ReadonlyArray<MathToken>): { baseline: number; size: number } => {
  const plain = tokens.filter((t) => t.operator === undefined && t.radical !== true && t.big !== true)
  const pool = plain.length > 0 ? plain : tokens
  const size = Math.max(...pool.map((t) => t.size))
  let best = pool[0]?.baseline ?? 0
  let count = -1
  for (const t of pool) {
    if (t.size < size * 0.9) continue
    const n = pool.filter((u) => u.size >= size * 0.9 && Math.abs(u.baseline - t.baseline) < size * 0.12).length
    if (n > count) { count = n; best = t.baseline }
  }
  return { baseline: best, size }
}

interface Laid { latex: string; baseline: number; size: number }

/** Rows of full-size glyphs, when there are two or more: a matrix. */
const matrix = (tokens: ReadonlyArray<MathToken>, size: number): string | undefined => {
  if (tokens.some((t) => t.operator !== undefined)) return undefined
  const delimiters = tokens.filter((t) => /^[()[\]|]$/.test(t.glyph) && t.big === true)
  const body = tokens.filter((t) => !delimiters.includes(t))
  const rows: Array<Array<MathToken>> = []
  for (const t of [...body].sort((a, b) => a.baseline - b.baseline)) {
    const row = rows.find((r) => Math.abs(r[0]!.baseline - t.baseline) < size * 0.5)
    if (row !== undefined) row.push(t)
    else rows.push([t])
  }
  const full = rows.filter((r) => r.some((t) => t.size >= size * 0.9))
  if (full.length < 2 || full.length !== rows.length) return undefined
  for (let i = 1; i < rows.length; i++) if (rows[i]![0]!.baseline - rows[i - 1]![0]!.baseline < size * 1.1) return undefined
  // Columns: the gaps no row's glyph covers.
  const spans = [...body].sort((a, b) => a.x0 - b.x0)
  const cuts: Array<number> = []
  let reach = spans[0]?.x1 ?? 0
  for (const t of spans.slice(1)) {
    if (t.x0 - reach > size * 0.8) cuts.push((t.x0 + reach) / 2)
    reach = Math.max(reach, t.x1)
  }
  const lines = rows.map((row) => {
    const cells: Array<Array<MathToken>> = Array.from({ length: cuts.length + 1 }, () => [])
    for (const t of row) cells[cuts.filter((c) => c < centreX(t)).length]!.push(t)
    return cells.map((c) => c.length === 0 ? "" : layout(c, []).latex).join(" & ")
  })
  const open = delimiters.sort((a, b) => a.x0 - b.x0)[0]?.glyph
  const env = open === "[" ? "bmatrix" : open === "|" ? "vmatrix" : "pmatrix"
  return `\\begin{${env}} ${lines.join(" \\\\ ")} \\end{${env}}`
}

/** Lays tokens out as one horizontal list with scripts and limits. */
const layout = (tokens: ReadonlyArray<MathToken>, rules: ReadonlyArray<Rule>): Laid => {
  if (tokens.length === 0) return { latex: "", baseline: 0, size: 0 }
  const built = applyRules(applyOverlays([...tokens]), rules)
  const { baseline, size } = mainBaseline(built)
  // An operator name in script size ("max" under θ) is a script like any other.
  const onLine = (t: MathToken) => t.group === true || t.radical === true || t.big === true ||
    (t.operator !== undefined && t.size >= size * 0.8) || (Math.abs(t.baseline - baseline) < size * 0.12 && t.size >= size * 0.8)
  const main = built.filter(onLine).sort((a, b) => a.x0 - b.x0)
  const off = built.filter((t) => !onLine(t))
  if (off.length > 0) {
    const grid = matrix(built, size)
    if (grid !== undefined) return { latex: grid, baseline, size }
  }
  const under = new Map<MathToken, Array<MathToken>>()
  const over = new Map<MathToken, Array<MathToken>>()
  const subs = new Map<MathToken, Array<MathToken>>()
  const sups = new Map<MathToken, Array<MathToken>>()
  const add = (map: Map<MathToken, Array<MathToken>>, key: MathToken, t: MathToken) => {
    const list = map.get(key)
    if (list === undefined) map.set(key, [t])
    else list.push(t)
  }
  const loose: Array<MathToken> = []
  for (const t of off) {
    const above = t.baseline < baseline
    const op = main.find((o) => o.operator === "limits" && centreX(t) >= o.x0 - size * 0.3 && centreX(t) <= o.x1 + size * 0.3 &&
      (above ? t.bottom <= o.top + size * 0.4 : t.top >= o.bottom - size * 0.4))
    if (op !== undefined) {
      add(above ? over : under, op, t)
      continue
    }
    // The base is the last main-line glyph starting left of the script.
    let base: MathToken | undefined
    for (const m of main) if (m.x0 < t.x0 - 0.2) base = m
    if (base === undefined) loose.push(t)
    else add(above ? sups : subs, base, t)
  }
  const parts: Array<string> = []
  for (const t of loose.sort((a, b) => a.x0 - b.x0)) parts.push(t.latex)
  const sized = sizedDelimiters(main)
  for (const m of main) {
    let s = sized.get(m) ?? m.latex
    const lower = [...(under.get(m) ?? []), ...(subs.get(m) ?? [])]
    const upper = [...(over.get(m) ?? []), ...(sups.get(m) ?? [])]
    if (lower.length > 0) s += `_{${layout(lower, []).latex}}`
    if (upper.length > 0) s += `^{${layout(upper, []).latex}}`
    parts.push(s)
  }
  return { latex: join(parts), baseline, size }
}

/** LaTeX for a formula's glyphs and the rules drawn among them. */
export const formulaLatex = (tokens: ReadonlyArray<MathToken>, rules: ReadonlyArray<Rule>): string => layout(tokens, rules).latex

/** Whether a token is a big operator, and how its limits go. */
export const operatorKind = (latex: string, display: boolean): MathToken["operator"] => {
  if (LIMIT_NAMES.has(latex)) return "limits"
  if (!Object.values(BIG_OPERATORS).includes(latex)) return undefined
  return latex === "\\int" || latex === "\\oint" || !display ? "side" : "limits"
}

const OPENING: Record<string, string> = { "(": "(", "[": "[", "{": "\\{", "|": "|" }
const CLOSING: Record<string, string> = { ")": ")", "]": "]", "}": "\\}", "|": "|" }

/**
 * Big delimiters (CMEX's sized ones) that pair up on the main line are TeX's stretchy ones,
 * `\left(` ... `\right)`; unpaired ones stay as they are, so that the LaTeX still parses.
 */
const sizedDelimiters = (main: ReadonlyArray<MathToken>): Map<MathToken, string> => {
  const out = new Map<MathToken, string>()
  const open: Array<MathToken> = []
  for (const t of main) {
    if (t.big !== true || t.operator !== undefined || t.radical === true) continue
    const closing = CLOSING[t.glyph]
    if (closing !== undefined && open.length > 0 && (t.glyph !== "|" || open.at(-1)!.glyph === "|")) {
      const o = open.pop()!
      out.set(o, `\\left${OPENING[o.glyph]}`)
      out.set(t, `\\right${closing}`)
    } else if (OPENING[t.glyph] !== undefined) open.push(t)
  }
  for (const o of open) out.delete(o)
  return out
}
