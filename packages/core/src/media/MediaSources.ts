/**
 * The media a page offers, for the `audio` and `video` formats: `<video>` and `<audio>` (their
 * `src` and their `<source>` children), OpenGraph `og:video` and `og:audio`, JSON-LD
 * `VideoObject` and `AudioObject` (`contentUrl`; an `embedUrl` is a player page, not media), and
 * links to HLS (`.m3u8`) and DASH (`.mpd`) manifests or to media files. Each source is resolved
 * against the page's URL and says what it is. The order is a preference: the page's own media
 * elements (what it plays), then JSON-LD, OpenGraph, and links, each in document order, and last
 * the decorative videos (muted, autoplaying or looping, without controls: a hero background; on
 * WCXB dev pages they are most of the `<video>` elements, bench/results/media-sources.md).
 */
import { DomUtils, parseDocument } from "htmlparser2"

export type MediaKind = "video" | "audio"
export type MediaPackaging = "file" | "hls" | "dash"

export interface MediaSource {
  readonly url: string
  /** What the page says it is; a file's extension or type can say otherwise for `<source>` and links. */
  readonly kind: MediaKind
  readonly packaging: MediaPackaging
  /** The declared MIME type, lower case, when the page gave one. */
  readonly type: string | undefined
  /** Where it was found. */
  readonly via: "element" | "opengraph" | "json-ld" | "link" | "direct"
  /** A muted `<video>` that plays by itself or loops, without controls: a background, not the page's video. */
  readonly decorative: boolean
}

const hlsTypes = new Set(["application/x-mpegurl", "application/vnd.apple.mpegurl", "audio/mpegurl", "audio/x-mpegurl"])
const dashTypes = new Set(["application/dash+xml"])

/** How the media at `url` (of declared `type`) is packaged. */
export const packagingOf = (url: string, type: string | undefined): MediaPackaging => {
  const essence = type?.split(";")[0].trim().toLowerCase()
  const path = URL.canParse(url) ? new URL(url).pathname.toLowerCase() : url.toLowerCase()
  if ((essence !== undefined && hlsTypes.has(essence)) || path.endsWith(".m3u8") || path.endsWith(".m3u")) return "hls"
  if ((essence !== undefined && dashTypes.has(essence)) || path.endsWith(".mpd")) return "dash"
  return "file"
}

const audioExtensions = /\.(mp3|m4a|aac|oga|ogg|opus|wav|flac|weba)$/
const videoExtensions = /\.(mp4|m4v|webm|mov|ogv|mkv)$/

/** A link's kind from its file name, for `<a href>` (undefined: not a media file). */
const linkKind = (url: string): MediaKind | undefined => {
  const path = URL.canParse(url) ? new URL(url).pathname.toLowerCase() : ""
  if (audioExtensions.test(path)) return "audio"
  if (videoExtensions.test(path) || path.endsWith(".m3u8") || path.endsWith(".mpd")) return "video"
  return undefined
}

const resolve = (href: string | undefined, base: string): string | undefined => {
  const trimmed = href?.trim()
  if (trimmed === undefined || trimmed === "" || trimmed.startsWith("data:") || trimmed.startsWith("blob:")) return undefined
  if (!URL.canParse(trimmed, base)) return undefined
  const url = new URL(trimmed, base)
  return url.protocol === "http:" || url.protocol === "https:" ? url.href : undefined
}

