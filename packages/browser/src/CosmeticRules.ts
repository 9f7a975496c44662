/**
 * The packaged filter lists (`AdBlock.ts`) as services: `AdBlockLists` builds the matching engine
 * once, on first use, for everything in the layer that blocks ads (the browser engine's network
 * and DOM filtering, and the fetch engine's pages); `cosmeticLayer` hands its hiding rules to
 * core's `CosmeticFilter`, so a page served without a browser loses its consent banner too.
 *
 * Measured (2-core machine, load ~4-6): building takes 300-700 ms once; a page then costs the
 * tree walk for its features, the rule lookup and one pass per matched complex selector
 * (`bench/browser/cosmetic.ts`).
 */
import { CosmeticFilter, type CosmeticRules, type PageFeatures } from "@strata/core"
import { Context, Effect, Layer } from "effect"
import { type AdBlocker, buildAdBlocker } from "./AdBlock.ts"

export class AdBlockLists extends Context.Service<AdBlockLists, {
  /** The engine, built on the first call (~300 ms of CPU), then the same one. */
  readonly blocker: Effect.Effect<AdBlocker>
}>()("@strata/browser/AdBlockLists") {
  static readonly layer = Layer.effect(
    AdBlockLists,
    Effect.map(Effect.cached(Effect.sync(() => buildAdBlocker())), (blocker) => ({ blocker }))
  )
}

/** Core's `CosmeticFilter` from the shared lists. */
export const cosmeticRules = Effect.gen(function*() {
  const lists = yield* AdBlockLists
  return {
    name: "easylist-cookie",
    matcher: Effect.map(lists.blocker, (blocker) => (url: string, features: PageFeatures) => blocker.selectors(url, features))
  } satisfies CosmeticRules
})

/** `CosmeticFilter` for the pipeline; provide it the same `AdBlockLists` layer as the browser engine, to build the lists once. */
export const cosmeticLayer = Layer.effect(CosmeticFilter, cosmeticRules)
