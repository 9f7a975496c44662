/**
 * Delimited text (.csv, .tsv): encoding detection (byte order marks, strict UTF-8, else
 * Windows-1252), dialect detection (the delimiter among `,` `;` tab `|` that splits the sampled
 * rows most consistently, quote-aware), RFC 4180 parsing with quoted newlines and doubled
 * quotes, and one markdown table (first row as header, short rows padded).
 */
import { gridOfRows, makeBlock, type Block, writeTable } from "@strata/core"
import { limitExceeded } from "./Failure.ts"
import { escapeCell } from "./SheetBlocks.ts"

const maxRows = 200_000
const maxCells = 4_000_000

export const decodeTextBytes = (bytes: Uint8Array): { text: string; encoding: string } => {
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) return { text: new TextDecoder("utf-8").decode(bytes.subarray(3)), encoding: "utf-8" }
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return { text: new TextDecoder("utf-16le").decode(bytes.subarray(2)), encoding: "utf-16le" }
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return { text: new TextDecoder("utf-16be").decode(bytes.subarray(2)), encoding: "utf-16be" }
  try {
    return { text: new TextDecoder("utf-8", { fatal: true }).decode(bytes), encoding: "utf-8" }
  } catch {
    return { text: new TextDecoder("windows-1252").decode(bytes), encoding: "windows-1252" }
  }
}

/** Splits delimited text into rows of fields. `limit` caps the rows read (for sampling). */
export const parseDelimited = (text: string, delimiter: string, limit = Infinity): Array<Array<string>> => {
  const rows: Array<Array<string>> = []
  let row: Array<string> = []
  let field = ""
  let i = 0
  const n = text.length
  let quoted = false
  while (i < n && rows.length < limit) {
    const ch = text[i]
    if (quoted) {
      if (ch === "\"") {
        if (text[i + 1] === "\"") {
          field += "\""
          i += 2
          continue
        }
        quoted = false
        i++
        continue
      }
      field += ch
      i++
      continue
    }
    if (ch === "\"" && field.trim().length === 0) {
      quoted = true
      field = ""
      i++
    } else if (ch === delimiter) {
      row.push(field)
      field = ""
      i++
    } else if (ch === "\n" || ch === "\r") {
      row.push(field)
      rows.push(row)
      row = []
      field = ""
      i += ch === "\r" && text[i + 1] === "\n" ? 2 : 1
    } else {
      field += ch
      i++
    }
  }
  if (rows.length < limit && (field.length > 0 || row.length > 0)) {
    row.push(field)
    rows.push(row)
  }
  return rows
}

const candidates = [",", ";", "\t", "|"]

/** The delimiter whose field counts agree across the sampled rows most often (and split the most). */
export const detectDelimiter = (text: string, fileName?: string): string => {
  const sample = text.slice(0, 64 * 1024)
  let best = fileName?.toLowerCase().endsWith(".tsv") ? "\t" : ","
  let bestScore = -1
  for (const delimiter of candidates) {
    const rows = parseDelimited(sample, delimiter, 50).filter((r) => r.length > 1 || r[0] !== "")
    if (rows.length === 0) continue
    const counts = new Map<number, number>()
    for (const r of rows) counts.set(r.length, (counts.get(r.length) ?? 0) + 1)
    let modeCount = 0
    let mode = 1
    for (const [fields, count] of counts) if (count > modeCount || (count === modeCount && fields > mode)) [mode, modeCount] = [fields, count]
    if (mode < 2) continue
    const score = (modeCount / rows.length) * 100 + Math.min(mode, 50) / 10
    if (score > bestScore) {
      bestScore = score
      best = delimiter
    }
  }
  return best
}

export const readCsv = (bytes: Uint8Array, format: string, fileName?: string): { blocks: Array<Block>; encoding: string; delimiter: string } => {
  const { text, encoding } = decodeTextBytes(bytes)
  const delimiter = detectDelimiter(text, fileName)
  const rows = parseDelimited(text, delimiter, maxRows + 1)
  if (rows.length > maxRows) throw limitExceeded(format, `the file has more than ${maxRows.toLocaleString("en-US")} rows, the most one CSV file may have`)
  // Trailing blank lines are not rows.
  while (rows.length > 0 && rows[rows.length - 1].every((f) => f.trim() === "")) rows.pop()
  // A loop, not Math.max(...rows): spreading 200,000 rows as arguments overflows the stack.
  let width = 0
  for (const row of rows) width = Math.max(width, row.length)
  if (width * rows.length > maxCells) throw limitExceeded(format, `the file has more than ${maxCells.toLocaleString("en-US")} cells, the most one CSV file may have`)
  const table = writeTable(gridOfRows(rows.map((r) => Array.from({ length: width }, (_, c) => escapeCell((r[c] ?? "").trim())))))
  return { blocks: table.length === 0 ? [] : [makeBlock("table", table, { source: "csv" })], encoding, delimiter }
}
