/**
 * The pipeline's page cache, over the `Store`: what the fetch engine or the browser got for a
 * request is kept (the body, final URL, status, headers, time and engine; a browser's screenshot
 * with it), and a later request for the same variant is answered from it, its formats computed
 * again. `CacheRules.ts` decides the key, who may read and write, and whether a stored page fits;
 * this module does the reading and writing around the pipeline's fetch:
 *
 * - a hit is served without fetching (`cacheState: "hit"`, `cachedAt`), and marked used for the
 *   LRU bound (at most once a minute per entry);
 * - `lockdown` and `minAge` read the cache alone: a miss is `NoCachedData`, a store that cannot be
 *   read is `CacheUnavailable` (nothing is fetched either way);
 * - otherwise a miss fetches, once per process for concurrent requests of one variant (a single
 *   flight), and the page is written after the answer is on its way (forked in the layer's
 *   scope). The flight stays open until its row is written, so a request that arrives meanwhile
 *   is served the page it holds (a hit) rather than fetching again;
 * - any other store failure is logged (by cache key, never the URL) and served as a miss.
 */
import { Clock, Deferred, Effect, Exit, Option, type Scope } from "effect"
import type { ScrapeRequest } from "../contract/index.ts"
import type { EngineName } from "../EngineChoice.ts"
import type { BrowserFile, BrowserPage } from "../fetch/Browser.ts"
import type { ContentInput } from "../Routing.ts"
import { CacheUnavailable, NoCachedData, scrapeError, type ScrapeError } from "../ScrapeError.ts"
import { cacheHitFits, cacheKey, cacheOnly, cacheUse } from "./CacheRules.ts"
import type { CachedPage, CacheEntry, Store } from "./Store.ts"

/** A page as an engine got it, for the content stages. */
export interface Fetched {
  readonly input: ContentInput
  /** The main response's headers, lower-case names. */
  readonly headers: Readonly<Record<string, string>>
  readonly engine: EngineName
  /** The browser's page (for its actions and screenshot), when the browser served it. */
  readonly page?: BrowserPage | undefined
  /** A sentence for `warning` (the browser failed and the page is served as fetched, say). */
  readonly warning?: string | undefined
  /** False for an answer that must not be kept: a fallback is not the page the request asked for. */
  readonly keep: boolean
}

/** What the cache did for a request: `cachedAt` (ISO) on a hit. */
export interface CacheOutcome {
  readonly state: "hit" | "miss"
  readonly cachedAt?: string | undefined
}

/** A page for the content stages and, where the cache was asked, what it did. */
export interface Served extends Fetched {
  readonly cache?: CacheOutcome | undefined
  /** On a hit, the stored page it came from (cache key and fetch time), for `RenderedCopies`. */
  readonly entry?: string | undefined
}

export interface PageCache {
  /** The request's page: from the cache when it may be and one fits, else from `fetch` (then kept). */
  readonly serve: (request: ScrapeRequest, fetch: Effect.Effect<Fetched, ScrapeError>) => Effect.Effect<Served, ScrapeError>
}

/** What an entry keeps beside the body; JSON in the store's `meta`. */
interface EntryMeta {
  readonly engine: EngineName
  /** The wait the request asked for: a request for a shorter one may use this page. */
  readonly waitMs: number
  readonly contentType: string | undefined
  readonly contentTypeHeader: string | undefined
  readonly screenshot?: { readonly contentType: string; readonly base64: string } | undefined
}

const wantsScreenshot = (request: ScrapeRequest) => request.formats.some((f) => f.type === "screenshot")

const toEntry = (key: string, request: ScrapeRequest, fetched: Fetched, fetchedAt: number): CacheEntry => {
  const shot = fetched.page?.screenshot
  const meta: EntryMeta = {
    engine: fetched.engine,
    waitMs: fetched.engine === "browser" ? request.waitFor : 0,
    contentType: fetched.input.contentType,
    contentTypeHeader: fetched.input.contentTypeHeader,
    ...(shot === undefined ? {} : { screenshot: { contentType: shot.contentType, base64: Buffer.from(shot.bytes).toString("base64") } })
  }
  return {
    key,
    url: request.url,
    finalUrl: fetched.input.url,
    status: fetched.input.statusCode,
    headers: fetched.headers,
    body: fetched.input.bytes,
    fetchedAt,
    meta: meta as unknown as Record<string, unknown>
  }
}

