/**
 * Inline markdown for text coming out of documents: minimal escaping (only where a character
 * would otherwise start markdown syntax, so that phrases stay searchable), emphasis that
 * survives run boundaries, and links.
 */
import { blockMarkdown, type ImageInfo } from "@strata/core"

/** A formatted run of text, as documents store it. */
export interface Run {
  readonly text: string
  readonly bold?: boolean
  readonly italic?: boolean
  readonly strike?: boolean
  readonly code?: boolean
  /** Absolute or document-relative link target. */
  readonly href?: string | undefined
  /** Already markdown (math, note markers): written as is. */
  readonly raw?: boolean
}

/** Escapes what would be read as markdown syntax inside running text. */
export const escapeInline = (text: string): string =>
  text
    .replace(/\\(?=[\\`*_[\]<>])/g, "\\\\")
    .replace(/[*`]/g, (c) => `\\${c}`)
    // `_` only at word edges: intra-word underscores (snake_case) are literal in CommonMark.
    .replace(/(^|[^\p{L}\p{N}])_|_(?=$|[^\p{L}\p{N}])/gu, (m) => m.replace("_", "\\_"))
    .replace(/\[(?=[^\]]*\]\s*[([])/g, "\\[")
    .replace(/<(?=[A-Za-z/!?])/g, "&lt;")

/** Escapes what would start a block construct at the beginning of a paragraph. */
export const escapeBlockStart = (text: string): string =>
  text
    .replace(/^(\s*)([#>+]|-(?=\s|$)|=+\s*$)/, "$1\\$2")
    .replace(/^(\s*\d+)([.)])(?=\s|$)/, "$1\\$2")

const sameStyle = (a: Run, b: Run): boolean =>
  !!a.raw === !!b.raw && !!a.bold === !!b.bold && !!a.italic === !!b.italic && !!a.strike === !!b.strike && !!a.code === !!b.code && a.href === b.href

/** Joins runs into inline markdown: adjacent runs with the same style merge before markers are placed. */
export const renderRuns = (runs: ReadonlyArray<Run>): string => {
  const merged: Array<Run> = []
  for (const run of runs) {
    if (run.text.length === 0) continue
    const last = merged[merged.length - 1]
    if (last !== undefined && sameStyle(last, run)) merged[merged.length - 1] = { ...last, text: last.text + run.text }
    else merged.push(run)
  }
  let out = ""
  for (const run of merged) out += renderRun(run)
  return out
}

const renderRun = (run: Run): string => {
  if (run.raw) return run.text
  // Markers must hug non-space text, so leading and trailing whitespace stays outside them.
  const match = /^(\s*)([\s\S]*?)(\s*)$/.exec(run.text)
  const lead = match?.[1] ?? ""
  const core = match?.[2] ?? run.text
  const trail = match?.[3] ?? ""
  if (core.length === 0) return run.text
  let body: string
  if (run.code) {
    const ticks = "`".repeat(longestRun(core, "`") + 1)
    body = `${ticks}${core.startsWith("`") || core.endsWith("`") ? ` ${core} ` : core}${ticks}`
  } else body = escapeInline(core)
  if (run.strike) body = `~~${body}~~`
  if (run.italic) body = `*${body}*`
  if (run.bold) body = `**${body}**`
  if (run.href !== undefined && run.href.length > 0) body = `[${body}](${linkTarget(run.href)})`
  return lead + body + trail
}

const longestRun = (text: string, ch: string): number => {
  let best = 0
  let cur = 0
  for (const c of text) {
    cur = c === ch ? cur + 1 : 0
    if (cur > best) best = cur
  }
  return best
}

export const linkTarget = (href: string): string => (/[\s()<>]/.test(href) ? `<${href.replace(/[<>]/g, encodeURIComponent)}>` : href)

/** Collapses whitespace the way a rendered document shows it (tabs and line breaks become spaces). */
export const collapseSpaces = (text: string): string => text.replace(/[ \t\r\n\u00a0]+/g, " ")

/** Cleans one paragraph of inline markdown: collapsed spaces, trimmed, block-start syntax escaped. */
export const finishParagraph = (inline: string): string => escapeBlockStart(inline.replace(/[ \t]+/g, " ").replace(/ *\n */g, "\n").trim())

/** An embedded picture: its alt text (inline markdown) and no address (the bytes are not served). */
export const imageInfo = (alt: string): ImageInfo => ({ src: "", alt: alt.trim().length > 0 ? escapeInline(alt.trim().replace(/\s+/g, " ")) : "" })

/** A picture inside running text, written by core's block writer (a comment when it has no alt text). */
export const imageMarkdown = (alt: string): string => blockMarkdown({ image: imageInfo(alt) })
