/**
 * From OCR lines to Document blocks: lines are grouped into paragraphs by vertical gaps and
 * height changes, tall short paragraphs become section headers, bullets become list items, and
 * each block carries `source: "layout_ocr"` and its OCR confidence. Boxes are normalised to the
 * page (through `region` when the image covers only part of it). Blocks carry their structure
 * (heading level, list item); core writes their markdown.
 */
import { structuredBlock } from "@strata/core"
import type { Block, BlockKind, BlockStructure, OcrLine, OcrResult } from "@strata/core"

export interface OcrBlocksOptions {
  /** Where the OCR'd image lies on the page, normalised [x0, y0, x1, y1]; default the whole page. */
  readonly region?: readonly [number, number, number, number] | undefined
  /** Lines below this confidence (0..1) are dropped as noise (default 0.3). */
  readonly minConfidence?: number | undefined
}

const BULLET = /^([•·▪◦‣○●■□–-]|\*)\s+/

const median = (values: Array<number>): number => {
  if (values.length === 0) return 0
  const s = [...values].sort((a, b) => a - b)
  return s[Math.floor(s.length / 2)]
}

/** Escapes what would start markdown syntax at the beginning of a paragraph. */
const escapeLeading = (text: string): string =>
  text.replace(/^(#{1,6}\s|>|\d+[.)]\s|[-+*]\s|={3,}|-{3,}|`{3,})/, (m) => `\\${m}`)

/** Joins a paragraph's lines, dropping end-of-line hyphens before a lowercase continuation. */
const joinLines = (lines: ReadonlyArray<OcrLine>): string => {
  let out = ""
  for (const line of lines) {
    const text = line.text.trim()
    if (out === "") out = text
    else if (/[A-Za-z]-$/.test(out) && /^[a-z]/.test(text)) out = out.slice(0, -1) + text
    else out += " " + text
  }
  return out
}

/** Turns one page's OCR result into blocks in reading order. */
export const ocrPageToBlocks = (
  result: OcrResult,
  pageWidth: number,
  pageHeight: number,
  options: OcrBlocksOptions = {}
): Array<Block> => {
  const minConfidence = options.minConfidence ?? 0.3
  const lines = result.lines.filter((l) => l.text.trim() !== "" && l.confidence >= minConfidence)
  if (lines.length === 0 || result.width <= 0 || result.height <= 0) return []
  const [rx0, ry0, rx1, ry1] = options.region ?? [0, 0, 1, 1]
  const norm = (b: readonly [number, number, number, number]): [number, number, number, number] => {
    const clamp = (v: number) => Math.min(1, Math.max(0, v))
    return [
      clamp(rx0 + (b[0] / result.width) * (rx1 - rx0)),
      clamp(ry0 + (b[1] / result.height) * (ry1 - ry0)),
      clamp(rx0 + (b[2] / result.width) * (rx1 - rx0)),
      clamp(ry0 + (b[3] / result.height) * (ry1 - ry0))
    ]
  }
  // Body text height: the median line height, weighted by characters.
  const weighted: Array<number> = []
  for (const l of lines) {
    const h = l.bbox[3] - l.bbox[1]
    for (let i = 0; i < Math.min(200, l.text.length); i += 10) weighted.push(h)
  }
  const body = Math.max(1, median(weighted))
  // Boxes are normalised against the image, which spans the page (or `region` of it), so the
  // page size is not needed for geometry; it is checked only to refuse a page never laid out.
  if (!(pageWidth > 0 && pageHeight > 0)) return []

  const paragraphs: Array<Array<OcrLine>> = []
  for (const line of lines) {
    const current = paragraphs[paragraphs.length - 1]
    const prev = current?.[current.length - 1]
    if (current !== undefined && prev !== undefined) {
      const gap = line.bbox[1] - prev.bbox[3]
      const hPrev = prev.bbox[3] - prev.bbox[1]
      const hLine = line.bbox[3] - line.bbox[1]
      const overlapX = Math.min(prev.bbox[2], line.bbox[2]) - Math.max(prev.bbox[0], line.bbox[0])
      // Lines without ascenders or descenders are short; only a change between body and heading sizes splits.
      const tallPrev = hPrev > 1.3 * body
      const tallLine = hLine > 1.3 * body
      const similar = tallPrev === tallLine && (!tallPrev || Math.max(hPrev, hLine) / Math.max(1, Math.min(hPrev, hLine)) < 1.3)
      const bullet = BULLET.test(line.text)
      if (gap >= -0.3 * body && gap < 0.75 * body && overlapX > 0 && similar && !bullet) {
        current.push(line)
        continue
      }
    }
    paragraphs.push([line])
  }

  const blocks: Array<Block> = []
  for (const para of paragraphs) {
    const x0 = Math.min(...para.map((l) => l.bbox[0]))
    const y0 = Math.min(...para.map((l) => l.bbox[1]))
    const x1 = Math.max(...para.map((l) => l.bbox[2]))
    const y1 = Math.max(...para.map((l) => l.bbox[3]))
    let chars = 0
    let confSum = 0
    for (const l of para) {
      chars += l.text.length
      confSum += l.confidence * l.text.length
    }
    const confidence = chars === 0 ? 0 : Math.round((confSum / chars) * 1000) / 1000
    const height = median(para.map((l) => l.bbox[3] - l.bbox[1]))
    let text = joinLines(para)
    let kind: BlockKind = "text"
    let structure: BlockStructure
    const ratio = height / body
    if (para.length <= 3 && ratio >= 1.3 && text.length <= 200 && /\p{L}/u.test(text)) {
      kind = "section_header"
      structure = { heading: { level: ratio >= 1.9 ? 1 : ratio >= 1.5 ? 2 : 3 }, text: text.replace(/^#+\s*/, "") }
    } else if (BULLET.test(text)) {
      kind = "list_item"
      text = text.replace(BULLET, "")
      structure = { list: { depth: 0, ordinal: null, indent: 0 }, text }
    } else structure = { text: escapeLeading(text) }
    blocks.push(structuredBlock(kind, structure, {
      bbox: norm([x0, y0, x1, y1]),
      source: "layout_ocr",
      confidence: { layout: null, ocr: confidence }
    }))
  }
  return blocks
}
