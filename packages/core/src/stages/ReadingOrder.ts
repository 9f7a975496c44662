/**
 * The ReadingOrder stage: a labelled page's blocks in the order a reader reads them (columns,
 * captions beside their figures, a paragraph cut by a column break joined again), and the join
 * of a paragraph or table that runs over a page break.
 */
import { Context, type Effect } from "effect"
import type { LayoutBlock, LayoutPage } from "../layout/PageElements.ts"
import type { StageError } from "./StageError.ts"

export class ReadingOrder extends Context.Service<ReadingOrder, {
  readonly name: string
  readonly order: (page: LayoutPage) => Effect.Effect<Array<LayoutBlock>, StageError>
  /**
   * `next` is the following page's ordered blocks: a paragraph or table that goes on there is
   * moved onto the end of `current` (both arrays may change).
   */
  readonly continueAcross: (current: Array<LayoutBlock>, next: Array<LayoutBlock>) => Effect.Effect<void, StageError>
}>()("@strata/core/ReadingOrder") {}