const metaOf = (page: CachedPage): EntryMeta => {
  const meta = page.meta as Partial<EntryMeta>
  const text = (value: unknown) => (typeof value === "string" ? value : undefined)
  const shot = meta.screenshot
  return {
    engine: meta.engine === "browser" ? "browser" : "fetch",
    waitMs: typeof meta.waitMs === "number" ? meta.waitMs : 0,
    contentType: text(meta.contentType),
    contentTypeHeader: text(meta.contentTypeHeader) ?? page.headers["content-type"],
    screenshot: shot !== undefined && typeof shot.base64 === "string" && typeof shot.contentType === "string" ? shot : undefined
  }
}

/** A stored page as the engine's answer again; the source URL is this request's own. */
const fromEntry = (request: ScrapeRequest, page: CachedPage): Served => {
  const meta = metaOf(page)
  const screenshot: BrowserFile | undefined = meta.screenshot === undefined
    ? undefined
    : { contentType: meta.screenshot.contentType, bytes: Buffer.from(meta.screenshot.base64, "base64") }
  const input: ContentInput = {
    bytes: page.body,
    contentType: meta.contentType,
    contentTypeHeader: meta.contentTypeHeader,
    url: page.finalUrl,
    sourceURL: request.url,
    statusCode: page.status
  }
  const browserPage: BrowserPage | undefined = meta.engine === "browser"
    ? { url: page.finalUrl, status: page.status, headers: page.headers, contentType: meta.contentType, body: page.body, outputs: [], screenshot }
    : undefined
  return {
    input,
    headers: page.headers,
    engine: meta.engine,
    page: browserPage,
    keep: false,
    cache: { state: "hit", cachedAt: new Date(page.fetchedAt).toISOString() },
    entry: `${page.key}@${page.fetchedAt}`
  }
}

/** Whether a stored page answers the request: the age and wait rules, and a screenshot when one is asked for. */
const fits = (request: ScrapeRequest, page: CachedPage, now: number): boolean =>
  cacheHitFits(request, page, now) && (!wantsScreenshot(request) || metaOf(page).screenshot !== undefined)

/** What a cache-only miss answers. */
const noCachedData = (request: ScrapeRequest): ScrapeError =>
  scrapeError(
    request.lockdown
      ? new NoCachedData({ kind: "lockdown", message: "Lockdown: no cached copy of this page fits the request, and lockdown never fetches it" })
      : new NoCachedData({ kind: "minAge", message: `No cached copy of this page at least ${request.minAge} ms old fits the request (minAge)` })
  )

/** How stale an entry's last-used time may be before a hit writes it again. */
const touchEveryMs = 60_000

/** A page a flight fetched, and when (epoch ms). */
interface Landed {
  readonly fetched: Fetched
  readonly at: number
}

interface Flight {
  readonly result: Deferred.Deferred<Landed, ScrapeError>
  /** Set once the fetch is done: a request that joins later is served the page it holds. */
  landed: boolean
}

/**
 * The cache over `store`. Writes are forked in the scope this runs in (the pipeline layer's), so
 * that an answer never waits for its row, and a client that goes away does not cancel it.
 */