const typesOf = (value: unknown): ReadonlyArray<string> =>
  (Array.isArray(value) ? value : [value]).filter((t): t is string => typeof t === "string").map((t) => t.replace(/^https?:\/\/schema\.org\//, ""))

/** JSON-LD objects, `@graph` members and nested objects (a `video` of an Article) included. */
const jsonLdObjects = (text: string): Array<Record<string, unknown>> => {
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch {
    return []
  }
  const out: Array<Record<string, unknown>> = []
  const visit = (value: unknown, depth: number) => {
    if (depth > 8 || value === null || typeof value !== "object") return
    if (Array.isArray(value)) return value.forEach((item) => visit(item, depth + 1))
    out.push(value as Record<string, unknown>)
    for (const inner of Object.values(value)) visit(inner, depth + 1)
  }
  visit(parsed, 0)
  return out
}

/** The scraped URL itself, when it is audio, video or a manifest (`Routing.ts` sends it here). */
export const directSource = (url: string, contentType: string | undefined): MediaSource => {
  const type = contentType?.split(";")[0].trim().toLowerCase()
  return { url, kind: type?.startsWith("audio/") ? "audio" : "video", packaging: packagingOf(url, type), type, via: "direct", decorative: false }
}

export const findMedia = (html: string, pageUrl: string): ReadonlyArray<MediaSource> => {
  const document = parseDocument(html)
  const found: Array<MediaSource> = []
  const seen = new Set<string>()
  const add = (href: string | undefined, kind: MediaKind, via: MediaSource["via"], declared?: string, decorative = false) => {
    const url = resolve(href, pageUrl)
    if (url === undefined || seen.has(`${kind} ${url}`)) return
    seen.add(`${kind} ${url}`)
    const type = declared?.split(";")[0].trim().toLowerCase() || undefined
    found.push({ url, kind, packaging: packagingOf(url, type), type, via, decorative })
  }
  const elements = DomUtils.findAll((node) => ["video", "audio", "meta", "script", "a"].includes(node.name), document.children)
  const metas: Array<[string, string]> = []
  const links: Array<string> = []
  const jsonLd: Array<[string, MediaKind, string | undefined]> = []
  for (const element of elements) {
    const attribs = element.attribs
    if (element.name === "video" || element.name === "audio") {
      const kind: MediaKind = element.name
      const decorative = kind === "video" && "muted" in attribs && ("autoplay" in attribs || "loop" in attribs) && !("controls" in attribs)
      add(attribs.src, kind, "element", attribs.type, decorative)
      for (const source of DomUtils.getElementsByTagName("source", element.children)) add(source.attribs.src, kind, "element", source.attribs.type, decorative)
    } else if (element.name === "meta") {
      const key = (attribs.property ?? attribs.name ?? "").toLowerCase()
      if (attribs.content !== undefined) metas.push([key, attribs.content])
    } else if (element.name === "script" && (attribs.type ?? "").toLowerCase() === "application/ld+json") {
      for (const object of jsonLdObjects(DomUtils.textContent(element))) {
        const types = typesOf(object["@type"])
        const kind: MediaKind | undefined = types.includes("VideoObject") ? "video" : types.includes("AudioObject") ? "audio" : undefined
        if (kind === undefined) continue
        const content = object.contentUrl
        for (const url of Array.isArray(content) ? content : [content]) {
          if (typeof url === "string") jsonLd.push([url, kind, typeof object.encodingFormat === "string" ? object.encodingFormat : undefined])
        }
      }
    } else if (element.name === "a" && attribs.href !== undefined) {
      links.push(attribs.href)
    }
  }
  for (const [url, kind, type] of jsonLd) add(url, kind, "json-ld", type)
  // OpenGraph: a type tag that follows applies to the media tag before it.
  for (let i = 0; i < metas.length; i++) {
    const [key, content] = metas[i]
    const match = /^og:(video|audio)(:url|:secure_url)?$/.exec(key)
    if (match === null) continue
    const next = metas[i + 1]
    const type = next !== undefined && next[0] === `og:${match[1]}:type` ? next[1] : undefined
    // og:video is often a player page (text/html): not media.
    if (type !== undefined && /^text\/html/i.test(type)) continue
    add(content, match[1] as MediaKind, "opengraph", type)
  }
  for (const href of links) {
    const url = resolve(href, pageUrl)
    const kind = url === undefined ? undefined : linkKind(url)
    if (kind !== undefined) add(url, kind, "link")
  }
  return [...found.filter((m) => !m.decorative), ...found.filter((m) => m.decorative)]
}
