/**
 * The Effect API of `strata`, exported as the `Strata` namespace: `Strata.layer(options)` builds
 * the `Pipeline` service with every engine; pass `options.stages` to replace a stage with your
 * own layer. The heuristic layers of the page stages are exported too, to wrap or compose.
 * The `Pipeline` takes decoded requests: `validateScrapeRequest` and `validateParseOptions` turn
 * the contract's JSON options into them (defaults applied, unsupported options refused).
 */
export { layer, ReaderResources, ReadersLive, StrataLive } from "./Live.ts"
export { lazyOcrLayer } from "./LazyOcr.ts"
export { HeuristicLayout, HeuristicReadingOrder, HeuristicTables } from "@strata/pdf"
/** A PDF's page count from its trailer and page tree, without reading a page, on this thread. */
export { pdfPageCount } from "@strata/pdf"
/** The same count in a reader process when there is a pool of them (what a replica queues on). */
export { countPdfPages } from "./PageCount.ts"
export { validateParseOptions, validateScrapeRequest } from "@strata/core"
