/**
 * The single-node scorer: paragraphs earn points for length and commas, points flow to their
 * ancestors, scores are damped by link density and class/id weights, and the best container
 * wins (promoted to a common ancestor when several near-best candidates share one). Siblings
 * of the winner that look like the same content (similar score, prose paragraphs) join it.
 * This is the article path; listings and services go through the multi-block path instead.
 */
import type { Element, Root } from "hast"
import { BLOCK_TAGS, classWeight } from "./MainContentPatterns.ts"
import { EMPTY_STATS, type StatsTable, linkDensity } from "./MainContentNodes.ts"

export interface ScoreOptions {
  readonly useClassWeights: boolean
}

export interface Candidate {
  readonly element: Element
  readonly score: number
}

export interface ScoreResult {
  /** The chosen container and the siblings that join it, in document order. */
  readonly nodes: Array<Element>
  readonly top: Candidate | undefined
}

const PARAGRAPH_TAGS = new Set(["p", "pre", "td", "h2", "h3", "h4", "h5", "h6", "blockquote", "dd"])
const INLINE_CONTAINERS = new Set(["div", "section", "article", "span", "main", "font", "center"])

const initialScore = (element: Element, options: ScoreOptions): number => {
  let score = 0
  switch (element.tagName) {
    case "div":
    case "article":
    case "main":
    case "section":
      score = 5
      break
    case "pre":
    case "td":
    case "blockquote":
      score = 3
      break
    case "address":
    case "ol":
    case "ul":
    case "dl":
    case "dd":
    case "dt":
    case "li":
    case "form":
      score = -3
      break
    case "h1":
    case "h2":
    case "h3":
    case "h4":
    case "h5":
    case "h6":
    case "th":
      score = -5
      break
  }
  if (element.tagName === "article" || element.tagName === "main") score += 10
  return options.useClassWeights ? score + classWeight(element) : score
}

const hasBlockChild = (element: Element): boolean => {
  for (const child of element.children) if (child.type === "element" && BLOCK_TAGS.has(child.tagName)) return true
  return false
}

/**
 * Score the tree under `body` and pick the main container. `stats` must describe this very
 * tree (computed after pruning).
 */
