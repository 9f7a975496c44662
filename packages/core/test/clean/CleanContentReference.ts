/**
 * The offline onlyCleanContent pass as it was before its feature extraction was rewritten to scan
 * by char code (2026-11-29): the regular-expression version, kept as the executable statement of
 * what each feature is. CleanContentFeatures.test.ts holds the current code to it, and
 * bench/clean/speed.ts times the two side by side. Not used by the library.
 */
import { BOILERPLATE_MODEL } from "../../src/clean/BoilerplateModel.ts"
import type { TreeModel } from "../../src/clean/CleanContent.ts"

export interface MarkdownBlock {
  readonly text: string
  /** The block as a reader sees it: no link targets, markers or emphasis. */
  readonly plain: string
}

/** Splits markdown into blocks at blank lines; fenced code stays one block. */
export const markdownBlocks = (markdown: string): Array<MarkdownBlock> => {
  const blocks: Array<MarkdownBlock> = []
  let current: Array<string> = []
  let fenced = false
  const flush = () => {
    if (current.length === 0) return
    const text = current.join("\n")
    blocks.push({ text, plain: plainText(text) })
    current = []
  }
  for (const line of markdown.split("\n")) {
    if (/^\s*(```|~~~)/.test(line)) fenced = !fenced
    if (!fenced && line.trim() === "") {
      flush()
      continue
    }
    current.push(line)
  }
  flush()
  return blocks
}

const LINK = /!?\[([^\]]*)\]\((?:[^()]|\([^)]*\))*\)/g

const plainText = (markdown: string): string =>
  markdown
    .replace(/!\[([^\]]*)\]\((?:[^()]|\([^)]*\))*\)/g, " ")
    .replace(/\[([^\]]*)\]\((?:[^()]|\([^)]*\))*\)/g, "$1")
    .replace(/^\s{0,3}#{1,6}\s+/gm, "")
    .replace(/^\s*(?:[-*+]|\d+[.)])\s+/gm, "")
    .replace(/[*_`~|>]/g, " ")
    .replace(/\s+/g, " ")
    .trim()

/** Feature names, in the order `blockFeatures` gives them (the model's columns). */
export const FEATURES = [
  "logChars", "logWords", "linkDensity", "links", "heading", "headingLevel", "list", "table", "imageOnly", "code",
  "sentencePunct", "endsSentence", "capitalisedShare", "digitShare", "meanWordLength", "shortWordShare", "position",
  "fromEnd", "charShare", "duplicate", "prevLinkDensity", "nextLinkDensity", "prevLogChars", "nextLogChars", "docLogChars",
  "blocks", "listItems", "inlineMarkup", "beforeFirstProse", "afterLastProse", "proseDistance", "charsBefore"
] as const

interface Measured {
  readonly chars: number
  readonly linkDensity: number
}

const measure = (block: MarkdownBlock): Measured => {
  let linkChars = 0
  for (const m of block.text.matchAll(LINK)) if (!m[0].startsWith("!")) linkChars += m[1].length
  const chars = block.plain.length
  return { chars, linkDensity: chars === 0 ? (/\]\(/.test(block.text) ? 1 : 0) : Math.min(1, linkChars / chars) }
}

/** Pictures and nothing else (a linked picture counts): no text once they are taken out. */
const imageOnly = (text: string): boolean =>
  text.includes("![") && text.replace(/!\[[^\]]*\]\([^)]*\)/g, "").replace(/\[\s*\]\([^)]*\)/g, "").trim() === ""

