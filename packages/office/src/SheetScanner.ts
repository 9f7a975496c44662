/**
 * A single-pass scanner for SpreadsheetML worksheet XML. Sheets are by far the largest parts
 * of a workbook (hundreds of thousands of cells); building an element tree for them costs most
 * of the time in garbage collection, so cells are read straight from the text: row and cell
 * tags, the cell's `r`/`t`/`s` attributes, its `<v>` value or inline-string text, and the
 * merged ranges. Namespace prefixes are allowed; entities are decoded.
 */
import { decodeEntities } from "./Xml.ts"

export interface ScannedCell {
  /** 0-based row and column (from `r`, or by position when `r` is missing). */
  readonly row: number
  readonly col: number
  readonly type: string
  readonly style: number
  /** The `<v>` text, or the inline string for `t="inlineStr"`. */
  readonly value: string | undefined
}

const tagPattern = /<(?:[A-Za-z_][\w.-]*:)?(row|c|mergeCell)\b([^>]*)>/g
const attrPattern = /([\w:.-]+)\s*=\s*(?:"([^"]*)"|'([^']*)')/g
const valuePattern = /<(?:[A-Za-z_][\w.-]*:)?v(?:\s[^>]*)?>([\s\S]*?)<\/(?:[A-Za-z_][\w.-]*:)?v>/
const inlinePattern = /<(?:[A-Za-z_][\w.-]*:)?t(?:\s[^>]*)?>([\s\S]*?)<\/(?:[A-Za-z_][\w.-]*:)?t>/g
const phoneticPattern = /<(?:[A-Za-z_][\w.-]*:)?rPh\b[\s\S]*?<\/(?:[A-Za-z_][\w.-]*:)?rPh>/g

const attrsOf = (source: string): Record<string, string> => {
  const out: Record<string, string> = {}
  attrPattern.lastIndex = 0
  let m: RegExpExecArray | null
  while ((m = attrPattern.exec(source)) !== null) {
    const name = m[1].includes(":") ? m[1].slice(m[1].indexOf(":") + 1) : m[1]
    out[name] = m[2] ?? m[3] ?? ""
  }
  return out
}

const columnOf = (ref: string): { row: number; col: number } | undefined => {
  let col = 0
  let i = 0
  while (i < ref.length) {
    const code = ref.charCodeAt(i)
    const upper = code & ~0x20
    if (upper < 65 || upper > 90) break
    col = col * 26 + (upper - 64)
    i++
  }
  if (i === 0 || i > 3) return undefined
  while (ref[i] === "$") i++
  const row = Number(ref.slice(i).replace(/^\$/, ""))
  return Number.isInteger(row) && row > 0 ? { row: row - 1, col: col - 1 } : undefined
}

/** Calls `onCell` for every cell with content, in document order; returns the merged ranges' refs. */
export const scanSheet = (xml: string, onCell: (cell: ScannedCell) => void): Array<string> => {
  const merges: Array<string> = []
  let row = -1
  let col = -1
  tagPattern.lastIndex = 0
  let m: RegExpExecArray | null
  while ((m = tagPattern.exec(xml)) !== null) {
    const name = m[1]
    const rawAttrs = m[2]
    const selfClosing = rawAttrs.endsWith("/")
    const attrs = attrsOf(rawAttrs)
    if (name === "row") {
      row = attrs.r !== undefined && Number(attrs.r) > 0 ? Number(attrs.r) - 1 : row + 1
      col = -1
      continue
    }
    if (name === "mergeCell") {
      if (attrs.ref !== undefined) merges.push(attrs.ref)
      continue
    }
    const ref = attrs.r === undefined ? undefined : columnOf(attrs.r)
    col = ref?.col ?? col + 1
    const cellRow = ref?.row ?? Math.max(row, 0)
    if (selfClosing) continue
    // The cell's content runs to its end tag (`</c>` or `</x:c>`).
    const qname = /^<([^\s/>]+)/.exec(m[0])?.[1] ?? name
    const endTag = `</${qname}>`
    const end = xml.indexOf(endTag, tagPattern.lastIndex)
    // An unclosed cell (broken file) has no content rather than the rest of the sheet.
    const inner = end < 0 ? "" : xml.slice(tagPattern.lastIndex, end)
    if (end >= 0) tagPattern.lastIndex = end + endTag.length
    const type = attrs.t ?? "n"
    let value: string | undefined
    if (type === "inlineStr") {
      const text: Array<string> = []
      inlinePattern.lastIndex = 0
      let t: RegExpExecArray | null
      const body = inner.replace(phoneticPattern, "")
      while ((t = inlinePattern.exec(body)) !== null) text.push(t[1])
      value = decodeEntities(text.join(""))
    } else {
      const v = valuePattern.exec(inner)
      value = v === null ? undefined : decodeEntities(v[1])
    }
    if (value !== undefined) onCell({ row: cellRow, col, type, style: Number(attrs.s ?? 0) || 0, value })
  }
  return merges
}
