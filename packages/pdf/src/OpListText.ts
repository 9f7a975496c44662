/**
 * A page's text from its operator list, so that pdf.js reads each page once (the operator list
 * is needed anyway for rules, images and font names). The glyphs of `showText` carry their
 * Unicode text and advance; this walk keeps the text state (font, matrices, spacing, rise,
 * scaling) through saves, transforms and form XObjects, and groups the glyphs into items the way
 * pdf.js's own text pass does: same start transform and width, a new item on a font change or on
 * a jump in position, a space inside an item where the gap is word-sized or a space glyph was
 * drawn. Items come out shaped like pdf.js text items, so `runsFrom` turns either source into
 * runs; right-to-left items are put in logical order here (Bidi.ts).
 */
import type { TextItem } from "pdfjs-dist/types/src/display/api.d.ts"
import { multiplyMatrix as multiply, type Matrix } from "@strata/core"
import { logicalOrder } from "./Bidi.ts"
import { pdfjs } from "./PdfJs.ts"

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
interface GlyphLike {
  readonly unicode: string
  readonly width: number
  readonly vmetric?: ArrayLike<number> | null
  readonly isSpace: boolean
}

interface TextState {
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

interface GraphicsState {
  ctm: Matrix
  text: TextState
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

/**
 * Matrices reach the operator list as 32-bit floats; the decimals written in the content stream
 * (what pdf.js's text pass read) are recovered as the shortest decimal with the same float.
 */
const unround = (v: number): number => {
  if (v === 0 || !Number.isFinite(v)) return v
  for (let digits = 4; digits <= 8; digits++) {
    const candidate = Number(v.toPrecision(digits))
    if (Math.fround(candidate) === v) return candidate
  }
  return v
}
const matrixOf = (value: unknown): Matrix | undefined => {
  const m = value as ArrayLike<number> | null | undefined
  if (m === null || m === undefined || typeof m !== "object" || m.length !== 6) return undefined
  const f32 = m instanceof Float32Array
  const out: Matrix = [0, 0, 0, 0, 0, 0]
  for (let i = 0; i < 6; i++) {
    const v = Number(m[i])
    if (!Number.isFinite(v)) return undefined
    out[i] = f32 ? unround(v) : v
  }
  return out
}

const newChunk = (): Chunk => ({
  open: false, units: [], transform: [1, 0, 0, 1, 0, 0], fontName: "", vertical: false, width: 0, totalWidth: 0, height: 0,
  totalHeight: 0, advanceScale: 1, prev: undefined, prevRise: 0, tracking: 0, notSpace: 0, negative: 0, spaceMin: 0,
  spaceMax: 0, lastA: " ", lastB: " ", styleSize: 0, styleName: undefined, styleVertical: false, styleLoaded: "", styleSet: false
})

const initialText = (): TextState => ({
  font: undefined, loadedName: "", size: 0, charSpacing: 0, wordSpacing: 0, hScale: 1, leading: 0, rise: 0,
  tm: [1, 0, 0, 1, 0, 0], tlm: [1, 0, 0, 1, 0, 0]
})

const cloneText = (t: TextState): TextState => ({ ...t, tm: [...t.tm] as Matrix, tlm: [...t.tlm] as Matrix })

/**
 * The page's text items (user space, as pdf.js's `getTextContent` gives them) and the styles of
 * their fonts. `view` is the page's visible box: glyphs outside it are left out.
 */
export const textFromOperatorList = (
  fnArray: ArrayLike<number>,
  argsArray: ReadonlyArray<unknown>,
  fontFacts: (loadedName: string) => FontFacts | undefined,
  view: ReadonlyArray<number>
): { items: Array<TextItem>; styles: Record<string, TextStyle> } => {
  const OPS = pdfjs.OPS
  const items: Array<TextItem> = []
  const styles: Record<string, TextStyle> = {}
  const stack: Array<GraphicsState> = []
  let ctm: Matrix = [1, 0, 0, 1, 0, 0]
  let ts = initialText()
  // A form XObject is a text pass of its own in pdf.js: a fresh item state, the outer one kept.
  const chunks: Array<Chunk> = []
  let chunk = newChunk()
  // Soft-mask groups draw a mask, not content: pdf.js's text pass never enters them.
  const groups: Array<boolean> = []
  let masked = 0

  /** The glyph-space-to-user-space matrix at the current point (pdf.js's text rendering matrix), into `out`. */
  const textTransform = (out: Matrix = [0, 0, 0, 0, 0, 0]): Matrix => {
    const font = ts.font
    let d = ts.size
    if (font !== undefined && font.type3 && ts.size <= 1 && !isFontIdentity(font.fontMatrix)) {
      const height = font.bbox !== undefined ? font.bbox[3] - font.bbox[1] : 0
      if (height > 0) d *= height * font.fontMatrix[3]
    }
    const a = ts.size * ts.hScale
    const tm = ts.tm
    const n0 = tm[0] * a, n1 = tm[1] * a, n2 = tm[2] * d, n3 = tm[3] * d
    const n4 = tm[2] * ts.rise + tm[4], n5 = tm[3] * ts.rise + tm[5]
    const m = ctm
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
    const m = ts.tm
    m[4] = m[0] * x + m[2] * y + m[4]
    m[5] = m[1] * x + m[3] * y + m[5]
  }
  const advanceScaleNow = () => Math.hypot(ts.tlm[0], ts.tlm[1]) * Math.hypot(ctm[0], ctm[1])

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
    const font = ts.font
    const name = ts.loadedName
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
    const size = ts.size
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
    const vertical = ts.font?.vertical === true
    if (vertical) {
      if (x < view[0] || x > view[2] || y + glyphWidth < view[1] || y > view[3]) return false
    } else if (x + glyphWidth < view[0] || x > view[2] || y < view[1] || y > view[3]) {
      return false
    }
    const prev = chunk.prev
    if (ts.font === undefined || prev === undefined) return true
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
    const riseDelta = ts.rise - chunk.prevRise
    const shiftY = riseDelta === 0 ? advanceY : advanceY - (t[3] / ts.size) * riseDelta
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
    const font = ts.font
    const name = font?.name
    const vertical = font?.vertical === true
    if (chunk.styleSet && chunk.styleSize === ts.size &&
      (chunk.styleLoaded === ts.loadedName || (chunk.styleName === name && chunk.styleVertical === vertical))) return
    if (chunk.styleSet) flush()
    chunk.styleSet = true
    chunk.styleSize = ts.size
    chunk.styleName = name
    chunk.styleVertical = vertical
    chunk.styleLoaded = ts.loadedName
  }