export const scoreTree = (body: Root | Element, stats: StatsTable, options: ScoreOptions): ScoreResult => {
  const parents = new Map<Element, Element>()
  const scores = new Map<Element, number>()
  const paragraphs: Array<Element> = []

  const collect = (node: Root | Element) => {
    for (const child of node.children) {
      if (child.type !== "element") continue
      if (node.type === "element") parents.set(child, node)
      const tag = child.tagName
      if (PARAGRAPH_TAGS.has(tag)) {
        paragraphs.push(child)
        if (tag === "p" || tag === "pre" || tag === "h2" || tag === "h3" || tag === "h4" || tag === "h5" || tag === "h6") continue
      } else if (INLINE_CONTAINERS.has(tag) && !hasBlockChild(child)) {
        paragraphs.push(child)
      }
      collect(child)
    }
  }
  collect(body)

  const ensure = (element: Element): number => {
    let s = scores.get(element)
    if (s === undefined) {
      s = initialScore(element, options)
      scores.set(element, s)
    }
    return s
  }

  for (const p of paragraphs) {
    const s = stats.get(p) ?? EMPTY_STATS
    if (s.chars < 25) continue
    // link lists inside li/td are navigation, not prose
    const ld = linkDensity(s)
    if (ld > 0.5) continue
    const points = 1 + s.commas + Math.min(Math.floor(s.chars / 100), 3)
    let ancestor = parents.get(p)
    let level = 0
    while (ancestor !== undefined && level < 5) {
      const current = ensure(ancestor)
      const divider = level === 0 ? 1 : level === 1 ? 2 : level * 3
      scores.set(ancestor, current + points / divider)
      ancestor = parents.get(ancestor)
      level++
    }
  }

  const finalScore = (element: Element): number => {
    const raw = scores.get(element)
    if (raw === undefined) return 0
    return raw * (1 - linkDensity(stats.get(element) ?? EMPTY_STATS))
  }

  const ranked: Array<Candidate> = []
  for (const element of scores.keys()) ranked.push({ element, score: finalScore(element) })
  ranked.sort((a, b) => b.score - a.score)
  const best = ranked[0]
  if (best === undefined || best.score <= 0) return { nodes: [], top: undefined }

  let top = best.element
  let topScore = best.score

  // several near-best candidates under one ancestor: the ancestor is the article
  const near = ranked.slice(1, 5).filter((c) => c.score / topScore >= 0.75)
  if (near.length >= 3) {
    const chains = near.map((c) => ancestorsOf(c.element, parents))
    let ancestor = parents.get(top)
    while (ancestor !== undefined) {
      const a = ancestor
      if (chains.filter((chain) => chain.has(a)).length >= 3) {
        top = a
        topScore = Math.max(topScore, finalScore(a))
        break
      }
      ancestor = parents.get(ancestor)
    }
  }

  // climb while the parent scores better (content split over nested wrappers)
  let parent = parents.get(top)
  let lastScore = finalScore(top)
  const threshold = lastScore / 3
  while (parent !== undefined) {
    const ps = finalScore(parent)
    if (ps < threshold) break
    if (ps > lastScore) {
      top = parent
      lastScore = ps
    }
    parent = parents.get(parent)
  }
  // an only child yields to its parent
  let up = parents.get(top)
  while (up !== undefined && up.children.filter((c) => c.type === "element").length === 1) {
    top = up
    up = parents.get(up)
  }
  topScore = Math.max(topScore, finalScore(top))
  top = expand(top, parents, stats)

  // siblings that continue the content
  const container = parents.get(top)
  const nodes: Array<Element> = []
  if (container === undefined) {
    nodes.push(top)
  } else {
    const threshold = Math.max(10, topScore * 0.2)
    const topClass = top.properties.className
    const topClassKey = Array.isArray(topClass) ? topClass.join(" ") : ""
    for (const sibling of container.children) {
      if (sibling.type !== "element") continue
      if (sibling === top) {
        nodes.push(sibling)
        continue
      }
      let bonus = 0
      const cls = sibling.properties.className
      if (topClassKey !== "" && Array.isArray(cls) && cls.join(" ") === topClassKey) bonus = topScore * 0.2
      const score = finalScore(sibling)
      if (scores.has(sibling) && score + bonus >= threshold) {
        nodes.push(sibling)
        continue
      }
      if (sibling.tagName === "p") {
        const s = stats.get(sibling) ?? EMPTY_STATS
        const ld = linkDensity(s)
        if ((s.chars > 80 && ld < 0.25) || (s.chars > 0 && s.chars <= 80 && ld === 0 && /[.!?]\s*$/.test(lastText(sibling)))) {
          nodes.push(sibling)
        }
      }
    }
  }
  return { nodes, top: { element: top, score: topScore } }
}

/**
 * Grow the pick while its parent adds mostly prose and few links: content split over many
 * sibling sections (page builders, long guides) is one article, not its best section.
 */
export const expand = (start: Element, parents: Map<Element, Element>, stats: StatsTable): Element => {
  let top = start
  let parent = parents.get(top)
  while (parent !== undefined) {
    if (parent.tagName === "body" || parent.tagName === "html") break
    const a = stats.get(top) ?? EMPTY_STATS
    const b = stats.get(parent) ?? EMPTY_STATS
    const added = b.chars - a.chars
    if (added > 0) {
      const prose = (b.proseChars - a.proseChars) / added
      const links = (b.linkChars - a.linkChars) / added
      if (prose < 0.6 || links > 0.25) break
    }
    top = parent
    parent = parents.get(top)
  }
  return top
}

const ancestorsOf = (element: Element, parents: Map<Element, Element>): Set<Element> => {
  const out = new Set<Element>()
  let a = parents.get(element)
  while (a !== undefined) {
    out.add(a)
    a = parents.get(a)
  }
  return out
}

const lastText = (element: Element): string => {
  for (let i = element.children.length - 1; i >= 0; i--) {
    const child = element.children[i]
    if (child.type === "text" && child.value.trim() !== "") return child.value
    if (child.type === "element") return lastText(child)
  }
  return ""
}
