/**
 * Which fetch engine serves a scrape, and what the browser's page becomes in the response.
 *
 * The fetch engine goes first. The browser serves the request instead when an option needs it
 * (`browserOptions`), or after the fetch when the HTML needs JavaScript (`NeedsJavaScript.ts`).
 * Without a browser engine in the context, the options that need one are refused (400
 * NotSupported) and every page is served as fetched. `metadata.engine` says which engine
 * served the page: `"fetch"` or `"browser"` (the contract has no such field; Firecrawl keeps
 * its engine internal).
 *
 * Screenshots and PDFs become links through the `ArtifactStore` when one is in the context,
 * else `data:` URLs. Under zero data retention (asked for, the team's, or `lockdown`) nothing is
 * written: they, and `audio` and `video`, are answered as `data:` URLs, as Firecrawl answers a
 * screenshot it does not upload. Under `lockdown`, which makes no outside request, `audio` and
 * `video` are not fetched (null, with a warning), as Firecrawl skips its outbound transforms.
 * As in Firecrawl, `data.actions` is left out when every list is empty.
 * `branding` is made from what the browser sampled (`branding/`); `audio` and `video` from the
 * page's media, whichever engine served it (`media/`).
 */
import { Effect, Option } from "effect"
import { ArtifactStore } from "./artifacts/ArtifactStore.ts"
import { brandingFromSamples } from "./branding/Branding.ts"
import { getFormat, hasFormat, type ScrapeData, type ScrapeRequest } from "./contract/index.ts"
import type { ActionOutput, BrowserFile, BrowserPage, BrowserRequest } from "./fetch/Browser.ts"
import { decodeBody } from "./fetch/Charset.ts"
import { Fetcher } from "./fetch/Fetcher.ts"
import { type MediaDeps, mediaDepsFromContext, withMedia } from "./media/MediaFormats.ts"
import { directSource } from "./media/MediaSources.ts"
import { type ContentInput, isMediaType } from "./Routing.ts"
import { NotSupported, scrapeError, type ScrapeError } from "./ScrapeError.ts"

export type EngineName = "fetch" | "browser"

/** The request's options that only a browser honours, named as the 400 names them. */
export const browserOptions = (request: ScrapeRequest): Array<string> => {
  const options: Array<string> = []
  if (request.actions !== undefined && request.actions.length > 0) options.push("actions")
  if (hasFormat(request, "screenshot")) options.push("formats: screenshot")
  if (request.waitFor > 0) options.push("waitFor")
  if (request.mobile) options.push("mobile")
  // A profile is the browser's saved storage state: the fetch engine would silently ignore it.
  if (request.profile !== undefined) options.push("profile")
  if (hasFormat(request, "branding")) options.push("formats: branding")
  return options
}

/**
 * Whether the request goes to the browser without fetching first. `location` counts only when
 * a browser is there: without one, the fetch engine honours its languages (Accept-Language).
 */
export const wantsBrowser = (request: ScrapeRequest): boolean =>
  browserOptions(request).length > 0 || request.location !== undefined

/** The 400 for a request whose options need the browser on a server without one. */
export const noBrowser = (options: ReadonlyArray<string>): ScrapeError =>
  scrapeError(new NotSupported({
    option: options[0],
    message: `The option \`${options[0]}\` is not supported by this server: it needs the browser engine, which is not installed (${options.join(", ")})`
  }))

export const browserRequestOf = (request: ScrapeRequest): BrowserRequest => {
  const screenshot = getFormat(request, "screenshot")
  return {
    url: request.url,
    headers: request.headers,
    skipTlsVerification: request.skipTlsVerification,
    mobile: request.mobile,
    location: request.location,
    waitFor: request.waitFor,
    blockAds: request.blockAds,
    profile: request.profile === undefined ? undefined : { name: request.profile.name },
    actions: request.actions ?? [],
    branding: hasFormat(request, "branding"),
    screenshot: screenshot === undefined ? undefined : { fullPage: screenshot.fullPage, quality: screenshot.quality, viewport: screenshot.viewport }
  }
}

