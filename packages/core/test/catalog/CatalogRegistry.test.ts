/**
 * The registry and discovery on their own: providers register as layers (a name or alias taken
 * twice is a defect), calls find tools by name or alias, site-bound tools match by URL pattern,
 * `find-tools` pages cover the catalog exactly once for any page size (property), and a plan
 * refuses unknown tools and bad options before anything runs.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit, Layer, Schema } from "effect"
import fc from "fast-check"
import {
  CatalogRegistry,
  type CatalogTool,
  checkTerms,
  domainToolsFor,
  findTools,
  layerBuiltinProviders,
  planCatalog,
  runCatalog,
  tool,
  ToolFailed
} from "../../src/catalog/index.ts"
import { Pipeline } from "../../src/Pipeline.ts"

/** The built-in providers never reach the pipeline in these tests: discovery reads only their declarations. */
const noPipeline = Layer.succeed(Pipeline, Pipeline.of({
  scrape: () => Effect.die(new Error("no scrape here")),
  admit: () => Effect.void,
  parse: () => Effect.die(new Error("no parse here")),
  scrapeStream: () => Effect.die(new Error("no scrape here")) as never,
  parseStream: () => Effect.die(new Error("no parse here")) as never
}))

let runs = 0
const countTool = {
  capability: "count",
  name: "Count",
  description: "Counts to n, one record each; fails on 13.",
  category: "test",
  options: Schema.Struct({ n: Schema.Int }),
  response: { about: "The numbers.", key: "numbers", schema: Schema.Struct({ numbers: Schema.Array(Schema.Int) }) },
  creditsCost: 1,
  perRecord: true,
  urlPatterns: ["https://count.example/*"],
  run: (options: { readonly n: number }) =>
    options.n === 13
      ? Effect.fail(new ToolFailed({ kind: "upstream", message: "unlucky" }))
      : Effect.sync(() => {
        runs++
        return { data: { numbers: Array.from({ length: options.n }, (_, i) => i + 1) }, records: options.n }
      })
} satisfies CatalogTool<{ readonly n: number }>

const counter = CatalogRegistry.provider({
  name: "counter",
  description: "Counts.",
  terms: { version: "2", url: "https://counter.example/terms", summary: "counting is for fun" },
  tools: [
    tool(countTool)
  ]
})

const registry = Layer.provideMerge(Layer.mergeAll(layerBuiltinProviders, counter), Layer.merge(Layer.fresh(CatalogRegistry.layer), noPipeline))

