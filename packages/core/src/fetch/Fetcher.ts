/**
 * The fetch engine of /v2/scrape: GETs a URL over HTTP(S) the way a browser's first request
 * would, following redirects, within the request's time budget, and refusing to reach private
 * networks unless configured to.
 *
 * What it guarantees: the final URL after redirects; the target's status and headers as data
 * (a 404 page is a successful fetch); a decompressed body no larger than the cap; one typed
 * `ScrapeError` otherwise (UrlBlocked, TimedOut, FetchFailed with a kind). The SSRF check runs
 * on every hop, on IP literals before connecting and on DNS answers inside the socket's lookup.
 * Immediate refreshes (meta tag or header) count as redirects, since a browser follows them
 * before showing anything; cookies set along the way are sent back within the one fetch.
 */
import type { Agent as HttpAgentType } from "node:http"
import http from "node:http"
import https from "node:https"
import { Config, Context, Effect, Layer, type Scope } from "effect"
import { FetchFailed, InvalidRequest, ScrapeError, scrapeError, TimedOut, UrlBlocked } from "../ScrapeError.ts"
import { fetchFailure } from "./FetchFailure.ts"
import { exchange, type ExchangeResult } from "./HttpExchange.ts"
import { RedirectCookies } from "./RedirectCookies.ts"
import type { Location } from "./AcceptLanguage.ts"
import { headersForRedirect, invalidHeaders, mergeRequestHeaders } from "./RequestHeaders.ts"
import { refreshTarget } from "./MetaRefresh.ts"
import { isBadPort, urlPort } from "./PortPolicy.ts"
import { blockedLiteral, makeGuardedLookup } from "./SafeLookup.ts"

export interface FetchOptions {
  /** Caller headers, merged over browser-like defaults (case-insensitive). */
  readonly headers?: Readonly<Record<string, string>>
  /** Epoch ms by which the whole fetch (DNS, connect, TLS, redirects, body) must be done. */
  readonly deadline: number
  readonly skipTlsVerification: boolean
  /** Cap on the body in bytes, on the wire and decoded; default 25 MB for pages, 60 MB for documents. */
  readonly maxBytes?: number
  /** Overrides the layer's private-address policy for this fetch. */
  readonly allowPrivate?: boolean
  /** The request's `location`: sets Accept-Language unless `headers` has one (no geo proxy yet). */
  readonly location?: Location | undefined
  /** Follow an immediate `<meta http-equiv="refresh">` / `Refresh` header redirect as a browser would; default true. */
  readonly followRefresh?: boolean
}

export interface FetchResponse {
  /** The final URL, after redirects. */
  readonly url: string
  readonly status: number
  /** Lower-case names; repeated headers joined with ", ". */
  readonly headers: Record<string, string>
  /** Lower-case MIME essence of Content-Type ("text/html"), undefined when absent. */
  readonly contentType: string | undefined
  /** The decompressed body. */
  readonly body: Uint8Array
}

export interface FetcherConfig {
  /** Allow loopback, private, link-local and other internal addresses (local use, tests). */
  readonly allowPrivate: boolean
  /** Origins ("http://10.0.0.5:8080") exempt from the private-address rule, e.g. an internal docs server. */
  readonly allowedOrigins?: ReadonlyArray<string>
  /** Redirect hops followed before giving up; 10 unless set. */
  readonly maxRedirects?: number
}

export interface FetcherService {
  fetch(url: string, options: FetchOptions): Effect.Effect<FetchResponse, ScrapeError>
}

const DEFAULT_MAX_REDIRECTS = 10

/** Parses the target and keeps to http(s): file:, data:, gopher: and friends are not fetched. */
const parseTarget = (raw: string): Effect.Effect<URL, ScrapeError> => {
  if (!URL.canParse(raw)) {
    return Effect.fail(scrapeError(new InvalidRequest({ message: `Invalid URL: ${raw}`, details: [{ path: ["url"], message: "Invalid URL" }] })))
  }
  return checkScheme(new URL(raw))
}

const checkScheme = (url: URL): Effect.Effect<URL, ScrapeError> =>
  url.protocol === "http:" || url.protocol === "https:"
    ? Effect.succeed(url)
    : Effect.fail(scrapeError(new UrlBlocked({ url: url.href, message: `Refusing to fetch ${url.href}: only http and https URLs can be scraped` })))

