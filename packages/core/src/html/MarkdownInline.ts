/**
 * The inline half of the markdown writer: collapses whitespace the way a browser lays out text
 * and writes emphasis, links and code spans with their markers hugging the content.
 *
 * Markers are opened lazily: `<b> bold </b>` must become ` **bold** `, not `** bold **` (which
 * is no emphasis at all), and `<a href=x></a>` must leave nothing. So an opening marker waits
 * until the first visible content arrives inside it, a pending space is written before the
 * marker, and a closing marker goes before the space that follows it.
 *
 * Where CommonMark's flanking rules would stop an emphasis from working (`a**(b)**c`), the
 * emphasis is dropped rather than spaces added: the text a reader (or a search) sees must stay
 * the page's text. That check runs when the paragraph is finished, on its final characters,
 * because dropping one pair changes the neighbours of the next.
 */
import { codeSpan, escapeLineStart, escapeText, settleEmphasis } from "./MarkdownEscape.ts"

interface Marker {
  readonly open: string
  /** Content was written inside (the marker itself may have been suppressed). */
  emitted: boolean
  /** Not written: it would have run into a closer of the same character. */
  suppressed: boolean
  /** Where the opening marker was written. */
  at: number
}

/** A code span written out, `[start, end)`, with its raw code. */
interface CodeSpan {
  start: number
  end: number
  code: string
}

/** An emphasis written out: opener at `open`, closer at `close`, both `marker`. */
interface Pair {
  readonly marker: string
  readonly entry: Marker
  readonly open: number
  readonly close: number
}

const WHITESPACE = /[ \t\n\r\f\u00a0]+/g
/**
 * Removed from text: the escaper's placeholders (which must not come from the page itself),
 * and characters that never show but split words for search and tokenizers: soft hyphens,
 * zero-width spaces and stray byte-order marks. Joiners (U+200C/D) stay: scripts and emoji need them.
 */
const PLACEHOLDERS = /[\uE000-\uE002\u00ad\u200b\ufeff]/g
const WORD = /[\p{L}\p{N}]/u
const isSpace = (c: string | undefined): boolean => c === undefined || c === " " || c === "\n"
const isPunct = (c: string | undefined): boolean => !isSpace(c) && !WORD.test(c!)
const isEmphasis = (marker: string): boolean => marker === "*" || marker === "**" || marker === "~~"

/** CommonMark's left- and right-flanking rules, as micromark applies them to `*` and `~`. */
const canOpen = (before: string | undefined, after: string | undefined): boolean =>
  !isSpace(after) && (!isPunct(after) || isSpace(before) || isPunct(before))
const canClose = (before: string | undefined, after: string | undefined): boolean =>
  !isSpace(before) && (!isPunct(before) || isSpace(after) || isPunct(after))

/**
 * Removes the pairs CommonMark would not read as emphasis, until every remaining one works: a
 * marker must flank its content, and must not touch a sibling marker of the same character
 * (`**a****b**`, `~~a~~~~b~~`), which would merge into one delimiter run. `links` (positions of
 * link openers) and code `spans` move along; a `!` left right before a link is escaped (or the
 * link would turn into an image) and code spans left touching are joined.
 */
const dropBrokenPairs = (text: string, pairs: ReadonlyArray<Pair>, links: ReadonlyArray<number>, spans: ReadonlyArray<CodeSpan>): string => {
  // Markers are switched off in place (`dead`), so positions never move while checking;
  // the string is rebuilt once at the end. Lookups skip dead characters.
  const dead = new Uint8Array(text.length)
  const live = new Set(pairs)
  const openAt = new Map<number, Pair>()
  const closeEndAt = new Map<number, Pair>()
  for (const pair of pairs) {
    openAt.set(pair.open, pair)
    closeEndAt.set(pair.close + pair.marker.length - 1, pair)
  }
  const before = (at: number): number => {
    let k = at - 1
    while (k >= 0 && dead[k] === 1) k--
    return k
  }
  const after = (at: number): number => {
    let k = at
    while (k < text.length && dead[k] === 1) k++
    return k
  }
  const sibling = (position: number, map: Map<number, Pair>, char: string): boolean => {
    const other = map.get(position)
    return other !== undefined && live.has(other) && other.marker[0] === char
  }
  // Dropping a pair changes its neighbours' neighbours: repeat until stable (a few passes).
  for (let changed = true, pass = 0; changed && pass < 16; pass++) {
    changed = false
    for (const pair of pairs) {
      if (!live.has(pair)) continue
      const { marker, open, close } = pair
      const length = marker.length
      const beforeOpen = before(open)
      const afterOpen = after(open + length)
      const beforeClose = before(close)
      const afterClose = after(close + length)
      const works =
        canOpen(text[beforeOpen], text[afterOpen]) &&
        canClose(text[beforeClose], text[afterClose]) &&
        !sibling(beforeOpen, closeEndAt, marker[0]!) &&
        !sibling(afterClose, openAt, marker[0]!)
      if (works) continue
      live.delete(pair)
      dead.fill(1, open, open + length)
      dead.fill(1, close, close + length)
      changed = true
    }
  }
  if (live.size === pairs.length) return fixups(text, [...links], spans.map((span) => ({ ...span })))
  // Rebuild, mapping old positions to new ones for the link and code-span fixups.
  const moved = new Int32Array(text.length + 1)
  let out = ""
  let runStart = 0
  let removed = 0
  for (let k = 0; k < text.length; k++) {
    moved[k] = k - removed
    if (dead[k] === 1) {
      if (runStart < k) out += text.slice(runStart, k)
      runStart = k + 1
      removed++
    }
  }
  out += text.slice(runStart)
  moved[text.length] = text.length - removed
  return fixups(
    out,
    links.map((at) => moved[at]!),
    spans.map((span) => ({ start: moved[span.start]!, end: moved[span.end]!, code: span.code }))
  )
}

