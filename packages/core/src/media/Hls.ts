/**
 * HLS playlists (RFC 8216), as far as the `audio` and `video` formats need them: a master
 * playlist's variants and audio renditions, a media playlist's segments and the other files it
 * names (`EXT-X-MAP` init sections, `EXT-X-KEY` AES-128 keys). The files are fetched by the
 * caller through the fetch engine and the playlist rewritten to point at the local copies, so
 * ffmpeg reads files only and never reaches the network itself.
 */

export interface HlsVariant {
  readonly url: string
  readonly bandwidth: number
  /** The `AUDIO` group its sound comes from, when it is kept apart. */
  readonly audioGroup: string | undefined
}

export interface HlsRendition {
  readonly url: string
  readonly group: string
  readonly isDefault: boolean
}

export type HlsPlaylist =
  | { readonly _tag: "Master"; readonly variants: ReadonlyArray<HlsVariant>; readonly audio: ReadonlyArray<HlsRendition> }
  | {
    readonly _tag: "Media"
    /** Every file the playlist names (segments, init sections, keys), absolute, each once, in order. */
    readonly files: ReadonlyArray<string>
    /** The playlist with each file's URI replaced by `local(index in files)`. */
    readonly rewrite: (local: (index: number) => string) => string
    /** Encryption other than AES-128 (SAMPLE-AES is DRM territory): not something to decode. */
    readonly unsupportedKey: string | undefined
  }

/** `KEY=value,KEY="quoted, value"` attribute lists. */
export const attributes = (list: string): Record<string, string> => {
  const out: Record<string, string> = {}
  const pattern = /([A-Z0-9-]+)=("[^"]*"|[^,]*)/g
  for (const match of list.matchAll(pattern)) out[match[1]] = match[2].replace(/^"|"$/g, "")
  return out
}

const absolute = (uri: string, base: string): string | undefined => (URL.canParse(uri, base) ? new URL(uri, base).href : undefined)

/** Parses a playlist fetched from `base`; undefined when it is not one. */
export const parseHls = (text: string, base: string): HlsPlaylist | undefined => {
  const lines = text.replace(/^\uFEFF/, "").split(/\r?\n/).map((line) => line.trim())
  if (lines[0] !== "#EXTM3U") return undefined
  if (lines.some((line) => line.startsWith("#EXT-X-STREAM-INF"))) {
    const variants: Array<HlsVariant> = []
    const audio: Array<HlsRendition> = []
    for (let i = 0; i < lines.length; i++) {
      const line = lines[i]
      if (line.startsWith("#EXT-X-STREAM-INF:")) {
        const attrs = attributes(line.slice("#EXT-X-STREAM-INF:".length))
        const uri = lines.slice(i + 1).find((next) => next !== "" && !next.startsWith("#"))
        const url = uri === undefined ? undefined : absolute(uri, base)
        if (url !== undefined) variants.push({ url, bandwidth: Number(attrs.BANDWIDTH) || 0, audioGroup: attrs.AUDIO })
      } else if (line.startsWith("#EXT-X-MEDIA:")) {
        const attrs = attributes(line.slice("#EXT-X-MEDIA:".length))
        const url = attrs.URI === undefined ? undefined : absolute(attrs.URI, base)
        if (attrs.TYPE === "AUDIO" && url !== undefined) audio.push({ url, group: attrs["GROUP-ID"] ?? "", isDefault: attrs.DEFAULT === "YES" })
      }
    }
    return { _tag: "Master", variants, audio }
  }
  const files: Array<string> = []
  const indexOf = new Map<string, number>()
  const fileIndex = (uri: string): number | undefined => {
    const url = absolute(uri, base)
    if (url === undefined) return undefined
    let index = indexOf.get(url)
    if (index === undefined) {
      index = files.length
      files.push(url)
      indexOf.set(url, index)
    }
    return index
  }
  let unsupportedKey: string | undefined
  // Each line as a function of the local names, so the rewrite is made once the files are known.
  const parts: Array<(local: (index: number) => string) => string> = []
  for (const line of lines) {
    if (line === "") continue
    if (line.startsWith("#")) {
      if (line.startsWith("#EXT-X-KEY:") || line.startsWith("#EXT-X-SESSION-KEY:")) {
        const method = attributes(line.slice(line.indexOf(":") + 1)).METHOD
        if (method !== undefined && method !== "NONE" && method !== "AES-128") unsupportedKey = method
      }
      const uri = /URI="([^"]*)"/.exec(line)
      const index = uri === null || line.startsWith("#EXT-X-MEDIA:") ? undefined : fileIndex(uri[1])
      parts.push(index === undefined ? () => line : (local) => line.replace(/URI="[^"]*"/, `URI="${local(index)}"`))
      continue
    }
    const index = fileIndex(line)
    parts.push(index === undefined ? () => line : (local) => local(index))
  }
  return { _tag: "Media", files, rewrite: (local) => parts.map((part) => part(local)).join("\n") + "\n", unsupportedKey }
}
