/**
 * Immediate client-side redirects: `<meta http-equiv="refresh" content="0; url=...">` and the
 * `Refresh` response header.
 *
 * A browser follows them before anyone sees the page, so a scrape of the page that says
 * "redirecting..." is a scrape of the wrong page. Only immediate ones (delay of at most one
 * second) count: a "you will be redirected in 10 seconds" page is what a browser shows first,
 * and a periodic self-refresh is no redirect at all. Declarations inside `<noscript>` are for
 * clients without JavaScript (often a "please enable JavaScript" page) and are ignored, as a
 * browser with scripting ignores them.
 */
import { decodeBody } from "./Charset.ts"

/** Refreshes slower than this are shown, not followed. */
const maxDelaySeconds = 1
/** Where a declaration must appear: the top of the document. */
const scanBytes = 32 * 1024

/** The target of a refresh value ("0; url=/next", "0;URL='/next'", "1, /next"), when it is immediate. */
export const parseRefresh = (value: string): string | undefined => {
  const match = /^\s*(\d+)(?:\.[\d.]*)?\s*(?:[;,]\s*(?:url\s*=\s*)?(.*))?$/is.exec(value)
  if (match === null || Number(match[1]) > maxDelaySeconds) return undefined
  const target = (match[2] ?? "").trim().replace(/^(["'])(.*?)(\1|$).*$/s, "$2").trim()
  return target === "" ? undefined : target
}

const attribute = (tag: string, name: string): string | undefined => {
  const match = new RegExp(`\\s${name}\\s*=\\s*("([^"]*)"|'([^']*)'|([^\\s>]+))`, "i").exec(tag)
  return match === null ? undefined : (match[2] ?? match[3] ?? match[4])
}

/**
 * The URL an HTML page immediately refreshes to (resolved against `base`), or undefined.
 * `refreshHeader` is the response's `Refresh` header, which takes precedence as it arrives first.
 */
export const refreshTarget = (body: Uint8Array, contentTypeHeader: string | undefined, refreshHeader: string | undefined, base: URL): URL | undefined => {
  const resolve = (target: string | undefined): URL | undefined =>
    target !== undefined && URL.canParse(target, base) ? new URL(target, base) : undefined
  if (refreshHeader !== undefined) return resolve(parseRefresh(refreshHeader))
  const head = decodeBody(body.subarray(0, scanBytes), contentTypeHeader).text
    .replace(/<!--[\s\S]*?(-->|$)/g, "")
    .replace(/<(noscript|script|style|template)\b[\s\S]*?(<\/\1\s*>|$)/gi, "")
  const tags = head.match(/<meta\s[^>]*>/gi) ?? []
  for (const tag of tags) {
    if (attribute(tag, "http-equiv")?.toLowerCase() !== "refresh") continue
    const content = attribute(tag, "content")
    if (content !== undefined) return resolve(parseRefresh(content))
  }
  return undefined
}
