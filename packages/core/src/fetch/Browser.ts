/**
 * The browser contract: the second fetch engine of /v2/scrape, for pages that need JavaScript
 * and for the options only a browser can honour (actions, screenshots, waiting, device and
 * place emulation).
 *
 * Engines live in `@strata/browser` and provide `BrowserEngine` through `layer(options)`, as
 * the OCR engines provide `OcrEngine`; core names the shapes only and never loads a browser.
 * An engine returns bytes (screenshots, PDFs); the pipeline decides how they reach the user.
 */
import { Context, type Effect } from "effect"
import type { ResolvedAction, Viewport } from "../contract/index.ts"
import type { ScrapeError } from "../ScrapeError.ts"
import type { Location } from "./AcceptLanguage.ts"

/** A screenshot's options, as the `screenshot` format and action give them. */
export interface ScreenshotOptions {
  readonly fullPage: boolean
  /** 1..100: a JPEG at that quality; absent: a PNG. */
  readonly quality?: number | undefined
  /** Resize the viewport before the shot. */
  readonly viewport?: Viewport | undefined
}

export interface BrowserRequest {
  readonly url: string
  /** Caller headers, sent with every request the page makes (cookies from a `cookie` header go into the context). */
  readonly headers?: Readonly<Record<string, string>> | undefined
  readonly skipTlsVerification: boolean
  /** Emulate a phone: viewport, user agent, touch and device scale. */
  readonly mobile: boolean
  /** Locale, Accept-Language, time zone and geolocation of this place. */
  readonly location?: Location | undefined
  /** Milliseconds to wait after the page settled, before the actions. */
  readonly waitFor: number
  readonly actions: ReadonlyArray<ResolvedAction>
  /** The `screenshot` format: a shot after the actions. */
  readonly screenshot?: ScreenshotOptions | undefined
  /** Block ads, trackers and consent managers, and remove cookie banners. Default true. */
  readonly blockAds?: boolean | undefined
  /** A browser profile to start from (its cookies and localStorage, of the `ProfileTeam`'s profile of this name); read only. */
  readonly profile?: { readonly name: string } | undefined
  /** The `branding` format: sample the page's computed styles after the actions (core's `branding/BrandingSamples.ts`). */
  readonly branding?: boolean | undefined
}

/** A file the page produced. */
export interface BrowserFile {
  readonly bytes: Uint8Array
  readonly contentType: string
}

/** What an action produced, tagged by kind; `index` is the action's place in `actions`. */
export type ActionOutput =
  | { readonly _tag: "Screenshot"; readonly index: number; readonly file: BrowserFile }
  | { readonly _tag: "Pdf"; readonly index: number; readonly file: BrowserFile }
  | { readonly _tag: "Scrape"; readonly index: number; readonly url: string; readonly html: string }
  | { readonly _tag: "JavascriptReturn"; readonly index: number; readonly type: string; readonly value: unknown }

/** The page once rendered: what the content stages read, and what the actions produced. */
export interface BrowserPage {
  /** The page's URL at the end (after redirects and any navigation an action caused). */
  readonly url: string
  /** The main document's status (200 when unknown, e.g. a same-document navigation). */
  readonly status: number
  /** The main response's headers, lower-case names. */
  readonly headers: Readonly<Record<string, string>>
  /** Lower-case MIME essence of the main response. */
  readonly contentType: string | undefined
  /** The rendered DOM as UTF-8 HTML for an HTML page; the response body as it came for anything else. */
  readonly body: Uint8Array
  /**
   * The body is the document's bytes exactly as served (the navigation became a download: a PDF
   * sent as an attachment; or a document Chromium showed in its viewer, kept as it came off the
   * network), so it needs no second fetch. Absent when an engine could not keep a viewer's
   * document (the body is then the viewer's, and the pipeline fetches the URL).
   */
  readonly downloaded?: boolean | undefined
  readonly outputs: ReadonlyArray<ActionOutput>
  readonly screenshot?: BrowserFile | undefined
  /** What the branding script returned (decoded by core, which trusts none of it), or why it failed. */
  readonly branding?: { readonly samples: unknown } | { readonly error: string } | undefined
}

export interface BrowserEngineService {
  /** Navigates, waits, runs the actions and returns the page, all by `deadline` (epoch ms). */
  readonly render: (request: BrowserRequest, deadline: number) => Effect.Effect<BrowserPage, ScrapeError>
}

export class BrowserEngine extends Context.Service<BrowserEngine, BrowserEngineService>()("@strata/core/BrowserEngine") {}
