/**
 * Figures from image placements: which painted images are pictures of the content (not icons,
 * bullets, page backgrounds or scans), the text they hold, and their captions.
 *
 * Choices (checked against Docling's references, whose `pictures` carry boxes and whose markdown
 * writes `<!-- image -->`):
 * - A figure's markdown is `<!-- image -->`, as Docling writes it: no pixels are decoded, so there
 *   is nothing to link to, and an `![alt](#)` with an invented target would read as a broken link.
 * - Text lying inside a figure's box (axis labels, diagram words) belongs to the picture: it is
 *   kept out of the body paragraphs, as Docling keeps it out of its markdown. A box that is mostly
 *   covered by text is not a picture but a background (a tinted panel, a table on a texture): it is
 *   ignored and its text stays. Lines larger than the page's usual text (headlines over a cover
 *   photo), lines reaching out of the box and captions are never taken.
 * - The caption ("Figure N", "Fig. N") nearest a figure is written directly after it.
 */
import type { LayoutBlock } from "./LayoutBlock.ts"
import type { Line } from "./Lines.ts"
import type { ImageBox } from "./PageContent.ts"

/** Images smaller than this share of the page (icons, bullets, logos in a header) are not figures. */
export const MIN_AREA_SHARE = 0.02
/** An image covering this share of the page with text over it is a background. */
export const BACKGROUND_SHARE = 0.7
/** Text covering more than this share of an image's box makes the image a background. */
export const MAX_TEXT_COVER = 0.3

export interface Box { x0: number; x1: number; top: number; bottom: number }

export const area = (b: Box) => Math.max(0, b.x1 - b.x0) * Math.max(0, b.bottom - b.top)

export const intersection = (a: Box, b: Box) =>
  Math.max(0, Math.min(a.x1, b.x1) - Math.max(a.x0, b.x0)) * Math.max(0, Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top))

/** Caption openings: a caption drawn over the picture's box is still the caption. */
const CAPTION_START = /^(?:figure|fig\.?|table|tab\.|chart|image|photo|picture|diagram|graph|plate|exhibit|abbildung|abb\.)\s*[\dIVXivx]/i

/**
 * Whether a line is part of the picture: lying within its box, no larger than the page's usual
 * text (a headline set over a cover photo is the page's own text), and not a caption.
 */
export const heldBy = (line: Line, box: Box, usualSize: number, largest = 1.25) => {
  const slack = line.size * 0.5
  return line.x0 >= box.x0 - slack && line.x1 <= box.x1 + slack && line.top >= box.top - slack && line.bottom <= box.bottom + slack &&
    line.size <= usualSize * largest && !CAPTION_START.test(line.text.trim())
}

/** The size most characters on the page are set in. */
export const usualSizeOf = (lines: ReadonlyArray<Line>) => {
  const weights = new Map<number, number>()
  for (const line of lines) weights.set(line.size, (weights.get(line.size) ?? 0) + line.text.length)
  let size = 0, best = -1
  for (const [s, w] of weights) if (w > best) { size = s; best = w }
  return size
}

/** Images touching or overlapping each other (a picture cut into tiles, a photo with its frame) are one box. */
const mergeTouching = (boxes: Array<Box>): Array<Box> => {
  const out = boxes.map((b) => ({ ...b }))
  let merged = true
  while (merged) {
    merged = false
    for (let i = 0; i < out.length && !merged; i++) {
      for (let j = i + 1; j < out.length; j++) {
        const a = out[i], b = out[j]
        if (a.x0 <= b.x1 + 2 && b.x0 <= a.x1 + 2 && a.top <= b.bottom + 2 && b.top <= a.bottom + 2) {
          out[i] = { x0: Math.min(a.x0, b.x0), x1: Math.max(a.x1, b.x1), top: Math.min(a.top, b.top), bottom: Math.max(a.bottom, b.bottom) }
          out.splice(j, 1)
          merged = true
          break
        }
      }
    }
  }
  return out
}

export interface FigureSplit {
  readonly figures: Array<LayoutBlock>
  /** The lines not inside any figure. */
  readonly rest: Array<Line>
}

