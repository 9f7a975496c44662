/**
 * Panels: boxes drawn around or under text (a shaded or framed sidebar, a boxed note, a code block
 * on a tint). A panel is a region of its own: no paragraph or unruled table runs across its edge,
 * and reading order takes its blocks as one unit (Asides.ts). Found from the page's painted
 * paths: a box that holds two rows of text or more, that no line crosses, and that is not the
 * frame of the whole text; a box inside another is part of it.
 */
import type { DrawingBox, Line } from "@strata/core"

export type Panel = DrawingBox

const MAX_CANDIDATES = 200

const holds = (box: DrawingBox, line: Line, pad = 1) =>
  line.x0 >= box.x0 - pad && line.x1 <= box.x1 + pad && line.top >= box.top - pad && line.bottom <= box.bottom + pad

const crosses = (box: DrawingBox, line: Line) =>
  !holds(box, line) && line.x1 > box.x0 + 1 && line.x0 < box.x1 - 1 && line.bottom > box.top + 1 && line.top < box.bottom - 1

/** The panels of a page, outermost only. */
export const findPanels = (drawings: ReadonlyArray<DrawingBox>, lines: ReadonlyArray<Line>): Array<Panel> => {
  const text = lines.filter((l) => !l.rotated)
  if (text.length === 0) return []
  const found: Array<Panel> = []
  // The largest boxes only: a map or a chart paints thousands of paths, and each box is checked against every line.
  const candidates = drawings.filter((d) => d.x1 - d.x0 >= 30 && d.bottom - d.top >= 20)
    .sort((a, b) => (b.x1 - b.x0) * (b.bottom - b.top) - (a.x1 - a.x0) * (a.bottom - a.top)).slice(0, MAX_CANDIDATES)
  for (const d of candidates) {
    // The same rectangle filled and stroked is painted twice.
    if (found.some((p) => Math.abs(p.x0 - d.x0) < 1 && Math.abs(p.x1 - d.x1) < 1 && Math.abs(p.top - d.top) < 1 && Math.abs(p.bottom - d.bottom) < 1)) continue
    const inside = text.filter((l) => holds(d, l))
    // Two rows at least: a tinted table row or a highlighted line is not an aside.
    if (new Set(inside.map((l) => l.row)).size < 2) continue
    if (inside.length >= text.length * 0.8) continue
    if (text.some((l) => crosses(d, l))) continue
    found.push(d)
  }
  const within = (a: Panel, b: Panel) => a !== b && a.x0 >= b.x0 - 1 && a.x1 <= b.x1 + 1 && a.top >= b.top - 1 && a.bottom <= b.bottom + 1
  return found.filter((p) => !found.some((q) => within(p, q)))
}

/** The index of the panel holding the middle of a box, or -1. */
export const panelOf = (panels: ReadonlyArray<Panel>, box: { readonly x0: number; readonly x1: number; readonly top: number; readonly bottom: number }): number => {
  const x = (box.x0 + box.x1) / 2, y = (box.top + box.bottom) / 2
  return panels.findIndex((p) => x >= p.x0 && x <= p.x1 && y >= p.top && y <= p.bottom)
}

/** Lines split by panel: one group per panel, then the lines outside any (each group laid out on its own). */
export const panelRegions = <L extends Line>(lines: ReadonlyArray<L>, panels: ReadonlyArray<Panel>): Array<Array<L>> => {
  if (panels.length === 0) return [[...lines]]
  const groups: Array<Array<L>> = Array.from({ length: panels.length + 1 }, () => [])
  for (const line of lines) {
    const at = panelOf(panels, line)
    groups[at < 0 ? panels.length : at].push(line)
  }
  return groups.filter((g) => g.length > 0)
}