/** The features of every block of a page, one row per block. */
export const blockFeatures = (blocks: ReadonlyArray<MarkdownBlock>): Array<Array<number>> => {
  const measured = blocks.map(measure)
  const docChars = measured.reduce((s, m) => s + m.chars, 0)
  const seen = new Map<string, number>()
  for (const b of blocks) seen.set(b.plain.toLowerCase(), (seen.get(b.plain.toLowerCase()) ?? 0) + 1)
  const n = blocks.length
  // Prose: a block of at least 150 characters that ends a sentence. Boilerplate gathers before
  // the first and after the last, and far from any.
  const prose = blocks.map((b, i) => measured[i].chars >= 150 && /[.!?。！？]["'”’)]?$/.test(b.plain) && measured[i].linkDensity < 0.5)
  const firstProse = prose.indexOf(true)
  const lastProse = prose.lastIndexOf(true)
  // Blocks to the nearest prose block, both ways in two passes.
  const distances = Array.from({ length: n }, () => n)
  for (let i = 0, last = -n; i < n; i++) {
    if (prose[i]) last = i
    distances[i] = Math.min(n, i - last)
  }
  for (let i = n - 1, next = 2 * n; i >= 0; i--) {
    if (prose[i]) next = i
    distances[i] = Math.min(distances[i], next - i)
  }
  let charsSoFar = 0
  return blocks.map((block, i) => {
    const before = charsSoFar
    charsSoFar += measured[i].chars
    const distance = distances[i]
    const m = measured[i]
    const words = block.plain.split(/\s+/).filter((w) => w.length > 0)
    const wordCount = words.length
    const letters = words.filter((w) => /^\p{L}/u.test(w))
    const capitalised = letters.filter((w) => /^\p{Lu}/u.test(w)).length
    const digits = (block.plain.match(/\p{N}/gu) ?? []).length
    const punct = (block.plain.match(/[.!?。！？]/g) ?? []).length
    const heading = /^\s{0,3}(#{1,6})\s/.exec(block.text)
    const lines = block.text.split("\n")
    const listItems = lines.filter((l) => /^\s*(?:[-*+]|\d+[.)])\s+/.test(l)).length
    const prev = i > 0 ? measured[i - 1] : undefined
    const next = i + 1 < n ? measured[i + 1] : undefined
    return [
      Math.log1p(m.chars),
      Math.log1p(wordCount),
      m.linkDensity,
      Math.min(50, (block.text.match(/\]\(/g) ?? []).length),
      heading === null ? 0 : 1,
      heading === null ? 0 : heading[1].length,
      listItems > 0 ? 1 : 0,
      /^\s*\|/.test(block.text) ? 1 : 0,
      imageOnly(block.text) ? 1 : 0,
      /^\s*(```|~~~)/.test(block.text) ? 1 : 0,
      wordCount === 0 ? 0 : punct / wordCount,
      /[.!?。！？:;]["'”’)]?$/.test(block.plain) ? 1 : 0,
      letters.length === 0 ? 0 : capitalised / letters.length,
      m.chars === 0 ? 0 : digits / m.chars,
      wordCount === 0 ? 0 : words.reduce((s, w) => s + w.length, 0) / wordCount,
      wordCount === 0 ? 0 : words.filter((w) => w.length <= 3).length / wordCount,
      n <= 1 ? 0 : i / (n - 1),
      n <= 1 ? 0 : (n - 1 - i) / (n - 1),
      docChars === 0 ? 0 : m.chars / docChars,
      (seen.get(block.plain.toLowerCase()) ?? 0) > 1 ? 1 : 0,
      prev?.linkDensity ?? -1,
      next?.linkDensity ?? -1,
      prev === undefined ? -1 : Math.log1p(prev.chars),
      next === undefined ? -1 : Math.log1p(next.chars),
      Math.log1p(docChars),
      Math.log1p(n),
      listItems,
      (block.text.match(/\*\*|__|`/g) ?? []).length,
      firstProse === -1 ? -1 : i < firstProse ? 1 : 0,
      lastProse === -1 ? -1 : i > lastProse ? 1 : 0,
      Math.log1p(distance),
      docChars === 0 ? 0 : before / docChars
    ]
  })
}

/** A model's trees packed into typed arrays, nodes of all trees in one run (built once per model). */
interface Packed {
  readonly roots: Int32Array
  readonly feature: Int32Array
  readonly split: Float64Array
  readonly left: Int32Array
  readonly right: Int32Array
  readonly value: Float64Array
}

const packedModels = new WeakMap<TreeModel, Packed>()

const pack = (model: TreeModel): Packed => {
  const cached = packedModels.get(model)
  if (cached !== undefined) return cached
  const total = model.trees.reduce((n, t) => n + t.feature.length, 0)
  const packed: Packed = {
    roots: new Int32Array(model.trees.length),
    feature: new Int32Array(total),
    split: new Float64Array(total),
    left: new Int32Array(total),
    right: new Int32Array(total),
    value: new Float64Array(total)
  }
  let at = 0
  model.trees.forEach((tree, t) => {
    packed.roots[t] = at
    for (let i = 0; i < tree.feature.length; i++) {
      packed.feature[at + i] = tree.feature[i]
      packed.split[at + i] = tree.split[i]
      packed.left[at + i] = tree.left[i] + at
      packed.right[at + i] = tree.right[i] + at
      packed.value[at + i] = tree.value[i]
    }
    at += tree.feature.length
  })
  packedModels.set(model, packed)
  return packed
}

/** The probability that a block is content. */
export const contentScore = (model: TreeModel, row: ReadonlyArray<number>): number => {
  const { roots, feature, split, left, right, value } = pack(model)
  let score = model.base
  for (let t = 0; t < roots.length; t++) {
    let node = roots[t]
    while (feature[node] >= 0) node = row[feature[node]] <= split[node] ? left[node] : right[node]
    score += value[node]
  }
  return 1 / (1 + Math.exp(-score))
}

export interface CleanResult {
  readonly markdown: string
  readonly kept: number
  readonly dropped: number
}

/** Drops the blocks the model scores as boilerplate; a page it would empty is left as it was. */
export const cleanMarkdown = (markdown: string, model: TreeModel = BOILERPLATE_MODEL): CleanResult => {
  const blocks = markdownBlocks(markdown)
  if (blocks.length === 0) return { markdown, kept: 0, dropped: 0 }
  const rows = blockFeatures(blocks)
  const keep = rows.map((row) => contentScore(model, row) >= model.threshold)
  const kept = blocks.filter((_, i) => keep[i])
  if (kept.length === 0) return { markdown, kept: blocks.length, dropped: 0 }
  return { markdown: kept.map((b) => b.text).join("\n\n"), kept: kept.length, dropped: blocks.length - kept.length }
}
