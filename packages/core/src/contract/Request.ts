/**
 * The decoded requests the pipeline consumes: `decodeScrapeRequest` and `decodeParseOptions`
 * validate untrusted input against the wire Schemas (unknown keys rejected at every level),
 * enforce the cross-field rules (catalog exclusivity, url required), and return normalised
 * values with every default of the contract applied.
 */
import { Effect, Schema } from "effect"
import { NotSupported, scrapeError, type ScrapeError } from "../ScrapeError.ts"
import { resolveAction, type ResolvedAction } from "./Actions.ts"
import { type CatalogCallInput, CatalogInput, type ResolvedCatalogCall } from "./Catalog.ts"
import { defaultFormats, type Format, type FormatOf, type FormatType, normalizeFormat } from "./Formats.ts"
import { invalidRequest, issuesFromSchema, type RequestIssue } from "./Issues.ts"
import { defaultParsers, type ImageParser, normalizeParser, type PdfParser, type ResolvedParser } from "./Parsers.ts"
import { normalizeHttpUrl } from "./Primitives.ts"
import {
  catalogSiblingKeys,
  ParseOptionsBody,
  RedactPIIEntities,
  ScrapeRequestBody,
  scrapeOnlyKeys,
  ThreatProtection,
  TimeoutMs
} from "./RequestBodies.ts"

export const DEFAULT_TIMEOUT_MS = 60_000
export const DEFAULT_MAX_AGE_MS = 172_800_000
/** Firecrawl's action limits: 50 actions, 60 s of waiting in all, a selector wait counted as 1 s. */
export const MAX_ACTIONS = 50
export const MAX_TOTAL_WAIT_MS = 60_000
const SELECTOR_WAIT_COUNTS_MS = 1000
/** `maxAge` default under `lockdown`: 2 years. */
export const LOCKDOWN_MAX_AGE_MS = 2 * 365 * 24 * 60 * 60 * 1000

export interface ResolvedRedactPII {
  readonly mode: "accurate" | "aggressive" | "fast"
  /** Unset: every entity bucket. */
  readonly entities?: ReadonlyArray<(typeof RedactPIIEntities)[number]>
  readonly replaceStyle: "tag" | "mask" | "remove"
}

/** Options common to scrape and parse, defaults applied. */
export type CommonOptions = {
  readonly formats: ReadonlyArray<Format>
  readonly headers?: Readonly<Record<string, string>>
  readonly includeTags?: ReadonlyArray<string>
  readonly excludeTags?: ReadonlyArray<string>
  readonly onlyMainContent: boolean
  readonly parsers: ReadonlyArray<ResolvedParser>
  /** Absent when redaction is off. */
  readonly redactPII?: ResolvedRedactPII
  readonly removeBase64Images: boolean
  readonly skipTlsVerification: boolean
  readonly blockAds: boolean
  /** Milliseconds for the whole request. */
  readonly timeout: number
  readonly zeroDataRetention: boolean
  readonly origin?: string
  readonly integration?: string
  readonly auditMetadata?: { readonly username: string }
  readonly profile?: { readonly name: string; readonly saveChanges: boolean }
  readonly domainTools: boolean
  readonly fastMode?: boolean
  readonly useMock?: string
}

/** Every ScrapeOptions field of the contract, defaults applied. */
export type ScrapeOptions = CommonOptions & {
  /** Present only when the request had `actions` (then `data.actions` is returned). */
  readonly actions?: ReadonlyArray<ResolvedAction>
  readonly location?: { readonly country: string; readonly languages?: ReadonlyArray<string> }
  readonly lockdown: boolean
  readonly maxAge: number
  readonly minAge?: number
  readonly mobile: boolean
  readonly onlyCleanContent: boolean
  /** `stealth` is normalised to `enhanced`. */
  readonly proxy: "basic" | "enhanced" | "auto"
  readonly storeInCache: boolean
  readonly threatProtection?: typeof ThreatProtection.Type
  readonly waitFor: number
  readonly toolDetail: "compact" | "summary" | "full"
}

/** A normal scrape of one URL: what `decodeScrapeRequest` returns. */
export type ScrapeRequest = ScrapeOptions & {
  readonly kind: "url"
  /** Absolute http(s) URL, normalised (scheme added when missing). */
  readonly url: string
}

