/**
 * Block-label scores of one layout against labelled regions, page by page (issue 17's layout
 * check). Boxes are [x0, top, x1, bottom] normalised to the page.
 *
 * Matching is by overlap, not one-to-one, so that a label is judged apart from how the text was
 * cut into blocks: each of our blocks is matched to the labelled region it overlaps most, when
 * the overlap is at least half of the smaller of the two boxes.
 * - precision of a label: our blocks with it whose matched region has it (an unmatched block counts against);
 * - recall of a label: regions with it matched by at least one of our blocks with it;
 * - macro-F1: the mean F1 over the labels the regions hold;
 * - box IoU: the mean IoU of matched (block, region) pairs, so a region cut in two scores about half;
 * - found: regions matched by any block; split: regions matched by two blocks or more; merged:
 *   blocks covering half or more of two regions or more.
 */

export type Box = readonly [number, number, number, number]
export interface Region { readonly label: string; readonly box: Box }

/** The labels scored: the reader's block kinds, page numbers folded into the header or footer they sit in. */
export const LABELS = [
  "title", "section_header", "text", "list_item", "table", "figure", "caption", "formula", "code", "footnote", "page_header", "page_footer"
] as const

/** A page number is the header's or the footer's, by the half of the page it is in (Docling has no page_number label). */
export const foldLabel = (label: string, box: Box): string =>
  label === "page_number" ? ((box[1] + box[3]) / 2 < 0.5 ? "page_header" : "page_footer") : label

export const area = (b: Box) => Math.max(0, b[2] - b[0]) * Math.max(0, b[3] - b[1])
export const intersection = (a: Box, b: Box) =>
  Math.max(0, Math.min(a[2], b[2]) - Math.max(a[0], b[0])) * Math.max(0, Math.min(a[3], b[3]) - Math.max(a[1], b[1]))
export const iou = (a: Box, b: Box) => {
  const i = intersection(a, b)
  return i === 0 ? 0 : i / (area(a) + area(b) - i)
}

export interface Tally {
  /** Per label: our blocks, those right, regions, those found with the label. */
  readonly labels: Record<string, { predicted: number; correct: number; truth: number; recalled: number }>
  /** truth label -> our label -> matched blocks. */
  readonly confusion: Record<string, Record<string, number>>
  iouSum: number
  pairs: number
  regions: number
  found: number
  split: number
  merged: number
  blocks: number
  unmatched: number
  pages: number
}

export const tally = (): Tally => ({ labels: {}, confusion: {}, iouSum: 0, pairs: 0, regions: 0, found: 0, split: 0, merged: 0, blocks: 0, unmatched: 0, pages: 0 })

/** The index of the region `box` overlaps most, by at least half of the smaller of the two; -1 if none. */
export const matchRegion = (box: Box, truth: ReadonlyArray<Region>): number => {
  let best = -1, bestArea = 0
  for (let i = 0; i < truth.length; i++) {
    const inter = intersection(box, truth[i].box)
    if (inter > bestArea && inter >= 0.5 * Math.max(1e-9, Math.min(area(box), area(truth[i].box)))) { best = i; bestArea = inter }
  }
  return best
}

const row = (t: Tally, label: string) => (t.labels[label] ??= { predicted: 0, correct: 0, truth: 0, recalled: 0 })

/** Adds one page: our blocks and the labelled regions, both with folded labels. */
export const scorePage = (t: Tally, ours: ReadonlyArray<Region>, truth: ReadonlyArray<Region>): void => {
  t.pages++
  const matchedBy: Array<Array<Region>> = truth.map(() => [])
  for (const block of ours) {
    t.blocks++
    row(t, block.label).predicted++
    let covers = 0
    for (const region of truth) {
      const inter = intersection(block.box, region.box)
      if (inter > 0 && inter >= 0.5 * area(region.box)) covers++
    }
    if (covers >= 2) t.merged++
    const best = matchRegion(block.box, truth)
    if (best < 0) { t.unmatched++; continue }
    const region = truth[best]
    matchedBy[best].push(block)
    t.iouSum += iou(block.box, region.box)
    t.pairs++
    if (region.label === block.label) row(t, block.label).correct++
    const c = (t.confusion[region.label] ??= {})
    c[block.label] = (c[block.label] ?? 0) + 1
  }
  truth.forEach((region, i) => {
    t.regions++
    row(t, region.label).truth++
    if (matchedBy[i].length > 0) t.found++
    if (matchedBy[i].length > 1) t.split++
    if (matchedBy[i].some((b) => b.label === region.label)) row(t, region.label).recalled++
  })
}

const r3 = (n: number) => Math.round(n * 1000) / 1000

export interface Scores {
  readonly macroF1: number
  readonly meanIoU: number
  readonly found: number
  readonly perLabel: Record<string, { precision: number; recall: number; f1: number; regions: number; blocks: number }>
  readonly pages: number
  readonly regions: number
  readonly blocks: number
  readonly unmatchedBlocks: number
  readonly splitRegions: number
  readonly mergingBlocks: number
  readonly confusion: Tally["confusion"]
}

export const scores = (t: Tally): Scores => {
  const perLabel: Scores["perLabel"] = {}
  const f1s: Array<number> = []
  for (const label of [...LABELS, ...Object.keys(t.labels).filter((l) => !(LABELS as ReadonlyArray<string>).includes(l))]) {
    const r = t.labels[label]
    if (r === undefined) continue
    const precision = r.predicted === 0 ? 0 : r.correct / r.predicted
    const recall = r.truth === 0 ? 0 : r.recalled / r.truth
    const f1 = precision + recall === 0 ? 0 : (2 * precision * recall) / (precision + recall)
    perLabel[label] = { precision: r3(precision), recall: r3(recall), f1: r3(f1), regions: r.truth, blocks: r.predicted }
    if (r.truth > 0) f1s.push(f1)
  }
  return {
    macroF1: r3(f1s.reduce((a, b) => a + b, 0) / Math.max(1, f1s.length)),
    meanIoU: r3(t.iouSum / Math.max(1, t.pairs)),
    found: r3(t.found / Math.max(1, t.regions)),
    perLabel,
    pages: t.pages,
    regions: t.regions,
    blocks: t.blocks,
    unmatchedBlocks: t.unmatched,
    splitRegions: t.split,
    mergingBlocks: t.merged,
    confusion: t.confusion
  }
}
