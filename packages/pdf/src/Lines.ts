/**
 * Items to lines: runs that share a baseline band are gathered into rows, and each row is cut
 * into line fragments wherever the horizontal gap is wider than a column gutter could be mistaken
 * for a word space. A fragment is the unit the block, table and reading-order stages work with.
 *
 * Word spaces are rebuilt from geometry (pdf.js drops or keeps them inconsistently); superscripts
 * (smaller, raised) join the row of the text they sit on without being glued to the previous word.
 */
import type { Line, TextRun } from "@strata/core"

export type { Line } from "@strata/core"

/** A fragment ends where the gap exceeds this many font sizes. */
export const FRAGMENT_GAP = 1.1

/** A gap this wide (in font sizes) still ends a fragment where the page leaves an empty band down it (a column gutter). */
export const NARROW_GUTTER = 0.5

/**
 * Text stacked this many font sizes high on both sides of such a gap, at the least: a band between
 * two words of a page of two lines is empty too, and is no gutter.
 */
const GUTTER_ROWS = 8

/**
 * The gap between two runs of a row beyond which they stand in two table cells: a word space is a
 * quarter to a third of an em (a whole advance, about 0.6 em, in monospace type), while a table's
 * cell padding on both sides can come to less than a fragment gap (Chromium prints cells 12 px apart
 * in 12 px type).
 */
export const cellGap = (a: TextRun, b: TextRun): number => (a.mono && b.mono ? 1 : 0.6) * Math.min(a.size, b.size)

/** A line's pieces: its runs, joined where the gap between them is narrower than a cell gap. */
export const pieces = (line: Line): Array<readonly [number, number]> => {
  const out: Array<[number, number]> = []
  let previous: TextRun | undefined
  for (const run of [...line.runs].sort((a, b) => a.x0 - b.x0)) {
    const last = out[out.length - 1]
    if (last !== undefined && previous !== undefined && run.x0 - last[1] <= cellGap(previous, run)) last[1] = Math.max(last[1], run.x1)
    else out.push([run.x0, run.x1])
    previous = run
  }
  return out
}

/** Runs whose sizes differ by this factor or more are spaced by the smaller one. */
const MIXED_SIZES = 1.5

/** A fragment that is only a list marker (bullet, number, letter). */
export const LONE_MARKER = /^(?:[•●○◦▪▫■□‣⁃∙·◆◇►▸➢✓✔☐☑☒✗✘❑❒◻◼\ue000-\uf8ff\u0080-\u009f\-–—*+]|\(?\d{1,3}[.)]|\(?[a-z][.)]|\(?[ivx]{1,4}[.)])$/

