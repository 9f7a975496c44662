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

/**
 * The URL as the scrape will fetch it: absolute http(s). A bare host ("example.com/a") is
 * read as http, the way the official service treats scheme-less input. The text is kept as
 * the client wrote it (trimmed), since it comes back as `metadata.sourceURL`.
 */
export const normalizeHttpUrl = (input: string): string | undefined => {
  const trimmed = input.trim()
  const candidate = hasScheme.test(trimmed) && !/^[^:/]+:\d+(\/|$)/.test(trimmed) ? trimmed : `http://${trimmed}`
  if (!URL.canParse(candidate)) return undefined
  const url = new URL(candidate)
  if (url.protocol !== "http:" && url.protocol !== "https:") return undefined
  if (url.hostname === "") return undefined
  return candidate
}

/** A string that is an http or https URL (scheme optional, http assumed). */
export const HttpUrl = Schema.String.annotate({
  format: "uri",
  description: "Absolute http or https URL (a bare host is read as http)."
}).check(
  Schema.makeFilter((s: string) => (normalizeHttpUrl(s) === undefined ? "Expected an http or https URL" : undefined))
)
