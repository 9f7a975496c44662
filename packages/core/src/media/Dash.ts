/**
 * DASH manifests (MPD), as far as the `audio` and `video` formats need them: the first period's
 * audio and video representations and the URLs of their media, from a `BaseURL` (one file), a
 * `SegmentList`, or a `SegmentTemplate` numbered by `duration` or timed by a `SegmentTimeline`.
 * A representation's init segment followed by its media segments is one fragmented MP4 (or
 * WebM) file, which ffmpeg reads like any other. Live manifests (`type="dynamic"`) are refused:
 * they have no end.
 */
import { DomUtils, parseDocument } from "htmlparser2"
import type { MediaKind } from "./MediaSources.ts"

type Node = ReturnType<typeof parseDocument>["children"][number]
type Element = Extract<Node, { readonly name: string; readonly attribs: Record<string, string> }>

export interface DashTrack {
  readonly kind: MediaKind
  readonly bandwidth: number
  /** The init segment first (when there is one), then the media segments, absolute. */
  readonly urls: ReadonlyArray<string>
}

export type DashManifest =
  | { readonly _tag: "Static"; readonly tracks: ReadonlyArray<DashTrack> }
  | { readonly _tag: "Live" }

/** The most segments read from one representation or playlist: a day of 2-second segments. */
export const MAX_SEGMENTS = 43_200

const children = (element: Element, name: string): Array<Element> =>
  element.children.filter((child): child is Element => "name" in child && child.name.toLowerCase() === name.toLowerCase())

const child = (element: Element | undefined, name: string): Element | undefined => (element === undefined ? undefined : children(element, name)[0])

/** An ISO 8601 duration (`PT1M30.5S`) in seconds. */
export const isoSeconds = (value: string | undefined): number | undefined => {
  const match = value === undefined ? null : /^P(?:(\d+(?:\.\d+)?)D)?(?:T(?:(\d+(?:\.\d+)?)H)?(?:(\d+(?:\.\d+)?)M)?(?:(\d+(?:\.\d+)?)S)?)?$/.exec(value.trim())
  if (match === null) return undefined
  const [d, h, m, s] = match.slice(1).map((n) => Number(n ?? 0))
  return d * 86400 + h * 3600 + m * 60 + s
}

const baseOf = (element: Element | undefined, base: string): string => {
  const found = child(element, "BaseURL")
  const url = found === undefined ? "" : DomUtils.textContent(found).trim()
  return url !== "" && URL.canParse(url, base) ? new URL(url, base).href : base
}

/** `$RepresentationID$`, `$Bandwidth$`, `$Number%05d$`, `$Time$` and `$$` in a template. */
const fill = (template: string, values: Record<string, string | number>): string =>
  template.replace(/\$(RepresentationID|Number|Bandwidth|Time|)(%0(\d+)d)?\$/g, (_all, name: string, _format, width: string | undefined) => {
    if (name === "") return "$"
    const value = String(values[name] ?? "")
    return width === undefined ? value : value.padStart(Number(width), "0")
  })

/** The segment template of a representation: its own attributes over its adaptation set's. */
const templateOf = (set: Element, representation: Element): Record<string, string> | undefined => {
  const outer = child(set, "SegmentTemplate")
  const inner = child(representation, "SegmentTemplate")
  if (outer === undefined && inner === undefined) return undefined
  return { ...outer?.attribs, ...inner?.attribs }
}

const timeline = (set: Element, representation: Element): Array<{ t: number; d: number; r: number }> => {
  const element = child(child(representation, "SegmentTemplate"), "SegmentTimeline") ?? child(child(set, "SegmentTemplate"), "SegmentTimeline")
  if (element === undefined) return []
  return children(element, "S").map((s) => ({ t: Number(s.attribs.t ?? NaN), d: Number(s.attribs.d ?? 0), r: Number(s.attribs.r ?? 0) }))
}

const segmentUrls = (set: Element, representation: Element, base: string, seconds: number | undefined): Array<string> | undefined => {
  const id = representation.attribs.id ?? ""
  const bandwidth = representation.attribs.bandwidth ?? ""
  const at = (path: string) => (URL.canParse(path, base) ? new URL(path, base).href : undefined)
  const list = child(representation, "SegmentList") ?? child(set, "SegmentList")
  if (list !== undefined) {
    const init = child(list, "Initialization")?.attribs.sourceURL
    const urls = [init, ...children(list, "SegmentURL").map((s) => s.attribs.media)].filter((u): u is string => u !== undefined).map(at)
    return urls.every((u) => u !== undefined) ? urls as Array<string> : undefined
  }
  const template = templateOf(set, representation)
  // No template and no list: the representation is one file, at its BaseURL.
  if (template === undefined) return child(representation, "BaseURL") === undefined ? undefined : [base]
  const media = template.media
  if (media === undefined) return undefined
  const urls: Array<string | undefined> = []
  if (template.initialization !== undefined) urls.push(at(fill(template.initialization, { RepresentationID: id, Bandwidth: bandwidth })))
  const start = Number(template.startNumber ?? 1)
  const entries = timeline(set, representation)
  if (entries.length > 0) {
    let time = 0
    let number = start
    for (const entry of entries) {
      if (Number.isFinite(entry.t)) time = entry.t
      const repeats = entry.r < 0 ? 0 : entry.r
      for (let i = 0; i <= repeats && urls.length <= MAX_SEGMENTS; i++) {
        urls.push(at(fill(media, { RepresentationID: id, Bandwidth: bandwidth, Number: number, Time: time })))
        time += entry.d
        number++
      }
    }
  } else {
    const duration = Number(template.duration) / Number(template.timescale ?? 1)
    if (!Number.isFinite(duration) || duration <= 0 || seconds === undefined) return undefined
    const count = Math.min(MAX_SEGMENTS, Math.ceil(seconds / duration - 1e-9))
    for (let i = 0; i < count; i++) urls.push(at(fill(media, { RepresentationID: id, Bandwidth: bandwidth, Number: start + i })))
  }
  return urls.every((u) => u !== undefined) ? urls as Array<string> : undefined
}

const kindOf = (set: Element, representation: Element): MediaKind | undefined => {
  const type = (set.attribs.contentType ?? representation.attribs.mimeType ?? set.attribs.mimeType ?? "").toLowerCase()
  return type.startsWith("video") ? "video" : type.startsWith("audio") ? "audio" : undefined
}

/** Parses an MPD fetched from `url`; undefined when it is not one. */
export const parseDash = (text: string, url: string): DashManifest | undefined => {
  const document = parseDocument(text, { xmlMode: true })
  const mpd = DomUtils.findOne((node) => node.name === "MPD", document.children)
  if (mpd === null) return undefined
  if (mpd.attribs.type === "dynamic") return { _tag: "Live" }
  const period = children(mpd, "Period")[0]
  if (period === undefined) return { _tag: "Static", tracks: [] }
  const seconds = isoSeconds(period.attribs.duration) ?? isoSeconds(mpd.attribs.mediaPresentationDuration)
  const periodBase = baseOf(period, baseOf(mpd, url))
  const tracks: Array<DashTrack> = []
  for (const set of children(period, "AdaptationSet")) {
    const setBase = baseOf(set, periodBase)
    for (const representation of children(set, "Representation")) {
      const kind = kindOf(set, representation)
      const urls = kind === undefined ? undefined : segmentUrls(set, representation, baseOf(representation, setBase), seconds)
      if (kind !== undefined && urls !== undefined && urls.length > 0) tracks.push({ kind, bandwidth: Number(representation.attribs.bandwidth) || 0, urls })
    }
  }
  return { _tag: "Static", tracks }
}
