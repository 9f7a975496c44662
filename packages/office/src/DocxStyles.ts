/**
 * What a WordprocessingML paragraph's style and numbering mean for markdown: heading levels
 * (from style names, `outlineLvl` and `basedOn` chains), code and quote styles, and list
 * kinds per numbering level (bullet or ordered, with start values), from styles.xml and
 * numbering.xml.
 */
import { child, childrenNamed, descendants, type XmlElement } from "./Xml.ts"

export interface StyleInfo {
  readonly name: string
  readonly basedOn: string | undefined
  readonly outlineLevel: number | undefined
  readonly numId: string | undefined
  readonly numLevel: number | undefined
  readonly bold: boolean | undefined
  readonly italic: boolean | undefined
}

export interface ParagraphRole {
  /** 0 = document title, 1..9 = heading level; undefined for body text. */
  readonly heading: number | undefined
  readonly code: boolean
  readonly quote: boolean
  readonly listParagraph: boolean
}

export const boolAttr = (el: XmlElement | undefined): boolean | undefined => {
  if (el === undefined) return undefined
  const v = el.attrs.val
  return v === undefined || !(v === "0" || v === "false" || v === "off" || v === "none")
}

export class DocxStyles {
  private readonly styles = new Map<string, StyleInfo>()
  private readonly roles = new Map<string, ParagraphRole>()
  readonly defaultParagraphStyle: string | undefined

  constructor(root: XmlElement | undefined) {
    let defaultId: string | undefined
    if (root !== undefined) {
      for (const style of childrenNamed(root, "style")) {
        const id = style.attrs.styleId ?? ""
        const pPr = child(style, "pPr")
        const rPr = child(style, "rPr")
        const numPr = child(pPr, "numPr")
        const outline = child(pPr, "outlineLvl")?.attrs.val
        const ilvl = child(numPr, "ilvl")?.attrs.val
        this.styles.set(id, {
          name: (child(style, "name")?.attrs.val ?? id).toLowerCase(),
          basedOn: child(style, "basedOn")?.attrs.val,
          outlineLevel: outline === undefined ? undefined : Number(outline),
          numId: child(numPr, "numId")?.attrs.val,
          numLevel: ilvl === undefined ? undefined : Number(ilvl),
          bold: boolAttr(child(rPr, "b")),
          italic: boolAttr(child(rPr, "i"))
        })
        if (style.attrs.type === "paragraph" && (style.attrs.default === "1" || style.attrs.default === "true")) defaultId = id
      }
    }
    this.defaultParagraphStyle = defaultId
  }

  get(id: string | undefined): StyleInfo | undefined {
    return id === undefined ? undefined : this.styles.get(id)
  }

  /** Walks the `basedOn` chain (bounded: chains can be cyclic in broken files). */
  private chain(id: string | undefined): Array<StyleInfo> {
    const out: Array<StyleInfo> = []
    let cur = id
    for (let i = 0; i < 20 && cur !== undefined; i++) {
      const style = this.styles.get(cur)
      if (style === undefined) break
      out.push(style)
      cur = style.basedOn
    }
    return out
  }

  role(id: string | undefined): ParagraphRole {
    const key = id ?? this.defaultParagraphStyle ?? ""
    const cached = this.roles.get(key)
    if (cached !== undefined) return cached
    const chain = this.chain(key)
    let heading: number | undefined
    let code = false
    let quote = false
    let listParagraph = false
    for (const style of chain) {
      const byName = headingFromName(style.name)
      if (heading === undefined && byName !== undefined) heading = byName
      if (heading === undefined && style.outlineLevel !== undefined && style.outlineLevel < 9) heading = style.outlineLevel + 1
      if (/\b(code|source|preformatted|macro|html preformatted)\b/.test(style.name)) code = true
      if (/\b(quote|intense quote|block text)\b/.test(style.name)) quote = true
      if (/list/.test(style.name)) listParagraph = true
    }
    // Ids like "Heading1" with a localised display name ("Überschrift 1").
    if (heading === undefined && id !== undefined) heading = headingFromName(id.toLowerCase())
    const role = { heading, code, quote, listParagraph }
    this.roles.set(key, role)
    return role
  }

  /** The numbering a style applies, following `basedOn`. */
  numbering(id: string | undefined): { numId: string; level: number } | undefined {
    for (const style of this.chain(id)) if (style.numId !== undefined) return { numId: style.numId, level: style.numLevel ?? 0 }
    return undefined
  }

