/**
 * The headers a page request carries: browser-like defaults with the caller's `headers` on top.
 *
 * Many sites serve a stripped page, a bot wall or a different language to clients that do not
 * look like a browser, so the defaults mirror a current desktop Chrome. Names are compared
 * case-insensitively (a caller's "user-agent" replaces our "User-Agent"), and headers that
 * belong to the connection rather than the request are dropped: letting a caller set them would
 * allow request smuggling or a wrong body length. A request's `location` picks the
 * Accept-Language (`AcceptLanguage.ts`); the caller's own Accept-Language still wins.
 */
import zlib from "node:zlib"
import { acceptLanguageFor, DEFAULT_ACCEPT_LANGUAGE, type Location } from "./AcceptLanguage.ts"

/** zstd is decoded by `zlib.zstdDecompress`, which Node has from 22.15 on: it is offered only where it can be read. */
const ACCEPT_ENCODING = typeof (zlib as { zstdDecompress?: unknown }).zstdDecompress === "function" ? "gzip, deflate, br, zstd" : "gzip, deflate, br"

export const defaultRequestHeaders: Readonly<Record<string, string>> = {
  "user-agent": "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/138.0.0.0 Safari/537.36",
  accept: "text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8",
  "accept-language": DEFAULT_ACCEPT_LANGUAGE,
  "accept-encoding": ACCEPT_ENCODING,
  "upgrade-insecure-requests": "1",
  // Bot walls compare these with the User-Agent: a Chrome UA without them stands out.
  "sec-ch-ua": '"Not)A;Brand";v="8", "Chromium";v="138", "Google Chrome";v="138"',
  "sec-ch-ua-mobile": "?0",
  "sec-ch-ua-platform": '"Windows"',
  "sec-fetch-dest": "document",
  "sec-fetch-mode": "navigate",
  "sec-fetch-site": "none",
  "sec-fetch-user": "?1"
}

/** Hop-by-hop and framing headers: the HTTP client owns these. */
const reserved = new Set(["host", "connection", "content-length", "transfer-encoding", "keep-alive", "upgrade", "te", "trailer", "proxy-connection"])

const parentDomain = (host: string): string | undefined => {
  const dot = host.indexOf(".")
  const parent = dot < 0 ? undefined : host.slice(dot + 1)
  return parent !== undefined && parent.includes(".") ? parent : undefined
}

/**
 * Whether two hosts plausibly belong to one site (example.com, www.example.com, shop.example.com),
 * the scope a browser keeps a domain cookie in. Without a public-suffix list this is an
 * approximation that errs towards dropping the cookie.
 */
export const sameSite = (a: string, b: string): boolean =>
  a === b || a.endsWith(`.${b}`) || b.endsWith(`.${a}`) || (parentDomain(a) !== undefined && parentDomain(a) === parentDomain(b))

const tokenPattern = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/
// Field values: visible ASCII, spaces, tabs and obs-text; no line breaks (they would split the request).
const valuePattern = /^[\t\x20-\x7e\x80-\xff]*$/

/** The caller's headers that cannot be sent as given: a name that is no HTTP token, or a value with control or non-Latin-1 characters. */
export const invalidHeaders = (custom: Readonly<Record<string, string>> | undefined): Array<{ readonly name: string; readonly message: string }> =>
  Object.entries(custom ?? {}).flatMap(([name, value]) =>
    !tokenPattern.test(name.trim())
      ? [{ name, message: "Header name is not a valid HTTP token" }]
      : typeof value !== "string" || !valuePattern.test(value)
      ? [{ name, message: "Header value contains characters HTTP cannot carry (line breaks, control characters or characters beyond Latin-1)" }]
      : []
  )

/**
 * Defaults (with the location's Accept-Language) merged with the caller's headers; keys are
 * lower-case. Invalid headers are the caller's to reject first (`invalidHeaders`).
 */
export const mergeRequestHeaders = (
  custom: Readonly<Record<string, string>> | undefined,
  location?: Location | undefined
): Record<string, string> => {
  const merged: Record<string, string> = { ...defaultRequestHeaders }
  if (location !== undefined) merged["accept-language"] = acceptLanguageFor(location)
  for (const [name, value] of Object.entries(custom ?? {})) {
    const key = name.trim().toLowerCase()
    if (reserved.has(key) || !tokenPattern.test(key) || !valuePattern.test(value)) continue
    merged[key] = value.trim()
  }
  return merged
}

/**
 * The headers for a redirect hop, as a browser would send them: `authorization` only within
 * one origin (the Fetch standard), the caller's `cookie` only within one site.
 */
export const headersForRedirect = (headers: Readonly<Record<string, string>>, from: URL, to: URL): Record<string, string> => {
  const out: Record<string, string> = { ...headers }
  if (from.origin !== to.origin) {
    delete out["authorization"]
    delete out["proxy-authorization"]
  }
  if (!sameSite(from.hostname, to.hostname)) delete out["cookie"]
  return out
}