const RTL_CHAR = /[\u0590-\u08ff\ufb1d-\ufdff\ufe70-\ufefc]/
const CLOSING = /^[.,;:!?)\]}%’”»]/
const OPENING = /[([{“‘«$]$/

interface Row {
  runs: Array<TextRun>
  top: number
  bottom: number
  baseline: number
  size: number
}

/** Joins runs (sorted in reading direction) into text, adding spaces where the geometry shows one. */
export const joinRuns = (runs: ReadonlyArray<TextRun>, rtl = false): string => {
  let text = ""
  let previous: TextRun | undefined
  for (const run of runs) {
    if (previous !== undefined) {
      const size = Math.min(previous.size, run.size)
      // Gaps run in the line's direction: in a right-to-left line a Latin word still sits left of what precedes it.
      const gap = rtl ? previous.x0 - run.x1 : run.x0 - previous.x1
      const hasSpace = text.endsWith(" ") || run.text.startsWith(" ")
      const superscript = run.size < previous.size * 0.85 && run.baseline < previous.baseline - 1
      // Monospace glyphs are often placed one by one: a space there is a whole advance (about half an em).
      const spaceGap = run.mono && previous.mono ? size * 0.3 : size * 0.16
      if (!hasSpace && gap > spaceGap && !(CLOSING.test(run.text) && gap < size * 0.3) && !(OPENING.test(text) && gap < size * 0.3)) text += " "
      else if (!hasSpace && superscript && gap > size * 0.05) text += " "
    }
    text += run.text
    previous = run
  }
  return text.replace(/\s+/g, " ").trim()
}

const dominant = <T>(runs: ReadonlyArray<TextRun>, key: (run: TextRun) => T): T => {
  const weights = new Map<T, number>()
  let best = key(runs[0])
  let bestWeight = -1
  for (const run of runs) {
    const k = key(run)
    const w = (weights.get(k) ?? 0) + run.text.length
    weights.set(k, w)
    if (w > bestWeight) {
      bestWeight = w
      best = k
    }
  }
  return best
}

/** Counts a text's right-to-left characters and its letters into `into`. */
const countDirection = (text: string, into: { rtlChars: number; letters: number }): void => {
  for (const ch of text) {
    if (RTL_CHAR.test(ch)) into.rtlChars++
    if (/\p{L}/u.test(ch)) into.letters++
  }
}

/** A text runs right to left when most of its letters are right-to-left characters. */
export const isRtlText = (text: string): boolean => {
  const counts = { rtlChars: 0, letters: 0 }
  countDirection(text, counts)
  return counts.rtlChars > counts.letters / 2
}

const makeLine = (runs: Array<TextRun>, row: number): Line => {
  const counts = { rtlChars: 0, letters: 0 }
  for (const run of runs) countDirection(run.text, counts)
  const rtl = counts.rtlChars > counts.letters / 2
  const ordered = [...runs].sort(rtl ? (a, b) => b.x1 - a.x1 : (a, b) => a.x0 - b.x0)
  let x0 = Infinity, x1 = -Infinity, top = Infinity, bottom = -Infinity
  let chars = 0, boldChars = 0, italicChars = 0, monoChars = 0, mathChars = 0
  for (const run of runs) {
    x0 = Math.min(x0, run.x0); x1 = Math.max(x1, run.x1)
    top = Math.min(top, run.top); bottom = Math.max(bottom, run.bottom)
    const n = run.text.replace(/\s/g, "").length
    chars += n
    if (run.bold) boldChars += n
    if (run.italic) italicChars += n
    if (run.mono) monoChars += n
    if (run.math) mathChars += n
  }
  const size = Math.round(dominant(runs, (r) => Math.round(r.size * 2) / 2) * 10) / 10
  const main = runs.filter((r) => Math.abs(r.size - size) < 1)
  return {
    runs: ordered,
    text: joinRuns(ordered, rtl),
    x0, x1, top, bottom,
    baseline: main.length > 0 ? main[0].baseline : runs[0].baseline,
    size,
    bold: chars > 0 && boldChars >= chars * 0.9,
    italic: chars > 0 && italicChars >= chars * 0.9,
    mono: chars > 0 && monoChars >= chars * 0.9,
    math: chars > 0 && mathChars >= chars * 0.3,
    rotated: runs.every((r) => r.rotated),
    rtl,
    row
  }
}

/** Drops runs drawn again over themselves (a fake bold: the same text painted twice, slightly offset). */
const withoutOverprint = (runs: ReadonlyArray<TextRun>): ReadonlyArray<TextRun> => {
  const seen = new Map<string, Array<TextRun>>()
  let dropped = false
  const kept: Array<TextRun> = []
  for (const run of runs) {
    const same = seen.get(run.text)
    if (same !== undefined && same.some((o) => Math.abs(o.x0 - run.x0) < 1.5 && Math.abs(o.baseline - run.baseline) < 1.5)) {
      dropped = true
      continue
    }
    if (same === undefined) seen.set(run.text, [run])
    else same.push(run)
    kept.push(run)
  }
  return dropped ? kept : runs
}

/** Section numbers and caption labels ("5.1", "A.2.", "Table 3.") set apart by a quad from their title. */
const LABEL = /^(?:\d+(?:\.\d+)+\.?|\d+\.|[A-Z]\.(?:\d+\.?)*|[IVX]+\.|(?:table|tab\.|fig\.|figure|listing|algorithm)\s*\d+[.:]?)$/i

/** A bare section number ("1", "12"): a label only where its heading's type says so (see keepsTogether). */
const BARE_NUMBER = /^\d{1,2}$/

/**
 * Whether a wide gap still belongs inside one fragment: a list marker or a label before its text.
 * A bare number is a section number set a quad from its heading in bold or large type (CMBX's quad
 * is 1.15 em, wider than a word space may be: "1 Introduction" in LaTeX's article class was cut in
 * two); in body type it may be a table's first column, and stays apart.
 */
const keepsTogether = (fragment: ReadonlyArray<TextRun>, next: TextRun, gap: number, size: number, bodySize: number): boolean => {
  if (fragment.length > 3 || gap > 5 * size) return false
  const text = joinRuns(fragment)
  if (LONE_MARKER.test(text)) return true
  const sameSize = Math.abs(next.size - fragment[0].size) < 0.5
  if (gap < 3 * size && LABEL.test(text) && /^\p{Lu}/u.test(next.text.trimStart()) && sameSize) return true
  return gap < 1.6 * size && BARE_NUMBER.test(text) && sameSize && /^\p{Lu}/u.test(next.text.trimStart()) &&
    ((fragment.every((r) => r.bold) && next.bold) || next.size >= 1.15 * bodySize)
}

/** The gap before each run of a row sorted by x (the first is Infinity). */
const rowGaps = (ordered: ReadonlyArray<TextRun>): Array<number> => {
  let right = -Infinity
  return ordered.map((run) => {
    const gap = run.x0 - right
    right = Math.max(right, run.x1)
    return gap
  })
}

const WORD = /\p{L}{2}/u

/** The widest page, in points, whose text coverage emptyBand keeps (PDF's largest page is 14,400 pt). */
const MAX_WIDTH = 15_000

/**
 * A wide gap before run `i` that is a stretched word space of a justified line, not a gutter: a
 * gap beside it (before the previous word or after this one) is as wide to within a tenth, and
 * words, not figures, stand on both sides. A narrow justified column stretches its spaces past
 * FRAGMENT_GAP (8 pt type in 110 pt columns), and cut there its lines looked like table cells.
 * A table's gutters differ from one another with their cells' widths; numbers are left out
 * because right-aligned figures of one width do leave equal gaps.
 */
const justifiedSpace = (ordered: ReadonlyArray<TextRun>, gaps: ReadonlyArray<number>, i: number, size: number): boolean => {
  const gap = gaps[i]
  if (gap > 6 * size || !WORD.test(ordered[i].text) || !WORD.test(ordered[i - 1].text)) return false
  const alike = (j: number) => j >= 1 && j < gaps.length && gaps[j] > 0.35 * size && Math.abs(gaps[j] - gap) <= Math.max(0.4, 0.1 * gap) &&
    WORD.test(ordered[j].text) && WORD.test(ordered[j - 1].text)
  return alike(i - 1) || alike(i + 1)
}

/**
 * Whether the page's text leaves the vertical band between x `a` and `b` (almost) empty, against
 * the text on either side of it: a column gutter, where the word spaces of justified lines fall
 * at other places on every row and leave no such band. Measured against the sides, not the page,
 * so that a column filled half way down still has its spaces covered.
 */
const emptyBand = (runs: ReadonlyArray<TextRun>): ((a: number, b: number, minSide?: number) => boolean) => {
  let right = 0
  for (const r of runs) if (r.x1 > right) right = r.x1
  // Bounded: a broken file may place a run far off the page.
  const covered = new Float64Array(Math.max(1, Math.min(MAX_WIDTH, Math.ceil(right) + 1)))
  for (const r of runs) for (let x = Math.max(0, Math.floor(r.x0)); x < Math.min(covered.length, Math.ceil(r.x1)); x++) covered[x] += r.bottom - r.top
  const most = (from: number, to: number) => {
    let m = 0
    for (let x = Math.max(0, Math.floor(from)); x < Math.min(covered.length, Math.ceil(to)); x++) m = Math.max(m, covered[x])
    return m
  }
  return (a, b, minSide = 0) => {
    const side = Math.min(most(a - 20, a), most(b, b + 20))
    if (side < minSide) return false
    for (let x = Math.max(0, Math.ceil(a)); x < Math.min(covered.length, Math.floor(b)); x++) if (covered[x] <= 0.25 * side) return true
    return false
  }
}

/**
 * Groups the page's runs into line fragments, top to bottom, then left to right. `stretched:
 * false` cuts at every wide gap, the stretched spaces of justified lines too (as before they were
 * told from gutters); `mixedSizes: false` measures every gap against the larger size (as before
 * MIXED_SIZES); benches compare.
 */
export const buildLines = (
  input: ReadonlyArray<TextRun>,
  { mixedSizes = true, stretched = true }: { readonly stretched?: boolean; readonly mixedSizes?: boolean } = {}
): Array<Line> => {
  const runs = withoutOverprint(input)
  const horizontal = runs.filter((r) => !r.rotated)
  const rotated = runs.filter((r) => r.rotated)
  const sorted = [...horizontal].sort((a, b) => a.baseline - b.baseline || a.x0 - b.x0)
  const rows: Array<Row> = []
  for (const run of sorted) {
    // Look back over the rows still open at this height; the best is the one sharing most of the run's height.
    let best: Row | undefined
    let bestOverlap = 0
    for (let i = rows.length - 1; i >= 0 && i >= rows.length - 6; i--) {
      const row = rows[i]
      if (row.bottom < run.top - run.size) break
      const overlap = Math.min(row.bottom, run.bottom) - Math.max(row.top, run.top)
      const height = Math.min(row.bottom - row.top, run.bottom - run.top)
      const sameBaseline = Math.abs(row.baseline - run.baseline) <= Math.max(1, 0.25 * Math.min(row.size, run.size))
      // Smaller type riding in a larger row (a superscript, a drop cap's lines) touches its runs;
      // smaller type a gutter away is a line of its own (a column's lines beside a pull quote's
      // tall line rode on it together, and their words were interleaved). Larger type may still
      // take in a smaller row met first (a fraction's raised numerator).
      const near = () => row.runs.some((r) => run.x0 - r.x1 < FRAGMENT_GAP * Math.min(r.size, run.size) && r.x0 - run.x1 < FRAGMENT_GAP * Math.min(r.size, run.size))
      const riding = (run.size < row.size * 0.85 || row.size < run.size * 0.85) && overlap > 0.5 * height &&
        (!mixedSizes || run.size >= row.size * 0.85 || near())
      if ((sameBaseline || riding) && overlap / height > bestOverlap) {
        best = row
        bestOverlap = overlap / height
      }
    }
    if (best === undefined) {
      rows.push({ runs: [run], top: run.top, bottom: run.bottom, baseline: run.baseline, size: run.size })
    } else {
      best.runs.push(run)
      if (run.size >= best.size * 0.85) {
        best.top = Math.min(best.top, run.top)
        best.bottom = Math.max(best.bottom, run.bottom)
        if (run.size > best.size * 1.15) best.baseline = run.baseline
        if (run.size > best.size) best.size = run.size
      }
    }
  }
  const gutter = emptyBand(horizontal)
  const bodySize = horizontal.length > 0 ? dominant(horizontal, (r) => Math.round(r.size * 2) / 2) : 0
  const lines: Array<Line> = []
  rows.forEach((row, index) => {
    const ordered = row.runs.sort((a, b) => a.x0 - b.x0)
    const gaps = rowGaps(ordered)
    let fragment: Array<TextRun> = []
    let right = -Infinity
    for (const [i, run] of ordered.entries()) {
      const gap = run.x0 - right
      // The larger size sets how wide a word space may be, unless the two differ by half or more
      // and the gap is a gutter of the page: then it is measured against the smaller type (a pull
      // quote's large words one gutter away from a column's running text were read as one line
      // with it).
      const before = fragment.length > 0 ? fragment[fragment.length - 1].size : 0
      const mixed = mixedSizes && fragment.length > 0 && Math.min(run.size, before) * MIXED_SIZES <= Math.max(run.size, before) &&
        gap > FRAGMENT_GAP * Math.min(run.size, before) && gutter(right, run.x0)
      const size = mixed ? Math.min(run.size, before) : Math.max(run.size, before)
      // Justified Arabic stretches its word gaps (kashida): right-to-left runs tolerate wider ones.
      const limit = run.rtl && fragment[fragment.length - 1]?.rtl ? 2.5 * FRAGMENT_GAP : FRAGMENT_GAP
      // a gap narrower than a fragment gap is still a cut where it is a page gutter: LaTeX sets two
      // columns 10 pt apart, one em of 10 pt type, and their lines were read as one
      const atGutter = gap > NARROW_GUTTER * size && gutter(right, run.x0, GUTTER_ROWS * size)
      const cut = (gap > limit * size && !(stretched && justifiedSpace(ordered, gaps, i, size) && !gutter(right, run.x0))) || atGutter
      // A marker or label keeps its text beside it, but never across a page gutter (an equation's
      // number at the right edge of one column was read as a list marker of the next column's line).
      if (fragment.length > 0 && cut && (atGutter || !keepsTogether(fragment, run, gap, size, bodySize))) {
        lines.push(makeLine(fragment, index))
        fragment = []
      }
      fragment.push(run)
      right = Math.max(right, run.x1)
    }
    if (fragment.length > 0) lines.push(makeLine(fragment, index))
  })
  for (const run of rotated) lines.push(makeLine([run], rows.length + lines.length))
  return lines
}
