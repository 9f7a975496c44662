/**
 * A text-only reader for legacy Word 97-2003 files (.doc), used when LibreOffice is not
 * installed: the compound file's WordDocument stream and its table stream give the piece table
 * (FIB -> Clx -> PlcPcd), whose pieces are the document's characters (cp1252 or UTF-16).
 * Paragraphs, table cells and rows, line breaks and field results are recovered; styles,
 * lists and emphasis are not (the caller says so in a diagnostic).
 */
import CFB_MODULE from "cfb"
import { gridOfRows, structuredBlock, type Block } from "@strata/core"
import { corrupt, unsupported } from "./Failure.ts"
import { escapeBlockStart, escapeInline } from "./MarkdownText.ts"

interface CfbEntry {
  readonly content: Uint8Array
}
const CFB = (CFB_MODULE as unknown as { read(data: Uint8Array, options: { type: "array" | "buffer" }): unknown; find(container: unknown, path: string): CfbEntry | null })

const cp1252 = new TextDecoder("windows-1252")
const utf16 = new TextDecoder("utf-16le")

/** The characters of a Word 97 file: the main document and the footnote story that follows it. */
export const word97Characters = (bytes: Uint8Array, format: string): { main: string; footnotes: string } => {
  let container: unknown
  try {
    container = CFB.read(bytes, { type: "buffer" })
  } catch {
    throw corrupt(format, "not a readable compound file")
  }
  const wordStream = CFB.find(container, "WordDocument")?.content
  if (wordStream === undefined || wordStream.length < 0x200) throw corrupt(format, "no WordDocument stream")
  const doc = new Uint8Array(wordStream)
  const view = new DataView(doc.buffer, doc.byteOffset, doc.byteLength)
  if (view.getUint16(0, true) !== 0xa5ec) throw unsupported(format, "not a Word 97-2003 document (older Word formats are not read without LibreOffice)")
  const flags = view.getUint16(0x0a, true)
  if (flags & 0x0100) throw unsupported(format, "the document is encrypted")
  const table = CFB.find(container, flags & 0x0200 ? "1Table" : "0Table")?.content
  if (table === undefined) throw corrupt(format, "no table stream")
  const tbl = new Uint8Array(table)
  const tview = new DataView(tbl.buffer, tbl.byteOffset, tbl.byteLength)
  // FibBase (32 bytes), then the counted FibRgW, FibRgLw and FibRgFcLcb blocks.
  const csw = view.getUint16(32, true)
  const lwAt = 32 + 2 + csw * 2 + 2
  const cslw = view.getUint16(lwAt - 2, true)
  const ccpText = Math.max(0, view.getInt32(lwAt + 12, true))
  const ccpFtn = Math.max(0, view.getInt32(lwAt + 16, true))
  const wanted = ccpText + ccpFtn
  const fcLcbAt = lwAt + cslw * 4 + 2
  const fcClx = view.getUint32(fcLcbAt + 33 * 8, true)
  const lcbClx = view.getUint32(fcLcbAt + 33 * 8 + 4, true)
  if (fcClx + lcbClx > tbl.length || lcbClx === 0) throw corrupt(format, "the piece table is out of bounds")
  let at = fcClx
  const end = fcClx + lcbClx
  // Skip the Prc (property modifiers) records, then read the Pcdt.
  while (at < end && tbl[at] === 0x01) at += 3 + tview.getInt16(at + 1, true)
  if (tbl[at] !== 0x02) throw corrupt(format, "no piece table")
  const lcb = tview.getUint32(at + 1, true)
  const plc = at + 5
  const n = Math.floor((lcb - 4) / 12)
  if (n <= 0 || plc + lcb > tbl.length) throw corrupt(format, "the piece table is broken")
  const parts: Array<string> = []
  let total = 0
  for (let i = 0; i < n && total < wanted; i++) {
    const cpStart = tview.getUint32(plc + i * 4, true)
    const cpEnd = tview.getUint32(plc + (i + 1) * 4, true)
    const pcd = plc + (n + 1) * 4 + i * 8
    const raw = tview.getUint32(pcd + 2, true)
    const length = Math.max(0, Math.min(cpEnd - cpStart, wanted - total))
    const compressed = (raw & 0x40000000) !== 0
    const fc = raw & 0x3fffffff
    const start = compressed ? fc / 2 : fc
    const byteLength = compressed ? length : length * 2
    if (start + byteLength > doc.length) throw corrupt(format, "a text piece lies outside the document stream")
    const slice = doc.subarray(start, start + byteLength)
    parts.push(compressed ? cp1252.decode(slice) : utf16.decode(slice))
    total += length
  }
  const all = parts.join("")
  return { main: all.slice(0, ccpText), footnotes: all.slice(ccpText, wanted) }
}