/** The rendered page as content for the content stages. */
export const pageInput = (sourceURL: string, page: BrowserPage): ContentInput => ({
  bytes: page.body,
  contentType: page.contentType,
  contentTypeHeader: page.headers["content-type"],
  url: page.url,
  sourceURL,
  statusCode: page.status
})

const dataUrl = (file: BrowserFile): string => `data:${file.contentType};base64,${Buffer.from(file.bytes).toString("base64")}`

/** Stores a file and answers its link: the artifact store's, or a `data:` URL without one. */
const storeWith = (store: Option.Option<ArtifactStore["Service"]>) =>
(file: BrowserFile, kind: "screenshot" | "pdf"): Effect.Effect<string, ScrapeError> =>
  Option.isNone(store)
    ? Effect.succeed(dataUrl(file))
    : Effect.map(store.value.put({ bytes: file.bytes, contentType: file.contentType, kind }), (stored) => stored.url)

/** The `branding` format from the page's samples; null with a warning when there are none (a download, a failed script). */
const brandingOf = (page: BrowserPage): { readonly value: ScrapeData["branding"]; readonly warning?: string } => {
  if (page.branding === undefined) {
    return { value: null, warning: page.downloaded === true ? notAPage : "branding: the browser returned no style samples for this page" }
  }
  if ("error" in page.branding) return { value: null, warning: `branding: the page's styles could not be sampled (${page.branding.error})` }
  const profile = brandingFromSamples(page.branding.samples)
  return profile === undefined ? { value: null, warning: "branding: the page returned malformed style samples" } : { value: profile }
}

const notAPage = "branding: the URL is a file, not a web page, so there are no styles to sample"

const joinWarnings = (...warnings: ReadonlyArray<string | null | undefined>): string | undefined => {
  const present = warnings.filter((w): w is string => typeof w === "string" && w !== "")
  return present.length === 0 ? undefined : present.join("; ")
}

/** What the pipeline's outputs need from the context it was built in: the artifact store, and the fetcher and transcoder for media. */
export interface EngineOutputs {
  readonly artifacts: Option.Option<ArtifactStore["Service"]>
  readonly media: MediaDeps
}

export const engineOutputs: Effect.Effect<EngineOutputs, never, Fetcher> = Effect.gen(function*() {
  const artifacts = yield* Effect.serviceOption(ArtifactStore)
  return { artifacts, media: yield* mediaDepsFromContext(yield* Fetcher, artifacts) }
})

/** The page's HTML for finding its media: the rendered DOM when the browser served it, else the fetched HTML. */
const pageHtml = (served: Served): string | undefined => {
  const html = (type: string | undefined) => type === undefined || type === "text/html" || type === "application/xhtml+xml"
  if (served.page !== undefined) return html(served.page.contentType) ? new TextDecoder().decode(served.page.body) : undefined
  if (served.input === undefined || !html(served.input.contentType)) return undefined
  return decodeBody(served.input.bytes, served.input.contentTypeHeader).text
}

/** The scraped URL as the media source, when what it served is audio, video or a manifest. */
const directMedia = (served: Served) => {
  const input = served.input
  return input !== undefined && served.page === undefined && isMediaType(input.contentType) ? directSource(input.url, input.contentType) : undefined
}

interface Served {
  readonly engine: EngineName
  readonly page?: BrowserPage | undefined
  readonly input?: ContentInput | undefined
}

/**
 * `data` with what the engines added: the engine, `screenshot`, `actions` and `branding` from the
 * browser, and `audio` and `video`. `outputs` come from the context the pipeline was built in
 * (the server gives it its own artifact store).
 */
