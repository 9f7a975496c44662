/**
 * The catalog: providers registered as layers in `CatalogRegistry`, the built-in ones (`service`
 * discovery, `web`, `sitemap`, `wikipedia`), and the two steps a catalog request runs in.
 */
import { Layer } from "effect"
import { layerServiceProvider } from "./FindTools.ts"
import type { ProviderTerms } from "./CatalogTool.ts"
import { layerSiteProviders, wikipediaTerms } from "./SiteTools.ts"
import { layerWebProvider } from "./WebTools.ts"

export { CatalogDenied, CatalogError, catalogError, TermsRequired, UnknownProvider } from "./CatalogError.ts"
export { CatalogRegistry, domainToolsFor, type ToolEntry } from "./CatalogRegistry.ts"
export { type CatalogItem, type CatalogOutcome, type CatalogPlan, checkTerms, planCatalog, type PlannedCall, runCatalog } from "./CatalogRun.ts"
export {
  type CatalogProvider,
  type CatalogTool,
  fieldsOf,
  matchesUrl,
  type ProviderTerms,
  tool,
  type ToolContext,
  toolContract,
  ToolFailed,
  type ToolOutput
} from "./CatalogTool.ts"
export { findTools, findToolsCapability, FindToolsOptions, serviceProviderName } from "./FindTools.ts"
export { makeSitemapProvider, makeWikipediaProvider, readSitemap, wikipediaTerms } from "./SiteTools.ts"
export { makeWebProvider, toolFailure } from "./WebTools.ts"

/**
 * Every built-in provider, registered into the `CatalogRegistry` in context; the ones that work
 * through the pipeline need it too.
 */
export const layerBuiltinProviders = Layer.mergeAll(layerServiceProvider, layerWebProvider, layerSiteProviders)

/** The terms of the built-in providers that declare any: what `strata catalog accept-terms` accepts by default. */
export const builtinTerms: Readonly<Record<string, ProviderTerms>> = { wikipedia: wikipediaTerms }
