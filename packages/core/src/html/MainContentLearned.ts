/**
 * The learned signal inside main-content extraction (models/main-content): the leaf blocks of
 * the pick (`pickBlocks`) scored by boosted trees trained on the odd ids of WCXB dev, and the
 * blocks the model gives less than its threshold dropped. It runs last, on the pick the rules
 * made; a prune that would leave the pick without substance keeps the pick as it was.
 */
import type { Root } from "hast"
import { type TreeModel, contentScore } from "../clean/CleanContent.ts"
import { type PickPath, pickBlocks } from "./MainContentBlocks.ts"
import type { PageKind } from "./MainContentHints.ts"
import { type StatsTable, filterTree } from "./MainContentNodes.ts"
import { MAIN_CONTENT_MODEL } from "./MainContentModel.ts"

export interface LearnedContext {
  readonly title: string
  readonly path: PickPath
  readonly kind: PageKind
  /** statistics of the page the pick was taken from (shared subtrees are not measured again) */
  readonly stats?: StatsTable
}

/** `content` without the blocks the model scores under its threshold (the same tree when none is). */
export const pruneWithModel = (content: Root, context: LearnedContext, model: TreeModel = MAIN_CONTENT_MODEL): Root => {
  const blocks = pickBlocks(content, context)
  const drop = new Set(blocks.filter((b) => contentScore(model, b.row) < model.threshold).map((b) => b.element))
  if (drop.size === 0) return content
  return filterTree(content, (element) => drop.has(element))
}
