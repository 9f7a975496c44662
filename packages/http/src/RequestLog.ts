/**
 * One JSON line per request: when, the request id, method, path (never the query string),
 * status, milliseconds, the key's non-secret id, and what the handler added (target URL unless
 * the request asked for zero data retention, error code). Never headers, keys or bodies.
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

export const writeRequestLog = (write: (line: string) => void, entry: RequestLogEntry): void => {
  const level = entry.status >= 500 ? "error" : entry.status >= 400 ? "warn" : "info"
  write(JSON.stringify({ time: new Date().toISOString(), level, msg: "request", ...entry }))
}