/** After pairs are dropped: code spans left touching are joined, a `!` before a link is escaped. */
const fixups = (text: string, links: Array<number>, spans: Array<CodeSpan>): string => {
  let out = text
  for (let k = spans.length - 1; k > 0; k--) {
    const a = spans[k - 1]!
    const b = spans[k]!
    if (a.end !== b.start) continue
    const joined = codeSpan(a.code + b.code)
    const delta = joined.length - (b.end - a.start)
    out = out.slice(0, a.start) + joined + out.slice(b.end)
    a.code += b.code
    a.end = a.start + joined.length
    spans.splice(k, 1)
    for (let m = 0; m < links.length; m++) if (links[m]! >= b.end) links[m] = links[m]! + delta
  }
  for (let k = links.length - 1; k >= 0; k--) {
    const at = links[k]!
    if (out[at - 1] === "!" && out[at - 2] !== "\\") out = `${out.slice(0, at - 1)}\\${out.slice(at - 1)}`
  }
  return out
}

export class InlineWriter {
  private out = ""
  private pendingSpace = false
  private pendingBreaks = 0
  private readonly pendingOpen: Array<Marker> = []
  private readonly stack: Array<Marker> = []
  private readonly pairs: Array<Pair> = []
  /** Where link openers were written, for the `!` check after pairs are dropped. */
  private readonly links: Array<number> = []
  private linkDepth = 0
  /**
   * Emphasis markers closed back to back at the very end of the output, so that
   * `<b>a</b><b>b</b>` merges into `**ab**` (and `~~**a**~~~~**b**~~` into `~~**ab**~~`).
   */
  private closeTrail: Array<{ readonly marker: string; readonly end: number; readonly entry: Marker }> = []
  /** Code spans written, so that `<code>a</code><code>b</code>` becomes one span. */
  private readonly spans: Array<CodeSpan> = []
  /** The raw code of the span `content` is about to write (set by `code`). */
  private incomingCode: string | undefined

  /** Text from the page: whitespace collapses, markdown syntax characters are escaped. */
  text(value: string): void {
    const collapsed = value.replace(WHITESPACE, " ").replace(PLACEHOLDERS, "")
    if (collapsed === "") return
    if (collapsed === " ") {
      this.pendingSpace = true
      return
    }
    const leading = collapsed.startsWith(" ")
    const trailing = collapsed.endsWith(" ")
    if (leading) this.pendingSpace = true
    const inner = collapsed.slice(leading ? 1 : 0, trailing ? collapsed.length - 1 : collapsed.length)
    this.content(escapeText(inner, this.linkDepth > 0))
    if (trailing) this.pendingSpace = true
  }

  /** Inline code; spaces at its edges go outside the span, adjacent spans merge. */
  code(value: string): void {
    const collapsed = value.replace(WHITESPACE, " ")
    const trimmed = collapsed.trim()
    if (trimmed === "") {
      if (collapsed !== "") this.pendingSpace = true
      return
    }
    if (collapsed.startsWith(" ")) this.pendingSpace = true
    this.incomingCode = trimmed
    this.content(codeSpan(trimmed))
    if (collapsed.endsWith(" ")) this.pendingSpace = true
  }

