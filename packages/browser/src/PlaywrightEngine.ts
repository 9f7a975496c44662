/**
 * The browser engine: Debian's Chromium driven by Playwright, behind core's `BrowserEngine`.
 *
 * One Chromium process, launched on the first render (a server that never needs it never
 * starts it), stopped after `idleMs` without a render (its memory goes back), and launched
 * again when it has exited: the render that was in flight fails with
 * `BrowserFailed: crashed`, the next one gets a new browser. Renders run in their own browser
 * context (cookies, storage, cache apart), at most `concurrency` at a time; a context lives in
 * the render's scope, so it is closed on success, failure, timeout and interruption alike.
 * Every request the page makes goes through the SSRF proxy (`GuardProxy.ts`).
 *
 * A render with default options (desktop, no location, headers, profile or TLS exemption, ads
 * blocked: the automatic choice's renders) takes a spare context made ahead of it, with its page,
 * CDP session and user agent already set up; the next spare is made while that render's page
 * settles after its navigation (or once it ends, when it never got there). A spare
 * serves one render and is closed with it, as a new context would be, so nothing a page stores
 * reaches another request. bench/browser/phases.ts measured that set-up at ~650 ms of the ~1.6 s
 * of a render at 1 at a time (new page ~470 ms, user agent and CDP session ~155 ms, context
 * ~30 ms), the largest part of the overhead against a bare Playwright loop; the spare moves it
 * off the request's path while the server fetches the page first. It does not lower Chromium's
 * CPU per page, so throughput at several renders at once (bound by CPU here) hardly moves.
 */
import {
  BrowserEngine,
  Interactions,
  ProfileTeam,
  type BrowserEngineService,
  BrowserFailed,
  type BrowserPage,
  DEFAULT_ACCEPT_LANGUAGE,
  DEFAULT_MAX_DOCUMENT_BYTES,
  type BrowserRequest,
  FetchFailed,
  fetchPolicyFromEnv,
  invalidHeaders,
  InvalidRequest,
  mimeEssence,
  scrapeError,
  type ScrapeError,
  UrlBlocked
} from "@strata/core"
import { Config, Context, Effect, Exit, Fiber, Layer, Option, Scope, Semaphore } from "effect"
import { availableParallelism, totalmem } from "node:os"
import { readFile, stat } from "node:fs/promises"
import { type Browser, type BrowserContextOptions, type CDPSession, chromium, type Download, type Page, type Response } from "playwright-core"
import { runActions, screenshot, type Tabs, trackTab } from "./ActionRunner.ts"
import { type AdBlocker, buildAdBlocker, removeBanners } from "./AdBlock.ts"
import { AdBlockLists } from "./CosmeticRules.ts"
import { captureDocuments, type DocumentCapture } from "./DocumentCapture.ts"
import { sampleBranding } from "./BrandingScript.ts"
import { desktopOptions, mobileOptions, placeOptions } from "./Emulation.ts"
import { type GuardPolicy, type GuardProxy, startGuardProxy } from "./GuardProxy.ts"
import { makeInteractions, type OpenSession, type SessionOptions } from "./InteractSessions.ts"
import { makeProfileStore } from "./Profiles.ts"
import { DEFAULT_WAIT, mutationClockScript, settle, SMART_WAIT_MAX_MS, type WaitTuning } from "./SmartWait.ts"
import { contentOf, crashed, failureOf, messageOf, probe, remaining, type Run, step } from "./Steps.ts"

