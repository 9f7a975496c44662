/**
 * Right-to-left text from the operator list back into logical order. Glyphs reach the operator
 * list in the order they are drawn, which for Arabic and Hebrew is usually left to right across
 * the page (visual order); readers want the order the words are read in. The text pass of pdf.js
 * ran a reduced form of the Unicode bidirectional algorithm (weak and neutral types resolved,
 * then runs reversed by level) over each text item; the same rules are applied here, with one
 * difference: the units reordered are glyphs, not characters, so a glyph that stands for two
 * letters (a lam-alef ligature mapped to "لا") keeps its letters in order.
 */

/** Bidi classes used here; `X` is what the algorithm leaves at the base level (controls, breaks). */
type BidiClass = "L" | "R" | "AL" | "EN" | "ES" | "ET" | "CS" | "AN" | "NSM" | "WS" | "ON" | "X"

/** Classes of the Latin-1 range, as [first code, class] steps (each holds until the next). */
const LATIN1: ReadonlyArray<readonly [number, BidiClass]> = [
  [0x00, "X"], [0x0c, "WS"], [0x0d, "X"], [0x20, "WS"], [0x21, "ON"], [0x23, "ET"], [0x26, "ON"], [0x2b, "ES"],
  [0x2c, "CS"], [0x2d, "ES"], [0x2e, "CS"], [0x30, "EN"], [0x3a, "CS"], [0x3b, "ON"], [0x41, "L"], [0x5b, "ON"],
  [0x61, "L"], [0x7b, "ON"], [0x7f, "X"], [0xa0, "CS"], [0xa1, "ON"], [0xa2, "ET"], [0xa6, "ON"], [0xaa, "L"],
  [0xab, "ON"], [0xad, "X"], [0xae, "ON"], [0xb0, "ET"], [0xb2, "EN"], [0xb4, "ON"], [0xb5, "L"], [0xb6, "ON"],
  [0xb9, "EN"], [0xba, "L"], [0xbb, "ON"], [0xc0, "L"], [0xd7, "ON"], [0xd8, "L"], [0xf7, "ON"], [0xf8, "L"]
]

/** Classes of the Arabic block (U+0600..U+06FF), as [first code, class] steps. */
const ARABIC: ReadonlyArray<readonly [number, BidiClass]> = [
  [0x600, "AN"], [0x606, "ON"], [0x608, "AL"], [0x609, "ET"], [0x60b, "AL"], [0x60c, "CS"], [0x60d, "AL"], [0x60e, "ON"],
  [0x610, "NSM"], [0x61b, "AL"], [0x64b, "NSM"], [0x660, "AN"], [0x66a, "ET"], [0x66b, "AN"], [0x66d, "AL"], [0x670, "NSM"],
  [0x671, "AL"], [0x6d6, "NSM"], [0x6dd, "AN"], [0x6de, "ON"], [0x6df, "NSM"], [0x6e5, "AL"], [0x6e7, "NSM"], [0x6e9, "ON"],
  [0x6ea, "NSM"], [0x6ee, "AL"], [0x6f0, "EN"], [0x6fa, "AL"]
]

const stepClass = (steps: ReadonlyArray<readonly [number, BidiClass]>, code: number): BidiClass => {
  let found = steps[0][1]
  for (const [first, cls] of steps) {
    if (code < first) break
    found = cls
  }
  return found
}

const LATIN1_TABLE: Array<BidiClass> = Array.from({ length: 256 }, (_, code) => stepClass(LATIN1, code))

const classOf = (code: number): BidiClass => {
  if (code <= 0xff) return LATIN1_TABLE[code]
  if (code >= 0x0590 && code <= 0x05f4) return "R"
  if (code >= 0x0600 && code <= 0x06ff) return stepClass(ARABIC, code)
  if ((code >= 0x0700 && code <= 0x08ac) || (code >= 0xfb50 && code <= 0xfdff) || (code >= 0xfe70 && code <= 0xfeff)) return "AL"
  return "L"
}

const isRtlClass = (cls: BidiClass): boolean => cls === "R" || cls === "AL" || cls === "AN"

/** One unit's class: a glyph standing for several characters takes its first strong one. */
const unitClass = (unit: string): BidiClass => {
  if (unit.length === 1) return classOf(unit.charCodeAt(0))
  let first: BidiClass | undefined
  for (let i = 0; i < unit.length; i++) {
    const cls = classOf(unit.charCodeAt(i))
    first ??= cls
    if (cls === "L" || cls === "R" || cls === "AL") return cls
  }
  return first ?? "ON"
}

/**
 * Glyph texts in drawing order to a string in logical order, and whether the text reads right to
 * left (at least three in ten characters right-to-left, or a short string with any).
 */
