/**
 * Scores for the PDF benchmark, comparing an engine's markdown with a reference markdown
 * (Docling's, a peer's output rather than truth): word-level normalised edit distance of the
 * text, F1 over table cells, F1 over heading texts.
 */
import { multisetScore } from "../lib/MultisetF1.ts"

/** Plain text of markdown: syntax, HTML tags, image placeholders and emphasis removed, lower-cased. */
export const plainText = (markdown: string): string =>
  markdown
    .replace(/<!--[\s\S]*?-->/g, " ")
    .replace(/<\/?(table|tr|td|th|thead|tbody|br)[^>]*>/gi, " ")
    .replace(/^\s*\|?\s*:?-{2,}:?\s*(\|\s*:?-{2,}:?\s*)*\|?\s*$/gm, " ")
    .replace(/\|/g, " ")
    .replace(/^#{1,6}\s+/gm, "")
    .replace(/^\s*(?:[-*+•]|\d+[.)])\s+/gm, "")
    .replace(/```|~~~/g, " ")
    .replace(/[*_`]/g, "")
    .replace(/\\(.)/g, "$1")
    .normalize("NFKC")
    .toLowerCase()
    .replace(/\s+/g, " ")
    .trim()

/**
 * Words: tokens with a letter or a digit. Punctuation-only tokens are left out, or the leader
 * dots of a table of contents (". . . . ." written as sixty one-character tokens per entry in
 * Docling's reference) would outweigh the entry's words.
 */
const words = (text: string) => (text.length === 0 ? [] : text.split(" ").filter((w) => /[\p{L}\p{N}]/u.test(w)))

/** Levenshtein distance over word tokens (two rows, interned ids). */
export const wordEditDistance = (a: ReadonlyArray<string>, b: ReadonlyArray<string>): number => {
  const ids = new Map<string, number>()
  const id = (w: string) => {
    let v = ids.get(w)
    if (v === undefined) ids.set(w, (v = ids.size))
    return v
  }
  const A = Int32Array.from(a, id)
  const B = Int32Array.from(b, id)
  let prev = new Int32Array(B.length + 1).map((_, j) => j)
  let cur = new Int32Array(B.length + 1)
  for (let i = 1; i <= A.length; i++) {
    cur[0] = i
    const ai = A[i - 1]
    for (let j = 1; j <= B.length; j++) {
      const sub = prev[j - 1] + (ai === B[j - 1] ? 0 : 1)
      const del = prev[j] + 1
      const ins = cur[j - 1] + 1
      cur[j] = sub < del ? (sub < ins ? sub : ins) : del < ins ? del : ins
    }
    ;[prev, cur] = [cur, prev]
  }
  return prev[B.length]
}

/** 1 - normalised word edit distance (1 = same words in the same order). */
export const textSimilarity = (candidate: string, reference: string): number => {
  const a = words(plainText(candidate))
  const b = words(plainText(reference))
  if (a.length === 0 && b.length === 0) return 1
  return 1 - wordEditDistance(a, b) / Math.max(a.length, b.length)
}

const normCell = (cell: string) => cell.replace(/<[^>]+>/g, " ").replace(/\\\|/g, "|").replace(/[*_`]/g, "").normalize("NFKC").toLowerCase().replace(/\s+/g, " ").trim()

/** Cells of every table in the markdown (GFM pipe tables and HTML tables). */
export const tableCells = (markdown: string): { tables: number; cells: Array<string> } => {
  const cells: Array<string> = []
  let tables = 0
  let inTable = false
  for (const line of markdown.split("\n")) {
    const t = line.trim()
    if (t.startsWith("|") && t.endsWith("|") && t.length > 1) {
      if (!inTable) tables++
      inTable = true
      if (/^\|(\s*:?-+:?\s*\|)+$/.test(t)) continue
      for (const cell of t.slice(1, -1).split(/(?<!\\)\|/)) cells.push(normCell(cell))
    } else {
      inTable = false
    }
  }
  for (const table of markdown.match(/<table[\s\S]*?<\/table>/gi) ?? []) {
    tables++
    for (const m of table.matchAll(/<t[dh][^>]*>([\s\S]*?)<\/t[dh]>/gi)) cells.push(normCell(m[1]))
  }
  return { tables, cells: cells.filter((c) => c.length > 0) }
}

/** Multiset F1 (1 when both are empty). */
export const multisetF1 = (candidate: ReadonlyArray<string>, reference: ReadonlyArray<string>): number =>
  multisetScore(candidate, reference).f1

/** Heading texts (any level), normalised. */
export const headings = (markdown: string): Array<string> =>
  [...markdown.matchAll(/^#{1,6}\s+(.+)$/gm)].map((m) => plainText(m[1])).filter((h) => h.length > 0)