export interface BrowserOptions {
  /** The Chromium executable. Default: `STRATA_CHROMIUM_PATH`, else `/usr/bin/chromium`. */
  readonly chromiumPath?: string | undefined
  /** Pages rendered at once. Default: `STRATA_BROWSER_CONCURRENCY`, else from cores and memory. */
  readonly concurrency?: number | undefined
  /** The address policy for every request a page makes. Default: the fetch engine's (`STRATA_ALLOW_PRIVATE_URLS`, `STRATA_ALLOWED_ORIGINS`). */
  readonly policy?: GuardPolicy | undefined
  /** How long Chromium may take to start, ms. Default 30,000. */
  readonly launchTimeoutMs?: number | undefined
  /** Stop Chromium after this long without a render, ms (the next render starts it again). Default 300,000. */
  readonly idleMs?: number | undefined
  /** Where browser profiles are kept (`{dataDir}/profiles`). Default: `STRATA_DATA_DIR`, else `./data`. */
  readonly dataDir?: string | undefined
  /** Interact sessions: how many at once (default: `concurrency`) and how long they live (InteractSessions.ts). */
  readonly interact?: Partial<SessionOptions> | undefined
  /** The smart wait's windows (`SmartWait.ts`); the defaults are bench/browser's choice. */
  readonly smartWait?: Partial<WaitTuning> | undefined
  /** Keep a spare context ready for the next render with default options (see above). Default true. */
  readonly spareContext?: boolean | undefined
  /** Told, for each render, whether it took a spare made ahead of it or made its context (bench/browser and the tests count them). */
  readonly onContext?: ((source: "spare" | "new") => void) | undefined
}

export const DEFAULT_CHROMIUM_PATH = "/usr/bin/chromium"
export const DEFAULT_IDLE_MS = 300_000

/** Two pages per core, and no more than one per 512 MB of memory (a busy page's renderer takes 100-300 MB), 1 to 16. */
export const defaultConcurrency = (): number =>
  Math.max(1, Math.min(16, availableParallelism() * 2, Math.floor(totalmem() / 2 ** 29)))

const chromiumArgs = [
  // Containers give /dev/shm 64 MB; Chromium's shared memory then runs out and tabs crash.
  "--disable-dev-shm-usage",
  // WebRTC could reach private addresses by UDP, around the proxy.
  "--force-webrtc-ip-handling-policy=disable_non_proxied_udp",
  "--webrtc-ip-handling-policy=disable_non_proxied_udp",
  "--disable-background-networking",
  "--no-first-run",
  "--mute-audio"
]

const isHtml = (contentType: string | undefined): boolean =>
  contentType === undefined || contentType === "text/html" || contentType === "application/xhtml+xml"

/** Hop-by-hop and framing headers belong to the connection, which Chromium owns (the fetch engine drops them too). */
const reserved = new Set(["host", "connection", "content-length", "transfer-encoding", "keep-alive", "upgrade", "te", "trailer", "proxy-connection", "proxy-authorization"])

/** A `cookie` header as cookies of the page's site, and the other headers as they came (less the connection's). */
const splitCookies = (headers: Readonly<Record<string, string>>, url: string) => {
  const cookies: Array<{ name: string; value: string; url: string }> = []
  const rest: Record<string, string> = {}
  for (const [name, value] of Object.entries(headers)) {
    if (reserved.has(name.trim().toLowerCase())) continue
    if (name.toLowerCase() !== "cookie") {
      rest[name] = value
      continue
    }
    for (const pair of value.split(";")) {
      const at = pair.indexOf("=")
      if (at > 0) cookies.push({ name: pair.slice(0, at).trim(), value: pair.slice(at + 1).trim(), url })
    }
  }
  return { cookies, rest }
}

const hasHeader = (headers: Readonly<Record<string, string>>, name: string): string | undefined =>
  Object.entries(headers).find(([key]) => key.toLowerCase() === name)?.[1]

/**
 * A request whose context has the default options, so a spare made ahead of it serves it exactly
 * once its TLS setting matches too. `skipTlsVerification` is the one context option whose default
 * differs between the API (true, as Firecrawl's) and library callers (false), so the spare follows
 * the last request's: a spare made with it off never served the server's renders, which paid the
 * whole set-up (~500 ms a render at load 15, between the fetch engine's request and Chromium's).
 */
const takesSpare = (request: BrowserRequest): boolean =>
  (request.headers === undefined || Object.keys(request.headers).length === 0) && !request.mobile && request.location === undefined &&
  request.profile === undefined && request.blockAds !== false

/** The request a spare is made for: default options, no page yet, TLS checked or not as the last render asked. */
const spareRequest = (skipTlsVerification: boolean): BrowserRequest => ({ url: "about:blank", skipTlsVerification, mobile: false, waitFor: 0, actions: [] })
/** How long making a spare may take. */
const SPARE_DEADLINE_MS = 30_000

