/**
 * The per-page OCR decision of `mode: "auto"`: a pure function over what the PDF reader
 * already has (the page's text items and how much of it images cover). One pass over the
 * characters, no allocation per character: it must stay far below 5 ms on pages that need no
 * OCR, since every page of every PDF pays it.
 *
 * Order of the checks (cheap and certain first): no text at all; only invisible (render mode 3)
 * or clipped text, as old OCR layers are; a text layer whose characters are not real text
 * (U+FFFD, private-use, control characters, mojibake, consonant soup from broken encodings);
 * a page that is mostly image with little text on it.
 */

export interface DecisionTextItem {
  readonly str: string
  /** Box in page units, any origin, as long as it matches `pageWidth`/`pageHeight`. */
  readonly x: number
  readonly y: number
  readonly width: number
  readonly height: number
  /** PDF text render mode; 3 draws nothing (invisible OCR layers, hidden text). */
  readonly renderMode?: number | undefined
  /** The reader knows the item is hidden by a clip path or lies outside the crop box. */
  readonly clipped?: boolean | undefined
}

export interface DecisionInput {
  readonly pageWidth: number
  readonly pageHeight: number
  readonly items: ReadonlyArray<DecisionTextItem>
  /** Share of the page area covered by images, 0..1 (overlaps counted once if the reader can). */
  readonly imageCoverage: number
  /** Number of path-painting operations: text drawn as outlines leaves no text but paths. */
  readonly pathCount?: number | undefined
}

export type DecisionReason =
  | "no_text"
  | "invisible_text"
  | "clipped_text"
  | "garbled_text"
  | "image_dominant"
  | "text_ok"
  | "blank"

export interface OcrDecision {
  readonly ocr: boolean
  readonly reason: DecisionReason
  readonly stats: {
    readonly chars: number
    readonly visibleChars: number
    readonly badChars: number
    readonly mojibake: number
    readonly textAreaShare: number
    readonly imageCoverage: number
  }
}

export interface DecisionOptions {
  /** Share of unreadable characters above which the text layer is garbage (default 0.1). */
  readonly badCharShare?: number
  /** Image coverage at or above which a page is "mostly image" (default 0.5). */
  readonly imageDominant?: number
  /** With a mostly-image page, visible text covering less than this share means OCR (default 0.08). */
  readonly minTextAreaShare?: number
}

const isBad = (c: number): boolean =>
  c === 0xfffd ||
  (c < 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0d) ||
  (c >= 0x7f && c < 0xa0) ||
  (c >= 0xe000 && c <= 0xf8ff) ||
  (c >= 0xf0000) ||
  c === 0xfffe || c === 0xffff

const isVowel = (c: number): boolean => {
  switch (c | 0x20) {
    case 0x61: // a
    case 0x65: // e
    case 0x69: // i
    case 0x6f: // o
    case 0x75: // u
    case 0x79: // y
      return true
    default:
      return false
  }
}

const isSpace = (c: number): boolean => c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d || c === 0xa0

const isAsciiLetter = (c: number): boolean => (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a)

/** Decides whether one page needs OCR. */
export const decideOcr = (input: DecisionInput, options: DecisionOptions = {}): OcrDecision => {
  const pageArea = Math.max(1e-9, input.pageWidth * input.pageHeight)
  let chars = 0
  let visibleChars = 0
  let invisibleChars = 0
  let clippedChars = 0
  let badChars = 0
  let mojibake = 0
  let alnum = 0
  let textArea = 0
  // Latin words of 4+ letters with no vowel: broken font encodings map glyphs to shifted codes.
  let latinWords = 0
  let vowelless = 0
  for (const item of input.items) {
    const s = item.str
    let n = 0
    for (let i = 0; i < s.length; i++) if (!isSpace(s.charCodeAt(i))) n++
    if (n === 0) continue
    chars += n
    if (item.renderMode === 3) {
      invisibleChars += n
      continue
    }
    const outside = item.x + item.width < 0 || item.y + item.height < 0 || item.x > input.pageWidth || item.y > input.pageHeight
    if (item.clipped === true || outside) {
      clippedChars += n
      continue
    }
    visibleChars += n
    textArea += Math.abs(item.width * item.height)
    let wordLen = 0
    let wordVowel = false
    let prev = 0
    for (let i = 0; i < s.length; i++) {
      const c = s.charCodeAt(i)
      if (isBad(c)) badChars++
      // Mojibake: UTF-8 bytes read as Latin-1/cp1252 ("Ã©", "â€™", "Â ").
      if ((prev === 0xc3 || prev === 0xc2 || prev === 0xe2) && ((c >= 0x80 && c <= 0xbf) || c === 0x20ac || c === 0x2122 || c === 0x153)) mojibake++
      if (isAsciiLetter(c)) {
        wordLen++
        if (isVowel(c)) wordVowel = true
        alnum++
      } else {
        if (c >= 0x30 && c <= 0x39) alnum++
        else if (c > 0xff && c !== 0xfffd) alnum++ // other scripts count as real text
        if (wordLen >= 4) {
          latinWords++
          if (!wordVowel) vowelless++
        }
        wordLen = 0
        wordVowel = false
      }
      prev = c
    }
    if (wordLen >= 4) {
      latinWords++
      if (!wordVowel) vowelless++
    }
  }
  const textAreaShare = Math.min(1, textArea / pageArea)
  const stats = { chars, visibleChars, badChars, mojibake, textAreaShare, imageCoverage: input.imageCoverage }
  const decide = (ocr: boolean, reason: DecisionReason): OcrDecision => ({ ocr, reason, stats })

  if (chars === 0) {
    const blank = input.imageCoverage <= 0.001 && (input.pathCount ?? 1) === 0
    return blank ? decide(false, "blank") : decide(true, "no_text")
  }
  if (visibleChars === 0) return decide(true, invisibleChars >= clippedChars ? "invisible_text" : "clipped_text")
  // Mostly hidden text with a sliver of visible text (a page number over an OCR layer) is still an OCR page.
  if (invisibleChars > visibleChars * 4) return decide(true, "invisible_text")
  if (clippedChars > visibleChars * 4) return decide(true, "clipped_text")
  const badShare = options.badCharShare ?? 0.1
  if (badChars > Math.max(3, visibleChars * badShare)) return decide(true, "garbled_text")
  if (mojibake > Math.max(3, visibleChars * 0.02)) return decide(true, "garbled_text")
  if (visibleChars >= 20 && alnum < visibleChars * 0.3) return decide(true, "garbled_text")
  if (latinWords >= 8 && vowelless > latinWords * 0.45) return decide(true, "garbled_text")
  if (input.imageCoverage >= (options.imageDominant ?? 0.5) && textAreaShare < (options.minTextAreaShare ?? 0.08)) {
    return decide(true, "image_dominant")
  }
  return decide(false, "text_ok")
}
