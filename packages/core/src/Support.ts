/**
 * What this server implements. Options the contract accepts but the server cannot honour yet
 * are refused with a clear 400 that names them: never silently ignored.
 */
import { Effect } from "effect"
import type { CommonOptions, ParseOptions, ScrapeRequest } from "./contract/index.ts"
import { NotSupported, scrapeError, type ScrapeError } from "./ScrapeError.ts"

/**
 * Formats the pipeline produces today (`screenshot` needs the browser engine: the pipeline refuses
 * it without one). summary, question, highlights, json and the deprecated query are derived from
 * the markdown, by a language model when one is configured, else offline (`derived/`).
 * `changeTracking` needs the state store: the pipeline refuses it without one. `branding` needs the
 * browser engine, and `audio` and `video` ffmpeg (`media/`): refused at run time without them.
 */
const SUPPORTED_FORMATS: ReadonlySet<string> = new Set([
  "markdown", "html", "rawHtml", "links", "rawBase64", "screenshot", "summary", "question", "highlights", "json", "query", "product", "menu",
  "changeTracking", "branding", "audio", "video"
])

const refuse = (option: string, why: string): Effect.Effect<never, ScrapeError> =>
  Effect.fail(scrapeError(new NotSupported({ option, message: `The option \`${option}\` is not supported by this server yet: ${why}` })))

const truthy = (value: unknown): boolean =>
  value !== undefined && value !== null && value !== false && !(Array.isArray(value) && value.length === 0)

/** Checks the options shared by scrape and parse. */
const checkCommon = (request: CommonOptions): Effect.Effect<void, ScrapeError> =>
  Effect.gen(function*() {
    for (const format of request.formats) {
      if (!SUPPORTED_FORMATS.has(format.type)) {
        yield* refuse(`formats: ${format.type}`, "this server produces markdown, html, rawHtml, links, rawBase64, screenshot, summary, question, highlights, json, query, product, menu, changeTracking, branding, audio and video")
      }
    }
  })

export const checkScrapeSupported = (request: ScrapeRequest): Effect.Effect<void, ScrapeError> =>
  Effect.gen(function*() {
    // A catalog request never gets here: decodeScrapeRequest refuses it.
    // The HTTP server lists its catalog's tools itself (packages/http/src/CatalogRoute.ts) and takes
    // the flag off before it gets here; the library has no catalog.
    if (request.domainTools === true) {
      yield* refuse("domainTools", "the tools it lists are the HTTP server's catalog (POST /v2/scrape on `strata serve`); the library has none")
    }
    yield* checkCommon(request)
    // `actions`, `waitFor`, `mobile` and the screenshot format need the browser engine: the
    // pipeline refuses them when it has none (EngineChoice.ts), since only it knows.
    if (request.proxy === "enhanced") yield* refuse("proxy: enhanced", "this server fetches directly, without proxies")
    // `location` is honoured in part: its languages become the fetch's Accept-Language (no geo proxy).
    // `lockdown` and `minAge` read the cache: the pipeline refuses them when it has no store.
  })

export const checkParseSupported = (options: ParseOptions): Effect.Effect<void, ScrapeError> => checkCommon(options)
