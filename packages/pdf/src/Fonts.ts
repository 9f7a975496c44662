/**
 * What a font's PostScript name says about its style. pdf.js only marks bold/italic for fonts it
 * had to substitute, so names are read here: subset prefixes stripped, then foundry conventions
 * for weight, slant, fixed pitch and math.
 */

export interface FontInfo {
  readonly name: string
  readonly bold: boolean
  readonly italic: boolean
  readonly mono: boolean
  readonly math: boolean
  /** Symbol fonts (dingbats): a single glyph from one is a bullet, whatever letter it maps to. */
  readonly symbol: boolean
}

// TeX font names: CM/EC/LM families ("SFBX1000" bold extended, "CMTI10" italic, "SFTT1000" typewriter).
const BOLD = /bold|black|heavy|semibold|demibold|demi\b|[-,]bd\b|[-,]bl\b|extrabold|ultrabold|-medi$|^(?:cm|sf|ec|lm|tc|cmss|sfss)bx|^(?:cm|sf|ec)b\d|^cmssbx/i
// URW's abbreviated styles: "NimbusSanL-ReguItal", "URWBookmanL-LighItal", "-DemiBoldItal", "URWPalladioL-Ital".
const ITALIC = /italic|oblique|[-,]it\b|^(?:cm|sf|ec|lm)(?:ti|sl|bxti|bxsl|ssi)\d|-regulari$|-boldi$|(?:regu|ligh|medi|demi|bold|book|roma)ital$|[-,]ital$/i
const MONO = /courier|consol|monaco|menlo|mono|fixed|typewriter|sourcecode|source code|firacode|fira code|jetbrains|inconsolata|^(?:cm|sf|ec|lm)(?:tt|itt|sltt|vtt)\d|lucidaconsole|andale/i
const MATH = /^(cmmi|cmsy|cmex|msbm|msam|stix|cambriamath|cambria math|mathematicalpi|symbol|eusm|rsfs|esint|txsy|pxsy)/i

// Caps and small caps: TeX's CMCSC/ECCC/LMRomanCaps, foundries' "SC", "-SmallCaps", "Caps" styles.
const SMALL_CAPS = /^(?:cm|ec|lm)csc\d|^eccc\d|smallcaps|small-caps|caps\d*-|caps$/i
const SC_SUFFIX = /(?:[a-z]|-|,)SC$/

/** Whether a font sets lower-case letters as small capitals (its text reads lower case but shows as capitals). */
export const isSmallCapsFont = (rawName: string): boolean => {
  const name = rawName.replace(/^[A-Z]{6}\+/, "")
  return SMALL_CAPS.test(name) || SC_SUFFIX.test(name)
}

const SYMBOL = /dingbat|wingding|webding|zapf|^symbol|symbolmt|marlett/i

const cache = new Map<string, FontInfo>()

/** Reads a font's style from its name; `fallbackMono` is pdf.js's fixed-pitch verdict. */
export const fontInfoFromName = (rawName: string, fallbackMono: boolean): FontInfo => {
  const key = `${rawName}|${fallbackMono}`
  const hit = cache.get(key)
  if (hit !== undefined) return hit
  const name = rawName.replace(/^[A-Z]{6}\+/, "")
  const info: FontInfo = {
    name,
    bold: BOLD.test(name),
    italic: ITALIC.test(name),
    mono: fallbackMono || MONO.test(name),
    math: MATH.test(name),
    symbol: SYMBOL.test(name)
  }
  cache.set(key, info)
  return info
}
