/**
 * The built-in `service` provider (alias `firecrawl`, the name the official SDK's `findTools`
 * sends) and its one capability, `find-tools`: free discovery of the catalog. A page of providers
 * (`level: "providers"`) or of tools (`level: "tools"`, the default), filtered by `providers`,
 * `capabilities`, `categories` and `urls` (the site-bound tools matching any of them); `expand`
 * adds each tool's `options` and `response`. A page holds `limit` items (default 20, at most 100);
 * when more remain, `next` is the call that fetches the following page, sent as another catalog
 * request.
 */
import { Effect, Schema } from "effect"
import { IntBetween } from "../contract/Primitives.ts"
import { CatalogRegistry } from "./CatalogRegistry.ts"
import { type CatalogProvider, matchesUrl, tool, toolContract } from "./CatalogTool.ts"

export const serviceProviderName = "service"
export const findToolsCapability = "find-tools"

const Names = (what: string) => Schema.Array(Schema.String.check(Schema.isMinLength(1))).check(Schema.isMaxLength(50)).annotate({ description: what })

export const FindToolsOptions = Schema.Struct({
  level: Schema.optionalKey(Schema.Literals(["providers", "tools"]).annotate({ description: "List providers or tools (default tools)." })),
  providers: Schema.optionalKey(Names("Only these providers.")),
  capabilities: Schema.optionalKey(Names("Only these capabilities.")),
  categories: Schema.optionalKey(Names("Only tools of these categories.")),
  urls: Schema.optionalKey(Names("Only site-bound tools whose URL patterns match one of these URLs.")),
  expand: Schema.optionalKey(
    Schema.Array(Schema.Literals(["options", "response"])).annotate({ description: "Add each tool's options and response fields." })
  ),
  limit: Schema.optionalKey(IntBetween(1, 100).annotate({ description: "Items per page (default 20)." })),
  offset: Schema.optionalKey(IntBetween(0, 1_000_000).annotate({ description: "Items to skip (what `next` sets)." }))
}).annotate({ identifier: "FindToolsOptions" })
export type FindToolsOptions = typeof FindToolsOptions.Type

const FindToolsData = Schema.Struct({
  level: Schema.Literals(["providers", "tools"]),
  items: Schema.Array(Schema.Record(Schema.String, Schema.Unknown)),
  total: Schema.Int,
  next: Schema.NullOr(Schema.Record(Schema.String, Schema.Unknown))
}).annotate({ identifier: "FindToolsData" })

const defaultLimit = 20

const findToolsCall = (options: FindToolsOptions) => ({ provider: serviceProviderName, capability: findToolsCapability, options })

/** One page of the catalog, as `find-tools` answers it. */
export const findTools = (providers: ReadonlyArray<CatalogProvider>, options: FindToolsOptions) => {
  const level = options.level ?? "tools"
  const limit = options.limit ?? defaultLimit
  const offset = options.offset ?? 0
  const expand = new Set(options.expand ?? [])
  const wanted = (list: ReadonlyArray<string> | undefined, value: string) => list === undefined || list.includes(value)
  const chosen = providers.filter((provider) =>
    options.providers === undefined ||
    [provider.name, ...(provider.aliases ?? [])].some((name) => options.providers!.includes(name))
  )
  const tools = chosen.flatMap((provider) =>
    provider.tools.flatMap((entry) => {
      if (!wanted(options.capabilities, entry.capability) || !wanted(options.categories, entry.category)) return []
      const matchedUrls = options.urls?.filter((url) => matchesUrl(entry, url)) ?? []
      if (options.urls !== undefined && matchedUrls.length === 0) return []
      return [{ provider, tool: entry, matchedUrls }]
    })
  )
  const all: ReadonlyArray<Record<string, unknown>> = level === "tools"
    ? tools.map(({ matchedUrls, provider, tool: entry }) =>
      toolContract(provider, entry, {
        options: expand.has("options"),
        response: expand.has("response"),
        matchedBy: matchedUrls.length > 0 ? ["domain"] : [],
        matchedUrls
      })
    )
    : chosen
      .filter((provider) => tools.some((found) => found.provider === provider))
      .map((provider) => ({
        id: provider.name,
        name: provider.name,
        description: provider.description,
        tools: tools.filter((found) => found.provider === provider).length,
        ...(provider.terms === undefined ? {} : { terms: { version: provider.terms.version, url: provider.terms.url } }),
        next: findToolsCall({ level: "tools", providers: [provider.name] })
      }))
  const items = all.slice(offset, offset + limit)
  const more = offset + items.length < all.length
  return {
    level,
    items,
    total: all.length,
    next: more ? findToolsCall({ ...options, offset: offset + items.length }) : null
  }
}

/** The `service` provider over the registry it lists (itself included). */
export const serviceProvider = Effect.gen(function*() {
  const registry = yield* CatalogRegistry
  return {
    name: serviceProviderName,
    aliases: ["firecrawl"],
    description: "The catalog itself: discover providers and their tools, free of charge.",
    tools: [
      tool({
        capability: findToolsCapability,
        name: "Find tools",
        description: "Lists the catalog's providers or tools, filtered by provider, capability, category or the URLs a site-bound tool applies to. Free.",
        category: "catalog",
        options: FindToolsOptions,
        response: { about: "A page of providers or tools, and the call that fetches the next page.", key: "items", schema: FindToolsData },
        creditsCost: 0,
        perRecord: false,
        run: (options: FindToolsOptions) => Effect.map(registry.providers, (providers) => ({ data: findTools(providers, options) }))
      })
    ]
  } satisfies CatalogProvider
})

/** Registers the `service` provider. */
export const layerServiceProvider = CatalogRegistry.providerEffect(serviceProvider)
