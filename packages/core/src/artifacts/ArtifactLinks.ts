/**
 * The shape of an artifact link and its signature: `{base}/v2/artifacts/{id}.{ext}?expires=<unix
 * s>&sig=<hex>`. The signature is HMAC-SHA256 over the file name and the expiry, so a link is a
 * bearer capability for one file until one moment; it carries no key and needs none. Pure
 * functions, shared by the store and its tests.
 */
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto"

export type ArtifactKind = "screenshot" | "pdf" | "audio" | "video"

/** The route's path prefix; the file name follows it. */
export const artifactPathPrefix = "/v2/artifacts/"

/**
 * The content types the store keeps, by extension. A closed list on purpose: the server serves
 * these files from its own origin, and an HTML or SVG file there could run script against it.
 */
const contentTypes = {
  png: "image/png",
  jpg: "image/jpeg",
  webp: "image/webp",
  pdf: "application/pdf",
  // The audio and video formats: media, which a browser plays and never runs as script.
  mp3: "audio/mpeg",
  mp4: "video/mp4",
  webm: "video/webm"
} as const

export type ArtifactExtension = keyof typeof contentTypes

export const contentTypeOf = (extension: ArtifactExtension): string => contentTypes[extension]

/** The extension for a content type (parameters and case ignored), or undefined when it is not kept. */
export const extensionFor = (contentType: string): ArtifactExtension | undefined => {
  const essence = contentType.split(";")[0].trim().toLowerCase()
  if (essence === "image/jpg") return "jpg"
  if (essence === "audio/mp3") return "mp3"
  for (const [extension, type] of Object.entries(contentTypes)) {
    if (type === essence) return extension as ArtifactExtension
  }
  return undefined
}

/** 128 random bits in hex: not guessable, and safe as a file name. */
export const newArtifactId = (): string => randomBytes(16).toString("hex")

const fileNamePattern = /^([0-9a-f]{32})\.(png|jpg|webp|pdf|mp3|mp4|webm)$/

/** `{id}.{ext}` as the store writes it, or undefined for anything else (paths, dots, other names). */
export const parseFileName = (name: string): { readonly id: string; readonly extension: ArtifactExtension } | undefined => {
  const match = fileNamePattern.exec(name)
  return match === null ? undefined : { id: match[1], extension: match[2] as ArtifactExtension }
}

/** Unix seconds as written in a link: digits, no sign, no leading zero. */
export const parseExpires = (value: string | undefined): number | undefined =>
  value !== undefined && /^[1-9][0-9]{0,11}$/.test(value) ? Number(value) : undefined

const mac = (secret: Uint8Array, fileName: string, expires: number): Buffer =>
  createHmac("sha256", secret).update(`strata-artifact-v1\n${fileName}\n${expires}`).digest()

export const signLink = (secret: Uint8Array, fileName: string, expires: number): string =>
  mac(secret, fileName, expires).toString("hex")

/** Whether `sig` signs this name and expiry; the comparison takes the same time wherever they differ. */
export const verifyLink = (secret: Uint8Array, fileName: string, expires: number, sig: string | undefined): boolean => {
  if (sig === undefined || !/^[0-9a-f]{64}$/.test(sig)) return false
  return timingSafeEqual(mac(secret, fileName, expires), Buffer.from(sig, "hex"))
}

/** The link for a stored file; `baseUrl` without a trailing slash is expected, one is tolerated. */
export const formatLink = (baseUrl: string, fileName: string, expires: number, sig: string): string =>
  `${baseUrl.replace(/\/+$/, "")}${artifactPathPrefix}${fileName}?expires=${expires}&sig=${sig}`

/** The parts of a link, absolute or a path with its query; undefined when it is not an artifact link. */
export const parseLink = (link: string): { readonly fileName: string; readonly expires: string | undefined; readonly sig: string | undefined } | undefined => {
  let url: URL
  let fileName: string
  try {
    url = new URL(link, "http://artifact.invalid")
    fileName = decodeURIComponent(url.pathname.slice(artifactPathPrefix.length))
  } catch {
    return undefined
  }
  if (!url.pathname.startsWith(artifactPathPrefix)) return undefined
  return { fileName, expires: url.searchParams.get("expires") ?? undefined, sig: url.searchParams.get("sig") ?? undefined }
}

/** The bytes and content type of a base64 `data:` URL (what the inline store hands out). */
export const decodeDataUrl = (url: string): { readonly bytes: Uint8Array; readonly contentType: string } | undefined => {
  const match = /^data:([^;,]+)(?:;[^;,=]+=[^;,]*)*;base64,([A-Za-z0-9+/=\s]*)$/.exec(url)
  if (match === null) return undefined
  return { contentType: match[1], bytes: new Uint8Array(Buffer.from(match[2], "base64")) }
}