describe("CatalogRegistry", () => {
  it.effect("finds tools by provider name or alias, and site-bound tools by URL", () =>
    Effect.gen(function*() {
      const catalog = yield* CatalogRegistry
      assert.strictEqual((yield* catalog.find("firecrawl", "find-tools"))._tag, "Some")
      assert.strictEqual((yield* catalog.find("web", "teleport"))._tag, "None")
      const tools = yield* domainToolsFor(catalog, ["https://count.example/a", "https://example.com/blog/sitemap_index.xml"])
      assert.deepStrictEqual(tools.map((t) => [t.id, t.matchedUrls]), [
        ["counter/count", ["https://count.example/a"]],
        ["sitemap/urls", ["https://example.com/blog/sitemap_index.xml"]]
      ])
      assert.deepStrictEqual(yield* domainToolsFor(catalog, ["https://en.wikipedia.org/wiki/Tide_pool", "not a url"]).pipe(
        Effect.map((found) => found.map((t) => t.id))
      ), ["wikipedia/article"])
    }).pipe(Effect.provide(registry)))

  it.effect("refuses a provider name registered twice as a defect", () =>
    Effect.gen(function*() {
      const exit = yield* Effect.exit(Layer.build(Layer.provide(Layer.merge(counter, CatalogRegistry.provider({ name: "x", aliases: ["counter"], description: "", tools: [] })), CatalogRegistry.layer)))
      assert.isTrue(Exit.hasDies(exit))
      const badPattern = CatalogRegistry.provider({
        name: "broken",
        description: "",
        tools: [tool({ ...countTool, urlPatterns: ["https://(unclosed.example/*"] })]
      })
      const refused = yield* Effect.exit(Layer.build(Layer.provide(badPattern, CatalogRegistry.layer)))
      assert.isTrue(Exit.hasDies(refused))
    }).pipe(Effect.scoped))

  it.effect("plans before running: unknown tools and bad options refuse the whole request", () =>
    Effect.gen(function*() {
      const catalog = yield* CatalogRegistry
      const unknown = yield* Effect.flip(planCatalog(catalog, [{ provider: "counter", capability: "count", options: { n: 1 } }, { provider: "counter", capability: "sum", options: {} }]))
      assert.strictEqual(unknown._tag === "CatalogError" ? unknown.reason._tag : unknown._tag, "UnknownProvider")
      const bad = yield* Effect.flip(planCatalog(catalog, [{ provider: "counter", capability: "count", options: { n: "two", m: 1 } }]))
      assert.strictEqual(bad._tag, "ScrapeError")
      const before = runs
      const plan = yield* planCatalog(catalog, [
        { provider: "counter", capability: "count", options: { n: 3 } },
        { provider: "counter", capability: "count", options: { n: 13 } },
        { provider: "service", capability: "find-tools", options: {} }
      ])
      assert.strictEqual(runs, before)
      assert.strictEqual(plan.needed, 2)
      assert.deepStrictEqual(plan.terms.map((t) => t.provider), ["counter"])
      const refused = yield* Effect.flip(checkTerms(plan, [{ provider: "counter", version: "1" }]))
      assert.strictEqual(refused.reason._tag, "TermsRequired")
      yield* checkTerms(plan, [{ provider: "counter", version: "2" }])
      const outcome = yield* runCatalog(plan, 5_000)
      assert.deepStrictEqual(outcome.items.map((item) => [item._tag, item._tag === "Done" ? item.creditsCost : 0]), [["Done", 3], ["Failed", 0], ["Done", 0]])
      assert.strictEqual(outcome.creditsCost, 3)
    }).pipe(Effect.provide(registry)))

  it.live("gives each call what is left of the request's timeout, and a call past it fails as timed out", () =>
    Effect.gen(function*() {
      const sleeper = CatalogRegistry.provider({
        name: "sleeper",
        description: "Sleeps.",
        tools: [
          tool({
            capability: "nap",
            name: "Nap",
            description: "Sleeps for ms.",
            category: "test",
            options: Schema.Struct({ ms: Schema.Int }),
            response: { about: "Nothing.", key: "slept", schema: Schema.Struct({ slept: Schema.Int }) },
            creditsCost: 1,
            perRecord: false,
            run: (options: { readonly ms: number }) => Effect.as(Effect.sleep(options.ms), { data: { slept: options.ms } })
          })
        ]
      })
      const outcome = yield* Effect.gen(function*() {
        const catalog = yield* CatalogRegistry
        const nap = (ms: number) => ({ provider: "sleeper", capability: "nap", options: { ms } })
        // Three run at once: the fourth starts after the 600 ms naps, with about 400 ms left of 1000 for its 700.
        const plan = yield* planCatalog(catalog, [nap(600), nap(600), nap(600), nap(700)])
        return yield* runCatalog(plan, 1000)
      }).pipe(Effect.provide(Layer.provideMerge(sleeper, Layer.fresh(CatalogRegistry.layer))))
      assert.deepStrictEqual(outcome.items.map((item) => item._tag === "Done" ? "done" : item.error.kind), ["done", "done", "done", "timeout"])
      assert.strictEqual(outcome.creditsCost, 3)
    }))

  it.effect("find-tools pages cover the catalog once, in order, for any page size", () =>
    Effect.gen(function*() {
      const providers = yield* (yield* CatalogRegistry).providers
      const everything = findTools(providers, { limit: 100 }).items.map((item) => item.id)
      assert.strictEqual(everything.length, 8)
      fc.assert(fc.property(fc.integer({ min: 1, max: 12 }), (limit) => {
        const seen: Array<unknown> = []
        let options: Record<string, unknown> | null = { limit }
        while (options !== null) {
          const page = findTools(providers, options)
          seen.push(...page.items.map((item) => item.id))
          options = page.next === null ? null : (page.next.options as Record<string, unknown>)
        }
        assert.deepStrictEqual(seen, everything)
      }))
    }).pipe(Effect.provide(registry)))
})
