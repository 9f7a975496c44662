/**
 * POST /v2/scrape with `catalog`: runs one to ten catalog tools instead of a scrape, and the
 * `domainTools` addition to an ordinary scrape. Everything that can refuse the request does so
 * before any tool runs, in this order: the body (400: `catalog` beside scrape options, bad calls),
 * the team's access (403 when catalog access is off or zero data retention is on), every call's
 * provider and capability (404 `unknown_provider`) and options (400), the providers' terms
 * (403 `THIRD_PARTY_DATA_TERMS_REQUIRED` with `requiresAction`), then what metering refuses
 * (`x-request-id` replays and conflicts, 402 for a team whose credits do not cover the calls'
 * declared cost, the concurrency queue). The calls run, and the sum of what the successful ones
 * cost is charged once (Metering.ts).
 *
 * The answer is `{ success, scrape_id, data: { catalog, creditsCost } }`; a request sent with the
 * `alexandria` key (the official SDK's name for it) also gets `data.alexandria`.
 */
import {
  type CatalogItem,
  type CatalogOutcome,
  CatalogDenied,
  CatalogError,
  CatalogRegistry,
  chargeIdFor,
  type ContentEvent,
  checkTerms,
  decodeScrapeBody,
  domainToolsFor,
  Pipeline,
  planCatalog,
  runCatalog,
  type ScrapeData,
  type ScrapeRequest,
  Store,
  type Team,
  TermsRequired
} from "@strata/core"
import { Effect, Stream } from "effect"
import { randomUUID } from "node:crypto"
import type { BilledOptions } from "./Billing.ts"
import { catalogErrorReply, scrapeErrorReply, termsUnavailable, toolErrorBody } from "./ErrorReply.ts"
import { meteredWork } from "./Metering.ts"
import { respondError } from "./Reply.ts"
import { RequestContext } from "./RequestContext.ts"

/** Whether a JSON body asks for catalog calls rather than a scrape. */
export const isCatalogBody = (body: unknown): boolean =>
  typeof body === "object" && body !== null && !Array.isArray(body) && ("catalog" in body || "alexandria" in body)

/** Why a team may not call the catalog (or list domain tools), if it may not. */
export const catalogDenial = (team: Team | undefined, zeroDataRetention: boolean): CatalogError | undefined => {
  if (team !== undefined && !team.catalog) {
    return new CatalogError({
      reason: new CatalogDenied({
        why: "no_access",
        message: `Catalog access is not enabled for your team; an administrator enables it with: strata teams set ${team.id} --catalog on`
      })
    })
  }
  if (zeroDataRetention || team?.zdr === true) {
    return new CatalogError({
      reason: new CatalogDenied({ why: "zero_data_retention", message: "Catalog tools do not support zero data retention." })
    })
  }
  return undefined
}

/** Metering's options for a catalog request: nothing of a scrape's costs applies, only the timeout. */
const catalogBilling = (timeout: number): BilledOptions => ({
  formats: [],
  onlyMainContent: true,
  parsers: [],
  removeBase64Images: true,
  skipTlsVerification: false,
  blockAds: false,
  timeout,
  zeroDataRetention: false,
  domainTools: false
})

const itemBody = (item: CatalogItem): Record<string, unknown> =>
  item._tag === "Done"
    ? {
      provider: item.provider,
      capability: item.capability,
      creditsCost: item.creditsCost,
      ...(item.records === undefined ? {} : { records: item.records }),
      data: item.data
    }
    : { provider: item.provider, capability: item.capability, creditsCost: 0, error: toolErrorBody(item.error) }

const answer = (outcome: CatalogOutcome, alias: boolean) => {
  const items = outcome.items.map(itemBody)
  return {
    success: true,
    scrape_id: randomUUID(),
    data: { catalog: items, ...(alias ? { alexandria: items } : {}), creditsCost: outcome.creditsCost }
  }
}

