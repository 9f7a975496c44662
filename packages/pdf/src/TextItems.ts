/**
 * Glyphs into text items the way pdf.js's own text pass groups them, so that the operator list
 * can stand in for it (OpListText.ts walks the list and keeps the text state): an item starts at
 * the first visible glyph with the text rendering matrix there, grows by each advance, and ends on
 * a change of font or size, a jump back or down, or a gap wider than a word space; inside an item
 * a word-sized gap or a drawn space glyph becomes one space. Items come out shaped like pdf.js
 * text items, so `runsFrom` turns either source into runs; right-to-left items are put in logical
 * order here (Bidi.ts).
 */
import type { TextItem } from "pdfjs-dist/types/src/display/api.d.ts"
import type { Matrix } from "@strata/core"
import { logicalOrder } from "./Bidi.ts"

/** What the walk needs to know of a font, read from `page.commonObjs` by the caller. */
export interface FontFacts {
  /** The PostScript name (style changes within an item are told by it). */
  readonly name: string | undefined
  readonly fontMatrix: ReadonlyArray<number>
  readonly vertical: boolean
  readonly type3: boolean
  readonly bbox: ReadonlyArray<number> | undefined
  readonly fallbackName: string | undefined
  readonly ascent: number | undefined
  readonly descent: number | undefined
}

export interface TextStyle {
  readonly fontFamily?: string
  readonly ascent?: number
  readonly descent?: number
  readonly vertical?: boolean
}

/** A glyph as pdf.js puts it in `showText` (its own class, or a plain copy when messages are cloned). */
export interface GlyphLike {
  readonly unicode: string
  readonly width: number
  readonly vmetric?: ArrayLike<number> | null
  readonly isSpace: boolean
}

export interface TextState {
  font: FontFacts | undefined
  loadedName: string
  size: number
  charSpacing: number
  wordSpacing: number
  hScale: number
  leading: number
  rise: number
  tm: Matrix
  tlm: Matrix
}

/** The item being built, and what the last glyph left behind (kept after the item is emitted, as pdf.js does). */
interface Chunk {
  open: boolean
  units: Array<string>
  transform: Matrix
  fontName: string
  vertical: boolean
  width: number
  totalWidth: number
  height: number
  totalHeight: number
  advanceScale: number
  prev: Matrix | undefined
  prevRise: number
  // Gap thresholds, in text-space units of the font size.
  tracking: number
  notSpace: number
  negative: number
  spaceMin: number
  spaceMax: number
  /** The two characters drawn last, for a space glyph between words. */
  lastA: string
  lastB: string
  /** The font the items are compared against for a change of style. */
  styleSize: number
  styleName: string | undefined
  styleVertical: boolean
  styleLoaded: string
  styleSet: boolean
}

const FONT_IDENTITY = [0.001, 0, 0, 0.001, 0, 0]
const isFontIdentity = (m: ReadonlyArray<number>) => m.every((v, i) => v === FONT_IDENTITY[i])

// The categories pdf.js gives a glyph's text: whitespace, a zero-width diacritic, an invisible format mark.
const CATEGORY = /^(?:(\s+)|(\p{Mn}+)|(\p{Cf}+))$/u
const WHITESPACE = 1, DIACRITIC = 2, FORMAT_MARK = 3
const categories = new Map<string, number>()
const categoryOf = (unicode: string): number => {
  let c = categories.get(unicode)
  if (c === undefined) {
    const m = CATEGORY.exec(unicode)
    c = m === null ? 0 : m[1] !== undefined ? WHITESPACE : m[2] !== undefined ? DIACRITIC : FORMAT_MARK
    if (categories.size < 65536) categories.set(unicode, c)
  }
  return c
}

const newChunk = (): Chunk => ({
  open: false, units: [], transform: [1, 0, 0, 1, 0, 0], fontName: "", vertical: false, width: 0, totalWidth: 0, height: 0,
  totalHeight: 0, advanceScale: 1, prev: undefined, prevRise: 0, tracking: 0, notSpace: 0, negative: 0, spaceMin: 0,
  spaceMax: 0, lastA: " ", lastB: " ", styleSize: 0, styleName: undefined, styleVertical: false, styleLoaded: "", styleSet: false
})

/**
 * The text state and CTM the walk keeps and the builder reads (and moves along as glyphs are
 * drawn); the walk may replace either (on restore, on a new CTM), so they are read through here.
 */
export interface TextPosition {
  ts: TextState
  ctm: Matrix
}

