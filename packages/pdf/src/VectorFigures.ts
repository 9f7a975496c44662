/**
 * Figures drawn with paths (charts, diagrams, box-and-arrow schemes): painted paths lying close
 * together form a region, and a region is a picture when it is large, made of many separate
 * shapes, not a table and not mostly text. Its lines are then held by the figure as an image
 * figure's are (Figures.ts), so diagram labels stay out of the body.
 *
 * What is not a picture, and why the tests below are as they are:
 * - a frame around a paragraph, a tinted sidebar panel, a shaded table row, an underline: one or
 *   two paths, or a frame holding only a few small marks (the frame itself is not counted);
 * - a ruled table the table stage did not take: only thin rules, in rows and columns, and text
 *   over most of it;
 * - a page background or a border around everything (left out in PageContent.ts).
 * A "Figure N" caption right above or below a region lowers the bar on the number of shapes, since
 * a caption is strong evidence that something next to it is a picture.
 */
import { area, BACKGROUND_SHARE, type Box, type FigureSplit, heldBy, intersection, MAX_TEXT_COVER, MIN_AREA_SHARE, usualSizeOf } from "./Figures.ts"
import type { LayoutBlock } from "./LayoutBlock.ts"
import type { Line } from "./Lines.ts"
import type { DrawingBox } from "./PageContent.ts"

/** Paths closer than this (points) belong to one region: an arrow touching its boxes, bars standing on an axis. */
const JOIN_GAP = 6
/** Fewest separate shapes (frames around the region not counted) for a region to be a picture. */
const MIN_SHAPES = 6
/** The same with a figure caption beside the region. */
const MIN_SHAPES_CAPTIONED = 3
/**
 * Fewest shapes with an inside (boxes, bars, arrowheads, curves): a region of thin strokes only is
 * a layout of rules (a table the table stage missed, a form), not a chart or a diagram.
 */
const MIN_SOLID = 3
/**
 * Least share of the shapes that have an inside. Charts and diagrams are mostly boxes, bars,
 * arrowheads and curves (48-100% on the corpora); a form's entry fields and a statement's rules
 * with a few shaded bands are mostly thin strokes (29-35%), and their text is data, not labels.
 */
const MIN_SOLID_SHARE = 0.4
/** Most characters of text per shape a picture holds: diagram labels are short, a grid of filled cells has words in each. */
const MAX_CHARS_PER_SHAPE = 20
/** How far (in body font sizes) outside the drawn region a short line still labels it. */
const LABEL_REACH = 2
/** A path lying within this distance (points) of the region's edge is part of its border. */
const EDGE = 4
/** A path this thin (points) across is a rule or hairline, not a shape with an inside. */
const THIN = 2.5

const FIGURE_CAPTION = /^(?:figure|fig\.?|chart|diagram|graph|illustration|abbildung|abb\.)\s*[\dIVXivx]/i

/** A cluster of drawings, with what the tests need. */
export interface Region extends Box {
  /** Paths in the region. */
  readonly paths: number
  /** Paths not framing the region: neither spanning most of it nor lying along its edge. */
  readonly shapes: number
  /** Of the shapes, those with an inside (neither thin rules nor hairlines). */
  readonly solid: number
}

/** Union-find root with path halving. */
const find = (parent: Int32Array, i: number): number => {
  while (parent[i] !== i) {
    parent[i] = parent[parent[i]]
    i = parent[i]
  }
  return i
}

/**
 * The drawings grouped into regions of paths within `JOIN_GAP` of each other: a sweep over the
 * boxes sorted by their left edge, so a page of a few hundred paths costs little.
 */
