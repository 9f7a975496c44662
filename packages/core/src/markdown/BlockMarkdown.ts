/**
 * The one block writer: a block's markdown fragment from its structure (heading level, list
 * depth and ordinal, table grid, image, code language, formula source, note label, quote) and its inline
 * text, which is inline markdown (emphasis, links, hard breaks) written as it is.
 * Readers say what a block is; this module alone decides how it is written, so that every
 * format's headings, lists, tables and fences read the same.
 *
 * `structuredBlock` is how a reader makes a block with structure: it writes `content` here, so
 * the block's span in the document (`MarkdownWriter`) is exactly this fragment.
 */
import type { Block, BlockKind, CodeInfo, FormulaInfo, HeadingInfo, ImageInfo, ListInfo, TableInfo } from "../Document.ts"
import { writeTable } from "./TableWriter.ts"

/** What a block says about itself, without its written fragment. */
export interface BlockStructure {
  readonly text?: string | undefined
  readonly heading?: HeadingInfo | undefined
  readonly list?: ListInfo | undefined
  readonly table?: TableInfo | undefined
  readonly image?: ImageInfo | undefined
  readonly code?: CodeInfo | undefined
  readonly formula?: FormulaInfo | undefined
  readonly note?: { readonly label: string } | undefined
  readonly quote?: boolean | undefined
}

const heading = (info: HeadingInfo, text: string): string =>
  `${"#".repeat(Math.max(1, Math.min(6, Math.floor(info.level))))} ${text.replace(/\n/g, " ")}`

/**
 * A list item: its marker after `indent` columns; the body's further lines are indented under the
 * marker's text, as is the whole of a further paragraph of the item (`continues`).
 */
const listItem = (info: ListInfo, text: string): string => {
  const indent = " ".repeat(Math.max(0, Math.floor(info.indent)))
  const marker = info.ordinal === null ? "-" : `${info.ordinal}.`
  if (info.continues === true) {
    const under = `${indent}${" ".repeat(marker.length + 1)}`
    return `${under}${text.replace(/\n/g, `\n${under}`)}`
  }
  if (info.checked !== undefined) return `${indent}${marker} [${info.checked ? "x" : " "}] ${text}`
  return `${indent}${marker} ${text.replace(/\n/g, `\n${indent}${" ".repeat(marker.length + 1)}`)}`
}

const longestBacktickRun = (text: string): number => {
  let longest = 0
  for (const run of text.match(/`+/g) ?? []) longest = Math.max(longest, run.length)
  return longest
}

/** A fence one backtick longer than any run of backticks in the code, so the code cannot close it. */
const code = (info: CodeInfo, text: string): string => {
  if (info.inline === true) return `\`${text.trim()}\``
  const fence = "`".repeat(Math.max(3, longestBacktickRun(text) + 1))
  return `${fence}${info.language ?? ""}\n${text}\n${fence}`
}

const formula = (info: FormulaInfo): string => {
  if (info.notation === "text") return info.source
  return info.display ? `$$${info.source}$$` : `$${info.source}$`
}

/** An image with neither address nor alt text is only a marker of where a picture stands. */
const image = (info: ImageInfo): string =>
  info.src.length === 0 && info.alt.length === 0 ? "<!-- image -->" : `![${info.alt}](${info.src})`

/** The markdown fragment of a block, from its structure; `""` for a block with none. */
export const blockMarkdown = (block: BlockStructure): string => {
  const text = block.text ?? ""
  if (block.table !== undefined) return writeTable(block.table, { text: block.table.cellText ?? "markdown", headerRows: block.table.headerRows })
  if (block.image !== undefined) return image(block.image)
  if (block.code !== undefined) return code(block.code, text)
  if (block.formula !== undefined) return formula(block.formula)
  if (block.note !== undefined) return `[^${block.note.label}]: ${text}`
  if (block.heading !== undefined) return heading(block.heading, text)
  if (block.list !== undefined) return listItem(block.list, text)
  if (block.quote === true) return text.split("\n").map((line) => `> ${line}`).join("\n")
  return text
}

/** A block made from its structure: `content` is written here, never by the reader. */
export const structuredBlock = (
  kind: BlockKind,
  structure: BlockStructure,
  options: Partial<Pick<Block, "bbox" | "label" | "source" | "confidence">> = {}
): Block => {
  const defined = Object.fromEntries(Object.entries(structure).filter(([, v]) => v !== undefined)) as BlockStructure
  return {
    kind,
    content: blockMarkdown(defined),
    bbox: options.bbox ?? null,
    source: options.source ?? null,
    confidence: options.confidence ?? { layout: null, ocr: null },
    ...(options.label !== undefined ? { label: options.label } : {}),
    ...(defined.list !== undefined ? { depth: defined.list.depth } : {}),
    ...defined
  }
}