/** Footnote texts (each ends with a paragraph mark; the leading reference mark is dropped). */
export const word97Footnotes = (story: string): Array<Block> =>
  story
    .split("\r")
    .map((note) => note.replace(/[\u0002\u0003\u0004]/g, "").replace(/\s+/g, " ").trim())
    .filter((note) => note.length > 0)
    .map((note, i) => structuredBlock("footnote", { note: { label: String(i + 1) }, text: escapeInline(note) }, { source: "doc" }))

/** Blocks of the main text: paragraphs and tables (cells end with U+0007, a row with an extra one). */
export const word97Blocks = (text: string): Array<Block> => {
  const blocks: Array<Block> = []
  let paragraph = ""
  let cell: Array<string> = []
  let row: Array<string> = []
  let rows: Array<Array<string>> = []
  let fieldDepth = 0
  let notes = 0
  const inlineOf = (s: string) => escapeBlockStart(escapeInline(s.replace(/[ \t\u00a0]+/g, " ").trim()))
  const flushTable = () => {
    if (rows.length > 0) {
      const table = structuredBlock("table", { table: { ...gridOfRows(rows), headerRows: 1 } }, { source: "doc" })
      if (table.content.length > 0) blocks.push(table)
    }
    rows = []
  }
  // Field instructions (between U+0013 and U+0014) are dropped; results (to U+0015) kept.
  const skipping: Array<boolean> = []
  for (const ch of text) {
    const code = ch.charCodeAt(0)
    if (code === 0x13) {
      fieldDepth++
      skipping.push(true)
      continue
    }
    if (code === 0x14) {
      if (skipping.length > 0) skipping[skipping.length - 1] = false
      continue
    }
    if (code === 0x15) {
      fieldDepth = Math.max(0, fieldDepth - 1)
      skipping.pop()
      continue
    }
    if (skipping.some((s) => s)) continue
    if (code === 0x0d) {
      if (cell.length > 0 || row.length > 0) cell.push(paragraph)
      else {
        flushTable()
        const inline = inlineOf(paragraph)
        if (inline.length > 0) blocks.push(structuredBlock("text", { text: inline }, { source: "doc" }))
      }
      paragraph = ""
    } else if (code === 0x07) {
      if (paragraph.length === 0 && cell.length === 0 && row.length > 0) {
        rows.push(row)
        row = []
      } else {
        cell.push(paragraph)
        row.push(cell.map(inlineOf).filter((s) => s.length > 0).join("\n"))
        cell = []
      }
      paragraph = ""
    } else if (code === 0x0b) paragraph += "\n"
    // U+0002 is an auto-numbered footnote reference: numbered like the footnote story.
    else if (code === 0x02) paragraph += `[^${++notes}]`
    else if (code === 0x0c || code === 0x01 || code === 0x08 || code === 0x05 || code === 0x1f) continue
    else if (code === 0x1e) paragraph += "-"
    else paragraph += ch
  }
  if (row.length > 0) rows.push(row)
  flushTable()
  const tail = inlineOf(paragraph)
  if (tail.length > 0) blocks.push(structuredBlock("text", { text: tail }, { source: "doc" }))
  return blocks
}
