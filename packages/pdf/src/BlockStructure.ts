/**
 * What a layout block says, for core's block writer: lines joined into whole paragraphs
 * (end-of-line hyphens repaired, ligatures expanded), a heading's level, a list item's depth and
 * number, a monospace block's lines with their indentation kept, a table's grid. Core writes the
 * markdown (`structuredBlock`); this module writes none, beyond escaping a paragraph's start.
 */
import type { BlockStructure } from "@strata/core"
import type { LayoutBlock } from "./LayoutBlock.ts"
import { isTocEntry, LIST_MARKER, TOC_LEADER } from "./Paragraphs.ts"
import { headerRowsOf } from "./HeaderLevels.ts"
import { escapeAroundMath, INLINE_OPEN } from "./MathInline.ts"

const LIGATURES = /[\ufb00-\ufb06]/g

/** NFKC for the ligature code points only: the rest of the text keeps its exact characters. */
export const expandLigatures = (text: string) => text.replace(LIGATURES, (ch) => ch.normalize("NFKC"))

/** First words that form hyphenated compounds ("well-known", "self-evident"): their line-end hyphen stays. */
const COMPOUND_HEADS = new Set([
  "well", "self", "ill", "ex", "non", "all", "half", "cross", "long", "short", "high", "low", "full", "so", "far",
  "world", "state", "co", "anti", "semi", "multi", "cross", "open", "real", "end", "user", "time", "data", "case"
])

/** Joins the lines of a paragraph; a line-end hyphen before a lowercase letter is a broken word. */
export const joinLines = (texts: ReadonlyArray<string>, vocabulary?: ReadonlySet<string>): string => {
  let out = ""
  for (const raw of texts) {
    const text = raw.trim()
    if (text.length === 0) continue
    if (out.length === 0) {
      out = text
      continue
    }
    if (out.endsWith("\u00ad")) {
      out = out.slice(0, -1) + text
    } else if (/\p{L}[-\u2010]$/u.test(out) && /^\p{L}/u.test(text)) {
      // A broken word loses its hyphen; a compound broken at its own hyphen keeps it.
      const word = /[\p{L}\p{N}-]*$/u.exec(out.slice(0, -1))?.[0] ?? ""
      const rest = /^[\p{L}\p{N}]*/u.exec(text)?.[0] ?? ""
      const joined = (word + rest).toLowerCase()
      const hyphenated = `${word}-${rest}`.toLowerCase()
      // The page's own words decide first: a form seen elsewhere on the page wins.
      const seenJoined = vocabulary?.has(joined) === true
      const seenHyphenated = vocabulary?.has(hyphenated) === true
      const compound = seenHyphenated && !seenJoined
        ? true
        : seenJoined && !seenHyphenated
        ? false
        : /^\p{Lu}/u.test(text) || word.includes("-") || COMPOUND_HEADS.has(word.toLowerCase())
      out = compound ? out + text : out.slice(0, -1) + text
    } else {
      out += " " + text
    }
  }
  return out
}

