/**
 * Small reusable Schemas of the contract: bounded integers, the http(s) URL of a scrape,
 * string lists. Kept in one place so limits read the same in validation messages and in
 * the generated OpenAPI document.
 */
import { Schema } from "effect"

/** An integer in [minimum, maximum] (both inclusive). */
export const IntBetween = (minimum: number, maximum: number) =>
  Schema.Int.check(Schema.isBetween({ minimum, maximum }))

/** An integer >= minimum. */
export const IntAtLeast = (minimum: number) => Schema.Int.check(Schema.isGreaterThanOrEqualTo(minimum))

/** A string of length in [minimum, maximum]. */
export const StringBetween = (minimum: number, maximum: number) =>
  Schema.String.check(Schema.isBetweenLength(minimum, maximum))

export const StringList = Schema.Array(Schema.String)

const headerName = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/
const badHeaderValue = /[\r\n\0]/

/**
 * Headers sent with the page request: a flat string-to-string map. Names and values are
 * checked here so a bad header is a 400, not a failure deep inside the fetch.
 */
export const Headers = Schema.Record(Schema.String, Schema.String).check(
  Schema.makeFilter((headers: Readonly<Record<string, string>>) =>
    Object.entries(headers).flatMap(([name, value]) =>
      !headerName.test(name)
        ? [{ path: [name], issue: "Expected an HTTP header name (a token)" }]
        : badHeaderValue.test(value)
        ? [{ path: [name], issue: "Header values must not contain CR, LF or NUL" }]
        : []
    )
  )
).annotate({ description: "Headers sent with the page request (for example cookies, user agent)." })

/** Free-form JSON object (JSON Schema documents, catalog tool options). */
export const JsonObject = Schema.Record(Schema.String, Schema.Unknown)

const hasScheme = /^[a-zA-Z][a-zA-Z0-9+.-]*:/
const ipv4 = /^\d{1,3}(\.\d{1,3}){3}$/
/** A last label of two or more letters, digits or hyphens (`com`, `de`, `xn--p1ai`). */
const topLevelDomain = /\.[\p{L}\p{N}-]{2,}\.?$/u

/** Messages of the two ways a URL can be refused; the second is Firecrawl's wording. */
export const NOT_HTTP_URL = "Expected an http or https URL"
export const NO_TOP_LEVEL_DOMAIN = "URL must have a valid top-level domain or be a valid path"

/**
 * Hosts a scrape can reach without a top-level domain: IP literals (after the URL parser has
 * normalised `127.1` and `0x7f.0.0.1`) and `localhost`. Firecrawl refuses `http://example` at
 * validation; refusing it here too gives a 400 instead of a DNS failure later.
 */
const hasReachableHost = (hostname: string): boolean =>
  ipv4.test(hostname) || hostname.startsWith("[") || hostname === "localhost" || hostname.endsWith(".localhost") ||
  topLevelDomain.test(hostname)

const candidateOf = (input: string): string => {
  const trimmed = input.trim()
  return hasScheme.test(trimmed) && !/^[^:/]+:\d+(\/|$)/.test(trimmed) ? trimmed : `http://${trimmed}`
}

/** Why `input` is not a URL a scrape can fetch, or undefined when it is one. */
export const httpUrlProblem = (input: string): string | undefined => {
  const candidate = candidateOf(input)
  if (!URL.canParse(candidate)) return NOT_HTTP_URL
  const url = new URL(candidate)
  if (url.protocol !== "http:" && url.protocol !== "https:") return NOT_HTTP_URL
  if (url.hostname === "") return NOT_HTTP_URL
  if (!hasReachableHost(url.hostname)) return NO_TOP_LEVEL_DOMAIN
  return undefined
}

/**
 * The URL as the scrape will fetch it: absolute http(s) with a top-level domain (or an IP
 * literal, or localhost). A bare host ("example.com/a") is read as http, the way the official
 * service treats scheme-less input. The text is kept as the client wrote it (trimmed), since
 * it comes back as `metadata.sourceURL`.
 */
export const normalizeHttpUrl = (input: string): string | undefined =>
  httpUrlProblem(input) === undefined ? candidateOf(input) : undefined

/** A string that is an http or https URL (scheme optional, http assumed) with a top-level domain. */
export const HttpUrl = Schema.String.annotate({
  format: "uri",
  description: "Absolute http or https URL (a bare host is read as http). The host needs a top-level domain, unless it is an IP address or localhost."
}).check(Schema.makeFilter(httpUrlProblem))
