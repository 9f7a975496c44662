/**
 * The Layout stage: a page's elements (text runs, rules, pictures, drawings) in, typed blocks out.
 *
 * It works per document through a session, because good layout needs document facts: the body
 * font size and heading tiers, and the pages around a page for running heads. A reader calls
 * `analyse` as a page enters its look-ahead window (page-local work: lines, tables, figures,
 * paragraphs) and `label` as it leaves (kinds, headings, furniture, with its neighbours). The
 * heuristic layer in `@strata/pdf` is the default; a learned model is a second layer of the same
 * service. Native and OCR'd pages go through the same session.
 */
import { Context, type Effect } from "effect"
import type { LayoutPage, PageElements } from "../layout/PageElements.ts"
import type { StageError } from "./StageError.ts"

export interface LayoutSession {
  /** Page-local layout: lines, tables, figures, paragraphs, with provisional kinds. */
  readonly analyse: (page: PageElements) => Effect.Effect<LayoutPage, StageError>
  /** Final kinds (headings, furniture, captions...) with the analysed pages around it. */
  readonly label: (page: LayoutPage, neighbours: ReadonlyArray<LayoutPage>) => Effect.Effect<LayoutPage, StageError>
}

export class Layout extends Context.Service<Layout, {
  /** The layer's name, recorded on the blocks it labels (`heuristic`, a model's name). */
  readonly name: string
  /** A session for one document: its state lives as long as the document is read. */
  readonly begin: Effect.Effect<LayoutSession>
}>()("@strata/core/Layout") {}