/** Refuses, before connecting, an internal IP literal or a port that belongs to another protocol. */
const checkTarget = (url: URL): Effect.Effect<void, ScrapeError> => {
  const blocked = blockedLiteral(url)
  if (blocked !== undefined) {
    return Effect.fail(scrapeError(new UrlBlocked({
      url: url.href,
      message: `Refusing to fetch ${url.href}: ${blocked.address} is ${blocked.range}. Set STRATA_ALLOW_PRIVATE_URLS=1 to allow private addresses.`
    })))
  }
  if (isBadPort(url)) {
    return Effect.fail(scrapeError(new UrlBlocked({ url: url.href, message: `Refusing to fetch ${url.href}: port ${urlPort(url)} belongs to another protocol (mail, DNS, shell...)` })))
  }
  return Effect.void
}

const withoutFragment = (url: URL): string => url.href.replace(/#.*$/, "")

/** Where a 2xx HTML page immediately refreshes to, when that is another http(s) document. */
const immediateRefresh = (response: FetchResponse, url: URL): URL | undefined => {
  if (response.status < 200 || response.status > 299) return undefined
  if (response.contentType !== "text/html" && response.contentType !== "application/xhtml+xml") return undefined
  const target = refreshTarget(response.body, response.headers["content-type"], response.headers["refresh"], url)
  if (target === undefined || (target.protocol !== "http:" && target.protocol !== "https:")) return undefined
  return withoutFragment(target) === withoutFragment(url) ? undefined : target
}

const timedOut = (url: URL): ScrapeError =>
  scrapeError(new TimedOut({ message: `Fetching ${url.href} did not finish within the request's timeout` }))

/** Builds the service; its keep-alive agents are closed when the scope closes. */
export const makeFetcher = (config: FetcherConfig): Effect.Effect<FetcherService, never, Scope.Scope> =>
  Effect.gen(function*() {
    const allowedOrigins = new Set((config.allowedOrigins ?? []).filter((o) => URL.canParse(o)).map((o) => new URL(o).origin))
    const maxRedirects = config.maxRedirects ?? DEFAULT_MAX_REDIRECTS
    const guardedLookup = makeGuardedLookup()
    // Separate pools per policy: a socket opened without the guard must never serve a guarded request.
    const agents = yield* Effect.acquireRelease(
      Effect.sync(() => {
        const options = { keepAlive: true, maxFreeSockets: 16, scheduling: "lifo" as const }
        return {
          open: { http: new http.Agent(options), https: new https.Agent(options) },
          guarded: { http: new http.Agent(options), https: new https.Agent(options) }
        }
      }),
      (a) => Effect.sync(() => [a.open.http, a.open.https, a.guarded.http, a.guarded.https].forEach((agent) => agent.destroy()))
    )

    const hop = (url: URL, headers: Record<string, string>, open: boolean, options: FetchOptions) =>
      Effect.tryPromise({
        try: async (interrupt): Promise<ExchangeResult> => {
          const remaining = options.deadline - Date.now()
          if (remaining <= 0) throw timedOut(url)
          const deadline = AbortSignal.timeout(remaining)
          const pool = open ? agents.open : agents.guarded
          const agent: HttpAgentType = url.protocol === "https:" ? pool.https : pool.http
          try {
            return await exchange({
              url,
              headers,
              agent,
              lookup: open ? undefined : guardedLookup,
              rejectUnauthorized: !options.skipTlsVerification,
              maxBytes: options.maxBytes,
              signal: AbortSignal.any([interrupt, deadline])
            })
          } catch (error) {
            if (deadline.aborted) throw timedOut(url)
            throw fetchFailure(error, url.href)
          }
        },
        catch: (error) => fetchFailure(error, url.href)
      })

    const fetch = (rawUrl: string, options: FetchOptions): Effect.Effect<FetchResponse, ScrapeError> =>
      Effect.gen(function*() {
        let url = yield* parseTarget(rawUrl)
        const invalid = invalidHeaders(options.headers)
        if (invalid.length > 0) {
          return yield* Effect.fail(scrapeError(new InvalidRequest({
            message: `Invalid headers: ${invalid.map((h) => h.name).join(", ")}`,
            details: invalid.map((h) => ({ path: ["headers", h.name], message: h.message }))
          })))
        }
        const allowPrivate = options.allowPrivate ?? config.allowPrivate
        let headers = mergeRequestHeaders(options.headers, options.location)
        const cookies = new RedirectCookies()
        const withCookies = (target: URL): Record<string, string> => {
          const fromJar = cookies.headerFor(target)
          if (fromJar === undefined) return headers
          return { ...headers, cookie: headers.cookie === undefined ? fromJar : `${headers.cookie}; ${fromJar}` }
        }
        // A hop repeats only if the URL and the cookies sent are the same: "set cookie, redirect to self" is progress.
        const seen = new Set<string>()
        const stateKey = (target: URL): string => `${withoutFragment(target)} ${withCookies(target).cookie ?? ""}`
        for (let hops = 0; ; hops++) {
          const open = allowPrivate || allowedOrigins.has(url.origin)
          if (!open) yield* checkTarget(url)
          const sent = withCookies(url)
          seen.add(stateKey(url))
          const result = yield* hop(url, sent, open, options)
          cookies.store(url, result.setCookie)
          let next: URL
          let response: FetchResponse | undefined
          if (result._tag === "Response") {
            response = { url: url.href, status: result.status, headers: result.headers, contentType: result.contentType, body: result.body }
            const refresh = options.followRefresh === false ? undefined : immediateRefresh(response, url)
            if (refresh === undefined) return response
            next = refresh
          } else {
            if (!URL.canParse(result.location, url)) {
              return yield* Effect.fail(scrapeError(new FetchFailed({ kind: "protocol", url: url.href, message: `${url.href} redirects to an invalid URL: ${result.location}` })))
            }
            next = yield* checkScheme(new URL(result.location, url))
          }
          // A fragment-less Location keeps the fragment of the URL that redirected (RFC 9110 10.2.2).
          if (next.hash === "" && url.hash !== "") next.hash = url.hash
          const loop = seen.has(stateKey(next))
          if (loop || hops + 1 > maxRedirects) {
            // A refresh that goes nowhere new leaves the page it is on: that page is the result.
            if (response !== undefined) return response
            return yield* Effect.fail(scrapeError(new FetchFailed({
              kind: "redirects",
              url: rawUrl,
              message: loop ? `Redirect loop: ${rawUrl} leads back to ${next.href}` : `Too many redirects: ${rawUrl} redirected more than ${maxRedirects} times`
            })))
          }
          headers = headersForRedirect(headers, url, next)
          url = next
        }
      }).pipe(Effect.withSpan("Fetcher.fetch", { attributes: { url: rawUrl } }))

    return { fetch }
  })

/**
 * The policy from the environment: `STRATA_ALLOW_PRIVATE_URLS` set to 1/true/yes/on lifts the
 * private-address rule; `STRATA_ALLOWED_ORIGINS` (comma-separated origins) exempts just those.
 */
export const fetchPolicyFromEnv: Effect.Effect<FetcherConfig> = Config.all({
  allowPrivate: Config.String("STRATA_ALLOW_PRIVATE_URLS").pipe(Config.withDefault("")),
  allowedOrigins: Config.String("STRATA_ALLOWED_ORIGINS").pipe(Config.withDefault(""))
}).pipe(
  Config.map(({ allowPrivate, allowedOrigins }) => ({
    allowPrivate: /^(1|true|yes|on)$/i.test(allowPrivate.trim()),
    allowedOrigins: allowedOrigins.split(",").map((o) => o.trim()).filter((o) => o !== "")
  })),
  Effect.orElseSucceed(() => ({ allowPrivate: false }))
)

export class Fetcher extends Context.Service<Fetcher, FetcherService>()("@strata/core/Fetcher") {
  /** The production engine; reads STRATA_ALLOW_PRIVATE_URLS and STRATA_ALLOWED_ORIGINS when built. */
  static readonly layer: Layer.Layer<Fetcher> = Layer.effect(Fetcher, Effect.flatMap(fetchPolicyFromEnv, makeFetcher))

  /** The engine with an explicit policy (tests, embedding). */
  static readonly layerWith = (config: FetcherConfig): Layer.Layer<Fetcher> => Layer.effect(Fetcher, makeFetcher(config))
}
