/**
 * One JSON line per request: when, the request id, method, path (never the query string),
 * status, milliseconds, the key's non-secret id, and what the handler added (target URL unless
 * the request asked for zero data retention, error code). Never headers, keys or bodies, and never
 * the user name or password of a URL (`https://user:pass@host/` is logged as `https://host/`).
 */

export interface RequestLogEntry {
  readonly requestId: string
  readonly method: string
  readonly path: string
  readonly status: number
  readonly ms: number
  readonly keyId?: string | undefined
  readonly [field: string]: unknown
}

/**
 * The authority's user information of every URL in `text`, removed. The match runs to the last
 * `@` before the path, as URL parsers read it, so a password holding `@` goes entirely.
 */
const userInfo = /\b([a-z][a-z0-9+.-]*:\/\/)[^\s/\\?#]*@/gi
export const withoutCredentials = (text: string): string => (text.includes("@") ? text.replace(userInfo, "$1") : text)

/** Strings anywhere in a logged value, credentials removed (handlers add free text such as failures). */
const scrub = (value: unknown): unknown => {
  if (typeof value === "string") return withoutCredentials(value)
  if (Array.isArray(value)) return value.map(scrub)
  if (value !== null && typeof value === "object") return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, scrub(v)]))
  return value
}

export const writeRequestLog = (write: (line: string) => void, entry: RequestLogEntry): void => {
  const level = entry.status >= 500 ? "error" : entry.status >= 400 ? "warn" : "info"
  write(JSON.stringify({ time: new Date().toISOString(), level, msg: "request", ...(scrub(entry) as RequestLogEntry) }))
}
