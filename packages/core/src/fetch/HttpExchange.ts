/**
 * One request/response exchange of a fetch: a GET to one URL, no redirect following.
 *
 * The fetcher calls it once per redirect hop. A redirect comes back with its Location unread
 * (its body is discarded); any other status comes back with its whole, decoded body: the
 * target's 404 or 500 is data for the caller, not a failure of the fetch.
 */
import http, { type IncomingHttpHeaders, type IncomingMessage } from "node:http"
import https from "node:https"
import { isIP, type LookupFunction } from "node:net"
import { defaultMaxBytes, readBody } from "./ResponseBody.ts"
import { connectHost } from "./SafeLookup.ts"

export interface ExchangeRequest {
  readonly url: URL
  /** Lower-case names; `host` is set here from the URL. */
  readonly headers: Readonly<Record<string, string>>
  readonly agent: http.Agent
  /** Undefined: the system resolver, unguarded. */
  readonly lookup: LookupFunction | undefined
  readonly rejectUnauthorized: boolean
  /** Undefined: the default cap for the response's content type. */
  readonly maxBytes: number | undefined
  /** Aborts the request and the body download (deadline or interruption). */
  readonly signal: AbortSignal
}

export type ExchangeResult =
  | { readonly _tag: "Redirect"; readonly status: number; readonly location: string; readonly setCookie: ReadonlyArray<string> }
  | {
    readonly _tag: "Response"
    readonly status: number
    readonly headers: Record<string, string>
    readonly contentType: string | undefined
    readonly setCookie: ReadonlyArray<string>
    readonly body: Uint8Array
  }

const redirectStatuses = new Set([301, 302, 303, 307, 308])

/** Real-world headers (cookies, CSPs) outgrow Node's 16 KB default. */
const maxHeaderSize = 64 * 1024

/** The lower-case MIME essence of a Content-Type value ("text/html; charset=utf-8" -> "text/html"). */
export const mimeEssence = (contentType: string | undefined): string | undefined => {
  const essence = contentType?.split(";")[0].trim().toLowerCase()
  return essence === undefined || essence === "" ? undefined : essence
}

/** Flattens Node's header object: one string per name, repeated values joined with ", ". */
const flattenHeaders = (headers: IncomingHttpHeaders): Record<string, string> => {
  const out: Record<string, string> = {}
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined) out[name] = Array.isArray(value) ? value.join(", ") : value
  }
  return out
}

const openResponse = (request: ExchangeRequest): Promise<IncomingMessage> =>
  new Promise((resolve, reject) => {
    const { url } = request
    const host = connectHost(url)
    const secure = url.protocol === "https:"
    const options: https.RequestOptions = {
      protocol: url.protocol,
      host,
      port: url.port === "" ? undefined : Number(url.port),
      path: `${url.pathname}${url.search}`,
      method: "GET",
      headers: { ...request.headers, host: url.host },
      agent: request.agent,
      ...(request.lookup === undefined ? {} : { lookup: request.lookup }),
      maxHeaderSize,
      // Browsers read responses llhttp's strict mode rejects (stray spaces, bare LFs); a scraper must too.
      insecureHTTPParser: true,
      signal: request.signal
    }
    if (url.username !== "" || url.password !== "") options.auth = `${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`
    if (secure) {
      options.rejectUnauthorized = request.rejectUnauthorized
      // SNI carries names only; sending an IP literal there is a protocol error.
      if (isIP(host) === 0) options.servername = host
    }
    const outgoing = (secure ? https : http).request(options, resolve)
    outgoing.once("error", (error: Error & { reusedSocket?: boolean }) => {
      error.reusedSocket = outgoing.reusedSocket
      reject(error)
    })
    outgoing.end()
  })

/**
 * A keep-alive socket the server closed while it sat in the pool fails on first use with a
 * reset; the request never reached the server, so a GET is retried once on a fresh socket.
 */
const openWithRetry = async (request: ExchangeRequest): Promise<IncomingMessage> => {
  try {
    return await openResponse(request)
  } catch (error) {
    const e = error as NodeJS.ErrnoException & { reusedSocket?: boolean }
    if (e.reusedSocket === true && (e.code === "ECONNRESET" || e.code === "EPIPE") && !request.signal.aborted) return openResponse(request)
    throw error
  }
}

/** Performs one GET and, unless it is a redirect, reads the body under the size cap. */
export const exchange = async (request: ExchangeRequest): Promise<ExchangeResult> => {
  const response = await openWithRetry(request)
  const status = response.statusCode ?? 0
  const setCookie = response.headers["set-cookie"] ?? []
  const location = response.headers.location
  if (redirectStatuses.has(status) && location !== undefined && location.trim() !== "") {
    // The redirect's own body is never needed; dropping the socket is cheaper than draining an unknown amount.
    response.destroy()
    return { _tag: "Redirect", status, location: location.trim(), setCookie }
  }
  const contentTypeHeader = response.headers["content-type"]
  const contentType = mimeEssence(contentTypeHeader)
  const maxBytes = request.maxBytes ?? defaultMaxBytes(contentType)
  const body = await readBody(response, request.url.href, maxBytes, request.signal)
  return { _tag: "Response", status, headers: flattenHeaders(response.headers), contentType, setCookie, body }
}
