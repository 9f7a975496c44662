/**
 * The wire Schemas of the two request bodies: the /v2/scrape JSON body (URL scrape or
 * catalog call) and the /v2/parse `options` part. These describe what a client may send
 * (defaults shown as annotations); `Request.ts` turns decoded bodies into the normalised
 * requests the pipeline consumes.
 */
import { Schema } from "effect"
import { Action } from "./Actions.ts"
import { CatalogInput } from "./Catalog.ts"
import { FormatOption, ParseFormatOption } from "./Formats.ts"
import { Parser } from "./Parsers.ts"
import { Headers, HttpUrl, IntAtLeast, IntBetween, StringBetween, StringList } from "./Primitives.ts"

export const Location = Schema.Struct({
  country: Schema.optionalKey(
    Schema.String.check(Schema.isPattern(/^[A-Z]{2}$/u)).annotate({
      default: "US",
      description: "ISO 3166-1 alpha-2 country code, upper case."
    })
  ),
  languages: Schema.optionalKey(StringList.annotate({ description: "Language/locale codes in order of preference." }))
}).annotate({ identifier: "Location" })

export const Profile = Schema.Struct({
  name: StringBetween(1, 128),
  saveChanges: Schema.optionalKey(Schema.Boolean.annotate({ default: true }))
}).annotate({ identifier: "Profile", description: "Persistent browser storage shared by sessions with the same name." })

export const AuditMetadata = Schema.Struct({
  username: Schema.String.check(Schema.isMaxLength(1024))
}).annotate({ identifier: "AuditMetadata" })

export const RedactPIIEntities = ["PERSON", "EMAIL", "PHONE", "LOCATION", "FINANCIAL", "SECRET"] as const

/** Same fields as the official SDK's RedactPIIOptions, so SDK users' settings carry over. */
export const RedactPIIOptions = Schema.Struct({
  mode: Schema.optionalKey(Schema.Literals(["accurate", "aggressive", "fast"]).annotate({ default: "accurate" })),
  entities: Schema.optionalKey(
    Schema.Array(Schema.Literals(RedactPIIEntities)).annotate({ description: "Entity buckets to redact; all when unset." })
  ),
  replaceStyle: Schema.optionalKey(Schema.Literals(["tag", "mask", "remove"]).annotate({
    default: "tag",
    description: "tag: `<KIND>` placeholders; mask: `*` of equal length; remove: drop the span."
  }))
}).annotate({ identifier: "RedactPIIOptions" })

export const RedactPII = Schema.Union([Schema.Boolean, RedactPIIOptions]).annotate({
  message: "Expected a boolean or a RedactPIIOptions object { mode?, entities?, replaceStyle? }"
})

const domainList = StringList.check(Schema.isMaxLength(1000))

/** Same fields as the official SDK's ThreatProtectionOptions (a per-request policy override). */
export const ThreatProtection = Schema.Struct({
  mode: Schema.optionalKey(Schema.Literals(["off", "manual-only", "normal", "zscaler"])),
  riskScoreThreshold: Schema.optionalKey(IntBetween(0, 100)),
  blacklist: Schema.optionalKey(domainList.annotate({ description: "Domains or globs (*.example.com) always blocked." })),
  whitelist: Schema.optionalKey(domainList.annotate({ description: "Domains or globs always allowed." })),
  blockedTlds: Schema.optionalKey(domainList.annotate({ description: "Lower-case TLDs without the dot." })),
  failurePolicy: Schema.optionalKey(Schema.Literals(["open", "closed"]))
}).annotate({ identifier: "ThreatProtectionOverride" })

export const Proxy = Schema.Literals(["basic", "enhanced", "auto", "stealth"]).annotate({
  default: "auto",
  description: "`stealth` is the SDK's older name for `enhanced`."
})

export const TimeoutMs = IntBetween(1000, 300_000).annotate({ default: 60_000, description: "Milliseconds." })