  /** Already formatted markdown (an image, a checkbox) that counts as visible content. */
  content(markdown: string): void {
    if (markdown === "") return
    const opens = this.pendingOpen
    const touching = this.pendingBreaks === 0 && !this.pendingSpace
    // Opening markers that would run into the emphasis just closed: the same marker merges;
    // another one of the same character would blur the delimiter run (`*a***b**`): dropped.
    let lead = 0
    const trail = this.closeTrail
    while (touching && lead < opens.length && trail.length > 0 && trail[trail.length - 1]!.end === this.out.length) {
      const last = trail[trail.length - 1]!
      const marker = opens[lead]!
      if (!isEmphasis(marker.open) || marker.open[0] !== last.marker[0]) break
      lead++
      marker.emitted = true
      if (marker.open === last.marker) {
        this.out = this.out.slice(0, this.out.length - marker.open.length)
        marker.at = last.entry.at
        const index = this.pairs.findIndex((pair) => pair.entry === last.entry)
        if (index !== -1) this.pairs.splice(index, 1)
        trail.pop()
      } else {
        marker.suppressed = true
      }
    }
    const code = this.incomingCode
    this.incomingCode = undefined
    const lastCode = this.spans[this.spans.length - 1]
    if (code !== undefined && touching && lead === opens.length && lastCode !== undefined && lastCode.end === this.out.length) {
      // Two code spans back to back would read as one broken span: write them as one.
      lastCode.code += code
      this.out = this.out.slice(0, lastCode.start) + codeSpan(lastCode.code)
      lastCode.end = this.out.length
      opens.length = 0
      this.closeTrail = []
      return
    }
    if (this.pendingBreaks > 0) {
      // A blank line inside a marker would end the paragraph and strand the marker.
      if (this.out !== "") this.out += this.pendingBreaks > 1 && this.stack.length === 0 ? "\n\n" : "  \n"
      this.pendingBreaks = 0
    } else if (this.pendingSpace) {
      if (this.out !== "" && !this.out.endsWith("\n")) this.out += " "
    }
    this.pendingSpace = false
    for (let k = lead; k < opens.length; k++) {
      const marker = opens[k]!
      marker.emitted = true
      marker.at = this.out.length
      // `!` right before a link's `[` would turn it into an image.
      if (marker.open === "[") {
        if (this.out.endsWith("!")) this.out = `${this.out.slice(0, -1)}\\!`
        marker.at = this.out.length
        this.links.push(marker.at)
      }
      this.out += marker.open
    }
    opens.length = 0
    this.closeTrail = []
    this.out += markdown
    if (code !== undefined) this.spans.push({ start: this.out.length - markdown.length, end: this.out.length, code })
  }

  /** A word boundary from layout (a block edge inside inline content). */
  space(): void {
    this.pendingSpace = true
  }

  /** `<br>`: a hard line break; two or more in a row make a paragraph break. */
  lineBreak(): void {
    this.pendingBreaks++
  }

  /** Opens a marker (`**`, `*`, `~~`, `[`); it is written only if content follows. */
  open(marker: string): void {
    const entry: Marker = { open: marker, emitted: false, suppressed: false, at: -1 }
    this.stack.push(entry)
    this.pendingOpen.push(entry)
    if (marker === "[") this.linkDepth++
  }

  /**
   * Closes the innermost marker with `closing`; returns false when nothing was written inside
   * (the marker vanishes). Breaks and spaces still pending go after the closing marker.
   */
  close(closing: string): boolean {
    const entry = this.stack.pop()
    if (entry === undefined) return false
    if (entry.open === "[") this.linkDepth--
    if (!entry.emitted) {
      const index = this.pendingOpen.indexOf(entry)
      if (index !== -1) this.pendingOpen.splice(index, 1)
      return false
    }
    if (entry.suppressed) return true
    const closeAt = this.out.length
    this.out += closing
    if (closing !== entry.open) {
      this.closeTrail = []
      return true
    }
    this.pairs.push({ marker: closing, entry, open: entry.at, close: closeAt })
    const trail = this.closeTrail
    if (trail.length > 0 && trail[trail.length - 1]!.end !== closeAt) trail.length = 0
    trail.push({ marker: closing, end: this.out.length, entry })
    return true
  }

  /** The inline markdown with broken emphasis dropped and escape placeholders settled. */
  private settled(): string {
    if (this.pairs.length === 0) return settleEmphasis(this.out)
    return settleEmphasis(dropBrokenPairs(this.out, this.pairs, this.links, this.spans))
  }

  /** The paragraph's markdown, with block markers at line starts escaped. */
  finish(): string {
    const text = this.settled()
    if (text.indexOf("\n") === -1) return escapeLineStart(text)
    return text.split("\n").map(escapeLineStart).join("\n")
  }

  /** The inline markdown on one line (for headings and table cells). */
  finishFlat(): string {
    return this.settled().replace(/ *\n+/g, " ").trim()
  }
}
