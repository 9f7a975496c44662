/**
 * The headers a page request carries: browser-like defaults with the caller's `headers` on top.
 *
 * Many sites serve a stripped page, a bot wall or a different language to clients that do not
 * look like a browser, so the defaults mirror a current desktop Chrome. Names are compared
 * case-insensitively (a caller's "user-agent" replaces our "User-Agent"), and headers that
 * belong to the connection rather than the request are dropped: letting a caller set them would
 * allow request smuggling or a wrong body length.
 */

export const defaultRequestHeaders: Readonly<Record<string, string>> = {
  "user-agent": "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/138.0.0.0 Safari/537.36",
  accept: "text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8",
  "accept-language": "en-US,en;q=0.9",
  "accept-encoding": "gzip, deflate, br, zstd",
  "upgrade-insecure-requests": "1"
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

/** Defaults merged with the caller's headers; keys are lower-case. */
export const mergeRequestHeaders = (custom: Readonly<Record<string, string>> | undefined): Record<string, string> => {
  const merged: Record<string, string> = { ...defaultRequestHeaders }
  for (const [name, value] of Object.entries(custom ?? {})) {
    const key = name.trim().toLowerCase()
    if (key === "" || reserved.has(key)) continue
    // A header value with a line break would split the request; refuse it silently like fetch() drops it.
    if (/[\r\n\0]/.test(value)) continue
    merged[key] = value
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
