/**
 * WCXB scoring, re-implemented from the benchmark's description: bag-of-words precision,
 * recall and F1 over lower-cased word tokens (Python's `\w+`), and the share of `with` /
 * `without` snippets found as case-insensitive substrings. Markdown is flattened to plain
 * text first so that link URLs and emphasis markers neither add tokens nor break snippets.
 */

import { multisetScore, type MultisetScore } from "../lib/MultisetF1.ts"

const WORD = /[\p{L}\p{N}_]+/gu

export const tokenize = (text: string): Array<string> => text.toLowerCase().match(WORD) ?? []

export type WordScore = MultisetScore

export const wordF1 = (predicted: string, reference: string): WordScore => multisetScore(tokenize(predicted), tokenize(reference))

/** Share of snippets found (1 when there are none, as upstream). */
export const snippetRate = (text: string, snippets: ReadonlyArray<string>): number => {
  if (snippets.length === 0) return 1
  const lower = text.toLowerCase()
  let found = 0
  for (const s of snippets) if (lower.includes(s.toLowerCase())) found++
  return found / snippets.length
}

/** Markdown to the plain text a reader sees: no link targets, emphasis, fences or table pipes. */
export const markdownToPlain = (markdown: string): string => {
  const lines: Array<string> = []
  for (let line of markdown.split("\n")) {
    if (/^\s*(```|~~~)/.test(line)) continue
    if (/^\s*\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?\s*$/.test(line)) continue
    line = line
      .replace(/!\[([^\]]*)\]\([^)]*\)/g, " ")
      .replace(/\[([^\]]*)\]\((?:[^()]|\([^)]*\))*\)/g, "$1")
      .replace(/<[^>]+>/g, " ")
      .replace(/^\s{0,3}#{1,6}\s+/, "")
      .replace(/^\s*>\s?/, "")
      // bullets go; an ordered list's numbers stay, as a browser shows them (and references keep them)
      .replace(/^\s*[-*+]\s+/, "")
      .replace(/(\*\*|__|\*|~~|`)/g, "")
      .replace(/(^|\W)_(\S)/g, "$1$2")
      .replace(/(\S)_(\W|$)/g, "$1$2")
      .replace(/\\([\\`*_{}[\]()#+\-.!|>~])/g, "$1")
      .replace(/\s*\|\s*/g, " ")
      .replace(/[ \t]+/g, " ")
      .trim()
    lines.push(line)
  }
  return lines.join("\n").replace(/\n{3,}/g, "\n\n").trim()
}
