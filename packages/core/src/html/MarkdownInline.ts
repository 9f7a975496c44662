/**
 * The inline half of the markdown writer: collapses whitespace the way a browser lays out text
 * and writes emphasis, links and code spans with their markers hugging the content.
 *
 * Markers are opened lazily: `<b> bold </b>` must become ` **bold** `, not `** bold **` (which
 * is no emphasis at all), and `<a href=x></a>` must leave nothing. So an opening marker waits
 * until the first visible content arrives inside it, a pending space is written before the
 * marker, and a closing marker goes before the space that follows it. Where CommonMark's
 * flanking rules would stop a marker from working (`a**(b)**c`), the emphasis is dropped rather
 * than spaces added: the text a reader (or a search) sees must stay the page's text.
 */
import { codeSpan, escapeLineStart, escapeText, settleEmphasis } from "./MarkdownEscape.ts"

interface Marker {
  readonly open: string
  /** Content was written inside (the marker itself may have been suppressed). */
  emitted: boolean
  /** Not written: CommonMark would not read it as emphasis here, and a space would change the text. */
  suppressed: boolean
  /** Where the opening marker was written. */
  at: number
}

const WHITESPACE = /[ \t\n\r\f\u00a0]+/g
/**
 * Removed from text: the escaper's placeholders (which must not come from the page itself),
 * and characters that never show but split words for search and tokenizers: soft hyphens,
 * zero-width spaces and stray byte-order marks. Joiners (U+200C/D) stay: scripts and emoji need them.
 */
const PLACEHOLDERS = /[\uE000\uE001\u00ad\u200b\ufeff]/g
const WORD = /[\p{L}\p{N}]/u
const isWord = (c: string | undefined): boolean => c !== undefined && WORD.test(c)
const isPunct = (c: string | undefined): boolean => c !== undefined && c !== " " && c !== "\n" && !WORD.test(c)
const isEmphasis = (marker: string): boolean => marker === "*" || marker === "**" || marker === "~~"

export class InlineWriter {
  private out = ""
  private pendingSpace = false
  private pendingBreaks = 0
  private readonly pendingOpen: Array<Marker> = []
  private readonly stack: Array<Marker> = []
  private linkDepth = 0
  /** The emphasis marker just closed and where, so that `<b>a</b><b>b</b>` merges into `**ab**`. */
  private lastClose: { readonly marker: string; readonly end: number; readonly entry: Marker } | undefined
  /** The code span just written, so that `<code>a</code><code>b</code>` becomes one span. */
  private lastCode: { readonly start: number; readonly end: number; readonly code: string } | undefined
  /** An emphasis just closed after punctuation: a word right after it would stop it closing. */
  private fragileClose: { readonly open: Marker; readonly closeAt: number; readonly length: number } | undefined

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
    const last = this.lastCode
    if (last !== undefined && last.end === this.out.length && !this.pendingSpace && this.pendingOpen.length === 0 && this.pendingBreaks === 0) {
      const merged = last.code + trimmed
      this.out = this.out.slice(0, last.start) + codeSpan(merged)
      this.lastCode = { start: last.start, end: this.out.length, code: merged }
    } else {
      const span = codeSpan(trimmed)
      this.content(span)
      this.lastCode = { start: this.out.length - span.length, end: this.out.length, code: trimmed }
    }
    if (collapsed.endsWith(" ")) this.pendingSpace = true
  }

  /** Already formatted markdown (an image, a checkbox) that counts as visible content. */
  content(markdown: string): void {
    if (markdown === "") return
    const opens = this.pendingOpen
    const first = opens.length > 0 ? opens[0]!.open[0] : markdown[0]
    const fragile = this.fragileClose
    this.fragileClose = undefined
    if (fragile !== undefined && this.pendingBreaks === 0 && !this.pendingSpace && isWord(first) && fragile.closeAt === this.out.length - fragile.length) {
      // `**(b)**c` would not close: take both markers out again.
      const at = fragile.open.at
      this.out = this.out.slice(0, at) + this.out.slice(at + fragile.open.open.length, fragile.closeAt)
      this.lastClose = undefined
      this.lastCode = undefined
    }
    if (this.pendingBreaks > 0) {
      // A blank line inside a marker would end the paragraph and strand the marker.
      if (this.out !== "") this.out += this.pendingBreaks > 1 && this.stack.length === 0 ? "\n\n" : "  \n"
      this.pendingBreaks = 0
      this.pendingSpace = false
    } else if (this.pendingSpace) {
      if (this.out !== "" && !this.out.endsWith("\n")) this.out += " "
    }
    this.pendingSpace = false
    for (let k = 0; k < opens.length; k++) {
      const marker = opens[k]!
      marker.emitted = true
      const last = this.lastClose
      if (last !== undefined && last.marker === marker.open && last.end === this.out.length) {
        this.out = this.out.slice(0, this.out.length - marker.open.length)
        marker.at = last.entry.at
        continue
      }
      if (k === 0 && isEmphasis(marker.open)) {
        const next = k + 1 < opens.length ? opens[k + 1]!.open[0] : markdown[0]
        if (isWord(this.out[this.out.length - 1]) && isPunct(next)) {
          marker.suppressed = true
          continue
        }
      }
      marker.at = this.out.length
      // `!` right before a link's `[` would turn it into an image.
      if (marker.open === "[" && this.out.endsWith("!")) this.out = `${this.out.slice(0, -1)}\\!`
      this.out += marker.open
    }
    opens.length = 0
    this.lastClose = undefined
    this.lastCode = undefined
    this.out += markdown
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
    const before = this.out[this.out.length - 1]
    const closeAt = this.out.length
    this.out += closing
    this.lastClose = closing === entry.open ? { marker: closing, end: this.out.length, entry } : undefined
    this.fragileClose = isEmphasis(closing) && isPunct(before) ? { open: entry, closeAt, length: closing.length } : undefined
    return true
  }

  /** The paragraph's markdown, with block markers at line starts escaped. */
  finish(): string {
    const text = settleEmphasis(this.out)
    if (text.indexOf("\n") === -1) return escapeLineStart(text)
    return text.split("\n").map(escapeLineStart).join("\n")
  }

  /** The inline markdown on one line (for headings and table cells). */
  finishFlat(): string {
    return settleEmphasis(this.out).replace(/ *\n+/g, " ").trim()
  }
}
