/**
 * The colour roles of the `branding` format, from the sampled styles: `background` and
 * `colorScheme` from the page's background; `textPrimary` and `textSecondary` as the colours
 * most text is set in; `link` as the colour of links in the text; `primary`, `secondary` and
 * `accent` as the brand's colours, first those the page names (`--primary`, `--brand`,
 * `--accent` custom properties), then the saturated colours it paints most (filled buttons
 * count most, then links, headings, borders and coloured surfaces); `success`, `warning` and
 * `error` from custom properties or elements named for them. A role the page gives no evidence
 * for is left out rather than invented, except primary, secondary and accent, which fall back
 * to one another and to the text colour so that a plain page still has a palette.
 */
import type { BrandingSamples, ColorVariable, Rgba, StyleSample } from "./BrandingSamples.ts"
import { ColorTally, colorDistance, DARK_LUMINANCE, isChromatic, isOpaque, luminance, SAME_COLOR, toHex } from "./Colors.ts"

export interface Palette {
  readonly colorScheme: "light" | "dark"
  readonly colors: Record<string, string>
  /** The primary colour as sampled, for the components. */
  readonly primary: Rgba
}

const ofKind = (samples: BrandingSamples, ...kinds: ReadonlyArray<StyleSample["kind"]>) =>
  samples.elements.filter((element) => kinds.includes(element.kind))

/**
 * The first variable whose name has one of these words as a part (`--color-primary`, `--brand`,
 * Bootstrap's `--bs-primary`, Material's `--md-sys-color-primary`), not a shade of it
 * (`--primary-foreground`, `--bs-primary-bg-subtle`) or what is set on it (`--on-primary`).
 */
const named = (variables: ReadonlyArray<ColorVariable>, words: ReadonlyArray<string>, standsOutFrom?: Rgba): Rgba | undefined => {
  const parts = (name: string) => name.replace(/^--/, "").toLowerCase().split(/[-_]+/)
  const shade = /^(foreground|fg|text|contrast|content|hover|active|focus|light|lighter|dark|darker|muted|subtle|soft|border|bg|background|[0-9]+)$/
  const match = variables.find((variable) => {
    const p = parts(variable.name)
    const at = p.findIndex((part) => words.includes(part))
    // `--md-sys-color-on-primary` is the text set on the primary colour, not the colour.
    return at >= 0 && p[at - 1] !== "on" && !p.slice(at + 1).some((part) => shade.test(part)) &&
      // A brand colour the page's background hides is a surface colour named "primary" (a theme's --global-color-primary: white).
      (standsOutFrom === undefined || colorDistance(variable.color, standsOutFrom) >= SAME_COLOR)
  })
  return match?.color
}

/** Text colours weighted by how much text each sets. */
const textColors = (samples: BrandingSamples): ReadonlyArray<Rgba> => {
  const tally = new ColorTally()
  for (const element of ofKind(samples, "body", "text", "h1", "h2", "h3")) {
    if (isOpaque(element.color)) tally.add(element.color, element.kind === "body" ? 1 : Math.max(1, element.text))
  }
  return tally.ranked()
}

const linkColor = (samples: BrandingSamples): Rgba | undefined => {
  const tally = new ColorTally()
  for (const link of ofKind(samples, "link")) {
    // Links in the text say more than the navigation's, which is often styled as plain text.
    if (isOpaque(link.color)) tally.add(link.color, link.inHeader ? 1 : 3)
  }
  return tally.ranked()[0]
}

/** A filled button: its own background is opaque and stands out from what is behind it. */
export const isFilled = (button: StyleSample): boolean =>
  isOpaque(button.background) && (button.behind === null || colorDistance(button.background, button.behind) > SAME_COLOR / 2)

/** The brand's saturated colours, the most used first. */
const brandColors = (samples: BrandingSamples): ReadonlyArray<Rgba> => {
  const tally = new ColorTally()
  const chromatic = (color: Rgba | null): color is Rgba => isOpaque(color) && isChromatic(color)
  for (const element of samples.elements) {
    switch (element.kind) {
      case "button":
        if (chromatic(element.background)) tally.add(element.background, 6 + Math.min(6, element.area / 2000))
        if (element.borderWidth > 0 && chromatic(element.borderColor)) tally.add(element.borderColor, 2)
        if (!isFilled(element) && chromatic(element.color)) tally.add(element.color, 2)
        break
      case "link":
        if (chromatic(element.color)) tally.add(element.color, element.inHeader ? 1 : 2)
        break
      case "h1":
      case "h2":
      case "h3":
        if (chromatic(element.color)) tally.add(element.color, 2)
        break
      case "surface":
        if (chromatic(element.background)) tally.add(element.background, 1 + Math.min(4, element.area / 50000))
        if (element.borderWidth > 0 && chromatic(element.borderColor)) tally.add(element.borderColor, 1)
        break
      default:
        break
    }
  }
  return tally.ranked()
}

/** The first colour not the same as any of `taken`. */
const distinct = (candidates: ReadonlyArray<Rgba | undefined>, taken: ReadonlyArray<Rgba>): Rgba | undefined =>
  candidates.find((color): color is Rgba => color !== undefined && taken.every((t) => colorDistance(t, color) >= SAME_COLOR))

const statusWords = {
  success: ["success", "positive", "valid"],
  warning: ["warning", "warn", "caution"],
  error: ["error", "danger", "destructive", "negative", "critical", "invalid"]
} as const

/** A status colour from an element named for it: its text colour, else its border or background, when saturated. */
const statusFromElements = (samples: BrandingSamples, words: ReadonlyArray<string>): Rgba | undefined => {
  const pattern = new RegExp(`(^|[^a-z])(${words.join("|")})([^a-z]|$)`)
  for (const element of ofKind(samples, "status")) {
    if (!pattern.test(element.hint)) continue
    const color = [element.color, element.borderWidth > 0 ? element.borderColor : null, element.background]
      .find((c): c is Rgba => isOpaque(c) && isChromatic(c))
    if (color !== undefined) return color
  }
  return undefined
}

export const palette = (samples: BrandingSamples): Palette => {
  const background = samples.background
  const texts = textColors(samples).filter((color) => colorDistance(color, background) >= SAME_COLOR)
  const textPrimary = texts[0] ?? (luminance(background) < DARK_LUMINANCE ? [255, 255, 255, 1] as Rgba : [0, 0, 0, 1] as Rgba)
  const textSecondary = distinct(texts.slice(1), [textPrimary])
  const link = linkColor(samples)
  const vars = samples.variables
  const ranked = brandColors(samples)
  const primary = named(vars, ["primary", "brand"], background) ?? ranked[0] ?? (link !== undefined && isChromatic(link) ? link : textPrimary)
  const secondary = named(vars, ["secondary"], background) ?? distinct(ranked, [primary]) ?? primary
  const accent = named(vars, ["accent", "highlight", "tertiary"], background) ?? distinct(ranked, [primary, secondary]) ?? secondary
  const colors: Record<string, string> = {
    primary: toHex(primary),
    secondary: toHex(secondary),
    accent: toHex(accent),
    background: toHex(background),
    textPrimary: toHex(textPrimary)
  }
  if (textSecondary !== undefined) colors.textSecondary = toHex(textSecondary)
  if (link !== undefined) colors.link = toHex(link)
  for (const [role, words] of Object.entries(statusWords)) {
    const color = named(vars, words) ?? statusFromElements(samples, words)
    if (color !== undefined) colors[role] = toHex(color)
  }
  return { colorScheme: luminance(background) < DARK_LUMINANCE ? "dark" : "light", colors, primary }
}