/** What a failed main navigation was, from Chromium's net error and what the proxy refused. */
const navigationFailure = (run: Run, proxy: GuardProxy, failedUrl: string | undefined) => (error: unknown): ScrapeError => {
  const message = messageOf(error)
  const url = failedUrl ?? run.url
  const target = URL.canParse(url) ? new URL(url) : undefined
  const refusal = target === undefined ? undefined : proxy.refusalFor(`${target.hostname}:${target.port || (target.protocol === "https:" ? 443 : 80)}`)
  if (refusal?.kind === "blocked") {
    return scrapeError(new UrlBlocked({ url, message: `Refusing to fetch ${url}: ${refusal.message}. Set STRATA_ALLOW_PRIVATE_URLS=1 to allow private addresses.` }))
  }
  if (refusal !== undefined) return scrapeError(new FetchFailed({ kind: refusal.kind, url, message: `Could not fetch ${url}: ${refusal.message}` }))
  const kind = /ERR_NAME_NOT_RESOLVED/.test(message) ? "dns" as const
    : /ERR_(CERT|SSL)/.test(message) ? "tls" as const
    : /Download is starting/.test(message) ? "protocol" as const
    : "connection" as const
  return scrapeError(new FetchFailed({ kind, url, message: `Could not load ${url} in the browser: ${message}` }))
}

/** The main response's failure when the proxy answered for it (plain HTTP). */
const proxyAnswer = (response: Response | null, url: string): ScrapeError | undefined => {
  if (response === null) return undefined
  const headers = response.headers()
  const blocked = headers["x-strata-blocked"]
  if (blocked !== undefined) {
    return scrapeError(new UrlBlocked({ url: response.url(), message: `Refusing to fetch ${response.url()}: ${blocked}. Set STRATA_ALLOW_PRIVATE_URLS=1 to allow private addresses.` }))
  }
  const failed = headers["x-strata-proxy-error"]
  if (failed === "dns" || failed === "connection") {
    return scrapeError(new FetchFailed({ kind: failed, url, message: `Could not fetch ${response.url()}: ${failed === "dns" ? "the host name could not be resolved" : "the connection failed"}` }))
  }
  return undefined
}

/** The Accept-Language a page sends: the caller's own, else the place's list, else the fetch engine's default. */
const acceptLanguageOf = (request: BrowserRequest): string =>
  hasHeader(request.headers ?? {}, "accept-language") ??
    (request.location === undefined ? DEFAULT_ACCEPT_LANGUAGE : placeOptions(request.location).acceptLanguage)

/**
 * A navigation that became a download (a PDF, an attachment): the file as the body, with the
 * response's type and status, for the content stages to read like a fetched document. Actions and
 * screenshots need a page, and a download has none, so they are skipped (Firecrawl: "Actions are
 * not supported for PDFs").
 */
const downloadedFile = (download: Download, response: Response | null, run: Run): Effect.Effect<BrowserPage, ScrapeError> =>
  Effect.gen(function*() {
    const url = download.url()
    const bytes = yield* step(run, async () => {
      const path = await download.path()
      const { size } = await stat(path)
      if (size > DEFAULT_MAX_DOCUMENT_BYTES) throw new TooLarge(size)
      return new Uint8Array(await readFile(path))
    }, (error) =>
      error instanceof TooLarge
        ? scrapeError(new FetchFailed({ kind: "too_large", url, message: `${url} is larger than the limit of ${DEFAULT_MAX_DOCUMENT_BYTES / 2 ** 20} MB` }))
        : scrapeError(new FetchFailed({ kind: "connection", url, message: `Could not download ${url} in the browser: ${messageOf(error)}` })))
    const headers = response === null ? {} : yield* probe(() => response.allHeaders(), response.headers())
    return {
      url,
      status: response?.status() ?? 200,
      headers,
      contentType: mimeEssence(headers["content-type"]) ?? "application/octet-stream",
      body: bytes,
      outputs: [],
      downloaded: true
    }
  })

