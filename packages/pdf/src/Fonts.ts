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
const ITALIC = /italic|oblique|[-,]it\b|^(?:cm|sf|ec|lm)(?:ti|sl|bxti|bxsl|ssi)\d|-regulari$|-boldi$/i
const MONO = /courier|consol|monaco|menlo|mono|fixed|typewriter|sourcecode|source code|firacode|fira code|jetbrains|inconsolata|^(?:cm|sf|ec|lm)(?:tt|itt|sltt|vtt)\d|lucidaconsole|andale/i
const MATH = /^(cmmi|cmsy|cmex|msbm|msam|stix|cambriamath|cambria math|mathematicalpi|symbol|eusm|rsfs|esint|txsy|pxsy)/i

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
