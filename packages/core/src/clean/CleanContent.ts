/**
 * `onlyCleanContent` without a language model: a classifier of our own decides, block by block,
 * whether the markdown of a page's main content still holds boilerplate (share bars, related
 * links, sign-up prompts, cookie text, bylines of other stories, footers) and drops those blocks.
 *
 * A block is a run of markdown between blank lines (a fenced code block is one block). Each block
 * is described by measured features only: its size, link density, sentence punctuation, casing,
 * digits, kind (heading, list, table, image, code), position, and its neighbours' size and link
 * density. No word lists: the features carry across languages. The model is gradient-boosted
 * trees trained on the human-checked WCXB dev labels (models/boilerplate: odd file ids for
 * training, even ones for the figures in its card); `BoilerplateModel.ts` holds its trees.
 */
import { BOILERPLATE_MODEL } from "./BoilerplateModel.ts"

export interface MarkdownBlock {
  readonly text: string
  /** The block as a reader sees it: no link targets, markers or emphasis. */
  readonly plain: string
}

/**
 * JavaScript's `\s` (and what `trim` strips). The features below are read by scanning char codes
 * where they were regular expressions that built arrays of words and matches per block; with the
 * complete trees below, the pass went from p50 0.95 to 0.60 ms a page, p95 3.9 to 2.2 ms, on
 * WCXB dev (bench/clean/speed.ts). Each scan matches the pattern it replaced exactly:
 * CleanContentFeatures.test.ts holds every feature to the regular-expression version.
 */
const isSpace = (c: number): boolean =>
  c === 32 || (c >= 9 && c <= 13) || c === 0xa0 || c === 0x1680 || (c >= 0x2000 && c <= 0x200a) ||
  c === 0x2028 || c === 0x2029 || c === 0x202f || c === 0x205f || c === 0x3000 || c === 0xfeff

const BACKTICK = 96
const TILDE = 126

/** `^\s*(```|~~~)` on the line `text.slice(from, to)`; -1 for a blank line, 1 for a fence, 0 otherwise. */
const lineKind = (text: string, from: number, to: number): number => {
  let i = from
  while (i < to && isSpace(text.charCodeAt(i))) i++
  if (i === to) return -1
  const c = text.charCodeAt(i)
  return (c === BACKTICK || c === TILDE) && i + 2 < to && text.charCodeAt(i + 1) === c && text.charCodeAt(i + 2) === c ? 1 : 0
}

/** Splits markdown into blocks at blank lines; fenced code stays one block. */
export const markdownBlocks = (markdown: string): Array<MarkdownBlock> => {
  const blocks: Array<MarkdownBlock> = []
  // A block is a run of consecutive lines, so its text is one slice of the markdown.
  let blockStart = -1
  let blockEnd = -1
  let fenced = false
  const flush = () => {
    if (blockStart === -1) return
    const text = markdown.slice(blockStart, blockEnd)
    blocks.push({ text, plain: plainText(text) })
    blockStart = -1
  }
  for (let lineStart = 0; lineStart <= markdown.length;) {
    let lineEnd = markdown.indexOf("\n", lineStart)
    if (lineEnd === -1) lineEnd = markdown.length
    const kind = lineKind(markdown, lineStart, lineEnd)
    if (kind === 1) fenced = !fenced
    if (!fenced && kind === -1) flush()
    else {
      if (blockStart === -1) blockStart = lineStart
      blockEnd = lineEnd
    }
    lineStart = lineEnd + 1
  }
  flush()
  return blocks
}

const LINK = /!?\[([^\]]*)\]\((?:[^()]|\([^)]*\))*\)/g
const IMAGE = /!\[([^\]]*)\]\((?:[^()]|\([^)]*\))*\)/g
const LINK_TEXT = /\[([^\]]*)\]\((?:[^()]|\([^)]*\))*\)/g
const HEADING_MARK = /^\s{0,3}#{1,6}\s+/gm
const LIST_MARK = /^\s*(?:[-*+]|\d+[.)])\s+/gm

/** `*`, `_`, `` ` ``, `~`, `|`, `>`: read as spaces. */
const isMarker = (c: number): boolean => c === 42 || c === 95 || c === BACKTICK || c === TILDE || c === 124 || c === 62