/** A catalog execution (`catalog` given): runs tools instead of scraping. */
export type CatalogRequest = {
  readonly kind: "catalog"
  readonly calls: ReadonlyArray<ResolvedCatalogCall>
  readonly timeout: number
  readonly origin?: string
  readonly integration?: string
}

/** Either kind of /v2/scrape body. */
export type ScrapeBody = ScrapeRequest | CatalogRequest

/** The /v2/parse options, defaults applied. */
export type ParseOptions = CommonOptions & {
  readonly proxy: "basic" | "auto"
}

const parseOptions = { onExcessProperty: "error", errors: "all" } as const

const isRecord = (u: unknown): u is Record<string, unknown> => typeof u === "object" && u !== null && !Array.isArray(u)

const CatalogRequestBody = Schema.Struct({
  catalog: CatalogInput,
  timeout: Schema.optionalKey(TimeoutMs),
  origin: Schema.optionalKey(Schema.String),
  integration: Schema.optionalKey(Schema.String)
})

const resolveRedactPII = (input: ScrapeRequestBody["redactPII"]): ResolvedRedactPII | undefined => {
  if (input === undefined || input === false) return undefined
  if (input === true) return { mode: "accurate", replaceStyle: "tag" }
  const base: ResolvedRedactPII = { mode: input.mode ?? "accurate", replaceStyle: input.replaceStyle ?? "tag" }
  return input.entities === undefined ? base : { ...base, entities: input.entities }
}

/** Drops keys whose value is undefined so optional fields are truly absent. */
const compact = <A extends object>(value: A): A =>
  Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as A

const resolveContentOptions = (body: ParseOptionsBody | ScrapeRequestBody): CommonOptions =>
  compact({
    formats: body.formats === undefined ? defaultFormats : body.formats.map((f) => normalizeFormat(f as string | { readonly type: string })),
    headers: body.headers,
    includeTags: body.includeTags,
    excludeTags: body.excludeTags,
    onlyMainContent: body.onlyMainContent ?? true,
    parsers: body.parsers === undefined ? defaultParsers : body.parsers.map(normalizeParser),
    redactPII: resolveRedactPII(body.redactPII),
    removeBase64Images: body.removeBase64Images ?? true,
    skipTlsVerification: body.skipTlsVerification ?? true,
    blockAds: body.blockAds ?? true,
    timeout: body.timeout ?? DEFAULT_TIMEOUT_MS,
    zeroDataRetention: body.zeroDataRetention ?? false,
    origin: body.origin,
    integration: body.integration,
    auditMetadata: body.auditMetadata,
    profile: body.profile === undefined ? undefined : { name: body.profile.name, saveChanges: body.profile.saveChanges ?? true },
    domainTools: body.domainTools ?? false,
    fastMode: body.fastMode,
    useMock: body.useMock
  })

const resolveUrlScrape = (body: ScrapeRequestBody, url: string): ScrapeRequest => {
  const content = resolveContentOptions(body)
  const lockdown = body.lockdown ?? false
  // Lockdown requests are treated as zero data retention (contract, `lockdown`).
  const zeroDataRetention = content.zeroDataRetention || lockdown
  // Sensitive parameters force storeInCache off: the cache must not serve one user's
  // authenticated or interacted page to another.
  const sensitive = body.actions !== undefined || body.headers !== undefined || zeroDataRetention
  return compact({
    ...content,
    kind: "url" as const,
    url,
    zeroDataRetention,
    actions: body.actions?.map(resolveAction),
    location: body.location === undefined
      ? undefined
      : compact({ country: body.location.country ?? "US", languages: body.location.languages }),
    lockdown,
    maxAge: body.maxAge ?? (lockdown ? LOCKDOWN_MAX_AGE_MS : DEFAULT_MAX_AGE_MS),
    minAge: body.minAge,
    mobile: body.mobile ?? false,
    onlyCleanContent: body.onlyCleanContent ?? false,
    proxy: body.proxy === "stealth" ? "enhanced" : body.proxy ?? "auto",
    storeInCache: sensitive ? false : body.storeInCache ?? true,
    threatProtection: body.threatProtection,
    waitFor: body.waitFor ?? 0,
    toolDetail: body.toolDetail ?? "summary"
  })
}

