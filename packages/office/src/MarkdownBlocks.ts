/**
 * Typed blocks from what the HTML stages write for a converted chapter (`htmlToBlocks`), so that
 * chapters carry blocks like every other reader's. A block whose structure the HTML writer knows
 * (a paragraph, a heading, code, a table) keeps it, and core's block writer writes it; the rest
 * (lists, quotes) is markdown, split at blank lines, keeping fenced code and HTML tables whole.
 * Joining the blocks with blank lines gives the chapter's markdown (`htmlToMarkdown`) back.
 */
import { blockMarkdown, makeBlock, structuredBlock, type Block, type BlockKind, type WrittenBlock } from "@strata/core"

const kindOf = (chunk: string): BlockKind => {
  if (/^#\s/.test(chunk)) return "section_header"
  if (/^#{2,6}\s/.test(chunk)) return "section_header"
  if (/^(`{3,}|~{3,})/.test(chunk)) return "code"
  if (/^\|.*\|\s*\n\|[\s:|-]+\|/.test(chunk) || /^<table[\s>]/i.test(chunk)) return "table"
  if (/^\s*(?:[-*+]|\d+[.)])\s/.test(chunk)) return "list_item"
  if (/^!\[[^\]]*\]\([^)]*\)$/.test(chunk)) return "figure"
  if (/^\[\^[^\]]+\]:/.test(chunk)) return "footnote"
  return "text"
}

export const markdownToBlocks = (markdown: string, source: string): Array<Block> => {
  const lines = markdown.replace(/\r\n?/g, "\n").split("\n")
  const blocks: Array<Block> = []
  let current: Array<string> = []
  let fence: string | undefined
  let inTable = false
  const flush = () => {
    const chunk = current.join("\n").replace(/^\n+|\s+$/g, "")
    if (chunk.length > 0) blocks.push(makeBlock(kindOf(chunk), chunk, { source }))
    current = []
  }
  for (const line of lines) {
    if (fence !== undefined) {
      current.push(line)
      if (line.trim().startsWith(fence)) fence = undefined
      continue
    }
    const open = /^\s{0,3}(`{3,}|~{3,})/.exec(line)
    if (open !== null) {
      fence = open[1]
      current.push(line)
      continue
    }
    if (/^<table[\s>]/i.test(line.trim())) inTable = true
    if (inTable) {
      current.push(line)
      if (/<\/table>\s*$/i.test(line)) inTable = false
      continue
    }
    if (line.trim().length === 0) flush()
    else current.push(line)
  }
  flush()
  return blocks
}

/**
 * A chapter's blocks. Each written block is split as its joined markdown would be; one that stays
 * a single block, and whose structure writes exactly that block, is kept with its structure.
 */
export const writtenToBlocks = (written: ReadonlyArray<WrittenBlock>, source: string): Array<Block> => {
  const blocks: Array<Block> = []
  written.forEach((block, index) => {
    // As the joined markdown is cleaned: runs of blank lines collapsed, the chapter trimmed.
    let text = block.text.replace(/\n{3,}/g, "\n\n")
    if (index === 0) text = text.trimStart()
    if (index === written.length - 1) text = text.trimEnd()
    const split = markdownToBlocks(text, source)
    const only = split.length === 1 ? split[0] : undefined
    if (only !== undefined && block.structure !== undefined && blockMarkdown(block.structure) === only.content) {
      blocks.push(structuredBlock(only.kind, block.structure, { source }))
    } else blocks.push(...split)
  })
  return blocks
}