/** Options shared by scrape and parse, with the same types on both. */
const sharedOptionFields = {
  blockAds: Schema.optionalKey(Schema.Boolean.annotate({ default: true })),
  excludeTags: Schema.optionalKey(StringList),
  headers: Schema.optionalKey(Headers),
  includeTags: Schema.optionalKey(StringList),
  onlyMainContent: Schema.optionalKey(Schema.Boolean.annotate({ default: true })),
  parsers: Schema.optionalKey(Schema.Array(Parser).annotate({ default: [{ type: "pdf" }] })),
  redactPII: Schema.optionalKey(RedactPII.annotate({ default: false })),
  removeBase64Images: Schema.optionalKey(Schema.Boolean.annotate({ default: true })),
  skipTlsVerification: Schema.optionalKey(Schema.Boolean.annotate({ default: true })),
  timeout: Schema.optionalKey(TimeoutMs),
  zeroDataRetention: Schema.optionalKey(Schema.Boolean.annotate({ default: false })),
  integration: Schema.optionalKey(Schema.String),
  origin: Schema.optionalKey(Schema.String),
  // Keys the official SDK's option types let users send; accepted so SDK calls validate.
  auditMetadata: Schema.optionalKey(AuditMetadata),
  profile: Schema.optionalKey(Profile),
  domainTools: Schema.optionalKey(Schema.Boolean.annotate({ default: false })),
  fastMode: Schema.optionalKey(Schema.Boolean),
  useMock: Schema.optionalKey(Schema.String)
}

/** Every ScrapeOptions field, plus the request-level keys of a URL scrape. */
export const ScrapeRequestBody = Schema.Struct({
  // Required unless `catalog` is given (checked by the decoder).
  url: Schema.optionalKey(HttpUrl),
  catalog: Schema.optionalKey(CatalogInput),
  // The official SDK's name for `catalog`.
  alexandria: Schema.optionalKey(CatalogInput),
  toolDetail: Schema.optionalKey(Schema.Literals(["compact", "summary", "full"]).annotate({ default: "summary" })),
  ...sharedOptionFields,
  actions: Schema.optionalKey(Schema.Array(Action)),
  formats: Schema.optionalKey(Schema.Array(FormatOption).annotate({ default: ["markdown"] })),
  location: Schema.optionalKey(Location),
  lockdown: Schema.optionalKey(Schema.Boolean.annotate({ default: false })),
  maxAge: Schema.optionalKey(IntAtLeast(0).annotate({ default: 172_800_000, description: "Milliseconds; 2 years under lockdown." })),
  minAge: Schema.optionalKey(IntAtLeast(0).annotate({ description: "Milliseconds; cache only when set." })),
  mobile: Schema.optionalKey(Schema.Boolean.annotate({ default: false })),
  onlyCleanContent: Schema.optionalKey(Schema.Boolean.annotate({ default: false })),
  proxy: Schema.optionalKey(Proxy),
  storeInCache: Schema.optionalKey(Schema.Boolean.annotate({ default: true })),
  threatProtection: Schema.optionalKey(ThreatProtection),
  waitFor: Schema.optionalKey(IntBetween(0, 300_000).annotate({ default: 0, description: "Milliseconds." }))
}).annotate({ identifier: "ScrapeRequest" })
export type ScrapeRequestBody = typeof ScrapeRequestBody.Type

/** The /v2/parse `options` part: the spec's parse keys plus what the SDK's ParseOptions allows. */
export const ParseOptionsBody = Schema.Struct({
  ...sharedOptionFields,
  formats: Schema.optionalKey(Schema.Array(ParseFormatOption).annotate({ default: ["markdown"] })),
  proxy: Schema.optionalKey(Schema.Literals(["basic", "auto"]).annotate({ default: "auto" }))
}).annotate({ identifier: "ParseOptions" })
export type ParseOptionsBody = typeof ParseOptionsBody.Type

/** The only keys allowed beside `catalog`. */
export const catalogSiblingKeys: ReadonlyArray<string> = ["timeout", "origin", "integration"]

/** Scrape options that make no sense without a browser or a URL; named in parse's error message. */
export const scrapeOnlyKeys: ReadonlyArray<string> = Object.keys(ScrapeRequestBody.fields).filter(
  (key) => !(key in ParseOptionsBody.fields)
)