/**
 * An item builder over the walk's state `s`: `showGlyphs` for each string drawn, `flush` where
 * pdf.js ends an item whatever the geometry (marked content, XObjects, a font from a graphics
 * state), `textMatrixSet` after Tm, `enterForm`/`leaveForm` around form XObjects.
 */
export const itemBuilder = (s: TextPosition, view: ReadonlyArray<number>) => {
  const items: Array<TextItem> = []
  const styles: Record<string, TextStyle> = {}
  // A form XObject is a text pass of its own in pdf.js: a fresh item state, the outer one kept.
  const chunks: Array<Chunk> = []
  let chunk = newChunk()

  /** The glyph-space-to-user-space matrix at the current point (pdf.js's text rendering matrix), into `out`. */
  const textTransform = (out: Matrix = [0, 0, 0, 0, 0, 0]): Matrix => {
    const font = s.ts.font
    let d = s.ts.size
    if (font !== undefined && font.type3 && s.ts.size <= 1 && !isFontIdentity(font.fontMatrix)) {
      const height = font.bbox !== undefined ? font.bbox[3] - font.bbox[1] : 0
      if (height > 0) d *= height * font.fontMatrix[3]
    }
    const a = s.ts.size * s.ts.hScale
    const tm = s.ts.tm
    const n0 = tm[0] * a, n1 = tm[1] * a, n2 = tm[2] * d, n3 = tm[3] * d
    const n4 = tm[2] * s.ts.rise + tm[4], n5 = tm[3] * s.ts.rise + tm[5]
    const m = s.ctm
    out[0] = m[0] * n0 + m[2] * n1
    out[1] = m[1] * n0 + m[3] * n1
    out[2] = m[0] * n2 + m[2] * n3
    out[3] = m[1] * n2 + m[3] * n3
    out[4] = m[0] * n4 + m[2] * n5 + m[4]
    out[5] = m[1] * n4 + m[3] * n5 + m[5]
    return out
  }
  const scratch: Matrix = [0, 0, 0, 0, 0, 0]
  const translate = (x: number, y: number) => {
    const m = s.ts.tm
    m[4] = m[0] * x + m[2] * y + m[4]
    m[5] = m[1] * x + m[3] * y + m[5]
  }
  const advanceScaleNow = () => Math.hypot(s.ts.tlm[0], s.ts.tlm[1]) * Math.hypot(s.ctm[0], s.ctm[1])

  const resetLast = () => {
    chunk.lastA = " "
    chunk.lastB = " "
  }
  /** Records `ch`; true when it follows a single space after a non-space (a space to write before it). */
  const rememberChar = (ch: string): boolean => {
    const spaceBefore = chunk.lastA !== " " && chunk.lastB === " "
    chunk.lastA = chunk.lastB
    chunk.lastB = ch
    return spaceBefore
  }
  const spaceWasDrawn = () => chunk.lastA !== " " && chunk.lastB === " "

  const flush = () => {
    if (!chunk.open) return
    if (!chunk.vertical) chunk.totalWidth += chunk.width * chunk.advanceScale
    else chunk.totalHeight += chunk.height * chunk.advanceScale
    const { text, rtl } = chunk.vertical ? { text: chunk.units.join(""), rtl: false } : logicalOrder(chunk.units)
    items.push({
      str: text, dir: rtl ? "rtl" : "ltr", width: Math.abs(chunk.totalWidth), height: Math.abs(chunk.totalHeight),
      transform: chunk.transform, fontName: chunk.fontName, hasEOL: false
    })
    chunk.open = false
    chunk.units = []
  }
  const pushSpace = (width: number, height: number, transform: Matrix | undefined) => {
    items.push({ str: " ", dir: "ltr", width, height, transform: transform !== undefined ? [...transform] as Matrix : textTransform(), fontName: chunk.fontName, hasEOL: false })
  }
  const endLine = () => {
    resetLast()
    flush()
  }

  const openChunk = () => {
    if (chunk.open) return
    const font = s.ts.font
    const name = s.ts.loadedName
    if (!(name in styles) && font !== undefined) {
      styles[name] = { fontFamily: font.fallbackName, ascent: font.ascent, descent: font.descent, vertical: font.vertical }
    }
    chunk.fontName = name
    const trm = textTransform()
    chunk.transform = trm
    if (font?.vertical !== true) {
      chunk.width = chunk.totalWidth = 0
      chunk.height = chunk.totalHeight = Math.hypot(trm[2], trm[3])
      chunk.vertical = false
    } else {
      chunk.width = chunk.totalWidth = Math.hypot(trm[0], trm[1])
      chunk.height = chunk.totalHeight = 0
      chunk.vertical = true
    }
    chunk.advanceScale = advanceScaleNow()
    const size = s.ts.size
    chunk.tracking = size * 0.102
    chunk.notSpace = size * 0.03
    chunk.negative = size * -0.2
    chunk.spaceMin = size * 0.102
    chunk.spaceMax = size * 0.6
    chunk.open = true
  }

  /** A gap within a line: a space in the item, or (too wide) the item ends and a space item stands for it. */
  const gap = (width: number, orientation: number): boolean => {
    if (orientation * chunk.spaceMin <= width && width <= orientation * chunk.spaceMax) {
      if (chunk.open) {
        resetLast()
        chunk.units.push(" ")
      }
      return false
    }
    const vertical = chunk.vertical
    const transform = chunk.prev
    flush()
    resetLast()
    pushSpace(vertical ? 0 : Math.abs(width), vertical ? Math.abs(width) : 0, transform)
    return true
  }

  /**
   * Where the next glyph lands relative to the last one: whether it is on the page at all, and
   * whether the item goes on (with a space when the gap says so) or ends.
   */
  const place = (glyphWidth: number): boolean => {
    const t = textTransform(scratch)
    let x = t[4], y = t[5]
    const vertical = s.ts.font?.vertical === true
    if (vertical) {
      if (x < view[0] || x > view[2] || y + glyphWidth < view[1] || y > view[3]) return false
    } else if (x + glyphWidth < view[0] || x > view[2] || y < view[1] || y > view[3]) {
      return false
    }
    const prev = chunk.prev
    if (s.ts.font === undefined || prev === undefined) return true
    let px = prev[4], py = prev[5]
    if (px === x && py === y) return true
    // Positions compared in the glyph's own frame: quarter turns exactly, any other angle by rotation.
    if (t[0] !== 0 && t[1] === 0 && t[2] === 0) {
      if (t[0] < 0) [x, y, px, py] = [-x, -y, -px, -py]
    } else if (t[1] !== 0 && t[0] === 0 && t[3] === 0) {
      if (t[1] > 0) [x, y, px, py] = [y, x, py, px]
      else [x, y, px, py] = [-y, -x, -py, -px]
    } else {
      const s = Math.hypot(t[0], t[1])
      const ps = Math.hypot(prev[0], prev[1])
      ;[x, y] = [(t[0] * x + t[1] * y) / s, (t[2] * x + t[3] * y) / s]
      ;[px, py] = [(prev[0] * px + prev[1] * py) / ps, (prev[2] * px + prev[3] * py) / ps]
    }
    if (vertical) {
      const advanceY = (py - y) / chunk.advanceScale
      const advanceX = x - px
      const orientation = Math.sign(chunk.height || chunk.totalHeight)
      if (advanceY < orientation * chunk.negative) {
        if (Math.abs(advanceX) > 0.5 * chunk.width) {
          endLine()
          return true
        }
        resetLast()
        flush()
        return true
      }
      if (Math.abs(advanceX) > chunk.width) {
        endLine()
        return true
      }
      if (advanceY <= orientation * chunk.notSpace) resetLast()
      if (advanceY <= orientation * chunk.tracking) {
        if (spaceWasDrawn()) {
          resetLast()
          flush()
          pushSpace(0, Math.abs(advanceY), chunk.prev)
        } else {
          chunk.height += advanceY
        }
      } else if (!gap(advanceY, orientation)) {
        if (chunk.units.length === 0) {
          resetLast()
          pushSpace(0, Math.abs(advanceY), chunk.prev)
        } else {
          chunk.height += advanceY
        }
      }
      if (Math.abs(advanceX) > chunk.width * 0.25) flush()
      return true
    }
    const advanceX = (x - px) / chunk.advanceScale
    const advanceY = y - py
    const orientation = Math.sign(chunk.width || chunk.totalWidth)
    if (advanceX < orientation * chunk.negative) {
      if (Math.abs(advanceY) > 0.5 * chunk.height) {
        endLine()
        return true
      }
      resetLast()
      flush()
      return true
    }
    const riseDelta = s.ts.rise - chunk.prevRise
    const shiftY = riseDelta === 0 ? advanceY : advanceY - (t[3] / s.ts.size) * riseDelta
    if (Math.abs(shiftY) > chunk.height) {
      endLine()
      return true
    }
    if (advanceX <= orientation * chunk.notSpace) resetLast()
    if (advanceX <= orientation * chunk.tracking) {
      if (spaceWasDrawn()) {
        resetLast()
        flush()
        pushSpace(Math.abs(advanceX), 0, chunk.prev)
      } else {
        chunk.width += advanceX
      }
    } else if (!gap(advanceX, orientation)) {
      if (chunk.units.length === 0) {
        resetLast()
        pushSpace(Math.abs(advanceX), 0, chunk.prev)
      } else {
        chunk.width += advanceX
      }
    }
    if (Math.abs(advanceY) > chunk.height * 0.25) flush()
    return true
  }

  /** A new font or size ends the item, unless it is the same face under another resource name. */
  const checkStyle = () => {
    const font = s.ts.font
    const name = font?.name
    const vertical = font?.vertical === true
    if (chunk.styleSet && chunk.styleSize === s.ts.size &&
      (chunk.styleLoaded === s.ts.loadedName || (chunk.styleName === name && chunk.styleVertical === vertical))) return
    if (chunk.styleSet) flush()
    chunk.styleSet = true
    chunk.styleSize = s.ts.size
    chunk.styleName = name
    chunk.styleVertical = vertical
    chunk.styleLoaded = s.ts.loadedName
  }

  /** Glyphs drawn with one string (between two position adjustments), `extra` added after the last. */
  const showGlyphs = (glyphs: ReadonlyArray<GlyphLike>, extra: number) => {
    const font = s.ts.font
    if (font === undefined) return
    checkStyle()
    const vertical = font.vertical
    const baseSpacing = vertical ? -s.ts.charSpacing : s.ts.charSpacing
    if (glyphs.length === 0) {
      const spacing = baseSpacing + extra
      if (spacing) {
        if (!vertical) translate(spacing * s.ts.hScale, 0)
        else translate(0, -spacing)
      }
      return
    }
    const scale = font.fontMatrix[0] * s.ts.size
    for (let i = 0; i < glyphs.length; i++) {
      const glyph = glyphs[i]
      const unicode = typeof glyph.unicode === "string" ? glyph.unicode : ""
      const category = categoryOf(unicode)
      if (category === FORMAT_MARK) continue
      let spacing = baseSpacing + (i + 1 === glyphs.length ? extra : 0)
      const advance = vertical ? Number(glyph.vmetric?.[0] ?? glyph.width) : glyph.width
      let dim = (Number.isFinite(advance) ? advance : 0) * scale
      if (glyph.isSpace) spacing += s.ts.wordSpacing
      if (category === WHITESPACE) {
        if (!vertical) {
          spacing += dim
          translate(spacing * s.ts.hScale, 0)
        } else {
          spacing -= dim
          translate(0, -spacing)
        }
        rememberChar(" ")
        continue
      }
      if (category !== DIACRITIC && !place(dim)) {
        if (!vertical) translate(dim * s.ts.hScale, 0)
        else translate(0, dim)
        continue
      }
      openChunk()
      if (category === DIACRITIC) dim = 0
      if (!vertical) {
        dim *= s.ts.hScale
        translate(dim, 0)
        chunk.width += dim
      } else {
        translate(0, dim)
        dim = Math.abs(dim)
        chunk.height += dim
      }
      if (dim) {
        chunk.prev = textTransform(chunk.prev)
        chunk.prevRise = s.ts.rise
      }
      if (rememberChar(unicode)) chunk.units.push(" ")
      chunk.units.push(unicode)
      if (spacing) {
        if (!vertical) translate(spacing * s.ts.hScale, 0)
        else translate(0, -spacing)
      }
    }
  }

  /** After Tm: widths so far are counted at the old scale, the rest at the new one. */
  const textMatrixSet = () => {
    if (!chunk.open) return
    const scale = advanceScaleNow()
    if (scale === chunk.advanceScale) return
    if (!chunk.vertical) {
      chunk.totalWidth += chunk.width * chunk.advanceScale
      chunk.width = 0
    } else {
      chunk.totalHeight += chunk.height * chunk.advanceScale
      chunk.height = 0
    }
    chunk.advanceScale = scale
  }
  const enterForm = () => {
    flush()
    chunks.push(chunk)
    chunk = newChunk()
  }
  const leaveForm = () => {
    flush()
    chunk = chunks.pop() ?? newChunk()
  }
  return { items, styles, showGlyphs, flush, textMatrixSet, enterForm, leaveForm }
}
