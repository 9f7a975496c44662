/**
 * A catalog request in two steps. `planCatalog` looks every call up and decodes its options with
 * the tool's Schema before anything runs, so an unknown provider or capability, or bad options
 * in any call, refuses the whole request with nothing executed; the plan says which providers'
 * terms it needs and how many credits it needs at least. `runCatalog` runs the calls (a few at
 * once, all within the request's timeout) and answers one item per call in request order: the
 * tool's data and what it cost, or why it failed (a failed call costs nothing). `creditsCost` is
 * the sum over the calls that succeeded.
 */
import { Clock, Effect, Schema } from "effect"
import type { ResolvedCatalogCall } from "../contract/Catalog.ts"
import { invalidRequest, issuesFromSchema, type RequestIssue } from "../contract/Issues.ts"
import type { ScrapeError } from "../ScrapeError.ts"
import { catalogError, type CatalogError, TermsRequired, UnknownProvider } from "./CatalogError.ts"
import type { CatalogRegistry } from "./CatalogRegistry.ts"
import { type CatalogProvider, type CatalogTool, type ProviderTerms, ToolFailed } from "./CatalogTool.ts"

export interface PlannedCall {
  readonly call: ResolvedCatalogCall
  readonly provider: CatalogProvider
  readonly tool: CatalogTool
  /** The options as the tool's Schema decoded them. */
  readonly options: unknown
}

export interface CatalogPlan {
  readonly calls: ReadonlyArray<PlannedCall>
  /** Credits the request needs before it runs: each call's cost, one record for a per-record tool. */
  readonly needed: number
  /** The providers whose terms the request needs accepted, once each. */
  readonly terms: ReadonlyArray<{ readonly provider: string; readonly terms: ProviderTerms }>
}

/** One call's outcome, in request order. */
export type CatalogItem =
  | {
    readonly _tag: "Done"
    readonly provider: string
    readonly capability: string
    readonly creditsCost: number
    readonly records?: number | undefined
    readonly data: unknown
  }
  | { readonly _tag: "Failed"; readonly provider: string; readonly capability: string; readonly error: ToolFailed }

export interface CatalogOutcome {
  readonly items: ReadonlyArray<CatalogItem>
  /** The sum of `creditsCost` over the calls that succeeded. */
  readonly creditsCost: number
}

const decodeOptions = { onExcessProperty: "error", errors: "all" } as const

/** Looks the calls up and decodes their options; refuses the request if any call cannot run. */
export const planCatalog = (
  registry: CatalogRegistry["Service"],
  calls: ReadonlyArray<ResolvedCatalogCall>
): Effect.Effect<CatalogPlan, CatalogError | ScrapeError> =>
  Effect.gen(function*() {
    const found = yield* Effect.forEach(calls, (call) => registry.find(call.provider, call.capability))
    for (const [index, entry] of found.entries()) {
      if (entry._tag === "Some") continue
      const call = calls[index]
      const provider = yield* registry.provider(call.provider)
      return yield* Effect.fail(catalogError(new UnknownProvider({
        index,
        provider: call.provider,
        capability: call.capability,
        message: provider._tag === "None"
          ? `catalog[${index}]: no provider "${call.provider}" is registered; list the catalog with {"provider":"service","capability":"find-tools"}`
          : `catalog[${index}]: provider "${call.provider}" has no capability "${call.capability}"; it has ${
            provider.value.tools.map((t) => `"${t.capability}"`).join(", ")
          }`
      })))
    }
    const issues: Array<RequestIssue> = []
    const planned: Array<PlannedCall> = []
    for (const [index, entry] of found.entries()) {
      if (entry._tag !== "Some") continue
      const call = calls[index]
      const decoded = Schema.decodeUnknownResult(entry.value.tool.options)(call.options, decodeOptions)
      if (decoded._tag === "Failure") {
        for (const issue of issuesFromSchema(decoded.failure.issue)) {
          issues.push({ path: ["catalog", index, "options", ...issue.path], message: issue.message })
        }
        continue
      }
      planned.push({ call, provider: entry.value.provider, tool: entry.value.tool, options: decoded.success })
    }
    if (issues.length > 0) return yield* Effect.fail(invalidRequest("catalog call options", issues))
    const terms = new Map<string, ProviderTerms>()
    for (const { provider } of planned) if (provider.terms !== undefined) terms.set(provider.name, provider.terms)
    return {
      calls: planned,
      needed: planned.reduce((sum, { tool }) => sum + tool.creditsCost, 0),
      terms: [...terms].map(([provider, providerTerms]) => ({ provider, terms: providerTerms }))
    }
  })

