/**
 * The bytes of a document Chromium shows in a viewer (a PDF served inline), kept as they came off
 * the network, so that the content stages read the document without a second request.
 *
 * Chromium hands a viewer's document to its plugin, and the response body Playwright can read
 * afterwards (`response.body()`) is the viewer's HTML (601 bytes for a 1,610-byte PDF), so the
 * pipeline used to fetch the URL again with the fetch engine. Here the page's CDP session pauses
 * each document response at its headers (`Fetch` domain, Response stage): an HTML page (or a
 * redirect, or a failure) goes on at once, one round trip; any other type is read whole with
 * `Fetch.getResponseBody` and handed on unchanged with `Fetch.fulfillRequest`.
 *
 * Cost, measured on a loopback page with one iframe (two documents), paired against the same
 * render without it: +15 ms p50 (load average 7-10 on 2 cores), for a render that takes 1.5-2 s
 * in `bench/browser`. A separate CDP session per page cost about 6 ms more, hence the page's own.
 *
 * Proxy credentials: with Chromium 150, once this session intercepts documents, a proxy's `407`
 * challenge for them no longer reaches Playwright (which answers it with the launch's proxy
 * credentials), nor this session unless it also pauses documents at the request stage with
 * `handleAuthRequests`. Left so, every navigation through the guard proxy failed with
 * `net::ERR_INVALID_AUTH_CREDENTIALS` (Chromium 14x passed the challenge to Playwright). So
 * documents are paused at both stages: the request stage only to go on, and the challenges are
 * answered here, the proxy's with its credentials once per request (a second challenge means
 * they were refused: cancel), a site's own with Chromium's default.
 */
import type { CDPSession } from "playwright-core"

/** A document larger than this is not kept (it is fetched again, as before): the whole body sits in memory. */
export const MAX_CAPTURED_BYTES = 64 * 2 ** 20

export interface DocumentCapture {
  /** The bytes of the non-HTML document last served at `url`, if one was. */
  readonly bytesFor: (url: string) => Uint8Array | undefined
  /** Stops keeping, without waiting: an interrupted render must not wait on Chromium (the context's close ends the session anyway). */
  readonly stop: () => void
}

interface HeaderEntry {
  readonly name: string
  readonly value: string
}

interface AuthRequired {
  readonly requestId: string
  readonly authChallenge: { readonly source?: "Server" | "Proxy" }
}

interface RequestPaused {
  readonly requestId: string
  readonly request: { readonly url: string }
  readonly responseStatusCode?: number
  readonly responseErrorReason?: string
  readonly responseHeaders?: Array<HeaderEntry>
}

const headerOf = (headers: ReadonlyArray<HeaderEntry>, name: string) => headers.find((header) => header.name.toLowerCase() === name)?.value

/** Types a page shows as a page (read from its DOM), not as a document in a viewer. */
const isPageType = (contentType: string | undefined): boolean => {
  const essence = contentType?.split(";")[0].trim().toLowerCase() ?? ""
  return essence === "" || essence === "text/html" || essence === "application/xhtml+xml"
}

const keep = (event: RequestPaused): boolean => {
  if (event.responseStatusCode === undefined && event.responseErrorReason === undefined) return false
  const status = event.responseStatusCode ?? 0
  if (event.responseErrorReason !== undefined || status < 200 || status >= 300 || status === 204) return false
  const headers = event.responseHeaders ?? []
  if (isPageType(headerOf(headers, "content-type"))) return false
  const length = Number(headerOf(headers, "content-length") ?? "0")
  return !(length > MAX_CAPTURED_BYTES)
}

/**
 * Starts keeping the non-HTML document responses of the page whose CDP `session` this is; call
 * before the navigation. The session is the page's own (the one its emulation was set on), so
 * stopping turns interception off and leaves the session attached.
 */
export const captureDocuments = async (
  session: CDPSession,
  proxyCredentials?: { readonly username: string; readonly password: string }
): Promise<DocumentCapture> => {
  const kept = new Map<string, Uint8Array>()
  const answered = new Set<string>()
  const onAuth = (event: AuthRequired) => {
    const provide = event.authChallenge.source === "Proxy" && proxyCredentials !== undefined && !answered.has(event.requestId)
    if (provide) answered.add(event.requestId)
    const authChallengeResponse = provide
      ? { response: "ProvideCredentials" as const, username: proxyCredentials.username, password: proxyCredentials.password }
      : { response: event.authChallenge.source === "Proxy" ? "CancelAuth" as const : "Default" as const }
    session.send("Fetch.continueWithAuth", { requestId: event.requestId, authChallengeResponse }).catch(() => undefined)
  }
  const onPaused = (event: RequestPaused) => {
    const go = async () => {
      // At the request stage (no response yet) the pause is only there for the proxy's challenge.
      if (!keep(event)) return session.send("Fetch.continueRequest", { requestId: event.requestId })
      const { body, base64Encoded } = await session.send("Fetch.getResponseBody", { requestId: event.requestId })
      const bytes = base64Encoded ? Buffer.from(body, "base64") : Buffer.from(body, "utf8")
      if (bytes.length <= MAX_CAPTURED_BYTES) kept.set(event.request.url, new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.length))
      return session.send("Fetch.fulfillRequest", {
        requestId: event.requestId,
        responseCode: event.responseStatusCode ?? 200,
        // The body comes decoded: its old encoding and length no longer describe it.
        responseHeaders: (event.responseHeaders ?? []).filter((header) => !/^(content-encoding|content-length)$/i.test(header.name)),
        body: bytes.toString("base64")
      })
    }
    // The page or its session closing mid-request is not this step's failure: the render reports what went wrong.
    go().catch(() => session.send("Fetch.continueRequest", { requestId: event.requestId }).catch(() => undefined))
  }
  session.on("Fetch.requestPaused", onPaused)
  session.on("Fetch.authRequired", onAuth)
  const patterns = [{ resourceType: "Document" as const, requestStage: "Response" as const }]
  await session.send("Fetch.enable", proxyCredentials === undefined
    ? { patterns }
    : { patterns: [...patterns, { resourceType: "Document" as const, requestStage: "Request" as const }], handleAuthRequests: true })
  return {
    bytesFor: (url) => kept.get(url),
    stop: () => {
      session.off("Fetch.requestPaused", onPaused)
      session.off("Fetch.authRequired", onAuth)
      session.send("Fetch.disable").catch(() => undefined)
    }
  }
}
