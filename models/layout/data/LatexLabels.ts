/**
 * Reads a LaTeX document's labels back from what pdflatex made of its source (`Latex.ts`): the
 * characters of `mutool draw -F stext` with their fill colour, and the boxes `\lbox` wrote to
 * `<job>.lbl`. The labels are the source's, exact: a character belongs to the element whose
 * colour it is printed in; a table or figure is the box TeX placed.
 *
 * Regions, per page, in PDF points with a top-left origin (the HTML generator's `<seed>.json`):
 * - a coloured element's characters on one page and in one column (two-column documents are cut
 *   at the middle of the text block, except `spanning` elements), as one box; a paragraph's
 *   lines are cut where a gap of most of a line opens (text around a display formula);
 * - each `\lbox` as its box (width, height and depth about its reference point).
 */
import { LATEX_LABELS, type LatexLabel } from "./Latex.ts"

export type Box = [number, number, number, number]
export interface LatexRegion { readonly label: LatexLabel; readonly box: Box }
export interface StextPage { readonly width: number; readonly height: number; readonly chars: ReadonlyArray<{ readonly colour: string; readonly box: Box }> }

/** TeX points (72.27 an inch) to PDF points (72). */
const BP = 72 / 72.27

/** The label and element number a colour names, or undefined for any other colour (black, a figure's greys). */
export const colourLabel = (hex: string): { label: LatexLabel; id: number } | undefined => {
  const m = /^#([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{2})$/i.exec(hex)
  if (m === null) return undefined
  // Each channel was written as 2k + 2 (Latex.ts encodeColour) and may come back one lower.
  const [r, g, b] = [m[1], m[2], m[3]].map((h) => Math.floor((parseInt(h, 16) - 1) / 2))
  if (r < 0 || g < 0 || b < 0 || r > 9 || g > 9 || b >= LATEX_LABELS.length) return undefined
  return { label: LATEX_LABELS[b], id: r + 10 * g }
}

const attr = (tag: string, name: string) => new RegExp(`\\s${name}="([^"]*)"`).exec(tag)?.[1]

/** The pages of `mutool draw -F stext` XML: size and every non-blank character's box and colour. */
export const parseStext = (xml: string): Array<StextPage> => {
  const pages: Array<StextPage & { chars: Array<{ colour: string; box: Box }> }> = []
  for (const m of xml.matchAll(/<page\b[^>]*>|<char\b[^>]*>/g)) {
    const tag = m[0]
    if (tag.startsWith("<page")) {
      pages.push({ width: Number(attr(tag, "width")), height: Number(attr(tag, "height")), chars: [] })
      continue
    }
    const c = attr(tag, "c"), quad = attr(tag, "quad"), colour = attr(tag, "color")
    if (c === undefined || quad === undefined || colour === undefined || c.trim() === "" || pages.length === 0) continue
    const q = quad.split(" ").map(Number)
    const xs = [q[0], q[2], q[4], q[6]], ys = [q[1], q[3], q[5], q[7]]
    pages[pages.length - 1].chars.push({ colour, box: [Math.min(...xs), Math.min(...ys), Math.max(...xs), Math.max(...ys)] })
  }
  return pages
}

export interface LblFile {
  /** Left edge of the text block and its width, in PDF points. */
  readonly area: { readonly left: number; readonly width: number } | undefined
  readonly boxes: ReadonlyArray<{ readonly label: LatexLabel; readonly page: number; readonly x: number; readonly y: number; readonly wd: number; readonly ht: number; readonly dp: number }>
}

/** `<job>.lbl`: `area <left> <textwidth>` once, then `<label> <printed page> <x sp> <y sp> <wd> <ht> <dp>` per box. */
export const parseLbl = (text: string): LblFile => {
  let area: LblFile["area"]
  const boxes: Array<LblFile["boxes"][number]> = []
  const pt = (s: string) => Number(s.replace(/pt$/, "")) * BP
  for (const line of text.split("\n")) {
    const f = line.trim().split(/\s+/)
    if (f[0] === "area" && f.length === 3) area = { left: pt(f[1]), width: pt(f[2]) }
    else if ((LATEX_LABELS as ReadonlyArray<string>).includes(f[0]) && f.length === 7) {
      boxes.push({ label: f[0] as LatexLabel, page: Number(f[1]), x: (Number(f[2]) / 65536) * BP, y: (Number(f[3]) / 65536) * BP, wd: pt(f[4]), ht: pt(f[5]), dp: pt(f[6]) })
    }
  }
  return { area, boxes }
}

const union = (boxes: ReadonlyArray<Box>): Box =>
  [Math.min(...boxes.map((b) => b[0])), Math.min(...boxes.map((b) => b[1])), Math.max(...boxes.map((b) => b[2])), Math.max(...boxes.map((b) => b[3]))]

/** Lines of characters (by vertical overlap with the line so far), then runs of lines with no gap of 0.8 of a line between them. */
const paragraphs = (boxes: ReadonlyArray<Box>): Array<Box> => {
  const sorted = [...boxes].sort((a, b) => (a[1] + a[3]) - (b[1] + b[3]))
  const lines: Array<Box> = []
  for (const b of sorted) {
    const last = lines[lines.length - 1]
    if (last !== undefined && (b[1] + b[3]) / 2 <= last[3]) lines[lines.length - 1] = union([last, b])
    else lines.push(b)
  }
  const runs: Array<Box> = []
  for (const line of lines) {
    const last = runs[runs.length - 1]
    if (last !== undefined && line[1] - last[3] < 0.8 * (line[3] - line[1])) runs[runs.length - 1] = union([last, line])
    else runs.push(line)
  }
  return runs
}

export interface LabelOptions {
  readonly columns: 1 | 2
  /** Element numbers set across both columns. */
  readonly spanning: ReadonlyArray<number>
  /** The first page's printed number. */
  readonly firstPage: number
}

/** Labelled regions of every page (index 0 is page 1). */
export const latexRegions = (pages: ReadonlyArray<StextPage>, lbl: LblFile, options: LabelOptions): Array<Array<LatexRegion>> =>
  pages.map((page, p) => {
    const groups = new Map<string, { label: LatexLabel; boxes: Array<Box> }>()
    const middle = lbl.area === undefined ? page.width / 2 : lbl.area.left + lbl.area.width / 2
    for (const ch of page.chars) {
      const named = colourLabel(ch.colour)
      if (named === undefined) continue
      const column = options.columns === 2 && !options.spanning.includes(named.id) ? ((ch.box[0] + ch.box[2]) / 2 < middle ? 0 : 1) : 0
      const key = `${named.label}:${named.id}:${column}`
      const group = groups.get(key) ?? { label: named.label, boxes: [] }
      group.boxes.push(ch.box)
      groups.set(key, group)
    }
    const regions: Array<LatexRegion> = []
    for (const { label, boxes } of groups.values()) {
      for (const box of label === "text" ? paragraphs(boxes) : [union(boxes)]) regions.push({ label, box })
    }
    for (const b of lbl.boxes) {
      if (b.page - options.firstPage !== p) continue
      regions.push({ label: b.label, box: [b.x, page.height - b.y - b.ht, b.x + b.wd, page.height - b.y + b.dp] })
    }
    const r2 = (v: number) => Math.round(v * 100) / 100
    return regions
      .map((r): LatexRegion => ({ label: r.label, box: [r2(r.box[0]), r2(r.box[1]), r2(r.box[2]), r2(r.box[3])] }))
      .sort((a, b) => a.box[1] - b.box[1] || a.box[0] - b.box[0])
  })