const plainText = (markdown: string): string => {
  let text = markdown
  // Each pattern needs its first character; without it the pass is skipped.
  if (text.includes("[")) text = text.replace(IMAGE, " ").replace(LINK_TEXT, "$1")
  if (text.includes("#")) text = text.replace(HEADING_MARK, "")
  text = text.replace(LIST_MARK, "")
  // Markers to spaces, runs of white space to one, trimmed: in one pass over word slices.
  let out = ""
  let start = -1
  for (let i = 0; i <= text.length; i++) {
    const c = i === text.length ? 32 : text.charCodeAt(i)
    if (isSpace(c) || isMarker(c)) {
      if (start !== -1) {
        out = out === "" ? text.slice(start, i) : `${out} ${text.slice(start, i)}`
        start = -1
      }
    } else if (start === -1) start = i
  }
  return out
}

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
  const hasLink = block.text.includes("](")
  if (hasLink) for (const m of block.text.matchAll(LINK)) if (!m[0].startsWith("!")) linkChars += m[1].length
  const chars = block.plain.length
  return { chars, linkDensity: chars === 0 ? (hasLink ? 1 : 0) : Math.min(1, linkChars / chars) }
}

/** Pictures and nothing else (a linked picture counts): no text once they are taken out. */
const imageOnly = (text: string): boolean =>
  text.includes("![") && text.replace(/!\[[^\]]*\]\([^)]*\)/g, "").replace(/\[\s*\]\([^)]*\)/g, "").trim() === ""

/** `.`, `!`, `?` and their full-width forms: a sentence's end. */
const isStop = (c: number): boolean => c === 46 || c === 33 || c === 63 || c === 0x3002 || c === 0xff01 || c === 0xff1f
/** `"`, `'`, `”`, `’`, `)`: what may close a sentence after its stop. */
const isCloser = (c: number): boolean => c === 34 || c === 39 || c === 0x201d || c === 0x2019 || c === 41

/** `[stops]["'”’)]?$`, with `:` and `;` counted as stops when `colons`. */
const endsWith = (plain: string, colons: boolean): boolean => {
  const stop = (c: number) => isStop(c) || (colons && (c === 58 || c === 59))
  const n = plain.length
  if (n === 0) return false
  const last = plain.charCodeAt(n - 1)
  return stop(last) || (isCloser(last) && n >= 2 && stop(plain.charCodeAt(n - 2)))
}

/** List items: lines matching `^\s*(?:[-*+]|\d+[.)])\s+`. */
const countListItems = (text: string): number => {
  let items = 0
  for (let lineStart = 0; lineStart <= text.length;) {
    let lineEnd = text.indexOf("\n", lineStart)
    if (lineEnd === -1) lineEnd = text.length
    let i = lineStart
    while (i < lineEnd && isSpace(text.charCodeAt(i))) i++
    const c = i < lineEnd ? text.charCodeAt(i) : -1
    if (c === 45 || c === 42 || c === 43) i++
    else if (c >= 48 && c <= 57) {
      while (i < lineEnd && text.charCodeAt(i) >= 48 && text.charCodeAt(i) <= 57) i++
      const after = i < lineEnd ? text.charCodeAt(i) : -1
      i = after === 46 || after === 41 ? i + 1 : lineEnd
    } else i = lineEnd
    if (i < lineEnd && isSpace(text.charCodeAt(i))) items++
    lineStart = lineEnd + 1
  }
  return items
}

/** Non-overlapping matches of `**`, `__` and a backtick, left to right (as `/\*\*|__|`/g` counts them). */
const countInlineMarkup = (text: string): number => {
  let count = 0
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (c === BACKTICK) count++
    else if ((c === 42 || c === 95) && text.charCodeAt(i + 1) === c) {
      count++
      i++
    }
  }
  return count
}

/** Occurrences of `](`: the links and pictures a block holds. */
const countLinks = (text: string): number => {
  let count = 0
  for (let at = text.indexOf("]("); at !== -1; at = text.indexOf("](", at + 2)) count++
  return count
}

const DIGIT = /\p{N}/gu

/**
 * The word measures of a block's plain text, whose only white space is single spaces between
 * words (plainText): words, those starting with a letter (`^\p{L}`) and with a capital
 * (`^\p{Lu}`), words of at most 3 UTF-16 units, digits (`\p{N}`) and sentence stops.
 */
