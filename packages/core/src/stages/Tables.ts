/**
 * The Tables stage: finds the tables among a page's lines (ruled by drawn lines, or aligned in
 * columns) and turns each into a `table` block with its grid. The Layout stage calls it before it
 * groups the remaining lines into paragraphs, so table cells never become prose.
 */
import { Context, type Effect } from "effect"
import type { LayoutBlock, Line, PageElements } from "../layout/PageElements.ts"
import type { StageError } from "./StageError.ts"

export interface TableSplit {
  readonly tables: Array<LayoutBlock>
  /** The lines that belong to no table. */
  readonly rest: Array<Line>
}

export class Tables extends Context.Service<Tables, {
  readonly name: string
  readonly detect: (lines: ReadonlyArray<Line>, page: PageElements) => Effect.Effect<TableSplit, StageError>
}>()("@strata/core/Tables") {}