/**
 * Picks the figures among `images` and takes the lines inside them out of `lines`. A page with no
 * text is left alone (a scan: OCR reads it), and so are boxes that tables already claim.
 */
export const findFigures = (
  images: ReadonlyArray<ImageBox>,
  lines: Array<Line>,
  tables: ReadonlyArray<LayoutBlock>,
  page: { width: number; height: number }
): FigureSplit => {
  if (images.length === 0 || lines.length === 0) return { figures: [], rest: lines }
  const pageArea = page.width * page.height
  const pageBox: Box = { x0: 0, x1: page.width, top: 0, bottom: page.height }
  const visible: Array<Box> = []
  for (const image of images) {
    const clipped: Box = {
      x0: Math.max(0, image.x0), x1: Math.min(page.width, image.x1), top: Math.max(0, image.top), bottom: Math.min(page.height, image.bottom)
    }
    if (area(clipped) > 0 && intersection(clipped, pageBox) > 0) visible.push(clipped)
  }
  const figures: Array<LayoutBlock> = []
  const usualSize = usualSizeOf(lines)
  let rest = lines
  for (const box of mergeTouching(visible)) {
    const boxArea = area(box)
    if (boxArea < pageArea * MIN_AREA_SHARE || boxArea > pageArea * BACKGROUND_SHARE) continue
    // Thin strips (rules drawn as images, banners) are not pictures.
    if (box.x1 - box.x0 < page.width * 0.05 || box.bottom - box.top < page.height * 0.02) continue
    if (tables.some((t) => intersection(t, box) > 0.3 * Math.min(area(t), boxArea))) continue
    const held = rest.filter((l) => heldBy(l, box, usualSize))
    let textArea = 0
    for (const line of held) textArea += (line.x1 - line.x0) * (line.bottom - line.top)
    if (textArea > boxArea * MAX_TEXT_COVER) continue
    if (held.length > 0) rest = rest.filter((l) => !held.includes(l))
    figures.push({ kind: "figure", lines: [], x0: box.x0, x1: box.x1, top: box.top, bottom: box.bottom, size: 0 })
  }
  return { figures, rest }
}

const FIGURE_CAPTION = /^(?:figure|fig\.?|image|photo|picture|chart|diagram|graph|plate|illustration|abbildung|abb\.)\s*[\dIVXivx]/i

const textOf = (block: LayoutBlock) => block.lines.map((l) => l.text).join(" ").trim()

/**
 * Moves each figure caption to directly after the figure nearest to it (above or below it, with
 * their columns overlapping), one caption to a figure. Blocks are in reading order.
 */
export const placeCaptions = (ordered: Array<LayoutBlock>): Array<LayoutBlock> => {
  const figures = ordered.filter((b) => b.kind === "figure")
  if (figures.length === 0) return ordered
  const captions = ordered.filter((b) => b.kind === "caption" && FIGURE_CAPTION.test(textOf(b)))
  const pairs: Array<{ caption: LayoutBlock; figure: LayoutBlock; distance: number }> = []
  for (const caption of captions) {
    for (const figure of figures) {
      const overlap = Math.min(caption.x1, figure.x1) - Math.max(caption.x0, figure.x0)
      if (overlap < 0.3 * Math.min(caption.x1 - caption.x0, figure.x1 - figure.x0)) continue
      const distance = caption.top >= figure.bottom - 2 ? caption.top - figure.bottom : figure.top - caption.bottom
      // A caption further than a few lines from the picture belongs to something else.
      if (distance < -2 || distance > Math.max(36, caption.size * 4)) continue
      pairs.push({ caption, figure, distance })
    }
  }
  pairs.sort((a, b) => a.distance - b.distance)
  const captionOf = new Map<LayoutBlock, LayoutBlock>()
  const taken = new Set<LayoutBlock>()
  for (const { caption, figure } of pairs) {
    if (taken.has(caption) || captionOf.has(figure)) continue
    captionOf.set(figure, caption)
    taken.add(caption)
  }
  if (captionOf.size === 0) return ordered
  const out: Array<LayoutBlock> = []
  for (const block of ordered) {
    if (taken.has(block)) continue
    out.push(block)
    const caption = captionOf.get(block)
    if (caption !== undefined) out.push(caption)
  }
  return out
}