export const makePageCache = (store: Store["Service"]): Effect.Effect<PageCache, never, Scope.Scope> =>
  Effect.gen(function*() {
    const scope = yield* Effect.scope
    const flights = new Map<string, Flight>()

    const logStoreFailure = (what: string, key: string, error: { readonly message: string }) =>
      Effect.logWarning(`Page cache: ${what} failed; served as a miss`).pipe(
        Effect.annotateLogs({ cacheKey: key.slice(0, 16), error: error.message })
      )

    /** Writes the page (forked); `done` runs once the row is written or the write failed. */
    const keep = (key: string, request: ScrapeRequest, landed: Landed, done: () => void) =>
      store.cachePut(toEntry(key, request, landed.fetched, landed.at)).pipe(
        Effect.catch((error) => logStoreFailure("write", key, error)),
        Effect.ensuring(Effect.sync(done)),
        Effect.forkIn(scope),
        Effect.asVoid
      )

    /** Fetches for every concurrent request of one variant (see the module comment). */
    const fly = (
      request: ScrapeRequest,
      key: string,
      write: boolean,
      fetch: Effect.Effect<Fetched, ScrapeError>
    ): Effect.Effect<Served, ScrapeError> =>
      Effect.suspend(() => {
        // The variant, the wait (a minimum: requests for another wait fetch their own) and whether
        // the page may be kept (a zero-data-retention request never leads a write).
        const flightKey = JSON.stringify([key, request.waitFor, write, request.skipTlsVerification])
        const joined = flights.get(flightKey)
        if (joined !== undefined) {
          const landedAlready = joined.landed
          return Effect.exit(Deferred.await(joined.result)).pipe(
            Effect.flatMap((exit): Effect.Effect<Served, ScrapeError> => {
              if (Exit.isSuccess(exit)) {
                const { fetched, at } = exit.value
                if (!landedAlready) return Effect.succeed({ ...fetched, keep: false, cache: { state: "miss" } })
                return Effect.succeed({ ...fetched, keep: false, cache: { state: "hit", cachedAt: new Date(at).toISOString() }, entry: `${key}@${at}` })
              }
              // The leader's client went away, or its own time ran out, mid-fetch: this request fetches for itself.
              return Exit.hasInterrupts(exit) && !Exit.hasFails(exit) ? fly(request, key, write, fetch) : Effect.failCause(exit.cause)
            })
          )
        }
        const flight: Flight = { result: Deferred.makeUnsafe<Landed, ScrapeError>(), landed: false }
        flights.set(flightKey, flight)
        const land = (exit: Exit.Exit<Fetched, ScrapeError>) =>
          Effect.gen(function*() {
            const at = yield* Clock.currentTimeMillis
            const landed = Exit.map(exit, (fetched): Landed => ({ fetched, at }))
            flight.landed = true
            // A leader that ran out of its own time tells the others nothing about theirs.
            const ranOut = Option.exists(Exit.findErrorOption(exit), (error) => error.reason._tag === "TimedOut")
            if (ranOut) yield* Deferred.interrupt(flight.result)
            else yield* Deferred.done(flight.result, landed)
            const close = () => {
              if (flights.get(flightKey) === flight) flights.delete(flightKey)
            }
            if (Exit.isSuccess(landed) && write && landed.value.fetched.keep) yield* keep(key, request, landed.value, close)
            else close()
          })
        return fetch.pipe(
          Effect.onExit(land),
          Effect.map((fetched): Served => ({ ...fetched, cache: { state: "miss" } }))
        )
      })

    const serve = (request: ScrapeRequest, fetch: Effect.Effect<Fetched, ScrapeError>): Effect.Effect<Served, ScrapeError> =>
      Effect.gen(function*() {
        const use = cacheUse(request)
        const only = cacheOnly(request)
        if (!use.read) {
          // A cache-only request that may not read (its headers make it another page): nothing fits.
          if (only) return yield* Effect.fail(noCachedData(request))
          if (!use.write) return yield* fetch
          const fetched = yield* fetch
          if (fetched.keep) {
            const at = yield* Clock.currentTimeMillis
            yield* keep(cacheKey(request), request, { fetched, at }, () => {})
          }
          return fetched
        }
        const key = cacheKey(request)
        const read = yield* Effect.result(store.cacheGet(key))
        if (read._tag === "Failure") {
          if (only) {
            return yield* Effect.fail(scrapeError(new CacheUnavailable({ message: `The cache cannot be read right now: ${read.failure.message}` })))
          }
          yield* logStoreFailure("read", key, read.failure)
        }
        const now = yield* Clock.currentTimeMillis
        const found = read._tag === "Success" ? Option.filter(read.success, (page) => fits(request, page, now)) : Option.none()
        if (Option.isSome(found)) {
          // LRU to the minute: a write per hit cost more than the read (a hot page is read often).
          if (now - found.value.lastUsed > touchEveryMs) yield* store.cacheTouch(key).pipe(Effect.ignore, Effect.forkIn(scope))
          return fromEntry(request, found.value)
        }
        if (only) return yield* Effect.fail(noCachedData(request))
        return yield* fly(request, key, use.write, fetch)
      })

    return { serve }
  })
