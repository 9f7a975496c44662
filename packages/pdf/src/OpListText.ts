/**
 * A page's text from its operator list, so that pdf.js reads each page once (the operator list
 * is needed anyway for rules, images and font names). The glyphs of `showText` carry their
 * Unicode text and advance; this walk keeps the text state (font, matrices, spacing, rise,
 * scaling) through saves, transforms and form XObjects, and hands each string drawn to the item
 * builder (TextItems.ts), which groups glyphs as pdf.js's text pass does.
 */
import type { TextItem } from "pdfjs-dist/types/src/display/api.d.ts"
import { multiplyMatrix as multiply, type Matrix } from "@strata/core"
import { pdfjs } from "./PdfJs.ts"
import { type FontFacts, type GlyphLike, itemBuilder, type TextPosition, type TextState, type TextStyle } from "./TextItems.ts"

export type { FontFacts, TextStyle } from "./TextItems.ts"

interface GraphicsState {
  ctm: Matrix
  text: TextState
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
  const s: TextPosition = { ts: initialText(), ctm: [1, 0, 0, 1, 0, 0] }
  const builder = itemBuilder(s, view)
  const stack: Array<GraphicsState> = []
  /** Back to the state saved by the matching `save` or form start (an unbalanced restore keeps the current one). */
  const restore = () => {
    const saved = stack.pop()
    if (saved !== undefined) {
      s.ctm = saved.ctm
      s.ts = saved.text
    }
  }
  // Soft-mask groups draw a mask, not content: pdf.js's text pass never enters them.
  const groups: Array<boolean> = []
  let masked = 0

  /** A `showText` argument: glyphs with TJ adjustments (thousandths of the font size) between them. */
  const showText = (parts: ReadonlyArray<unknown>) => {
    if (s.ts.font === undefined || masked > 0) return
    const factor = (s.ts.font.vertical ? 1 : -1) * s.ts.size / 1000
    let start = 0
    let pending = false
    for (let i = 0; i < parts.length; i++) {
      const part = parts[i]
      if (typeof part !== "number") {
        pending = true
        continue
      }
      if (part === 0) continue
      builder.showGlyphs(collect(parts, start, i), part * factor)
      start = i + 1
      pending = false
    }
    if (pending) builder.showGlyphs(collect(parts, start, parts.length), 0)
  }

  const setFont = (loadedName: unknown, size: unknown) => {
    s.ts.loadedName = typeof loadedName === "string" ? loadedName : ""
    s.ts.font = fontFacts(s.ts.loadedName)
    s.ts.size = typeof size === "number" && Number.isFinite(size) ? size : 0
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
        s.ts.tm = m
        s.ts.tlm = [...m] as Matrix
        builder.textMatrixSet()
        break
      }
      case OPS.moveText:
      case OPS.setLeadingMoveText: {
        const tx = Number(args?.[0]), ty = Number(args?.[1])
        if (!Number.isFinite(tx) || !Number.isFinite(ty)) break
        if (fn === OPS.setLeadingMoveText) s.ts.leading = -ty
        const m = s.ts.tlm
        m[4] = m[0] * tx + m[2] * ty + m[4]
        m[5] = m[1] * tx + m[3] * ty + m[5]
        s.ts.tm = [...m] as Matrix
        break
      }
      case OPS.nextLine: {
        const m = s.ts.tlm
        m[4] = m[2] * -s.ts.leading + m[4]
        m[5] = m[3] * -s.ts.leading + m[5]
        s.ts.tm = [...m] as Matrix
        break
      }
      case OPS.beginText:
        s.ts.tm = [1, 0, 0, 1, 0, 0]
        s.ts.tlm = [1, 0, 0, 1, 0, 0]
        break
      case OPS.setCharSpacing:
        s.ts.charSpacing = numberOr(args?.[0], s.ts.charSpacing)
        break
      case OPS.setWordSpacing:
        s.ts.wordSpacing = numberOr(args?.[0], s.ts.wordSpacing)
        break
      case OPS.setHScale:
        s.ts.hScale = numberOr(args?.[0], s.ts.hScale * 100) / 100
        break
      case OPS.setLeading:
        s.ts.leading = numberOr(args?.[0], s.ts.leading)
        break
      case OPS.setTextRise:
        s.ts.rise = numberOr(args?.[0], s.ts.rise)
        break
      case OPS.setGState: {
        const entries = args?.[0]
        if (!Array.isArray(entries)) break
        for (const entry of entries as Array<[string, unknown]>) {
          if (!Array.isArray(entry) || entry[0] !== "Font" || !Array.isArray(entry[1])) continue
          builder.flush()
          setFont(entry[1][0], entry[1][1])
        }
        break
      }
      case OPS.save:
        stack.push({ ctm: s.ctm, text: cloneText(s.ts) })
        break
      case OPS.restore:
        restore()
        break
      case OPS.transform: {
        const m = matrixOf(args)
        if (m !== undefined) s.ctm = multiply(s.ctm, m)
        break
      }
      case OPS.paintFormXObjectBegin: {
        builder.enterForm()
        stack.push({ ctm: s.ctm, text: cloneText(s.ts) })
        s.ts = cloneText(s.ts)
        const m = matrixOf(args?.[0])
        if (m !== undefined) s.ctm = multiply(s.ctm, m)
        break
      }
      case OPS.paintFormXObjectEnd:
        builder.leaveForm()
        restore()
        break
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
        builder.flush()
        break
    }
  }
  builder.flush()
  return { items: builder.items, styles: builder.styles }
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