  /** Glyphs drawn with one string (between two position adjustments), `extra` added after the last. */
  const showGlyphs = (glyphs: ReadonlyArray<GlyphLike>, extra: number) => {
    const font = ts.font
    if (font === undefined) return
    checkStyle()
    const vertical = font.vertical
    const baseSpacing = vertical ? -ts.charSpacing : ts.charSpacing
    if (glyphs.length === 0) {
      const spacing = baseSpacing + extra
      if (spacing) {
        if (!vertical) translate(spacing * ts.hScale, 0)
        else translate(0, -spacing)
      }
      return
    }
    const scale = font.fontMatrix[0] * ts.size
    for (let i = 0; i < glyphs.length; i++) {
      const glyph = glyphs[i]
      const unicode = typeof glyph.unicode === "string" ? glyph.unicode : ""
      const category = categoryOf(unicode)
      if (category === FORMAT_MARK) continue
      let spacing = baseSpacing + (i + 1 === glyphs.length ? extra : 0)
      const advance = vertical ? Number(glyph.vmetric?.[0] ?? glyph.width) : glyph.width
      let dim = (Number.isFinite(advance) ? advance : 0) * scale
      if (glyph.isSpace) spacing += ts.wordSpacing
      if (category === WHITESPACE) {
        if (!vertical) {
          spacing += dim
          translate(spacing * ts.hScale, 0)
        } else {
          spacing -= dim
          translate(0, -spacing)
        }
        rememberChar(" ")
        continue
      }
      if (category !== DIACRITIC && !place(dim)) {
        if (!vertical) translate(dim * ts.hScale, 0)
        else translate(0, dim)
        continue
      }
      openChunk()
      if (category === DIACRITIC) dim = 0
      if (!vertical) {
        dim *= ts.hScale
        translate(dim, 0)
        chunk.width += dim
      } else {
        translate(0, dim)
        dim = Math.abs(dim)
        chunk.height += dim
      }
      if (dim) {
        chunk.prev = textTransform(chunk.prev)
        chunk.prevRise = ts.rise
      }
      if (rememberChar(unicode)) chunk.units.push(" ")
      chunk.units.push(unicode)
      if (spacing) {
        if (!vertical) translate(spacing * ts.hScale, 0)
        else translate(0, -spacing)
      }
    }
  }

  /** A `showText` argument: glyphs with TJ adjustments (thousandths of the font size) between them. */
  const showText = (parts: ReadonlyArray<unknown>) => {
    if (ts.font === undefined || masked > 0) return
    const factor = (ts.font.vertical ? 1 : -1) * ts.size / 1000
    let start = 0
    let pending = false
    for (let i = 0; i < parts.length; i++) {
      const part = parts[i]
      if (typeof part !== "number") {
        pending = true
        continue
      }
      if (part === 0) continue
      showGlyphs(collect(parts, start, i), part * factor)
      start = i + 1
      pending = false
    }
    if (pending) showGlyphs(collect(parts, start, parts.length), 0)
  }

  const setFont = (loadedName: unknown, size: unknown) => {
    ts.loadedName = typeof loadedName === "string" ? loadedName : ""
    ts.font = fontFacts(ts.loadedName)
    ts.size = typeof size === "number" && Number.isFinite(size) ? size : 0
  }