/** Rules across fields that a per-field Schema cannot express. */
const crossFieldIssues = (body: ScrapeRequestBody): Array<RequestIssue> => {
  const issues: Array<RequestIssue> = []
  if (body.onlyCleanContent === true && (body.zeroDataRetention === true || body.lockdown === true)) {
    issues.push({ path: ["onlyCleanContent"], message: "onlyCleanContent is not supported with zero data retention" })
  }
  const formatTypes = (body.formats ?? []).map((f) => (typeof f === "string" ? f : (f as { readonly type: string }).type))
  if (formatTypes.includes("changeTracking") && !formatTypes.includes("markdown")) {
    issues.push({ path: ["formats"], message: "The changeTracking format requires the markdown format to be specified as well" })
  }
  if (body.waitFor !== undefined && body.waitFor > (body.timeout ?? DEFAULT_TIMEOUT_MS) / 2) {
    issues.push({ path: ["waitFor"], message: "waitFor must not exceed half of timeout" })
  }
  if (body.actions !== undefined && body.actions.length > MAX_ACTIONS) {
    issues.push({ path: ["actions"], message: `at most ${MAX_ACTIONS} actions are allowed` })
  }
  const waited = (body.waitFor ?? 0) + (body.actions ?? []).reduce((sum, action) =>
    action.type !== "wait" ? sum : sum + (action.milliseconds ?? SELECTOR_WAIT_COUNTS_MS), 0)
  if (waited > MAX_TOTAL_WAIT_MS) {
    issues.push({
      path: ["actions"],
      message: `the total wait (waitFor, each wait's milliseconds, ${SELECTOR_WAIT_COUNTS_MS} ms per selector wait) must not exceed ${MAX_TOTAL_WAIT_MS} ms; this request waits ${waited} ms`
    })
  }
  return issues
}

const decodeCatalog = (input: Record<string, unknown>): Effect.Effect<CatalogRequest, ScrapeError> => {
  const issues: Array<RequestIssue> = []
  if ("catalog" in input && "alexandria" in input) {
    issues.push({ path: ["alexandria"], message: "send the calls once, in `catalog` (alexandria is its alias)" })
  }
  const { alexandria, ...rest } = input
  const body = "catalog" in rest ? rest : { ...rest, catalog: alexandria }
  for (const key of Object.keys(body)) {
    if (key !== "catalog" && !catalogSiblingKeys.includes(key)) {
      issues.push({
        path: [key],
        message: `"${key}" cannot be combined with catalog: only ${catalogSiblingKeys.join(", ")} may accompany it`
      })
    }
  }
  const onlyAllowed = Object.fromEntries(Object.entries(body).filter(([k]) => k === "catalog" || catalogSiblingKeys.includes(k)))
  const result = Schema.decodeUnknownResult(CatalogRequestBody)(onlyAllowed, parseOptions)
  if (result._tag === "Failure") issues.push(...issuesFromSchema(result.failure.issue))
  if (issues.length > 0 || result._tag === "Failure") return Effect.fail(invalidRequest("scrape request", issues))
  const decoded = result.success
  const calls: ReadonlyArray<CatalogCallInput> = Array.isArray(decoded.catalog)
    ? decoded.catalog
    : [decoded.catalog as CatalogCallInput]
  return Effect.succeed(compact({
    kind: "catalog" as const,
    calls: calls.map((c) => ({ provider: c.provider, capability: c.capability, options: c.options ?? {} })),
    timeout: decoded.timeout ?? DEFAULT_TIMEOUT_MS,
    origin: decoded.origin,
    integration: decoded.integration
  }))
}

/**
 * Validates a /v2/scrape JSON body of either kind (URL scrape or catalog execution);
 * InvalidRequest lists every issue (path + message).
 */
