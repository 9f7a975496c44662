/**
 * A page's markdown as plain sentences and terms, for the offline derived formats (summary,
 * answer, highlights). Markdown syntax is stripped (links keep their text, images and code
 * blocks go), so a sentence is text a reader sees on the page: highlights quote these verbatim.
 * Each sentence remembers its block and the heading above it, so passages can be built from
 * neighbours and a question can match a section's heading.
 */

export interface Sentence {
  /** Position in the page, 0-based. */
  readonly index: number
  /** The sentence as the page shows it (markdown syntax stripped, whitespace collapsed). */
  readonly text: string
  /** Its terms (lower-cased, stop words out, lightly stemmed). */
  readonly terms: ReadonlyArray<string>
  /** The block (paragraph, list item, table row, heading) it came from. */
  readonly block: number
  /** The nearest heading above, as terms. */
  readonly heading: ReadonlyArray<string>
  readonly isHeading: boolean
  readonly isTableRow: boolean
}

const STOP_WORDS = new Set(
  ("a about above after again against all am an and any are as at be because been before being below between both but by can " +
    "could did do does doing down during each few for from further had has have having he her here hers herself him himself his how " +
    "i if in into is it its itself just me more most my myself no nor not now of off on once only or other our ours ourselves out " +
    "over own same she should so some such than that the their theirs them themselves then there these they this those through to " +
    "too under until up very was we were what when where which while who whom why will with would you your yours yourself " +
    "yourselves also may might must shall s t don't doesn't isn't get got one per via").split(" ")
)

/** Light suffix stripping: enough to meet plurals and tenses, cheap enough for every word. */
export const stem = (word: string): string => {
  if (word.length <= 3 || /\d/.test(word)) return word
  if (word.endsWith("ies") && word.length > 4) return word.slice(0, -3) + "y"
  if (word.endsWith("sses")) return word.slice(0, -2)
  if (word.endsWith("ing") && word.length > 5) return word.slice(0, -3)
  if (word.endsWith("ed") && word.length > 4) return word.slice(0, -2)
  if (word.endsWith("es") && word.length > 4 && /(ch|sh|x|ss)es$/.test(word)) return word.slice(0, -2)
  if (word.endsWith("s") && !word.endsWith("ss") && !word.endsWith("us") && !word.endsWith("is")) return word.slice(0, -1)
  return word
}

const WORD = /[\p{L}\p{N}]+(?:['’.,][\p{L}\p{N}]+)*/gu

/** The words of a text, lower-cased, as they are (for exact-match metrics and spans). */
export const words = (text: string): Array<string> => (text.toLowerCase().match(WORD) ?? []).map((w) => w.replace(/’/g, "'"))

/** The content terms of a text: stop words out, stemmed, numbers kept without separators. */
export const terms = (text: string): Array<string> => {
  const out: Array<string> = []
  for (const word of words(text)) {
    if (STOP_WORDS.has(word)) continue
    const plain = /^\d[\d.,]*\d$/.test(word) ? word.replace(/,/g, "") : word.replace(/'s$/, "")
    out.push(stem(plain))
  }
  return out
}

/** Inline markdown to the text it shows. */
export const inlineText = (line: string): string =>
  line
    .replace(/!\[([^\]]*)\]\([^)]*\)/g, "")
    .replace(/\[([^\]]*)\]\((?:[^()]|\([^)]*\))*\)/g, "$1")
    .replace(/\[([^\]]*)\]\[[^\]]*\]/g, "$1")
    .replace(/<[^>]{1,200}>/g, " ")
    .replace(/`+([^`]*)`+/g, "$1")
    .replace(/(\*\*|__)(?=\S)(.+?)(?<=\S)\1/g, "$2")
    .replace(/(^|[\s(])[*_](?=\S)(.+?)(?<=\S)[*_](?=[\s).,;:!?]|$)/g, "$1$2")
    .replace(/~~(.+?)~~/g, "$1")
    .replace(/\\([\\`*_{}[\]()#+\-.!|<>~])/g, "$1")
    .replace(/\s+/g, " ")
    .trim()

/** Abbreviations after which a full stop does not end a sentence. */
const ABBREVIATIONS = /(?:\b(?:Mr|Mrs|Ms|Dr|Prof|Sr|Jr|St|Mt|Ft|vs|etc|e\.g|i\.e|No|Vol|Fig|Inc|Ltd|Co|Corp|Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec|approx|ca|cf|al)\.|\b[A-Z]\.)$/