/** Escapes what would turn a paragraph into other markdown at its start. */
const escapeStart = (text: string) =>
  text
    .replace(/^(\d{1,9})([.)])(\s)/, "$1\\$2$3")
    .replace(/^(#{1,6}\s|[-+*]\s|>|={3,}|-{3,}|`{3,}|~{3,})/, "\\$1")

// Text is kept as the PDF has it (no HTML escaping): markdown consumers read it as prose.
const escapeInline = (text: string) => text

const plain = (block: LayoutBlock, vocabulary?: ReadonlySet<string>) => expandLigatures(joinLines(block.lines.map((l) => l.text), vocabulary))

/** The words of a page (lower case, hyphenated compounds kept whole), for hyphen repair. */
export const pageVocabulary = (blocks: ReadonlyArray<LayoutBlock>): Set<string> => {
  const words = new Set<string>()
  for (const block of blocks) {
    for (const line of block.lines) {
      // A word broken at the end of its line is not evidence: only words inside lines count.
      const inner = line.text.replace(/[\p{L}\p{N}]+-$/u, "")
      for (const m of inner.matchAll(/[\p{L}\p{N}]+(?:-[\p{L}\p{N}]+)*/gu)) words.add(m[0].toLowerCase())
    }
  }
  return words
}

/** Code keeps its lines and their indentation (x offsets to spaces at the monospace advance). */
const code = (block: LayoutBlock): BlockStructure => {
  const left = block.x0
  const lines = [...block.lines].sort((a, b) => a.top - b.top || a.x0 - b.x0)
  const body: Array<string> = []
  let lastRow = -1
  for (const line of lines) {
    const advance = line.size * 0.6
    const indent = " ".repeat(Math.max(0, Math.min(40, Math.round((line.x0 - left) / advance))))
    if (line.row === lastRow && body.length > 0) body[body.length - 1] += " " + line.text
    else body.push(indent + line.text)
    lastRow = line.row
  }
  const text = body.join("\n").replace(/\s+$/, "")
  // One short monospace line (an address, a file name) reads better as inline code than as a fence.
  const inline = body.length === 1 && text.length <= 80 && !text.includes("`")
  return { text, code: inline ? { language: null, inline: true } : { language: null } }
}

/** A list marker written as a bullet of its own: symbols, dashes, private-use glyphs, or none. */
const BULLET = /^[•●○◦▪▫■□‣⁃∙·◆◇►▸➢✓✔☐☑☒✗✘❑❒◻◼∗⋆★☆✦❖⁎\ue000-\uf8ff\u0080-\u009f\-–—*+]$/

/**
 * Plain cell text, unless a cell holds inline math (numbers with powers of ten, symbols): then
 * every cell is markdown, its prose escaped as plain text would be and its math written `$...$`.
 */
const mathCells = (table: NonNullable<LayoutBlock["table"]>) => {
  if (!table.cells.some((c) => c.text.includes(INLINE_OPEN))) return { ...table, cellText: "plain" as const }
  const prose = (s: string) => s.replace(/\\/g, "\\\\").replace(/\s+/g, " ")
  return { ...table, cells: table.cells.map((c) => ({ ...c, text: escapeAroundMath(c.text, prose) })), cellText: "markdown" as const }
}

export const blockStructure = (block: LayoutBlock, vocabulary?: ReadonlySet<string>): BlockStructure => {
  switch (block.kind) {
    case "table":
      return block.table !== undefined
        ? { table: { ...mathCells(block.table), headerRows: headerRowsOf(block.table) } }
        : { text: plain(block, vocabulary) }
    case "code":
      return code(block)
    case "figure":
      // No pixels are decoded: the marker says where the picture stands (Docling writes the same).
      return { image: { src: "", alt: "" } }
    case "title":
    case "section_header":
      return { heading: { level: block.level ?? 2 }, text: escapeAroundMath(plain(block, vocabulary).replace(/\s*#+\s*$/, ""), escapeInline) }
    case "list_item": {
      // A table-of-contents entry keeps its page number; its leader dots become one ellipsis.
      const joined = plain(block, vocabulary)
      const text = isTocEntry(block) ? joined.replace(TOC_LEADER, " … ") : joined
      const match = LIST_MARKER.exec(text)
      const marker = match?.[0].trim() ?? ""
      const rest = escapeAroundMath(text.slice(match?.[0].length ?? 0), escapeInline)
      const ordered = /^\d{1,3}\.$/.test(marker)
      const list = { depth: block.depth ?? 0, ordinal: ordered ? Number(marker.slice(0, -1)) : null, indent: block.indent ?? 0 }
      // Any other marker ("a)", "(iv)") is kept as the start of a bulleted item's text.
      return { list, text: ordered || BULLET.test(marker) || marker === "" ? rest : `${marker} ${rest}` }
    }
    case "formula":
      if (block.latex !== undefined) return { formula: { source: block.latex, notation: "latex", display: true } }
      return { formula: { source: escapeInline(plain(block, vocabulary)), notation: "text", display: true } }
    case "footnote":
      return { text: escapeStart(plain(block, vocabulary)) }
    default:
      return { text: escapeStart(escapeAroundMath(plain(block, vocabulary), escapeInline)) }
  }
}
