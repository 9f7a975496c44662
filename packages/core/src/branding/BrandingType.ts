/**
 * Fonts, typography and spacing of the `branding` format, from the sampled styles: the font
 * families of body text, headings and code; the sizes of h1-h3 and body text; the weights in
 * use; line heights as ratios of the font size; the spacing base unit (the largest common step
 * of the margins and paddings) and the border radius most used by buttons, inputs and surfaces.
 */
import type { BrandingSamples, StyleSample } from "./BrandingSamples.ts"

const generic = new Set(["serif", "sans-serif", "monospace", "cursive", "fantasy", "system-ui", "ui-serif", "ui-sans-serif", "ui-monospace", "ui-rounded", "math", "emoji", "fangsong", "-apple-system", "blinkmacsystemfont"])

/** The families of a `font-family` stack, unquoted. */
export const families = (stack: string): ReadonlyArray<string> =>
  stack.split(",").map((family) => family.trim().replace(/^["']|["']$/g, "").trim()).filter((family) => family !== "")

/** The family a stack asks for first: the first named one, else its first generic one. */
export const firstFamily = (stack: string): string | undefined => {
  const list = families(stack)
  return list.find((family) => !generic.has(family.toLowerCase())) ?? list[0]
}

const first = (samples: BrandingSamples, kind: StyleSample["kind"]) => samples.elements.find((element) => element.kind === kind)

/** The value set on the most text, ties to the first seen. */
const mostText = <A>(elements: ReadonlyArray<StyleSample>, value: (element: StyleSample) => A | undefined): A | undefined => {
  const weights = new Map<A, number>()
  for (const element of elements) {
    const v = value(element)
    if (v !== undefined) weights.set(v, (weights.get(v) ?? 0) + Math.max(1, element.text))
  }
  let best: A | undefined
  let bestWeight = 0
  for (const [v, weight] of weights) {
    if (weight > bestWeight) [best, bestWeight] = [v, weight]
  }
  return best
}

const px = (n: number) => `${Math.round(n * 100) / 100}px`
const ratio = (element: StyleSample | undefined): string | number | undefined =>
  element === undefined ? undefined : element.lineHeight === null ? "normal" : Math.round((element.lineHeight / element.fontSize) * 100) / 100

export type Typography = {
  readonly fonts: ReadonlyArray<{ readonly family: string }>
  readonly typography: {
    readonly fontFamilies: Record<string, string>
    readonly fontSizes: Record<string, string>
    readonly fontWeights: Record<string, number>
    readonly lineHeights: Record<string, string | number>
  }
}

export const typography = (samples: BrandingSamples): Typography => {
  const body = first(samples, "body")
  const text = samples.elements.filter((element) => element.kind === "text" && element.text > 0)
  const headings = [first(samples, "h1"), first(samples, "h2"), first(samples, "h3")].filter((h): h is StyleSample => h !== undefined)
  const code = first(samples, "code")
  const primary = mostText(text, (element) => firstFamily(element.fontFamily)) ?? (body === undefined ? undefined : firstFamily(body.fontFamily))
  const heading = headings.length > 0 ? firstFamily(headings[0].fontFamily) : undefined
  const codeFamily = code === undefined ? undefined : firstFamily(code.fontFamily)
  const fontFamilies: Record<string, string> = {}
  if (primary !== undefined) fontFamilies.primary = primary
  if (heading !== undefined) fontFamilies.heading = heading
  if (codeFamily !== undefined) fontFamilies.code = codeFamily

  // Every named family in use, the most text first, with the roles' families leading.
  const used = new Map<string, number>()
  for (const element of samples.elements) {
    const family = firstFamily(element.fontFamily)
    if (family !== undefined) used.set(family, (used.get(family) ?? 0) + Math.max(1, element.text))
  }
  const ordered = [...new Set([primary, heading, codeFamily, ...[...used].sort((a, b) => b[1] - a[1]).map(([family]) => family)])]
    .filter((family): family is string => family !== undefined && !generic.has(family.toLowerCase()))

  const fontSizes: Record<string, string> = {}
  for (const level of ["h1", "h2", "h3"] as const) {
    const h = first(samples, level)
    if (h !== undefined) fontSizes[level] = px(h.fontSize)
  }
  const bodySize = mostText(text.filter((element) => element.tag === "p"), (element) => element.fontSize) ?? mostText(text, (element) => element.fontSize) ?? body?.fontSize
  if (bodySize !== undefined) fontSizes.body = px(bodySize)

  const fontWeights: Record<string, number> = {}
  const regular = mostText(text, (element) => element.fontWeight) ?? body?.fontWeight
  const weights = samples.elements.filter((element) => element.text > 0).map((element) => element.fontWeight)
  if (regular !== undefined) fontWeights.regular = regular
  const light = Math.min(...weights)
  if (light < 400) fontWeights.light = light
  const medium = weights.find((weight) => weight >= 500 && weight < 600)
  if (medium !== undefined) fontWeights.medium = medium
  const bold = Math.max(...weights)
  if (bold >= 600) fontWeights.bold = bold

  const lineHeights: Record<string, string | number> = {}
  const headingLine = ratio(headings[0])
  if (headingLine !== undefined) lineHeights.heading = headingLine
  const bodyLine = ratio(text.find((element) => element.tag === "p") ?? text[0] ?? body)
  if (bodyLine !== undefined) lineHeights.body = bodyLine

  return { fonts: ordered.map((family) => ({ family })), typography: { fontFamilies, fontSizes, fontWeights, lineHeights } }
}

/** Candidate base units, largest first: design systems step by 4 or 8, some by 5, 6, 10 or 12. */
const UNITS = [12, 10, 8, 6, 5, 4] as const
/** The share of margins and paddings a unit must divide to be the base. */
const UNIT_SHARE = 0.7

/** The largest unit that divides most of the spacings in use (4 when none does, or none is in use). */
export const baseUnit = (spacings: ReadonlyArray<number>): number => {
  const values = spacings.filter((n) => n >= 1 && n <= 256)
  if (values.length === 0) return 4
  const share = (unit: number) => values.filter((n) => Math.abs(n / unit - Math.round(n / unit)) * unit <= 0.5).length / values.length
  return UNITS.find((unit) => share(unit) >= UNIT_SHARE) ?? 4
}

/** A CSS box shorthand of four px values, shortened as CSS does. */
const box = (sides: ReadonlyArray<number>): string => {
  const [t, r, b, l] = sides.map((n) => px(n))
  if (t === b && r === l) return t === r ? t : `${t} ${r}`
  return r === l ? `${t} ${r} ${b}` : `${t} ${r} ${b} ${l}`
}

export type Spacing = {
  readonly baseUnit: number
  readonly borderRadius: string
  readonly margins: Record<string, string>
  readonly padding: Record<string, string>
}

export const spacing = (samples: BrandingSamples, primaryButton: StyleSample | undefined): Spacing => {
  const values = samples.elements.flatMap((element) => [...element.margin, ...element.padding]).filter((n) => n > 0)
  const radii = new Map<string, number>()
  for (const element of samples.elements) {
    if (element.kind !== "button" && element.kind !== "input" && element.kind !== "surface") continue
    if (!/^[0-9.]+px$/.test(element.borderRadius) || parseFloat(element.borderRadius) === 0) continue
    radii.set(element.borderRadius, (radii.get(element.borderRadius) ?? 0) + (element.kind === "surface" ? 1 : 2))
  }
  const radius = [...radii].sort((a, b) => b[1] - a[1])[0]?.[0] ?? "0px"
  const margins: Record<string, string> = {}
  const padding: Record<string, string> = {}
  for (const kind of ["h1", "h2", "h3"] as const) {
    const h = first(samples, kind)
    if (h !== undefined) margins[kind] = box(h.margin)
  }
  const paragraph = samples.elements.find((element) => element.kind === "text" && element.tag === "p")
  if (paragraph !== undefined) margins.paragraph = box(paragraph.margin)
  if (primaryButton !== undefined) padding.button = box(primaryButton.padding)
  const input = first(samples, "input")
  if (input !== undefined) padding.input = box(input.padding)
  return { baseUnit: baseUnit(values), borderRadius: radius, margins, padding }
}
