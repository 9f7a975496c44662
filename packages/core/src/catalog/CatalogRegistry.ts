/**
 * The catalog's registry: which providers are registered, and the lookups every catalog request
 * and `domainTools` scrape make (a call's provider and capability, the site-bound tools whose
 * URL patterns match a page). Providers are layers: `CatalogRegistry.provider(p)` (or
 * `providerEffect` for one built from services, such as the pipeline) registers one into the
 * registry when the server's layers are built, as effect's HttpRouter routes are added; the
 * registry itself (`CatalogRegistry.layer`) starts empty.
 */
import { Context, Effect, Layer, Option } from "effect"
import type { DiscoveredTool } from "../contract/Catalog.ts"
import type { CatalogProvider, CatalogTool } from "./CatalogTool.ts"
import { checkPatterns, matchesUrl, toolContract } from "./CatalogTool.ts"

/** A registered tool with the provider it belongs to. */
export interface ToolEntry {
  readonly provider: CatalogProvider
  readonly tool: CatalogTool
}

export class CatalogRegistry extends Context.Service<CatalogRegistry, {
  /** Adds a provider; a name (or alias) already taken is a defect in the server's setup. */
  readonly register: (provider: CatalogProvider) => Effect.Effect<void>
  /** Every provider, by name. */
  readonly providers: Effect.Effect<ReadonlyArray<CatalogProvider>>
  /** The provider a call names (by name or alias). */
  readonly provider: (name: string) => Effect.Effect<Option.Option<CatalogProvider>>
  /** The tool a call names; none for an unknown provider or capability. */
  readonly find: (provider: string, capability: string) => Effect.Effect<Option.Option<ToolEntry>>
  /** The site-bound tools whose URL patterns match any of `urls`, with the URLs each matched. */
  readonly matching: (urls: ReadonlyArray<string>) => Effect.Effect<ReadonlyArray<ToolEntry & { readonly urls: ReadonlyArray<string> }>>
}>()("@strata/core/CatalogRegistry") {
  /** An empty registry; provider layers fill it. */
  static readonly layer: Layer.Layer<CatalogRegistry> = Layer.sync(CatalogRegistry, () => make())

  /** Registers a provider declared as a value. */
  static readonly provider = (provider: CatalogProvider): Layer.Layer<never, never, CatalogRegistry> =>
    Layer.effectDiscard(Effect.flatMap(CatalogRegistry, (registry) => registry.register(provider)))

  /** Registers a provider built from services (the pipeline, the fetcher, the registry itself). */
  static readonly providerEffect = <E, R>(
    build: Effect.Effect<CatalogProvider, E, R>
  ): Layer.Layer<never, E, CatalogRegistry | R> =>
    Layer.effectDiscard(Effect.gen(function*() {
      const provider = yield* build
      const registry = yield* CatalogRegistry
      yield* registry.register(provider)
    }))
}

const byName = (a: CatalogProvider, b: CatalogProvider) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)

/** The registry's methods over one map, private to the layer that made it. */
export const make = (): CatalogRegistry["Service"] => {
  const names = new Map<string, CatalogProvider>()
  const registered: Array<CatalogProvider> = []

  const register = (provider: CatalogProvider) =>
    Effect.suspend(() => {
      for (const name of [provider.name, ...(provider.aliases ?? [])]) {
        if (names.has(name)) return Effect.die(new Error(`Catalog provider name "${name}" is registered twice`))
      }
      const capabilities = new Set<string>()
      for (const entry of provider.tools) {
        if (capabilities.has(entry.capability)) {
          return Effect.die(new Error(`Catalog provider "${provider.name}" declares "${entry.capability}" twice`))
        }
        capabilities.add(entry.capability)
        const problem = checkPatterns(entry)
        if (problem !== undefined) return Effect.die(new Error(`Catalog provider "${provider.name}": ${problem}`))
      }
      for (const name of [provider.name, ...(provider.aliases ?? [])]) names.set(name, provider)
      registered.push(provider)
      registered.sort(byName)
      return Effect.void
    })

  const provider = (name: string) => Effect.sync(() => Option.fromNullishOr(names.get(name)))

  const find = (providerName: string, capability: string) =>
    Effect.sync(() => {
      const found = names.get(providerName)
      const entry = found?.tools.find((candidate) => candidate.capability === capability)
      return found === undefined || entry === undefined ? Option.none<ToolEntry>() : Option.some({ provider: found, tool: entry })
    })

  const matching = (urls: ReadonlyArray<string>) =>
    Effect.sync(() =>
      registered.flatMap((owner) =>
        owner.tools.flatMap((entry) => {
          const matched = urls.filter((url) => matchesUrl(entry, url))
          return matched.length === 0 ? [] : [{ provider: owner, tool: entry, urls: matched }]
        })
      )
    )

  return CatalogRegistry.of({ register, providers: Effect.sync(() => [...registered]), provider, find, matching })
}

/**
 * `data.tools` for a `domainTools` scrape: the full contract of every site-bound tool matching
 * the page (its requested URL or where it ended up), `matchedBy: ["domain"]`.
 */
export const domainToolsFor = (registry: CatalogRegistry["Service"], urls: ReadonlyArray<string>) =>
  Effect.map(registry.matching([...new Set(urls)]), (entries) =>
    entries.map((entry): DiscoveredTool => {
      const contract = toolContract(entry.provider, entry.tool, { options: true, response: true, matchedBy: ["domain"], matchedUrls: entry.urls })
      // The contract's DiscoveredTool keys only (find-tools items carry more: category, patterns, terms).
      return {
        capability: contract.capability,
        description: contract.description,
        provider: contract.provider,
        creditsCost: contract.creditsCost,
        id: contract.id,
        matchedBy: contract.matchedBy,
        matchedUrls: contract.matchedUrls,
        name: contract.name,
        options: contract.options ?? [],
        perRecord: contract.perRecord,
        response: contract.response ?? { about: entry.tool.response.about, key: entry.tool.response.key, fields: [] }
      }
    }))
