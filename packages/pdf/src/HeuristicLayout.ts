/**
 * The default layers of the page stages, built from the rules in this package: `Tables`
 * (ruled tables from drawn lines, then tables aligned in columns), `Layout` (lines, figures,
 * paragraphs, then kinds and furniture from typography and the pages around), `ReadingOrder`
 * (XY-cut, column-break joins, captions, paragraphs and tables over page breaks). Each is an
 * ordinary layer: a user's own replaces it by being provided instead.
 */
import { Effect, Layer } from "effect"
import { Layout, ReadingOrder, stageStep, Tables } from "@strata/core"
import { alignedTables } from "./AlignedTables.ts"
import { FontStats } from "./FontStats.ts"
import { buildLines } from "./Lines.ts"
import { splitMath } from "./MathRegions.ts"
import { analyseLines, carryOver, labelPage, orderBlocks } from "./PageLayout.ts"
import { ruledTables } from "./Tables.ts"

/** The rule-based Tables: ruled tables first, then tables aligned in columns. */
export const heuristicTables: Tables["Service"] = Tables.of({
  name: "heuristic",
  detect: (lines, page) =>
    stageStep("Tables", page.pageNumber, () => {
      const ruled = ruledTables(lines, page.rules, page)
      const aligned = alignedTables(ruled.rest, page.width)
      return { tables: [...ruled.tables, ...aligned.tables], rest: aligned.rest }
    })
})

/** The rule-based Layout over the given Tables. */
export const heuristicLayout = (tables: Tables["Service"]): Layout["Service"] =>
  Layout.of({
    name: "heuristic",
    begin: Effect.sync(() => {
      const stats = new FontStats()
      return {
        analyse: (page) =>
          Effect.gen(function*() {
            // Display formulas leave the text first; inline math stays in it, marked (MathRegions.ts).
            const math = splitMath(page.runs, page.rules)
            const lines = yield* stageStep("Layout", page.pageNumber, () => buildLines(math.runs))
            const split = yield* tables.detect(lines, page)
            const laid = yield* stageStep("Layout", page.pageNumber, () => analyseLines(page, lines, split, stats))
            laid.blocks.push(...math.formulas)
            return laid
          }),
        label: (page, neighbours) => stageStep("Layout", page.pageNumber, () => labelPage(page, neighbours, stats))
      }
    })
  })

export const heuristicReadingOrder: ReadingOrder["Service"] = ReadingOrder.of({
  name: "heuristic",
  order: (page) => stageStep("ReadingOrder", page.pageNumber, () => orderBlocks(page)),
  continueAcross: (current, next) => stageStep("ReadingOrder", undefined, () => carryOver(current, next))
})

export const HeuristicTables = Layer.succeed(Tables, heuristicTables)

/** The rule-based Layout; it asks the context's `Tables` for each page's tables. */
export const HeuristicLayout = Layer.effect(Layout, Tables.useSync(heuristicLayout))

export const HeuristicReadingOrder = Layer.succeed(ReadingOrder, heuristicReadingOrder)
