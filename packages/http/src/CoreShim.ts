/**
 * TEMPORARY: stands in for `Pipeline` and `openApiDocument` until @strata/core exports them.
 * Same service key as core's Pipeline, so a core Pipeline layer satisfies it at run time; the
 * OpenAPI document is core's as soon as core has one.
 */
import * as core from "@strata/core"
import type { ScrapeError } from "@strata/core"
import { Context, type Effect } from "effect"

export type ScrapeData = Record<string, unknown>

export class Pipeline extends Context.Service<Pipeline, {
  readonly scrape: (request: unknown) => Effect.Effect<ScrapeData, ScrapeError>
  readonly parse: (
    file: { readonly bytes: Uint8Array; readonly fileName: string; readonly contentType?: string | undefined },
    options: unknown
  ) => Effect.Effect<ScrapeData, ScrapeError>
}>()("@strata/core/Pipeline") {}

const coreOpenApi = (core as Record<string, unknown>).openApiDocument as (() => object) | undefined

export const hasOpenApiDocument = coreOpenApi !== undefined

export const openApiDocument = (): object =>
  coreOpenApi?.() ?? { openapi: "3.0.0", info: { title: "Strata", version: "v2" }, paths: {} }