export const logicalOrder = (units: ReadonlyArray<string>): { text: string; rtl: boolean } => {
  let length = 0
  let rtlChars = 0
  for (const unit of units) {
    length += unit.length
    for (let i = 0; i < unit.length; i++) if (isRtlClass(classOf(unit.charCodeAt(i)))) rtlChars++
  }
  if (rtlChars === 0) return { text: units.join(""), rtl: false }
  const rtl = !(rtlChars / length < 0.3 && length > 4)
  const base = rtl ? 1 : 0
  const edge: BidiClass = rtl ? "R" : "L"
  const n = units.length
  const types = units.map(unitClass)
  // Marks take the class of what they sit on; numbers after Arabic letters are Arabic numbers.
  let last: BidiClass = edge
  for (let i = 0; i < n; i++) {
    if (types[i] === "NSM") types[i] = last
    else last = types[i]
  }
  last = edge
  for (let i = 0; i < n; i++) {
    const t = types[i]
    if (t === "EN") types[i] = last === "AL" ? "AN" : "EN"
    else if (t === "R" || t === "L" || t === "AL") last = t
  }
  for (let i = 0; i < n; i++) if (types[i] === "AL") types[i] = "R"
  // Separators between two numbers of one kind, and terminators next to European numbers, join them.
  for (let i = 1; i < n - 1; i++) {
    if (types[i] === "ES" && types[i - 1] === "EN" && types[i + 1] === "EN") types[i] = "EN"
    if (types[i] === "CS" && (types[i - 1] === "EN" || types[i - 1] === "AN") && types[i + 1] === types[i - 1]) types[i] = types[i - 1]
  }
  for (let i = 0; i < n; i++) {
    if (types[i] !== "EN") continue
    for (let j = i - 1; j >= 0 && types[j] === "ET"; j--) types[j] = "EN"
    for (let j = i + 1; j < n && types[j] === "ET"; j++) types[j] = "EN"
  }
  for (let i = 0; i < n; i++) {
    const t = types[i]
    if (t === "WS" || t === "ES" || t === "ET" || t === "CS") types[i] = "ON"
  }
  last = edge
  for (let i = 0; i < n; i++) {
    const t = types[i]
    if (t === "EN") types[i] = last === "L" ? "L" : "EN"
    else if (t === "R" || t === "L") last = t
  }
  // Neutrals between two strong types of one direction take it; the rest take the base direction.
  const strongDir = (t: BidiClass): "L" | "R" | undefined => (t === "L" ? "L" : t === "R" || t === "EN" || t === "AN" ? "R" : undefined)
  for (let i = 0; i < n; i++) {
    if (types[i] !== "ON") continue
    let end = i + 1
    while (end < n && types[end] === "ON") end++
    let before: "L" | "R" = edge as "L" | "R"
    for (let j = i - 1; j >= 0; j--) {
      const d = strongDir(types[j])
      if (d !== undefined) { before = d; break }
    }
    let after: "L" | "R" = edge as "L" | "R"
    for (let j = end; j < n; j++) {
      const d = strongDir(types[j])
      if (d !== undefined) { after = d; break }
    }
    if (before === after) for (let j = i; j < end; j++) types[j] = before
    i = end - 1
  }
  for (let i = 0; i < n; i++) if (types[i] === "ON") types[i] = edge
  const levels: Array<number> = Array.from({ length: n }, () => base)
  for (let i = 0; i < n; i++) {
    const t = types[i]
    if (base === 0) {
      if (t === "R") levels[i] = 1
      else if (t === "AN" || t === "EN") levels[i] = 2
    } else if (t === "L" || t === "AN" || t === "EN") {
      levels[i] = 2
    }
  }
  // From the highest level down to the lowest odd one, every stretch at or above it is reversed.
  let highest = 0
  let lowestOdd = Infinity
  for (const level of levels) {
    if (level > highest) highest = level
    if (level % 2 === 1 && level < lowestOdd) lowestOdd = level
  }
  const order = [...units]
  for (let level = highest; level >= lowestOdd; level--) {
    let start = -1
    for (let i = 0; i <= n; i++) {
      if (i < n && levels[i] >= level) {
        if (start < 0) start = i
      } else if (start >= 0) {
        reverse(order, start, i)
        reverse(levels, start, i)
        start = -1
      }
    }
  }
  return { text: order.join(""), rtl }
}

const reverse = <T>(values: Array<T>, start: number, end: number): void => {
  for (let i = start, j = end - 1; i < j; i++, j--) {
    const t = values[i]
    values[i] = values[j]
    values[j] = t
  }
}