/**
 * Refuses the plan when a provider's terms, at their current version, are not among those the
 * team accepted (`accepted` maps a provider to the versions accepted).
 */
export const checkTerms = (
  plan: CatalogPlan,
  accepted: ReadonlyArray<{ readonly provider: string; readonly version: string }>
): Effect.Effect<void, CatalogError> => {
  const missing = plan.terms.find(({ provider, terms }) =>
    !accepted.some((entry) => entry.provider === provider && entry.version === terms.version)
  )
  return missing === undefined ? Effect.void : Effect.fail(catalogError(new TermsRequired({
    provider: missing.provider,
    version: missing.terms.version,
    url: missing.terms.url,
    message: `The terms of provider "${missing.provider}" (version ${missing.terms.version}: ${missing.terms.summary}) ` +
      `must be accepted by an administrator of your team before it can be called: ` +
      `strata catalog accept-terms ${missing.provider} --team <team>. Read them at ${missing.terms.url}.`
  })))
}

const withTimeout = <A>(run: Effect.Effect<A, ToolFailed>, timeoutMs: number) =>
  Effect.timeoutOrElse(run, {
    duration: timeoutMs,
    orElse: () => Effect.fail(new ToolFailed({ kind: "timeout", message: `The call did not finish within the ${timeoutMs} ms left of the request's timeout` }))
  })

/** Calls run this many at a time: each may be a whole scrape, and the machine's cores are few. */
const callConcurrency = 3

const runOne = (planned: PlannedCall, deadline: number): Effect.Effect<CatalogItem> => {
  const { call, tool } = planned
  // A call that starts late (after others, a few at a time) gets what is left of the request's time.
  return Effect.flatMap(Clock.currentTimeMillis, (now) => {
    const timeoutMs = deadline - now
    return timeoutMs < 1
      ? Effect.fail(new ToolFailed({ kind: "timeout", message: "The request's timeout ran out before this call could start" }))
      : withTimeout(tool.run(planned.options, { timeoutMs }), timeoutMs)
  }).pipe(
    Effect.map((output): CatalogItem => {
      const records = output.records
      const cost = tool.perRecord ? tool.creditsCost * (records ?? 1) : tool.creditsCost
      return {
        _tag: "Done",
        provider: call.provider,
        capability: call.capability,
        creditsCost: cost,
        ...(records === undefined ? {} : { records }),
        data: output.data
      }
    }),
    Effect.catchTag("ToolFailed", (error) =>
      Effect.succeed<CatalogItem>({ _tag: "Failed", provider: call.provider, capability: call.capability, error })),
    Effect.withSpan("Catalog.call", { attributes: { provider: call.provider, capability: call.capability } })
  )
}

/** Runs a plan: every call, results in request order, the cost summed over the successes. */
export const runCatalog = (plan: CatalogPlan, timeoutMs: number): Effect.Effect<CatalogOutcome> =>
  Effect.flatMap(Clock.currentTimeMillis, (started) =>
    Effect.map(
      Effect.forEach(plan.calls, (planned) => runOne(planned, started + timeoutMs), { concurrency: callConcurrency }),
      (items) => ({
        items,
        creditsCost: items.reduce((sum, item) => sum + (item._tag === "Done" ? item.creditsCost : 0), 0)
      })
    ))