const wordMeasures = (plain: string, letterAt: RegExp, capitalAt: RegExp) => {
  let words = 0
  let letters = 0
  let capitalised = 0
  let short = 0
  let asciiDigits = 0
  let stops = 0
  let ascii = true
  let wordStart = 0
  const n = plain.length
  for (let i = 0; i <= n; i++) {
    const c = i === n ? 32 : plain.charCodeAt(i)
    if (c === 32) {
      const length = i - wordStart
      if (length > 0) {
        words++
        if (length <= 3) short++
        const first = plain.charCodeAt(wordStart)
        if (first < 128) {
          if ((first >= 65 && first <= 90) || (first >= 97 && first <= 122)) {
            letters++
            if (first <= 90) capitalised++
          }
        } else {
          letterAt.lastIndex = wordStart
          if (letterAt.test(plain)) {
            letters++
            capitalAt.lastIndex = wordStart
            if (capitalAt.test(plain)) capitalised++
          }
        }
      }
      wordStart = i + 1
      continue
    }
    if (c >= 48 && c <= 57) asciiDigits++
    else if (c >= 128) {
      ascii = false
      if (isStop(c)) stops++
    } else if (c === 46 || c === 33 || c === 63) stops++
  }
  // Digits beyond ASCII (other scripts' digits, superscripts, fractions): counted as the pattern counts them.
  const digits = ascii ? asciiDigits : (plain.match(DIGIT) ?? []).length
  return { words, letters, capitalised, short, digits, stops }
}

const NON_ASCII = /[\u0080-\uffff]/

/**
 * Whether each block's text, lower-cased, is another block's too. Lower-casing every block was an
 * eighth of the pass, so only blocks whose lower-cased length another block shares are compared:
 * ASCII text keeps its length, other text is lower-cased to learn it ("K", the Kelvin sign, is "k").
 */
const duplicates = (blocks: ReadonlyArray<MarkdownBlock>): Array<boolean> => {
  const lower: Array<string | undefined> = blocks.map((b) => (NON_ASCII.test(b.plain) ? b.plain.toLowerCase() : undefined))
  const lengths = blocks.map((b, i) => lower[i]?.length ?? b.plain.length)
  const perLength = new Map<number, number>()
  for (const length of lengths) perLength.set(length, (perLength.get(length) ?? 0) + 1)
  const seen = new Map<string, number>()
  const key = (i: number) => (lower[i] ??= blocks[i].plain.toLowerCase())
  for (let i = 0; i < blocks.length; i++) if (perLength.get(lengths[i])! > 1) seen.set(key(i), (seen.get(key(i)) ?? 0) + 1)
  return blocks.map((_, i) => perLength.get(lengths[i])! > 1 && seen.get(key(i))! > 1)
}