export const withEngine = (
  data: ScrapeData,
  served: Served,
  request: ScrapeRequest,
  engineOutputs: EngineOutputs
): Effect.Effect<ScrapeData, ScrapeError> => {
  const outputs = kept(engineOutputs, request)
  return Effect.flatMap(withBrowser(data, served, request, outputs.artifacts), (data) =>
    // A file the browser handed to the fetch engine (a PDF shown in Chromium's viewer) has no page to sample.
    hasFormat(request, "branding") && served.page === undefined
      ? Effect.succeed({ ...data, branding: null, warning: joinWarnings(data.warning, notAPage) })
      : Effect.succeed(data)).pipe(Effect.flatMap((data) =>
    !hasFormat(request, "audio") && !hasFormat(request, "video")
      ? Effect.succeed(data)
      : request.lockdown
      ? Effect.succeed(withoutMedia(data, request))
      // The request's own budget interrupts this sooner when less time is left.
      : withMedia(outputs.media, data, { html: pageHtml(served), url: served.page?.url ?? served.input?.url ?? request.url, media: directMedia(served) }, request, Date.now() + request.timeout)))
}

/** The outputs a request may write to: none of the artifact store's under zero data retention (lockdown included), so its files come back inline. */
const kept = (outputs: EngineOutputs, request: ScrapeRequest): EngineOutputs =>
  request.zeroDataRetention ? { artifacts: Option.none(), media: { ...outputs.media, artifacts: Option.none() } } : outputs

/** `audio` and `video` under lockdown: their media lives elsewhere, and lockdown fetches nothing. */
const withoutMedia = (data: ScrapeData, request: ScrapeRequest): ScrapeData => {
  const kinds = (["audio", "video"] as const).filter((kind) => hasFormat(request, kind))
  return {
    ...data,
    ...Object.fromEntries(kinds.map((kind) => [kind, null])),
    warning: joinWarnings(data.warning, ...kinds.map((kind) => `${kind}: not made under lockdown, which fetches nothing from outside the cache (the page's media would be)`))
  }
}

const withBrowser = (
  data: ScrapeData,
  served: Served,
  request: ScrapeRequest,
  artifacts: Option.Option<ArtifactStore["Service"]>
): Effect.Effect<ScrapeData, ScrapeError> =>
  Effect.gen(function*() {
    const { engine, page } = served
    const metadata = { ...data.metadata, engine }
    if (page === undefined) return { ...data, metadata }
    const store = storeWith(artifacts)
    const outputs = [...page.outputs].sort((a, b) => a.index - b.index)
    const urls: Array<{ readonly output: ActionOutput; readonly url: string }> = []
    for (const output of outputs) {
      if (output._tag === "Screenshot") urls.push({ output, url: yield* store(output.file, "screenshot") })
      if (output._tag === "Pdf") urls.push({ output, url: yield* store(output.file, "pdf") })
    }
    const screenshot = page.screenshot === undefined ? undefined : yield* store(page.screenshot, "screenshot")
    // A personality the projection got from the language model joins the profile.
    const made = hasFormat(request, "branding") ? brandingOf(page) : undefined
    const personality = data.branding?.personality
    const branding = made === undefined || made.value === null || made.value === undefined || personality === undefined
      ? made
      : { ...made, value: { ...made.value, personality } }
    const actions = {
      screenshots: urls.filter((u) => u.output._tag === "Screenshot").map((u) => u.url),
      scrapes: outputs.flatMap((o) => (o._tag === "Scrape" ? [{ url: o.url, html: o.html }] : [])),
      javascriptReturns: outputs.flatMap((o) => (o._tag === "JavascriptReturn" ? [{ type: o.type, value: o.value }] : [])),
      pdfs: urls.filter((u) => u.output._tag === "Pdf").map((u) => u.url)
    }
    const empty = actions.screenshots.length + actions.scrapes.length + actions.javascriptReturns.length + actions.pdfs.length === 0
    return {
      ...data,
      metadata,
      ...(screenshot === undefined ? {} : { screenshot }),
      ...(branding === undefined ? {} : { branding: branding.value, warning: joinWarnings(data.warning, branding.warning) }),
      ...(request.actions === undefined || empty ? {} : { actions })
    }
  })