const probeSync = <A>(call: () => A): A | undefined => {
  try {
    return call()
  } catch {
    return undefined
  }
}

class TooLarge extends Error {
  readonly size: number
  constructor(size: number) {
    super(`${size} bytes`)
    this.size = size
  }
}

/** Builds the engine; Chromium and the proxy stop when the scope closes. */
export const make = (options: BrowserOptions & { readonly policy: GuardPolicy }) => Effect.map(build(options), ({ engine }) => engine)

/** The engine, and what interact sessions need from it: the same browser, proxy and profiles. */
const build = (options: BrowserOptions & { readonly policy: GuardPolicy }) =>
  Effect.gen(function*() {
    const proxy = yield* startGuardProxy(options.policy)
    const chromiumPath = options.chromiumPath ?? DEFAULT_CHROMIUM_PATH
    const concurrency = Math.max(1, options.concurrency ?? defaultConcurrency())
    const pages = yield* Semaphore.make(concurrency)
    const profiles = makeProfileStore(options.dataDir ?? "./data")
    const launching = yield* Semaphore.make(1)
    const tuning: WaitTuning = { ...DEFAULT_WAIT, ...options.smartWait }
    // Built on the first render that blocks ads (~230 ms), then shared by every render (and by the
    // fetch engine's pages, when the layer is given the same `AdBlockLists`).
    const lists = yield* Effect.serviceOption(AdBlockLists)
    const adBlocker = Option.isSome(lists) ? lists.value.blocker : yield* Effect.cached(Effect.sync(() => buildAdBlocker()))
    let current: Browser | undefined
    // Settles when that browser's process has gone, so a render waiting on a timer still learns of a crash.
    const exited = new WeakMap<Browser, Promise<void>>()

    yield* Effect.addFinalizer(() => probe(() => current?.close() ?? Promise.resolve(), undefined))

    // Renders under way, and when the last one ended: an idle browser is stopped.
    let active = 0
    let lastUsed = Date.now()
    const idleMs = Math.max(1000, options.idleMs ?? DEFAULT_IDLE_MS)
    const stopIfIdle = launching.withPermit(Effect.suspend(() => {
      const idle = current
      if (idle === undefined || active > 0 || Date.now() - lastUsed < idleMs) return Effect.void
      current = undefined
      const old = spare
      spare = undefined
      return Effect.andThen(old === undefined ? Effect.void : discard(old), probe(() => idle.close(), undefined))
    }))
    yield* Effect.forkScoped(Effect.forever(Effect.andThen(Effect.sleep(Math.min(idleMs, 30_000)), stopIfIdle)))

    const launch = Effect.tryPromise({
      // A launch whose request gave up (interrupted at its deadline) closes the browser it gets, rather than leak it.
      try: (signal) =>
        chromium.launch({
          executablePath: chromiumPath,
          headless: true,
          args: chromiumArgs,
          proxy: { server: proxy.url, ...proxy.credentials },
          timeout: options.launchTimeoutMs ?? 30_000
        }).then(async (launched) => {
          if (!signal.aborted) return launched
          await launched.close().catch(() => undefined)
          throw new Error("the request that launched Chromium gave up")
        }),
      catch: (error) =>
        scrapeError(new BrowserFailed({ kind: "launch", message: `Chromium could not start from ${chromiumPath} (set STRATA_CHROMIUM_PATH): ${messageOf(error)}` }))
    })

    /** The running browser, launched now if there is none or the last one exited. */
    const browser = launching.withPermit(Effect.suspend(() =>
      current !== undefined && current.isConnected()
        ? Effect.succeed(current)
        : Effect.map(launch, (launched) => {
          current = launched
          exited.set(launched, new Promise((resolve) => launched.once("disconnected", () => resolve())))
          return launched
        })
    ))

    const contextOptions = (request: BrowserRequest, launched: Browser): { options: BrowserContextOptions & { userAgent: string }; cookies: ReturnType<typeof splitCookies>["cookies"] } => {
      const device = request.mobile ? mobileOptions(launched.version()) : desktopOptions(launched.version())
      const place = request.location === undefined ? undefined : placeOptions(request.location)
      const { cookies, rest } = splitCookies(request.headers ?? {}, request.url)
      const headers: Record<string, string> = { ...rest }
      if (place !== undefined && hasHeader(rest, "accept-language") === undefined) headers["accept-language"] = place.acceptLanguage
      const userAgent = hasHeader(rest, "user-agent")
      return {
        cookies,
        options: {
          ...device,
          locale: "en-US",
          ...place?.options,
          userAgent: userAgent ?? (device.userAgent as string),
          extraHTTPHeaders: headers,
          ignoreHTTPSErrors: request.skipTlsVerification,
          serviceWorkers: "block",
          // A download is the navigation's answer when the URL is a PDF or an attachment (deleted with the context).
          acceptDownloads: true
        }
      }
    }

    /** The request's context; the ad-block route judges a request with no frame URL against `source.url`. */
    const openContext = (run: Run, request: BrowserRequest, source: { url: string }) =>
      Effect.acquireRelease(
        Effect.gen(function*() {
          const { options: contextOpts, cookies } = contextOptions(request, run.browser)
          // A profile's saved cookies and localStorage, read only (an interact session saves, InteractSessions.ts).
          const storageState = request.profile === undefined ? undefined : yield* profiles.load(yield* ProfileTeam, request.profile.name)
          const context = yield* step(run, () => run.browser.newContext({ ...contextOpts, storageState }))
          if (cookies.length > 0) yield* step(run, () => context.addCookies(cookies))
          yield* step(run, () => context.addInitScript(mutationClockScript))
          if (request.blockAds !== false) {
            const blocker = yield* adBlocker
            yield* step(run, () => context.route("**/*", (route) => {
              const sent = route.request()
              const frame = probeSync(() => sent.frame())
              // The page's own document is what was asked for, whatever the lists say of its host.
              if (sent.isNavigationRequest() && frame?.parentFrame() === null) return route.fallback()
              const frameUrl = frame?.url() ?? ""
              return blocker.blocks(sent.url(), sent.resourceType(), frameUrl.startsWith("http") ? frameUrl : source.url)
                ? route.abort("blockedbyclient")
                : route.fallback()
            }))
          }
          return { context, userAgent: contextOpts.userAgent }
        }),
        ({ context }) => probe(() => context.close(), undefined)
      )

    /**
     * The request's context with its page and CDP session, the user agent and Accept-Language set.
     * The user agent is the one the context was given (asking the page for it cost a round trip
     * into a renderer that had not run a script yet).
     */
    const prepare = (run: Run, request: BrowserRequest) =>
      Effect.gen(function*() {
        const source = { url: request.url }
        const { context, userAgent } = yield* openContext(run, request, source)
        const page = yield* step(run, () => context.newPage())
        // Playwright sends the locale alone as Accept-Language, over any header; send the whole list, as
        // the fetch engine does. Chromium weighs the tags itself (0.1 less each, as AcceptLanguage.ts does).
        const acceptLanguage = acceptLanguageOf(request).split(",").map((tag) => tag.split(";")[0].trim()).filter((tag) => tag !== "").join(",")
        const session = yield* step(run, async () => {
          const session = await context.newCDPSession(page)
          await session.send("Emulation.setUserAgentOverride", { userAgent, acceptLanguage })
          return session
        })
        return { context, page, session, source }
      })
    type Prepared = Effect.Success<ReturnType<typeof prepare>>

    // The spare: made in its own scope (it outlives the fiber that makes it), closed by the render that takes it.
    const useSpares = options.spareContext !== false
    const layerScope = yield* Effect.scope
    interface Spare { readonly browser: Browser; readonly skipTls: boolean; readonly fiber: Fiber.Fiber<{ readonly prepared: Prepared; readonly scope: Scope.Closeable }, ScrapeError> }
    let spare: Spare | undefined
    /** The TLS setting of the last render that could take a spare: the next spare is made with it (the API's default until one came). */
    let spareTls = true
    const makeSpare = (launched: Browser, skipTls: boolean) =>
      Effect.gen(function*() {
        const scope = yield* Scope.make()
        const request = spareRequest(skipTls)
        const run: Run = { browser: launched, deadline: Date.now() + SPARE_DEADLINE_MS, url: request.url }
        const prepared = yield* prepare(run, request).pipe(Scope.provide(scope), Effect.onError(() => Scope.close(scope, Exit.void)))
        return { prepared, scope }
      })
    /** Closes a spare nobody will use (its browser gone or stopped), off the caller's path. */
    const discard = (old: Spare) =>
      Effect.forkIn(
        Effect.flatMap(Effect.exit(Fiber.join(old.fiber)), (exit) => (Exit.isSuccess(exit) ? Scope.close(exit.value.scope, Exit.void) : Effect.void)),
        layerScope
      )
    /** Starts the next spare when there is none and the browser runs. */
    const refill = Effect.suspend(() => {
      const launched = current
      if (!useSpares || spare !== undefined || launched === undefined || !launched.isConnected()) return Effect.void
      const skipTls = spareTls
      return Effect.flatMap(Effect.forkIn(makeSpare(launched, skipTls), layerScope), (fiber) => {
        const made = { browser: launched, skipTls, fiber }
        if (spare === undefined) {
          spare = made
          return Effect.void
        }
        return Effect.asVoid(discard(made))
      })
    })
    /** The spare for this browser, once made; undefined when there is none or it did not come up. */
    const takeSpare = (launched: Browser, skipTls: boolean) =>
      Effect.suspend(() => {
        spareTls = skipTls
        const taken = spare
        spare = undefined
        if (taken === undefined) return Effect.succeed(undefined)
        if (taken.browser !== launched || taken.skipTls !== skipTls) return Effect.as(discard(taken), undefined)
        return Effect.flatMap(Effect.exit(Fiber.join(taken.fiber)), (exit) => {
          if (Exit.isFailure(exit)) return Effect.succeed(undefined)
          if (launched.isConnected() && !exit.value.prepared.page.isClosed()) return Effect.succeed(exit.value)
          return Effect.as(Scope.close(exit.value.scope, Exit.void), undefined)
        })
      })

    /** Renders the page with its viewer documents kept as they came (`DocumentCapture.ts`); the keeping stops with the render. */
    const renderPage = (page: Page, session: CDPSession, run: Run, request: BrowserRequest, blocker: AdBlocker | undefined, navigated: Effect.Effect<void>): Effect.Effect<BrowserPage, ScrapeError> =>
      Effect.acquireUseRelease(
        probe(() => captureDocuments(session, proxy.credentials), undefined),
        (capture) => renderCaptured(page, session, run, request, blocker, capture, navigated),
        (capture) => Effect.sync(() => capture?.stop())
      )

    const renderCaptured = (page: Page, session: CDPSession, run: Run, request: BrowserRequest, blocker: AdBlocker | undefined, capture: DocumentCapture | undefined, navigated: Effect.Effect<void>): Effect.Effect<BrowserPage, ScrapeError> =>
      Effect.gen(function*() {
        const first = trackTab(page)
        const network = first.network
        // Tabs the page opens (a click on a target=_blank link): the actions follow the last one (ActionRunner.ts).
        const tabs: Tabs = { current: first, opened: [], requested: 0 }
        page.context().on("page", (opened) => {
          if (opened !== page) tabs.opened.push(trackTab(opened))
        })
        // Only a click can open a tab; the Page domain's events cost a little on every page otherwise.
        if (request.actions.some((action) => action.type === "click")) {
          session.on("Page.windowOpen", () => {
            tabs.requested++
          })
          yield* probe(() => session.send("Page.enable"), undefined)
        }
        let failedNavigation: string | undefined
        page.on("requestfailed", (r) => {
          if (r.isNavigationRequest() && r.frame() === page.mainFrame()) failedNavigation = r.url()
        })
        const downloaded = page.waitForEvent("download", { timeout: remaining(run) }).catch(() => undefined)
        const navigation = yield* step(run, () => page.goto(request.url, { waitUntil: "domcontentloaded", timeout: remaining(run) }).then(
          (response) => ({ _tag: "Page" as const, response }),
          async (error: unknown) => {
            // A PDF or another attachment: Chromium downloads it (through the proxy) instead of showing a page.
            if (!/Download is starting/.test(messageOf(error))) throw error
            const download = await downloaded
            if (download === undefined) throw error
            return { _tag: "Download" as const, download }
          }
        ), (error) => navigationFailure(run, proxy, failedNavigation)(error))
        if (navigation._tag === "Download") return yield* downloadedFile(navigation.download, first.main(), run)
        const response = navigation.response
        const refused = proxyAnswer(response, request.url)
        if (refused !== undefined) return yield* Effect.fail(refused)
        yield* navigated
        yield* settle(page, network, SMART_WAIT_MAX_MS, run.deadline, 0, tuning)
        if (request.waitFor > 0) yield* Effect.sleep(Math.min(request.waitFor, remaining(run)))
        // Consent banners go before the actions (they cover what a click aims at) and again after them.
        const unbanner = blocker === undefined ? Effect.void : Effect.suspend(() => probe(() => removeBanners(tabs.current.page, blocker), 0))
        yield* unbanner
        const outputs = yield* runActions(tabs, request.actions, run)
        if (request.actions.length > 0) yield* unbanner
        // The tab the actions ended on (a click may have opened another).
        const shown = tabs.current.page
        // Sampled before the screenshot may resize the viewport; a script that fails is a warning, not a failed render.
        const branding = request.branding === true
          ? yield* Effect.promise(() => sampleBranding(shown).then((samples) => ({ samples }), (error: unknown) => ({ error: messageOf(error) })))
          : undefined
        const shot = request.screenshot === undefined ? undefined : yield* screenshot(shown, request.screenshot, run)
        // The main document's response; an action may navigate (a link clicked), and then it is the new document's.
        const last = tabs.current.main() ?? (shown === page ? response : null)
        const headers = last === null ? {} : yield* probe(() => last.allHeaders(), last.headers())
        const contentType = headers["content-type"] === undefined ? undefined : mimeEssence(headers["content-type"])
        // An HTML page is its rendered DOM; anything else (JSON, text, an image) its bytes as they came,
        // kept at the network for a document in a viewer (whose `body()` is the viewer's HTML).
        const captured = isHtml(contentType) || last === null ? undefined : capture?.bytesFor(last.url())
        const body = isHtml(contentType) || last === null
          ? new TextEncoder().encode(yield* step(run, () => contentOf(shown, run)))
          : captured ?? (yield* step(run, async () => new Uint8Array(await last.body())))
        return {
          url: shown.url(),
          status: last?.status() ?? 200,
          headers: isHtml(contentType) ? { ...headers, "content-type": "text/html; charset=utf-8" } : headers,
          contentType: contentType ?? "text/html",
          body,
          outputs,
          screenshot: shot,
          ...(captured === undefined ? {} : { downloaded: true }),
          ...(branding === undefined ? {} : { branding })
        }
      })

    /** Opens a context (or takes the spare, when `spareAllowed`) and renders `request` in it; the context stays open until the calling scope closes. */
    const replay = (request: BrowserRequest, deadline: number, spareAllowed: boolean) =>
      Effect.gen(function*() {
        const invalid = invalidHeaders(request.headers)
        if (invalid.length > 0) {
          return yield* Effect.fail(scrapeError(new InvalidRequest({
            message: `Invalid headers: ${invalid.map((h) => h.name).join(", ")}`,
            details: invalid.map((h) => ({ path: ["headers", h.name], message: h.message }))
          })))
        }
        // An internal IP literal or another protocol's port is refused before Chromium starts (Chromium refuses some ports itself, less clearly).
        const target = URL.canParse(request.url) ? new URL(request.url) : undefined
        const refusal = target === undefined ? undefined : proxy.refuses(target)
        if (refusal !== undefined) {
          return yield* Effect.fail(scrapeError(new UrlBlocked({
            url: request.url,
            message: `Refusing to fetch ${request.url}: ${refusal.message}. Set STRATA_ALLOW_PRIVATE_URLS=1 to allow private addresses.`
          })))
        }
        // Counted before the browser is taken, so the idle stop cannot close it in between.
        yield* Effect.acquireRelease(Effect.sync(() => active++), () => Effect.sync(() => {
          active--
          lastUsed = Date.now()
        }))
        const launched = yield* browser
        const run: Run = { browser: launched, deadline, url: request.url }
        const taken = spareAllowed && useSpares && takesSpare(request) ? yield* takeSpare(launched, request.skipTlsVerification) : undefined
        if (taken !== undefined) yield* Effect.addFinalizer(() => Scope.close(taken.scope, Exit.void))
        options.onContext?.(taken === undefined ? "new" : "spare")
        const prepared = taken === undefined ? yield* prepare(run, request) : taken.prepared
        prepared.source.url = request.url
        const { context, page, session } = prepared
        const gone = Effect.promise(() => exited.get(launched) ?? new Promise<void>(() => {})).pipe(Effect.andThen(Effect.fail(crashed(run))))
        const blocker = request.blockAds === false ? undefined : yield* adBlocker
        // The next spare is made while this page settles (the wait is mostly idle): made after the render,
        // a request right behind this one found it half made and waited for it.
        const rendered = yield* renderPage(page, session, run, request, blocker, spareAllowed ? refill : Effect.void).pipe(
          // A failure that raced Chromium's exit is the crash.
          Effect.mapError((error) => (launched.isConnected() ? error : failureOf(run, error))),
          Effect.raceFirst(gone)
        )
        return { rendered, page, context }
      })

    const render = (request: BrowserRequest, deadline: number): Effect.Effect<BrowserPage, ScrapeError> =>
      Effect.map(replay(request, deadline, true), ({ rendered }) => rendered).pipe(
        Effect.scoped,
        // And once it is closed, when none was made during the wait (a download, a failure before it).
        Effect.ensuring(refill),
        pages.withPermit,
        Effect.withSpan("BrowserEngine.render", { attributes: { url: request.url } })
      )

    /** An interact session's page: the replay takes a render slot; the open context counts against the session limit instead. */
    const openSession: OpenSession = (request, deadline) =>
      Effect.map(replay(request, deadline, false), ({ page, context }) => ({ page, context })).pipe(
        pages.withPermit,
        Effect.withSpan("BrowserEngine.openSession", { attributes: { url: request.url } })
      )

    return { engine: BrowserEngine.of({ render }) satisfies BrowserEngineService, openSession, profiles, concurrency }
  })