/** The features of every block of a page, one row per block. */
export const blockFeatures = (blocks: ReadonlyArray<MarkdownBlock>): Array<Array<number>> => {
  const measured = blocks.map(measure)
  const docChars = measured.reduce((s, m) => s + m.chars, 0)
  const duplicate = duplicates(blocks)
  const n = blocks.length
  // Prose: a block of at least 150 characters that ends a sentence. Boilerplate gathers before
  // the first and after the last, and far from any.
  const prose = blocks.map((b, i) => measured[i].chars >= 150 && endsWith(b.plain, false) && measured[i].linkDensity < 0.5)
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
  // Sticky: tested at a word's start, on the block's text, without slicing the word out.
  const letterAt = /\p{L}/uy
  const capitalAt = /\p{Lu}/uy
  let charsSoFar = 0
  return blocks.map((block, i) => {
    const before = charsSoFar
    charsSoFar += measured[i].chars
    const distance = distances[i]
    const m = measured[i]
    const { words: wordCount, letters, capitalised, short, digits, stops: punct } = wordMeasures(block.plain, letterAt, capitalAt)
    // Words are separated by single spaces, so their lengths add up to the rest.
    const wordChars = wordCount === 0 ? 0 : block.plain.length - (wordCount - 1)
    const heading = /^\s{0,3}(#{1,6})\s/.exec(block.text)
    const listItems = countListItems(block.text)
    const prev = i > 0 ? measured[i - 1] : undefined
    const next = i + 1 < n ? measured[i + 1] : undefined
    return [
      Math.log1p(m.chars),
      Math.log1p(wordCount),
      m.linkDensity,
      Math.min(50, countLinks(block.text)),
      heading === null ? 0 : 1,
      heading === null ? 0 : heading[1].length,
      listItems > 0 ? 1 : 0,
      /^\s*\|/.test(block.text) ? 1 : 0,
      imageOnly(block.text) ? 1 : 0,
      /^\s*(```|~~~)/.test(block.text) ? 1 : 0,
      wordCount === 0 ? 0 : punct / wordCount,
      endsWith(block.plain, true) ? 1 : 0,
      letters === 0 ? 0 : capitalised / letters,
      m.chars === 0 ? 0 : digits / m.chars,
      wordCount === 0 ? 0 : wordChars / wordCount,
      wordCount === 0 ? 0 : short / wordCount,
      n <= 1 ? 0 : i / (n - 1),
      n <= 1 ? 0 : (n - 1 - i) / (n - 1),
      docChars === 0 ? 0 : m.chars / docChars,
      duplicate[i] ? 1 : 0,
      prev?.linkDensity ?? -1,
      next?.linkDensity ?? -1,
      prev === undefined ? -1 : Math.log1p(prev.chars),
      next === undefined ? -1 : Math.log1p(next.chars),
      Math.log1p(docChars),
      Math.log1p(n),
      listItems,
      countInlineMarkup(block.text),
      firstProse === -1 ? -1 : i < firstProse ? 1 : 0,
      lastProse === -1 ? -1 : i > lastProse ? 1 : 0,
      Math.log1p(distance),
      docChars === 0 ? 0 : before / docChars
    ]
  })
}

/** A gradient-boosted tree ensemble: each tree is flat arrays; a leaf has feature -1. */
export interface TreeModel {
  readonly features: ReadonlyArray<string>
  readonly base: number
  readonly threshold: number
  readonly trees: ReadonlyArray<{
    readonly feature: ReadonlyArray<number>
    readonly split: ReadonlyArray<number>
    readonly left: ReadonlyArray<number>
    readonly right: ReadonlyArray<number>
    readonly value: ReadonlyArray<number>
  }>
}

/**
 * A model's trees packed as complete binary trees of the model's depth (a leaf above the bottom
 * repeated under a split that sends every row to a copy of it), so that scoring a row is the same
 * few steps for every tree with no test for leaves: measured 2x faster than walking the trees
 * node by node. Each tree still ends on the leaf it ended on before, and the leaves are summed in
 * the same order, so scores are bit for bit the same.
 */
interface Packed {
  readonly trees: number
  readonly depth: number
  /** Per tree, its 2^depth - 1 splits in level order. */
  readonly feature: Int32Array
  readonly split: Float64Array
  /** Per tree, its 2^depth leaves. */
  readonly leaf: Float64Array
}

const packedModels = new WeakMap<TreeModel, Packed>()

const treeDepth = (tree: TreeModel["trees"][number], node = 0): number =>
  tree.feature[node] < 0 ? 0 : 1 + Math.max(treeDepth(tree, tree.left[node]), treeDepth(tree, tree.right[node]))

const pack = (model: TreeModel): Packed => {
  const cached = packedModels.get(model)
  if (cached !== undefined) return cached
  const depth = model.trees.reduce((d, t) => Math.max(d, treeDepth(t)), 0)
  const inner = (1 << depth) - 1
  const packed: Packed = {
    trees: model.trees.length,
    depth,
    feature: new Int32Array(model.trees.length * inner),
    split: new Float64Array(model.trees.length * inner),
    leaf: new Float64Array(model.trees.length * (inner + 1))
  }
  model.trees.forEach((tree, t) => {
    const fill = (node: number, at: number, level: number) => {
      if (level === depth) {
        packed.leaf[t * (inner + 1) + at - inner] = tree.value[node]
        return
      }
      const isLeaf = tree.feature[node] < 0
      // A leaf above the bottom: a split no row fails (+Infinity; NaN goes right) over two copies of it.
      packed.feature[t * inner + at] = isLeaf ? 0 : tree.feature[node]
      packed.split[t * inner + at] = isLeaf ? Number.POSITIVE_INFINITY : tree.split[node]
      fill(isLeaf ? node : tree.left[node], 2 * at + 1, level + 1)
      fill(isLeaf ? node : tree.right[node], 2 * at + 2, level + 1)
    }
    fill(0, 0, 0)
  })
  packedModels.set(model, packed)
  return packed
}

const scoreWith = (packed: Packed, base: number, row: ReadonlyArray<number>): number => {
  const { trees, depth, feature, split, leaf } = packed
  const inner = (1 << depth) - 1
  let score = base
  for (let t = 0, f = 0, l = 0; t < trees; t++, f += inner, l += inner + 1) {
    let at = 0
    for (let level = 0; level < depth; level++) at = row[feature[f + at]] <= split[f + at] ? 2 * at + 1 : 2 * at + 2
    score += leaf[l + at - inner]
  }
  return 1 / (1 + Math.exp(-score))
}

/** The probability that a block is content. */
export const contentScore = (model: TreeModel, row: ReadonlyArray<number>): number => scoreWith(pack(model), model.base, row)

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
  const packed = pack(model)
  const keep = rows.map((row) => scoreWith(packed, model.base, row) >= model.threshold)
  const kept = blocks.filter((_, i) => keep[i])
  if (kept.length === 0) return { markdown, kept: blocks.length, dropped: 0 }
  return { markdown: kept.map((b) => b.text).join("\n\n"), kept: kept.length, dropped: blocks.length - kept.length }
}