export const catalogRoute = (body: Record<string, unknown>) =>
  Effect.gen(function*() {
    const context = yield* RequestContext
    const registry = yield* CatalogRegistry
    const store = yield* Store
    const team = context.team
    const chargeId = team !== undefined && context.idempotencyKey !== undefined ? chargeIdFor(team.id, context.idempotencyKey) : undefined
    const refuse = (error: CatalogError) => {
      context.logFields.code = error.reason._tag
      return respondError(catalogErrorReply(error, chargeId))
    }
    const decoded = yield* Effect.result(decodeScrapeBody(body))
    if (decoded._tag === "Failure") return yield* respondError(scrapeErrorReply(decoded.failure, "scrape"))
    const request = decoded.success
    if (request.kind !== "catalog") return yield* Effect.die(new Error("a catalog body decoded as a scrape"))
    const denied = catalogDenial(team, false)
    if (denied !== undefined) return yield* refuse(denied)
    const planned = yield* Effect.result(planCatalog(registry, request.calls))
    if (planned._tag === "Failure") {
      const error = planned.failure
      return yield* (error._tag === "CatalogError" ? refuse(error) : respondError(scrapeErrorReply(error, "scrape")))
    }
    const plan = planned.success
    if (plan.terms.length > 0) {
      const first = plan.terms[0]
      // Without the team (its store unreachable) acceptance cannot be shown: refused as not accepted.
      if (team === undefined) {
        return yield* refuse(new CatalogError({
          reason: new TermsRequired({
            provider: first.provider,
            version: first.terms.version,
            url: first.terms.url,
            message: `The terms of provider "${first.provider}" must be accepted for your team before it can be called.`
          })
        }))
      }
      const accepted = yield* Effect.result(store.acceptedTerms(team.id))
      if (accepted._tag === "Failure") return yield* respondError(termsUnavailable(chargeId))
      const checked = yield* Effect.result(checkTerms(plan, accepted.success))
      if (checked._tag === "Failure") return yield* refuse(checked.failure)
    }
    const alias = "alexandria" in body
    context.logFields.catalogCalls = request.calls.length
    return yield* meteredWork(
      {
        route: "scrape",
        params: { catalog: request.calls, timeout: request.timeout, alias },
        options: catalogBilling(request.timeout),
        least: plan.needed
      },
      (timeoutMs) => runCatalog(plan, timeoutMs),
      (outcome) => outcome.creditsCost,
      (outcome) => answer(outcome, alias)
    )
  })

/**
 * A `domainTools` scrape's `data.tools`: the contracts of the site-bound tools matching the
 * requested URL or where the page ended up. Free, and never fails the scrape.
 */
const withDomainTools = (registry: CatalogRegistry["Service"], request: ScrapeRequest, data: ScrapeData) => {
  const finalUrl = typeof data.metadata?.url === "string" ? [data.metadata.url] : []
  return Effect.map(domainToolsFor(registry, [request.url, ...finalUrl]), (tools) => ({ ...data, tools }) as ScrapeData)
}

/**
 * What a scrape body's `domainTools` asks of the route. The pipeline does not list tools (the
 * registry is the server's), so `domainTools: true` is taken off the body before it is validated
 * and the route's pipeline adds `data.tools` instead; a team that may not use the catalog is refused.
 */
export const domainToolsOf = (body: unknown, team: Team | undefined, zeroDataRetention: boolean):
  | { readonly _tag: "Refused"; readonly error: CatalogError }
  | { readonly _tag: "Plain"; readonly body: unknown }
  | { readonly _tag: "Listed"; readonly body: unknown } => {
  if (typeof body !== "object" || body === null || (body as Record<string, unknown>).domainTools !== true) return { _tag: "Plain", body }
  const denied = catalogDenial(team, zeroDataRetention)
  if (denied !== undefined) return { _tag: "Refused", error: denied }
  const { domainTools: _, ...rest } = body as Record<string, unknown>
  return { _tag: "Listed", body: rest }
}

/** The pipeline with `data.tools` added to every scrape it answers (`domainTools: true`). */
export const listingDomainTools = (pipeline: Pipeline["Service"]) =>
  Effect.gen(function*() {
    const registry = yield* CatalogRegistry
    return Pipeline.of({
      ...pipeline,
      scrape: (request) => Effect.flatMap(pipeline.scrape(request), (data) => withDomainTools(registry, request, data)),
      scrapeStream: (request) =>
        Stream.mapEffect(pipeline.scrapeStream(request), (event): Effect.Effect<ContentEvent> =>
          event.type === "done"
            ? Effect.map(withDomainTools(registry, request, event.data), (data) => ({ type: "done" as const, data }))
            : Effect.succeed(event))
    })
  })
