/**
 * Main-content extraction (`onlyMainContent`): keep what a reader came for, drop the page's
 * chrome. A cascade in the spirit of Readability and trafilatura: prune chrome, score
 * paragraphs into a best container, clean it, and when that keeps too little of the page,
 * retry with looser rules and finally fall back to the pruned page ("drop boilerplate only"),
 * which is also the mode for listings and service pages whose content is spread over many
 * blocks. Pure and synchronous; the input tree is never mutated.
 */
import type { Element, ElementContent, Root, RootContent } from "hast"
import { cleanContent, prunePage } from "./MainContentClean.ts"
import { EMPTY_STATS, computeStats, findBody } from "./MainContentNodes.ts"
import { scoreTree } from "./MainContentScore.ts"

export interface MainContentOptions {
  /** the page's final URL (reserved for URL-shaped hints such as forum paths) */
  readonly url?: string
}

interface Attempt {
  readonly stripUnlikely: boolean
  readonly useClassWeights: boolean
  readonly clean: boolean
}

/** The retry ladder: each rung drops one safeguard that can over-strip. */
const LADDER: ReadonlyArray<Attempt> = [
  { stripUnlikely: true, useClassWeights: true, clean: true },
  { stripUnlikely: false, useClassWeights: true, clean: true },
  { stripUnlikely: false, useClassWeights: false, clean: true },
  { stripUnlikely: false, useClassWeights: false, clean: false }
]

/** Below this many characters the result is suspicious and the next rung is tried. */
const MIN_CHARS = 500

const rootOf = (children: Array<ElementContent>): Root => ({ type: "root", children })

const withoutDoctype = (nodes: ReadonlyArray<RootContent>): Array<ElementContent> => {
  const out: Array<ElementContent> = []
  for (const node of nodes) if (node.type !== "doctype") out.push(node)
  return out
}

const charsOf = (root: Root): number => {
  const stats = computeStats(root)
  let n = 0
  for (const child of root.children) if (child.type === "element") n += (stats.get(child) ?? EMPTY_STATS).chars
  return n
}

export const extractMainContent = (root: Root, _options?: MainContentOptions): Root => {
  const body = findBody(root)
  const bodyStats = computeStats(body)
  let bodyChars = 0
  for (const child of body.children) if (child.type === "element") bodyChars += (bodyStats.get(child) ?? EMPTY_STATS).chars

  let best: { root: Root; chars: number } | undefined
  for (const attempt of LADDER) {
    const pruned = prunePage(body, bodyStats, { stripUnlikely: attempt.stripUnlikely, stripHidden: true, keepComments: false })
    const stats = computeStats(pruned)
    const scored = scoreTree(pruned, stats, { useClassWeights: attempt.useClassWeights })
    if (scored.nodes.length === 0) continue
    let content = rootOf(scored.nodes.map((n): Element => n))
    if (attempt.clean) content = cleanContent(content, { useClassWeights: attempt.useClassWeights })
    const chars = charsOf(content)
    if (best === undefined || chars > best.chars) best = { root: content, chars }
    if (chars >= Math.min(MIN_CHARS, bodyChars * 0.5)) break
  }

  if (best === undefined || best.chars < 250) {
    // too little survived: keep the page minus its chrome rather than (almost) nothing
    const pruned = prunePage(body, bodyStats, { stripUnlikely: true, stripHidden: true, keepComments: true })
    const fallback = rootOf(withoutDoctype(pruned.children))
    const chars = charsOf(fallback)
    if (best === undefined || chars > best.chars) best = { root: fallback, chars }
  }
  return best.root
}
