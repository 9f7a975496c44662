/**
 * The `changeTracking` format in the pipeline: after a scrape's formats are made, its markdown
 * (and, in `json` mode, the values extracted with the format's schema) replace the last snapshot
 * the `Store` keeps for the team, normalised URL and tag, in one swap (`Store.changeSwap`), and
 * `data.changeTracking` says what changed since that snapshot (`ChangeRules.ts`).
 *
 * - The team is `ChangeTrackingTeam`: the server sets it to the caller's; a library call is the
 *   default team's.
 * - Zero data retention (and lockdown, which implies it) writes nothing: the format is answered
 *   with a warning only, as Firecrawl does.
 * - Only scrapes that ask for `changeTracking` are kept (Firecrawl keeps every markdown scrape);
 *   a snapshot is the last scrape's markdown and json values, nothing else of the page.
 * - json mode asks `deriveJson` (the projection's language model when one is configured, else the
 *   deterministic offline extraction, and then `warning` says so), unless the page's markdown is
 *   the snapshot's (normalised) and the snapshot has values for the same schema and prompt: those
 *   are kept, so an unchanged page costs no model call. The previous values are the snapshot's
 *   when it was extracted with the same schema and prompt; else they are extracted from the
 *   snapshot's markdown.
 * - A store that cannot be read or written leaves the format out, with a warning: the page is
 *   still an answer.
 */
import { Clock, Context, Effect, Option } from "effect"
import type { Format, ScrapeData, ScrapeRequest } from "../contract/index.ts"
import type { Derived, DerivedInput } from "../derived/DerivedFormats.ts"
import { RequestDeadline, type JsonWanted } from "../FormatProjection.ts"
import { changeStatus, comparable, isRemovedStatus, jsonChanges, markdownDiff, schemaKeyOf } from "./ChangeRules.ts"
import { normalizeCacheUrl } from "./CacheRules.ts"
import { defaultTeamId, type PageSnapshot, type Store } from "./Store.ts"

/** The team whose history a scrape reads and writes; `default` outside the server. */
export const ChangeTrackingTeam = Context.Reference<string>("@strata/core/ChangeTrackingTeam", { defaultValue: () => defaultTeamId })

type Tracked = NonNullable<ScrapeData["changeTracking"]>

export type TrackingFormat = Extract<Format, { readonly type: "changeTracking" }>

/** The request's changeTracking format, if it asks for one. */
export const trackingFormat = (formats: ReadonlyArray<Format>): TrackingFormat | undefined =>
  formats.find((format): format is TrackingFormat => format.type === "changeTracking")

/** json for a schema and prompt, as the projection derives the `json` format. */
export type JsonExtractor = (input: DerivedInput, wanted: JsonWanted) => Effect.Effect<Derived>

export interface TrackInput {
  readonly request: ScrapeRequest
  /** The scrape's `data`, its formats made. */
  readonly data: ScrapeData
  /** The page's markdown (a streamed document's is gathered from its page events). */
  readonly markdown: string
  /** An HTML page's text: the offline json reads its structured data (JSON-LD, tables, meta). */
  readonly html?: string | undefined
  /** When the request must be answered by (epoch ms): what a language model may use. */
  readonly deadline: number
}

const zdrWarning = "changeTracking: not supported with zero data retention; nothing was compared and nothing was kept"
const offlineWarning =
  "changeTracking: the json values were extracted offline (no language model is configured, or it failed), from the page's structured data and `Key: value` lines"

const withWarnings = (data: ScrapeData, warnings: ReadonlyArray<string>): ScrapeData => {
  const all = [data.warning, ...warnings].filter((w): w is string => typeof w === "string" && w !== "")
  return all.length === 0 ? data : { ...data, warning: all.join("; ") }
}

/** Extraction warnings say which format they are about. */
const ownWarnings = (derived: Derived): ReadonlyArray<string> =>
  derived.warnings.map((w) => w.replace(/^json:\s*/, "changeTracking json: "))

/** The model's token counts, added to any the json format already reported. */
const usageOf = (metadata: Readonly<Record<string, unknown>>, extractions: ReadonlyArray<Derived>): Record<string, unknown> => {
  const used = extractions.filter((d) => typeof d.metadata.llmCalls === "number")
  if (used.length === 0) return {}
  const sum = (field: string) =>
    used.reduce((total, d) => total + Number(d.metadata[field] ?? 0), typeof metadata[field] === "number" ? metadata[field] : 0)
  return {
    llmModel: used[0]!.metadata.llmModel,
    llmCalls: sum("llmCalls"),
    llmPromptTokens: sum("llmPromptTokens"),
    llmCompletionTokens: sum("llmCompletionTokens")
  }
}

