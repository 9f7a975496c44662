/**
 * Markdown escaping, kept to the characters that would really turn text into syntax: an escaped
 * `snake\_case` or `\[1\]` breaks search, snippets and word tokens, so `_` is escaped only at
 * word edges, `*` only where it could open or close emphasis (and neither when it is the only
 * one in its paragraph), `[`/`]` only where they would form a link, and list/heading/quote
 * markers only at the start of a line.
 */

const PUNCTUATION = /[!-/:-@[-`{-~]/

const isSpace = (c: string | undefined): boolean => c === undefined || c === " " || c === "\n" || c === "\t"
const isAlnum = (c: string | undefined): boolean => c !== undefined && /[\p{L}\p{N}]/u.test(c)

/**
 * A `*`, `_` or `~` that could be emphasis is written as a placeholder first: one alone in its
 * paragraph can never pair up (`Name*`, `file_`, `~100`), so it stays unescaped; see `settleEmphasis`.
 */
export const MAYBE_STAR = "\uE000"
export const MAYBE_UNDERSCORE = "\uE001"
/** GFM strikethrough needs two tildes: one alone (`~100 people`) stays as it is. */
export const MAYBE_TILDE = "\uE002"

/** Resolves the placeholders of one inline context (a paragraph, heading or table cell). */
export const settleEmphasis = (markdown: string): string => {
  if (!/[\uE000-\uE002]/.test(markdown)) return markdown
  const count = (c: string) => markdown.split(c).length - 1
  const star = count(MAYBE_STAR) === 1 && markdown.indexOf("*") === -1 ? "*" : "\\*"
  const underscore = count(MAYBE_UNDERSCORE) === 1 && markdown.indexOf("_") === -1 ? "_" : "\\_"
  const tilde = count(MAYBE_TILDE) === 1 && markdown.indexOf("~") === -1 ? "~" : "\\~"
  return markdown.replace(/\uE000/g, star).replace(/\uE001/g, underscore).replace(/\uE002/g, tilde)
}

/**
 * Whether the `]` at `close` (the first after a `[`) is followed by what makes a link, or ends
 * the text. No whitespace may separate a link text from its `(destination)` or `[label]`.
 */
const closesLink = (text: string, close: number): boolean => close !== -1 && /^\](?:[([:]|$)/.test(text.slice(close, close + 2))

/** Characters that may need escaping; text without them (most of it) is returned as is. */
const SPECIAL = /[\\*_`[\]<&~]/

/**
 * Escapes inline text (whitespace already collapsed). Node edges count as non-space, to stay
 * safe. Inside a link's label every bracket is escaped, since one stray `]` would end it.
 */
export const escapeText = (text: string, inLabel = false): string => {
  if (!SPECIAL.test(text)) return text
  let out = ""
  let nextClose = text.indexOf("]")
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!
    const prev = text[i - 1]
    const next = text[i + 1]
    switch (c) {
      case "\\":
        // At the end of a text node the next character is unknown (a closing `**`?): double it.
        out += next === undefined || PUNCTUATION.test(next) ? "\\\\" : "\\"
        break
      case "*":
        out += i > 0 && i < text.length - 1 && isSpace(prev) && isSpace(next) ? "*" : MAYBE_STAR
        break
      case "_":
        out += isAlnum(prev) && isAlnum(next) ? "_" : MAYBE_UNDERSCORE
        break
      case "`":
        out += "\\`"
        break
      case "]":
        out += inLabel || next === undefined || next === "(" || next === "[" || next === ":" ? "\\]" : "]"
        break
      case "[":
        // One forward scan for the next `]`, not one per `[`: text can hold thousands of brackets.
        if (nextClose !== -1 && nextClose < i) nextClose = text.indexOf("]", i)
        out += inLabel || closesLink(text, nextClose) ? "\\[" : "["
        break
      case "<":
        out += next === undefined || /[A-Za-z/!?]/.test(next) ? "\\<" : "<"
        break
      case "&":
        out += /^&#?[A-Za-z0-9]+;/.test(text.slice(i, i + 34)) ? "\\&" : "&"
        break
      case "~":
        out += MAYBE_TILDE
        break
      default:
        out += c
    }
  }
  return out
}

/**
 * Line starts that CommonMark would read as a block marker. Backtick and tilde fences are not
 * here: text backticks are always escaped, so a line starting with three is our code span.
 */
const LINE_START = /^(#{1,6}(?=\s|$)|>|[-+*](?=\s|$)|\d{1,9}(?=[.)](?:\s|$))|=+\s*$|-+\s*$)/

/** Escapes the block markers a paragraph line would otherwise start with. */
export const escapeLineStart = (line: string): string => {
  const match = LINE_START.exec(line)
  if (match === null) return line
  const marker = match[1]!
  if (/^\d/.test(marker)) return `${marker}\\${line.slice(marker.length)}`
  return `\\${line}`
}

/** A code span whose fence is longer than any backtick run inside. */
export const codeSpan = (code: string): string => {
  let longest = 0
  let run = 0
  for (const c of code) {
    run = c === "`" ? run + 1 : 0
    if (run > longest) longest = run
  }
  const fence = "`".repeat(longest + 1)
  const pad = code.startsWith("`") || code.endsWith("`") || (code.startsWith(" ") && code.endsWith(" ") && code.trim() !== "")
  return pad ? `${fence} ${code} ${fence}` : `${fence}${code}${fence}`
}

/** A fence for a code block: three backticks, or more than the longest run at a line start inside. */
export const codeFence = (code: string): string => {
  let longest = 0
  for (const match of code.matchAll(/^[ \t]*(`{3,})/gm)) longest = Math.max(longest, match[1]!.length)
  return "`".repeat(Math.max(3, longest + 1))
}

/** A link or image destination: angle brackets when it holds spaces, parentheses escaped. */
export const linkDestination = (url: string): string => {
  if (/[\s<>]/.test(url)) return `<${url.replace(/[<>]/g, (c) => encodeURIComponent(c))}>`
  return url.replace(/[()]/g, (c) => `\\${c}`)
}

/** Text inside `[...]` of a link or image (alt text): only brackets and backslashes matter. */
export const escapeLabel = (text: string): string => text.replace(/[\\[\]]/g, (c) => `\\${c}`)
