/**
 * Splits a markdown document (from the HTML stages) into typed blocks at blank lines, keeping
 * fenced code and HTML tables whole, so that converted chapters carry blocks like every other
 * reader's. Joining the blocks with blank lines gives the markdown back.
 */
import { makeBlock, type Block, type BlockKind } from "@strata/core"

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
