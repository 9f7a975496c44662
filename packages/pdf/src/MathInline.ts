/**
 * Inline math inside a line of prose: the math pass (MathRegions.ts) puts its LaTeX between two
 * noncharacters (U+FDD0, U+FDD1; private-use ones read as bullets), which survive line joining and hyphen repair; the block writer escapes the
 * prose around them and writes each marked stretch as `$...$`, unescaped.
 */

export const INLINE_OPEN = "\ufdd0"
export const INLINE_CLOSE = "\ufdd1"

const MARKED = /\ufdd0([^\ufdd1]*)\ufdd1/g

/** `escape` applied to the prose only; marked math written as `$latex$`. */
export const escapeAroundMath = (text: string, escape: (s: string) => string): string => {
  if (!text.includes(INLINE_OPEN)) return escape(text)
  let out = ""
  let last = 0
  for (const m of text.matchAll(MARKED)) {
    out += escape(text.slice(last, m.index)) + `$${m[1]!.trim()}$`
    last = m.index + m[0].length
  }
  return out + escape(text.slice(last))
}

/** The text with the marks taken out (where no markdown is written: table cells, alt text). */
export const stripMathMarks = (text: string): string => text.replace(/[\ufdd0\ufdd1]/g, "")