/** Splits a block of text into sentences at `.`, `!` or `?` followed by a capital, digit or quote. */
export const splitSentences = (text: string): Array<string> => {
  const out: Array<string> = []
  const boundary = /[.!?]["'”’)\]]*\s+(?=["'“‘([]?[\p{Lu}\p{N}])/gu
  let start = 0
  for (const match of text.matchAll(boundary)) {
    if (match[0].startsWith(".") && ABBREVIATIONS.test(text.slice(start, match.index + 1))) continue
    const candidate = text.slice(start, match.index + match[0].trimEnd().length).trim()
    if (candidate !== "") out.push(candidate)
    start = match.index + match[0].length
  }
  const rest = text.slice(start).trim()
  if (rest !== "") out.push(rest)
  return out
}

const isTableSeparator = (line: string) => /^\|?\s*:?-{2,}:?\s*(\|\s*:?-{2,}:?\s*)*\|?$/.test(line)

/**
 * The page's sentences in reading order. Code blocks are left out (they are not prose); a table
 * row is one sentence with its cells joined by ` | `, under its header row's cells.
 */
export const pageSentences = (markdown: string): Array<Sentence> => {
  const out: Array<Sentence> = []
  let block = 0
  let heading: ReadonlyArray<string> = []
  let inFence = false
  let tableHeader: string | undefined
  let paragraph: Array<string> = []
  const push = (text: string, kind: { isHeading?: boolean; isTableRow?: boolean } = {}) => {
    for (const sentence of kind.isTableRow || kind.isHeading ? [text] : splitSentences(text)) {
      const sentenceTerms = terms(sentence)
      if (sentenceTerms.length === 0 && !/\d/.test(sentence)) continue
      out.push({
        index: out.length,
        text: sentence,
        terms: sentenceTerms,
        block,
        heading,
        isHeading: kind.isHeading === true,
        isTableRow: kind.isTableRow === true
      })
    }
  }
  const flush = () => {
    if (paragraph.length > 0) {
      push(inlineText(paragraph.join(" ")))
      block++
      paragraph = []
    }
  }
  for (const raw of markdown.split("\n")) {
    const line = raw.trim()
    if (/^(```|~~~)/.test(line)) {
      flush()
      inFence = !inFence
      continue
    }
    if (inFence) continue
    if (line === "" || /^(-{3,}|\*{3,}|_{3,})$/.test(line) || /^<!--.*-->$/.test(line)) {
      flush()
      tableHeader = undefined
      continue
    }
    const headingMatch = /^(#{1,6})\s+(.*?)\s*#*$/.exec(line)
    if (headingMatch !== null) {
      flush()
      const text = inlineText(headingMatch[2] ?? "")
      heading = terms(text)
      push(text, { isHeading: true })
      block++
      continue
    }
    if (line.startsWith("|")) {
      flush()
      if (isTableSeparator(line)) continue
      const cells = line.replace(/^\||\|$/g, "").split(/(?<!\\)\|/).map((cell) => inlineText(cell)).filter((cell) => cell !== "")
      if (cells.length === 0) continue
      const row = cells.join(" | ")
      if (tableHeader === undefined) {
        tableHeader = row
        push(row, { isTableRow: true })
      } else {
        // The header's terms count for the row (a question names the column), the text stays the row's.
        const index = out.length
        push(row, { isTableRow: true })
        if (out.length > index) {
          const last = out[out.length - 1]!
          out[out.length - 1] = { ...last, terms: [...last.terms, ...terms(tableHeader)] }
        }
      }
      block++
      continue
    }
    const listItem = /^(?:[-*+]|\d{1,3}[.)])\s+(.*)$/.exec(line)
    if (listItem !== null) {
      flush()
      paragraph = [listItem[1] ?? ""]
      flush()
      continue
    }
    paragraph.push(line.replace(/^>\s?/, ""))
  }
  flush()
  return out
}

/** Whitespace- and quote-insensitive form, to check that a quoted sentence occurs in the page. */
export const normalizeForMatch = (text: string): string =>
  text.toLowerCase().replace(/[“”]/g, "\"").replace(/[‘’]/g, "'").replace(/\s+/g, " ").trim()