export const decodeScrapeBody = (input: unknown): Effect.Effect<ScrapeBody, ScrapeError> =>
  Effect.suspend((): Effect.Effect<ScrapeBody, ScrapeError> => {
    if (!isRecord(input)) {
      return Effect.fail(invalidRequest("scrape request", [{ path: [], message: "Expected a JSON object" }]))
    }
    if ("catalog" in input || "alexandria" in input) return decodeCatalog(input)
    const issues: Array<RequestIssue> = []
    if (!("url" in input)) issues.push({ path: ["url"], message: "Missing required key \"url\" (or `catalog`)" })
    const result = Schema.decodeUnknownResult(ScrapeRequestBody)(input, parseOptions)
    if (result._tag === "Failure") {
      issues.push(...issuesFromSchema(result.failure.issue))
      return Effect.fail(invalidRequest("scrape request", issues))
    }
    issues.push(...crossFieldIssues(result.success))
    const url = result.success.url === undefined ? undefined : normalizeHttpUrl(result.success.url)
    if (issues.length > 0 || url === undefined) return Effect.fail(invalidRequest("scrape request", issues))
    return Effect.succeed(resolveUrlScrape(result.success, url))
  })

/**
 * Validates a /v2/scrape JSON body for a URL scrape. A valid catalog request fails with
 * NotSupported (this server runs no catalog tools); an invalid one with InvalidRequest.
 */
export const decodeScrapeRequest = (input: unknown): Effect.Effect<ScrapeRequest, ScrapeError> =>
  Effect.flatMap(decodeScrapeBody(input), (body) =>
    body.kind === "url"
      ? Effect.succeed(body)
      : Effect.fail(scrapeError(new NotSupported({ option: "catalog", message: "Catalog tool execution is not available on this server" }))))

const scrapeOnlyMessage = (issue: RequestIssue): RequestIssue | undefined => {
  const key = issue.path[0]
  return issue.path.length === 1 && typeof key === "string" && scrapeOnlyKeys.includes(key) &&
      issue.message.startsWith("Unknown key")
    ? { path: issue.path, message: `"${key}" is a /v2/scrape option; /v2/parse does not accept it` }
    : undefined
}

/**
 * Validates the /v2/parse `options` part: a JSON object, its JSON text, or nothing (all
 * defaults). InvalidRequest lists every issue.
 */
export const decodeParseOptions = (input: unknown): Effect.Effect<ParseOptions, ScrapeError> =>
  Effect.suspend(() => {
    let value = input
    if (typeof input === "string") {
      if (input.trim() === "") value = undefined
      else {
        try {
          value = JSON.parse(input)
        } catch {
          return Effect.fail(invalidRequest("parse options", [{ path: [], message: "options is not valid JSON" }]))
        }
      }
    }
    if (value === undefined || value === null) value = {}
    if (!isRecord(value)) {
      return Effect.fail(invalidRequest("parse options", [{ path: [], message: "Expected a JSON object" }]))
    }
    const result = Schema.decodeUnknownResult(ParseOptionsBody)(value, parseOptions)
    if (result._tag === "Failure") {
      return Effect.fail(invalidRequest("parse options", issuesFromSchema(result.failure.issue, scrapeOnlyMessage)))
    }
    return Effect.succeed({ ...resolveContentOptions(result.success), proxy: result.success.proxy ?? "auto" })
  })

/** True when `formats` asks for the given format type. */
export const hasFormat = (options: { readonly formats: ReadonlyArray<Format> }, type: FormatType): boolean =>
  options.formats.some((f) => f.type === type)

/** The first requested format of the given type, with its options. */
export const getFormat = <T extends FormatType>(
  options: { readonly formats: ReadonlyArray<Format> },
  type: T
): FormatOf<T> | undefined => options.formats.find((f) => f.type === type) as FormatOf<T> | undefined

/** The effective PDF parser, or undefined when PDFs are to be returned as Base64 (`parsers: []`). */
export const pdfParser = (options: { readonly parsers: ReadonlyArray<ResolvedParser> }): PdfParser | undefined =>
  options.parsers.find((p): p is PdfParser => p.type === "pdf")

/** The image (OCR) parser when enabled. */
export const imageParser = (options: { readonly parsers: ReadonlyArray<ResolvedParser> }): ImageParser | undefined =>
  options.parsers.find((p): p is ImageParser => p.type === "image")
