/**
 * The default layers of the page stages, built from the rules in this package: `Tables`
 * (ruled tables from drawn lines, then tables aligned in columns), `Layout` (lines, figures,
 * paragraphs, then kinds and furniture from typography and the pages around), `ReadingOrder`
 * (XY-cut, column-break joins, captions, paragraphs and tables over page breaks). Each is an
 * ordinary layer: a user's own replaces it by being provided instead.
 */
import { Effect, Layer } from "effect"
import { Layout, ReadingOrder, stageStep, Tables } from "@strata/core"
import { alignedTables, GUTTERS, GUTTERS_BEFORE, pageGutters } from "./AlignedTables.ts"
import { FontStats } from "./FontStats.ts"
import { buildLines } from "./Lines.ts"
import { splitMath } from "./MathRegions.ts"
import { analyseLines, carryOver, labelPage, orderBlocks } from "./PageLayout.ts"
import { findPanels, panelRegions } from "./Panels.ts"
import { ruledTables } from "./Tables.ts"

/**
 * The rule-based Tables: ruled tables first, then tables aligned in columns. `panels: false` is
 * the stage before issue 17's reading-order work (benches compare): a boxed or shaded aside is
 * searched together with the text beside it, and page gutters are told as before
 * (AlignedTables.ts GUTTERS_BEFORE).
 */
export const heuristicTablesWith = (options: { readonly panels?: boolean } = {}): Tables["Service"] => Tables.of({
  name: "heuristic",
  detect: (lines, page) =>
    stageStep("Tables", page.pageNumber, () => {
      const gutterRules = options.panels === false ? GUTTERS_BEFORE : GUTTERS
      let gutters: ReadonlyArray<number> | undefined
      const ruled = ruledTables(lines, page.rules, page, () => (gutters ??= pageGutters(lines, page.width, gutterRules)))
      // A panel (a boxed or shaded aside) is searched on its own: its lines never make a column of a table outside it.
      const panels = options.panels === false ? [] : findPanels(page.drawings, lines)
      const aligned = panelRegions(ruled.rest, panels).map((region) => alignedTables(region, page.width, gutterRules))
      return { tables: [...ruled.tables, ...aligned.flatMap((a) => a.tables)], rest: aligned.flatMap((a) => a.rest) }
    })
})

export const heuristicTables: Tables["Service"] = heuristicTablesWith()

/**
 * The rule-based Layout over the given Tables. `asides: false` is the layout before issue 17's
 * reading-order work (benches compare): justified lines cut at their stretched word spaces and
 * gaps between type of mixed sizes measured against the larger (Lines.ts), paragraphs grouped
 * across the edges of panels (Panels.ts), no measured first-line indents (Paragraphs.ts).
 */
export const heuristicLayout = (tables: Tables["Service"], options: { readonly asides?: boolean } = {}): Layout["Service"] =>
  Layout.of({
    name: "heuristic",
    begin: Effect.sync(() => {
      const stats = new FontStats()
      return {
        analyse: (page) =>
          Effect.gen(function*() {
            // Display formulas leave the text first; inline math stays in it, marked (MathRegions.ts).
            const math = splitMath(page.runs, page.rules)
            const lines = yield* stageStep("Layout", page.pageNumber, () => buildLines(math.runs, { stretched: options.asides ?? true, mixedSizes: options.asides ?? true }))
            const split = yield* tables.detect(lines, page)
            const laid = yield* stageStep("Layout", page.pageNumber, () => analyseLines(page, lines, split, stats, options.asides ?? true))
            laid.blocks.push(...math.formulas)
            return laid
          }),
        label: (page, neighbours) => stageStep("Layout", page.pageNumber, () => labelPage(page, neighbours, stats))
      }
    })
  })

/** The rule-based ReadingOrder; `asides: false` is the order before sidebars and pull quotes were placed (benches compare). */
export const heuristicReadingOrderWith = (options: { readonly asides: boolean }): ReadingOrder["Service"] => ReadingOrder.of({
  name: "heuristic",
  order: (page) => stageStep("ReadingOrder", page.pageNumber, () => orderBlocks(page, options)),
  continueAcross: (current, next) => stageStep("ReadingOrder", undefined, () => carryOver(current, next))
})

export const heuristicReadingOrder: ReadingOrder["Service"] = heuristicReadingOrderWith({ asides: true })

export const HeuristicTables = Layer.succeed(Tables, heuristicTables)

/** The rule-based Layout; it asks the context's `Tables` for each page's tables. */
export const HeuristicLayout = Layer.effect(Layout, Tables.useSync(heuristicLayout))

export const HeuristicReadingOrder = Layer.succeed(ReadingOrder, heuristicReadingOrder)