export const makeChangeHistory = (store: Store["Service"], extract: JsonExtractor) => {
  const track: (input: TrackInput) => Effect.Effect<ScrapeData> = Effect.fn("ChangeHistory.track")(function*(input: TrackInput) {
    const { data, request } = input
    const format = trackingFormat(request.formats)
    if (format === undefined) return data
    if (request.zeroDataRetention) return withWarnings(data, [zdrWarning])
    const status = typeof data.metadata?.statusCode === "number" ? data.metadata.statusCode : 200
    const removed = isRemovedStatus(status)
    const jsonMode = format.modes.includes("json")
    const wanted: JsonWanted = { schema: format.schema, prompt: format.prompt }
    const schemaKey = schemaKeyOf(wanted)
    const url = typeof data.metadata?.url === "string" ? data.metadata.url : request.url
    // redactPII: the HTML was not redacted, the markdown was; the values come from the markdown alone.
    const html = request.redactPII === undefined ? input.html : undefined
    const run = (effect: Effect.Effect<Derived>) => Effect.provideService(effect, RequestDeadline, input.deadline)

    const key = { teamId: yield* ChangeTrackingTeam, url: normalizeCacheUrl(request.url), tag: format.tag ?? "" }

    const extractions: Array<Derived> = []
    /** The values this scrape's snapshot keeps, and what extracted them. */
    let values: PageSnapshot["json"] = undefined
    if (jsonMode && !removed) {
      // The page unchanged since the snapshot (normalised) has the snapshot's values: no second
      // extraction (a model call) for a page that did not change. A failed peek only costs that.
      const peeked = yield* Effect.result(store.changePeek(key))
      const peek = peeked._tag === "Success" ? Option.getOrUndefined(peeked.success) : undefined
      const unchanged = peek !== undefined && !peek.removed && peek.json?.schemaKey === schemaKey &&
        comparable(peek.markdown) === comparable(input.markdown)
      if (unchanged) values = peek.json
      else {
        const current = yield* run(extract({ markdown: input.markdown, html, url }, wanted))
        extractions.push(current)
        values = { schemaKey, values: current.fields.json ?? null, by: String(current.metadata.jsonBy ?? "structured-data") }
      }
    }

    const next: PageSnapshot = { markdown: input.markdown, json: values, status, removed, scrapedAt: yield* Clock.currentTimeMillis }
    const swapped = yield* Effect.result(store.changeSwap(key, next))
    if (swapped._tag === "Failure") {
      yield* Effect.logWarning("changeTracking: the history store failed").pipe(Effect.annotateLogs({ error: swapped.failure.message }))
      return withWarnings(data, [`changeTracking: the page's history could not be read or written (${swapped.failure.message}); try again later`])
    }
    const previous = Option.getOrUndefined(swapped.success)
    const changed = changeStatus(previous, { markdown: input.markdown, status })
    const warnings: Array<string> = []
    const result: { -readonly [K in keyof Tracked]: Tracked[K] } = {
      changeStatus: changed,
      previousScrapeAt: previous === undefined ? null : new Date(previous.scrapedAt).toISOString(),
      visibility: "visible"
    }

    if (format.modes.includes("git-diff") && changed === "changed" && previous !== undefined) {
      const diff = markdownDiff(previous.markdown, input.markdown)
      result.diff = diff.text
      if (diff.warning !== undefined) warnings.push(diff.warning)
    }

    if (jsonMode) {
      const kept = previous?.json?.schemaKey === schemaKey ? previous.json : undefined
      let before: unknown = kept?.values ?? null
      if (previous !== undefined && kept === undefined && previous.markdown.trim() !== "") {
        // The snapshot was kept without values for this schema: they come from its markdown.
        const earlier = yield* run(extract({ markdown: previous.markdown, url }, wanted))
        extractions.push(earlier)
        before = earlier.fields.json ?? null
      }
      // The same page (normalised) has the same values: a model's second reading of it is not a change.
      const after = changed === "same" && kept !== undefined ? kept.values : values?.values ?? null
      result.json = jsonChanges(format.schema, before, after)
      warnings.push(...extractions.flatMap(ownWarnings))
      const offline = [values?.by, kept?.by, ...extractions.map((d) => d.metadata.jsonBy)].some((by) => by !== undefined && by !== "model")
      if (offline) warnings.push(offlineWarning)
    }

    const metadata = { ...data.metadata, ...usageOf(data.metadata ?? {}, extractions) }
    return withWarnings({ ...data, metadata: metadata as ScrapeData["metadata"], changeTracking: result }, warnings)
  })

  return { track }
}
