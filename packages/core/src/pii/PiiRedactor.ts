/**
 * `redactPII` as a Redactor for the Redaction stage: finds PII spans in text (Patterns.ts,
 * Phones.ts, Names.ts, Addresses.ts), keeps those of the requested entity buckets, and rewrites
 * them by the replace style. It runs on every page's blocks (their fragment and the structure the
 * HTML writer reads: text, table cells, alt text) and on a web page's markdown and HTML, before
 * anything is written out or handed to a model. What it finds is never logged.
 *
 * RedactPIIOptions (the contract leaves its fields open; ours, the official SDK's names):
 * - `mode`: `fast` (patterns and check digits: e-mail, phone, cards, IBANs, national ids, IPs,
 *   secrets), `accurate` (the default: also names, street addresses, dates of birth and context
 *   rules), `aggressive` (also weaker evidence: bare digit runs as phones, obfuscated e-mails,
 *   names from a common-word first name, crypto wallets without a keyword).
 * - `entities`: buckets among PERSON, EMAIL, PHONE, LOCATION, FINANCIAL, SECRET; all when unset.
 * - `replaceStyle`: `tag` (`<EMAIL>`, `<CREDIT_CARD>`, ...; in HTML, escaped as text), `mask`
 *   (`*` for each character), `remove`.
 */
import { Effect } from "effect"
import type { Block, Page } from "../Document.ts"
import type { ResolvedRedactPII } from "../contract/Request.ts"
import type { Redactor } from "../stages/Redaction.ts"
import { StageError } from "../stages/StageError.ts"
import { addresses } from "./Addresses.ts"
import { names } from "./Names.ts"
import { birthDates, cards, emails, ibans, ipAddresses, nationalIds, secrets, ssns } from "./Patterns.ts"
import { phones } from "./Phones.ts"
import { type PiiBucket, PiiKinds, type PiiMode, type PiiSpan, resolveOverlaps } from "./Spans.ts"

type Detector = (text: string, mode: PiiMode, out: Array<PiiSpan>) => void

/** Every detector, with the buckets its kinds fall in (a detector none of whose buckets is asked for is not run). */
const DETECTORS: ReadonlyArray<{ readonly buckets: ReadonlyArray<PiiBucket>; readonly find: Detector }> = [
  { buckets: ["EMAIL"], find: emails },
  { buckets: ["FINANCIAL"], find: cards },
  { buckets: ["FINANCIAL"], find: ibans },
  { buckets: ["SECRET"], find: ssns },
  { buckets: ["SECRET"], find: nationalIds },
  { buckets: ["SECRET", "FINANCIAL"], find: secrets },
  { buckets: ["LOCATION"], find: ipAddresses },
  { buckets: ["PERSON"], find: birthDates },
  { buckets: ["PHONE"], find: phones },
  { buckets: ["PERSON"], find: names },
  { buckets: ["LOCATION"], find: addresses }
]

export interface PiiOptions {
  readonly mode: PiiMode
  readonly buckets: ReadonlySet<PiiBucket>
  readonly replaceStyle: "tag" | "mask" | "remove"
}

export const piiOptions = (resolved: ResolvedRedactPII): PiiOptions => ({
  mode: resolved.mode,
  buckets: new Set(resolved.entities ?? (Object.values(PiiKinds) as Array<PiiBucket>)),
  replaceStyle: resolved.replaceStyle
})

/**
 * The PII spans of `text` the options ask for, without overlaps, in order. Detectors may find
 * the same text twice (a card number inside a labelled secret): the longest span wins.
 */
export const findPii = (text: string, options: PiiOptions): Array<PiiSpan> => {
  const found: Array<PiiSpan> = []
  for (const detector of DETECTORS) {
    if (detector.buckets.some((b) => options.buckets.has(b))) detector.find(text, options.mode, found)
  }
  // Longest first over every kind, so a phone inside an address, or digits inside an IBAN, go
  // with the larger finding; then the buckets not asked for are dropped.
  return resolveOverlaps(found).filter((span) => options.buckets.has(PiiKinds[span.kind]))
}

const replacement = (span: PiiSpan, original: string, style: PiiOptions["replaceStyle"], html: boolean): string => {
  switch (style) {
    case "tag":
      return html ? `&lt;${span.kind}&gt;` : `<${span.kind}>`
    case "mask":
      return "*".repeat([...original].length)
    case "remove":
      return ""
  }
}

const rewrite = (text: string, spans: ReadonlyArray<PiiSpan>, style: PiiOptions["replaceStyle"], html = false): string => {
  if (spans.length === 0) return text
  let out = ""
  let at = 0
  for (const span of spans) {
    out += text.slice(at, span.start) + replacement(span, text.slice(span.start, span.end), style, html)
    at = span.end
  }
  return out + text.slice(at)
}

/** Redacts plain text or markdown. */
export const redactString = (text: string, options: PiiOptions): string => rewrite(text, findPii(text, options), options.replaceStyle)

/**
 * Redacts HTML: text between tags and attribute values, never the markup itself (a span that
 * would cross a tag is left to the text on either side), with the tag style written as text.
 */
export const redactHtmlString = (html: string, options: PiiOptions): string => {
  let out = ""
  let at = 0
  const TAG = /<!--[\s\S]*?-->|<[^>]*>/g
  for (let m = TAG.exec(html); m !== null; m = TAG.exec(html)) {
    const between = html.slice(at, m.index)
    out += rewrite(between, findPii(between, options), options.replaceStyle, true)
    const tag = m[0]
    out += tag.startsWith("<!--") ? "" : tag.replace(/(=\s*)(["'])([^"']*)\2/g, (_all, eq: string, quote: string, value: string) => {
      const spans = findPii(value, options)
      return `${eq}${quote}${spans.length === 0 ? value : rewrite(value, spans, options.replaceStyle === "tag" ? "mask" : options.replaceStyle)}${quote}`
    })
    at = m.index + tag.length
  }
  const rest = html.slice(at)
  return out + rewrite(rest, findPii(rest, options), options.replaceStyle, true)
}

const redactBlock = (block: Block, options: PiiOptions): Block => {
  const content = redactString(block.content, options)
  const text = block.text === undefined ? undefined : redactString(block.text, options)
  const table = block.table === undefined ? undefined : { ...block.table, cells: block.table.cells.map((cell) => ({ ...cell, text: redactString(cell.text, options) })) }
  const image = block.image === undefined ? undefined : { ...block.image, alt: redactString(block.image.alt, options) }
  if (content === block.content && text === block.text && table === block.table && image === block.image) return block
  return {
    ...block,
    content,
    ...(text === undefined ? {} : { text }),
    ...(table === undefined ? {} : { table }),
    ...(image === undefined ? {} : { image })
  }
}

/** Fails closed: nothing goes out unredacted, and what failed (which may quote the text) is not told. */
const failed = () => new StageError({ stage: "Redaction", message: "PII redaction failed, so nothing was returned unredacted" })

/** The Redactor for a request's `redactPII`. */
export const piiRedactor = (resolved: ResolvedRedactPII): Redactor => {
  const options = piiOptions(resolved)
  return {
    name: "pii",
    redactPage: (page: Page) => Effect.try({ try: () => ({ ...page, blocks: page.blocks.map((b) => redactBlock(b, options)) }), catch: failed }),
    redactText: (text: string) => Effect.try({ try: () => redactString(text, options), catch: failed }),
    redactHtml: (html: string) => Effect.try({ try: () => redactHtmlString(html, options), catch: failed })
  }
}