  /** Bold or italic set by a character or paragraph style. */
  emphasis(id: string | undefined): { bold: boolean; italic: boolean } {
    let bold: boolean | undefined
    let italic: boolean | undefined
    for (const style of this.chain(id)) {
      bold ??= style.bold
      italic ??= style.italic
    }
    const name = id === undefined ? "" : (this.styles.get(id)?.name ?? id.toLowerCase())
    return { bold: bold ?? /^(strong|bold)/.test(name), italic: italic ?? /^(emphasis|italic)/.test(name) }
  }
}

const headingFromName = (name: string): number | undefined => {
  if (name === "title") return 0
  const m = /^(?:heading|berschrift|titre|titolo|encabezado|título|kop|rubrik|nagłówek|заголовок|επικεφαλίδα)\s*([1-9])$/u.exec(name.replace(/^ü/, ""))
  return m === null ? undefined : Number(m[1])
}

export interface ListLevel {
  readonly ordered: boolean
  readonly start: number
  readonly format: string
  /** The level's label template (`%1.%2.`). */
  readonly text: string
}

/** numbering.xml: `numId` -> levels (with level overrides applied). */
export class DocxNumbering {
  private readonly nums = new Map<string, Map<number, ListLevel>>()
  private readonly abstractOf = new Map<string, string>()

  constructor(root: XmlElement | undefined) {
    if (root === undefined) return
    const abstracts = new Map<string, Map<number, ListLevel>>()
    for (const abs of childrenNamed(root, "abstractNum")) abstracts.set(abs.attrs.abstractNumId ?? "", readLevels(abs))
    for (const num of childrenNamed(root, "num")) {
      const absId = child(num, "abstractNumId")?.attrs.val ?? ""
      const levels = new Map(abstracts.get(absId) ?? [])
      for (const override of childrenNamed(num, "lvlOverride")) {
        const ilvl = Number(override.attrs.ilvl ?? 0)
        const lvl = child(override, "lvl")
        if (lvl !== undefined) {
          const [level] = readLevels({ ...override, children: [lvl] }).values()
          if (level !== undefined) levels.set(ilvl, level)
        }
        const startOverride = child(override, "startOverride")?.attrs.val
        const base = levels.get(ilvl)
        if (startOverride !== undefined && base !== undefined) levels.set(ilvl, { ...base, start: Number(startOverride) })
      }
      this.nums.set(num.attrs.numId ?? "", levels)
      this.abstractOf.set(num.attrs.numId ?? "", absId)
    }
  }

  level(numId: string, ilvl: number): ListLevel | undefined {
    return this.nums.get(numId)?.get(ilvl)
  }

  /** Lists that share an abstract definition continue one another's numbering in Word. */
  counterKey(numId: string): string {
    return this.abstractOf.get(numId) ?? numId
  }
}

const readLevels = (parent: XmlElement): Map<number, ListLevel> => {
  const levels = new Map<number, ListLevel>()
  for (const lvl of descendants(parent, "lvl")) {
    const format = child(lvl, "numFmt")?.attrs.val ?? "decimal"
    const start = Number(child(lvl, "start")?.attrs.val ?? 1)
    const text = child(lvl, "lvlText")?.attrs.val ?? ""
    levels.set(Number(lvl.attrs.ilvl ?? 0), { format, text, ordered: format !== "bullet" && format !== "none", start: Number.isFinite(start) ? start : 1 })
  }
  return levels
}

// ---- counter labels ---------------------------------------------------------------------------

const roman = (n: number): string => {
  const table: Array<[number, string]> = [[1000, "m"], [900, "cm"], [500, "d"], [400, "cd"], [100, "c"], [90, "xc"], [50, "l"], [40, "xl"], [10, "x"], [9, "ix"], [5, "v"], [4, "iv"], [1, "i"]]
  let out = ""
  let rest = Math.max(1, Math.min(n, 3999))
  for (const [value, letters] of table) while (rest >= value) {
    out += letters
    rest -= value
  }
  return out
}

const letters = (n: number): string => String.fromCharCode(97 + ((Math.max(1, n) - 1) % 26)).repeat(Math.floor((Math.max(1, n) - 1) / 26) + 1)

export const formatCounter = (n: number, format: string): string => {
  switch (format) {
    case "lowerLetter":
      return letters(n)
    case "upperLetter":
      return letters(n).toUpperCase()
    case "lowerRoman":
      return roman(n)
    case "upperRoman":
      return roman(n).toUpperCase()
    case "decimalZero":
      return String(n).padStart(2, "0")
    default:
      return String(n)
  }
}