export const vectorRegions = (drawings: ReadonlyArray<DrawingBox>): Array<Region> => {
  const n = drawings.length
  if (n === 0) return []
  const order = Array.from({ length: n }, (_, i) => i).sort((a, b) => drawings[a].x0 - drawings[b].x0)
  const parent = new Int32Array(n)
  for (let i = 0; i < n; i++) parent[i] = i
  // Boxes whose left edge lies within reach of the current one; those whose right edge is out of reach leave.
  const active: Array<number> = []
  for (const i of order) {
    const a = drawings[i]
    let keep = 0
    for (let k = 0; k < active.length; k++) {
      const j = active[k]
      const b = drawings[j]
      if (b.x1 + JOIN_GAP < a.x0) continue
      active[keep++] = j
      if (a.top <= b.bottom + JOIN_GAP && b.top <= a.bottom + JOIN_GAP) {
        const ra = find(parent, i), rb = find(parent, j)
        if (ra !== rb) parent[ra] = rb
      }
    }
    active.length = keep
    active.push(i)
  }
  const groups = new Map<number, Array<number>>()
  for (let i = 0; i < n; i++) {
    const root = find(parent, i)
    const group = groups.get(root)
    if (group === undefined) groups.set(root, [i])
    else group.push(i)
  }
  const regions: Array<Region> = []
  for (const members of groups.values()) {
    let x0 = Infinity, x1 = -Infinity, top = Infinity, bottom = -Infinity
    for (const i of members) {
      const d = drawings[i]
      x0 = Math.min(x0, d.x0); x1 = Math.max(x1, d.x1); top = Math.min(top, d.top); bottom = Math.max(bottom, d.bottom)
    }
    const width = x1 - x0, height = bottom - top
    let shapes = 0, solid = 0
    let ix0 = Infinity, ix1 = -Infinity, itop = Infinity, ibottom = -Infinity
    let panel = false
    for (const i of members) {
      const d = drawings[i]
      const w = d.x1 - d.x0, h = d.bottom - d.top
      // Frames and panels, bands across the region (row shading, a listing's line backgrounds, an
      // axis) and pieces of a border drawn in parts say nothing of a picture inside.
      if (w > 0.8 * width || h > 0.8 * height) {
        if (w * h > 0.6 * width * height) panel = true
        continue
      }
      if (d.x1 - x0 <= EDGE || x1 - d.x0 <= EDGE || d.bottom - top <= EDGE || bottom - d.top <= EDGE) continue
      shapes++
      ix0 = Math.min(ix0, d.x0); ix1 = Math.max(ix1, d.x1); itop = Math.min(itop, d.top); ibottom = Math.max(ibottom, d.bottom)
      if (w > THIN && h > THIN) solid++
    }
    // A panel whose shapes fill only a corner of it (a tinted sidebar with a small chart) is text
    // around a picture: the picture is where the shapes are.
    const innerArea = shapes > 0 ? (ix1 - ix0) * (ibottom - itop) : 0
    if (panel && shapes > 0 && innerArea < 0.5 * width * height) regions.push({ x0: ix0, x1: ix1, top: itop, bottom: ibottom, paths: members.length, shapes, solid })
    else regions.push({ x0, x1, top, bottom, paths: members.length, shapes, solid })
  }
  return regions
}

/** Whether a figure caption sits right above or below the region, overlapping its columns. */
const captioned = (region: Box, lines: ReadonlyArray<Line>) => lines.some((l) => {
  if (!FIGURE_CAPTION.test(l.text.trim())) return false
  const overlap = Math.min(l.x1, region.x1) - Math.max(l.x0, region.x0)
  if (overlap < 0.3 * Math.min(l.x1 - l.x0, region.x1 - region.x0)) return false
  const distance = l.top >= region.bottom - 2 ? l.top - region.bottom : region.top - l.bottom
  return distance >= -2 && distance <= Math.max(36, l.size * 4)
})

export interface VectorFigureSplit extends FigureSplit {
  /** The tables kept: a small "table" inside a large drawing is its labels in rows, not a table. */
  readonly tables: Array<LayoutBlock>
}

const inside = (d: DrawingBox, b: Box) => {
  const cx = (d.x0 + d.x1) / 2, cy = (d.top + d.bottom) / 2
  return cx >= b.x0 && cx <= b.x1 && cy >= b.top && cy <= b.bottom
}

/**
 * The tables that lie inside a drawing much larger than themselves, one with many shapes outside
 * any table: the labels of a diagram read as rows and columns (callouts down one side of an
 * exploded view), to be given back to the picture. A table ruled in rows and columns is kept (a
 * form's boxed tables under a letterhead drawn as shapes).
 */
const swallowedTables = (drawings: ReadonlyArray<DrawingBox>, tables: ReadonlyArray<LayoutBlock>): Set<LayoutBlock> => {
  const out = new Set<LayoutBlock>()
  for (const region of vectorRegions(drawings)) {
    if (region.solid < MIN_SOLID * 2) continue
    const within = tables.filter((t) => t.ruled !== true && area(t) < 0.5 * area(region) && intersection(t, region) > 0.8 * area(t))
    if (within.length === 0) continue
    let outside = 0
    for (const d of drawings) if (inside(d, region) && !within.some((t) => inside(d, t))) outside++
    if (outside >= MIN_SHAPES * 2) for (const t of within) out.add(t)
  }
  return out
}