/**
 * `STRATA_CHROMIUM_PATH`, `STRATA_BROWSER_CONCURRENCY` and the fetch engine's address policy,
 * each unless `options` gives it.
 */
const resolveOptions = (options: BrowserOptions) =>
  Effect.gen(function*() {
    const chromiumPath = options.chromiumPath ?? (yield* Config.String("STRATA_CHROMIUM_PATH").pipe(Config.withDefault(DEFAULT_CHROMIUM_PATH), Effect.orElseSucceed(() => DEFAULT_CHROMIUM_PATH)))
    const concurrency = options.concurrency ??
      (yield* Config.Int("STRATA_BROWSER_CONCURRENCY").pipe(Config.withDefault(defaultConcurrency()), Effect.orElseSucceed(defaultConcurrency)))
    const policy = options.policy ?? (yield* fetchPolicyFromEnv)
    const dataDir = options.dataDir ?? (yield* Config.String("STRATA_DATA_DIR").pipe(Config.withDefault("./data"), Effect.orElseSucceed(() => "./data")))
    return { ...options, chromiumPath, concurrency, policy, dataDir }
  })

/**
 * The engine as a layer, with the interact sessions that share its browser; Chromium starts on
 * the first render, and stops with the layer (sessions first, their profiles saved).
 */
export const layer = (options: BrowserOptions = {}): Layer.Layer<BrowserEngine | Interactions> =>
  Layer.effectContext(Effect.gen(function*() {
    const built = yield* build(yield* resolveOptions(options))
    const interactions = yield* makeInteractions(built.openSession, built.profiles, { ...options.interact, maxSessions: options.interact?.maxSessions ?? built.concurrency })
    return Context.make(BrowserEngine, built.engine).pipe(Context.add(Interactions, interactions))
  }))