  for (let i = 0; i < fnArray.length; i++) {
    const fn = fnArray[i]
    const args = argsArray[i] as Array<unknown> | null
    switch (fn) {
      case OPS.showText:
        if (Array.isArray(args?.[0])) showText(args[0] as ReadonlyArray<unknown>)
        break
      case OPS.setFont:
        if (args !== null) setFont(args[0], args[1])
        break
      case OPS.setTextMatrix: {
        const m = matrixOf(ArrayBuffer.isView(args?.[0]) || Array.isArray(args?.[0]) ? args?.[0] : args)
        if (m === undefined) break
        ts.tm = m
        ts.tlm = [...m] as Matrix
        if (chunk.open) {
          const scale = advanceScaleNow()
          if (scale !== chunk.advanceScale) {
            if (!chunk.vertical) {
              chunk.totalWidth += chunk.width * chunk.advanceScale
              chunk.width = 0
            } else {
              chunk.totalHeight += chunk.height * chunk.advanceScale
              chunk.height = 0
            }
            chunk.advanceScale = scale
          }
        }
        break
      }
      case OPS.moveText:
      case OPS.setLeadingMoveText: {
        const tx = Number(args?.[0]), ty = Number(args?.[1])
        if (!Number.isFinite(tx) || !Number.isFinite(ty)) break
        if (fn === OPS.setLeadingMoveText) ts.leading = -ty
        const m = ts.tlm
        m[4] = m[0] * tx + m[2] * ty + m[4]
        m[5] = m[1] * tx + m[3] * ty + m[5]
        ts.tm = [...m] as Matrix
        break
      }
      case OPS.nextLine: {
        const m = ts.tlm
        m[4] = m[2] * -ts.leading + m[4]
        m[5] = m[3] * -ts.leading + m[5]
        ts.tm = [...m] as Matrix
        break
      }
      case OPS.beginText:
        ts.tm = [1, 0, 0, 1, 0, 0]
        ts.tlm = [1, 0, 0, 1, 0, 0]
        break
      case OPS.setCharSpacing:
        ts.charSpacing = numberOr(args?.[0], ts.charSpacing)
        break
      case OPS.setWordSpacing:
        ts.wordSpacing = numberOr(args?.[0], ts.wordSpacing)
        break
      case OPS.setHScale:
        ts.hScale = numberOr(args?.[0], ts.hScale * 100) / 100
        break
      case OPS.setLeading:
        ts.leading = numberOr(args?.[0], ts.leading)
        break
      case OPS.setTextRise:
        ts.rise = numberOr(args?.[0], ts.rise)
        break
      case OPS.setGState: {
        const entries = args?.[0]
        if (!Array.isArray(entries)) break
        for (const entry of entries as Array<[string, unknown]>) {
          if (!Array.isArray(entry) || entry[0] !== "Font" || !Array.isArray(entry[1])) continue
          flush()
          setFont(entry[1][0], entry[1][1])
        }
        break
      }
      case OPS.save:
        stack.push({ ctm, text: cloneText(ts) })
        break
      case OPS.restore: {
        const saved = stack.pop()
        if (saved !== undefined) ({ ctm, text: ts } = saved)
        break
      }
      case OPS.transform: {
        const m = matrixOf(args)
        if (m !== undefined) ctm = multiply(ctm, m)
        break
      }
      case OPS.paintFormXObjectBegin: {
        flush()
        stack.push({ ctm, text: cloneText(ts) })
        ts = cloneText(ts)
        const m = matrixOf(args?.[0])
        if (m !== undefined) ctm = multiply(ctm, m)
        chunks.push(chunk)
        chunk = newChunk()
        break
      }
      case OPS.paintFormXObjectEnd: {
        flush()
        const saved = stack.pop()
        if (saved !== undefined) ({ ctm, text: ts } = saved)
        chunk = chunks.pop() ?? newChunk()
        break
      }
      case OPS.beginGroup: {
        const mask = Boolean((args?.[0] as { smask?: unknown } | undefined)?.smask)
        groups.push(mask)
        if (mask) masked++
        break
      }
      case OPS.endGroup:
        if (groups.pop() === true) masked--
        break
      case OPS.beginMarkedContent:
      case OPS.beginMarkedContentProps:
      case OPS.endMarkedContent:
      case OPS.paintImageXObject:
      case OPS.paintImageMaskXObject:
      case OPS.paintImageXObjectRepeat:
      case OPS.paintSolidColorImageMask:
        flush()
        break
    }
  }
  flush()
  return { items, styles }
}

const numberOr = (value: unknown, fallback: number): number => (typeof value === "number" && Number.isFinite(value) ? value : fallback)

const collect = (parts: ReadonlyArray<unknown>, start: number, end: number): Array<GlyphLike> => {
  const glyphs: Array<GlyphLike> = []
  for (let i = start; i < end; i++) {
    const part = parts[i]
    if (part !== null && typeof part === "object") glyphs.push(part as GlyphLike)
  }
  return glyphs
}