/**
 * Picks the pictures among the regions of `drawings` and takes the lines inside them out of
 * `lines`. Drawings inside tables or inside figures found already (from images) are left out, and
 * so are regions overlapping either, but for tables that are a diagram's labels (`swallowedTables`).
 */
export const findVectorFigures = (
  drawings: ReadonlyArray<DrawingBox>,
  lines: Array<Line>,
  tables: Array<LayoutBlock>,
  pictures: ReadonlyArray<LayoutBlock>,
  page: { width: number; height: number }
): VectorFigureSplit => {
  if (drawings.length < MIN_SHAPES_CAPTIONED || lines.length === 0) return { figures: [], rest: lines, tables }
  const ownFree = pictures.length === 0 ? drawings : drawings.filter((d) => !pictures.some((t) => inside(d, t)))
  const swallowed = tables.length === 0 ? new Set<LayoutBlock>() : swallowedTables(ownFree, tables)
  const kept = swallowed.size === 0 ? tables : tables.filter((t) => !swallowed.has(t))
  const taken = [...kept, ...pictures]
  const free = kept.length === 0 ? ownFree : ownFree.filter((d) => !kept.some((t) => inside(d, t)))
  const pageArea = page.width * page.height
  let rest = lines
  if (swallowed.size > 0) {
    // The swallowed tables' lines are candidates again; if no figure takes them they stay text.
    rest = [...lines]
    for (const t of swallowed) rest.push(...t.lines)
  }
  const usualSize = usualSizeOf(rest)
  const figures: Array<LayoutBlock> = []
  for (const region of vectorRegions(free)) {
    if (region.shapes < MIN_SHAPES_CAPTIONED || region.solid === 0) continue
    const boxArea = area(region)
    if (boxArea < pageArea * MIN_AREA_SHARE || boxArea > pageArea * BACKGROUND_SHARE) continue
    if (region.x1 - region.x0 < page.width * 0.05 || region.bottom - region.top < page.height * 0.02) continue
    if (taken.some((t) => intersection(t, region) > 0.3 * Math.min(area(t), boxArea))) continue
    if ((region.shapes < MIN_SHAPES || region.solid < MIN_SOLID) && !captioned(region, rest)) continue
    if (region.solid < region.shapes * MIN_SOLID_SHARE) continue
    // A diagram's labels are often set larger than the body (box titles); a photo's headline is not in play here.
    const inner = rest.filter((l) => heldBy(l, region, usualSize, 2))
    // Axis labels and tick values sit just outside the drawn lines: short lines in a margin around
    // the region are the picture's too, and its box grows to hold them.
    const reach = usualSize * LABEL_REACH
    const around: Box = { x0: region.x0 - reach, x1: region.x1 + reach, top: region.top - reach, bottom: region.bottom + reach }
    const labels = rest.filter((l) => !inner.includes(l) && !l.rotated && l.x1 - l.x0 < (region.x1 - region.x0) * 0.4 &&
      heldBy(l, around, usualSize, 1.25) && !FIGURE_CAPTION.test(l.text.trim()))
    const held = labels.length === 0 ? inner : [...inner, ...labels]
    const box: Box = { ...region }
    for (const l of labels) {
      box.x0 = Math.min(box.x0, l.x0); box.x1 = Math.max(box.x1, l.x1); box.top = Math.min(box.top, l.top); box.bottom = Math.max(box.bottom, l.bottom)
    }
    let textArea = 0
    for (const line of held) textArea += (line.x1 - line.x0) * (line.bottom - line.top)
    if (textArea > area(box) * MAX_TEXT_COVER) continue
    // Words in every box (a timetable, a grid of coloured cells) make a table-like layout, not a picture.
    let chars = 0
    for (const line of held) chars += line.text.length
    if (chars > region.shapes * MAX_CHARS_PER_SHAPE) continue
    if (held.length > 0) {
      const out = new Set(held)
      rest = rest.filter((l) => !out.has(l))
    }
    figures.push({ kind: "figure", lines: [], x0: box.x0, x1: box.x1, top: box.top, bottom: box.bottom, size: 0 })
  }
  // A swallowed table that no figure took stays the table it was read as.
  const unclaimed = [...swallowed].filter((t) => !figures.some((f) => intersection(f, t) > 0.5 * area(t)))
  if (unclaimed.length === 0) return { figures, rest, tables: kept }
  const back = new Set(unclaimed.flatMap((t) => t.lines))
  return { figures, rest: rest.filter((l) => !back.has(l)), tables: tables.filter((t) => !swallowed.has(t) || unclaimed.includes(t)) }
}
