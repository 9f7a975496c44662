/**
 * The components and images of the `branding` format. Buttons: the primary one is the filled
 * button in the brand's colour (a name such as `btn-primary` or `cta` helps, then size); the
 * secondary one is a button styled differently (outlined or ghost, a name such as `secondary`,
 * or another fill). The logo is scored on general signals, none tied to a site: it sits in the
 * header or at the top, it links to the home page, its alt, class, id or file name says `logo`
 * or the site's name, and it has a logo's size.
 */
import type { BrandingSamples, LogoCandidate, Rgba, StyleSample } from "./BrandingSamples.ts"
import { colorDistance, isChromatic, isTransparent, SAME_COLOR, toHex } from "./Colors.ts"
import { isFilled } from "./BrandingPalette.ts"

const hex = (color: Rgba | null): string | undefined => (color === null ? undefined : isTransparent(color) ? "transparent" : toHex(color))

const compact = (record: Record<string, string | undefined>): Record<string, string> =>
  Object.fromEntries(Object.entries(record).filter((entry): entry is [string, string] => entry[1] !== undefined))

export interface Buttons {
  readonly primary: StyleSample | undefined
  readonly secondary: StyleSample | undefined
}

export const pickButtons = (samples: BrandingSamples, brand: Rgba): Buttons => {
  const buttons = samples.elements.filter((element) => element.kind === "button" && element.text > 0)
  const score = (button: StyleSample) =>
    (isFilled(button) ? 10 : 0) +
    (button.background !== null && isFilled(button) && isChromatic(button.background) ? 5 : 0) +
    (button.background !== null && isFilled(button) && colorDistance(button.background, brand) < SAME_COLOR ? 5 : 0) +
    (/primary|cta/.test(button.hint) ? 4 : 0) +
    (/secondary|outline|ghost/.test(button.hint) ? -6 : 0) +
    Math.min(3, button.area / 3000)
  const ranked = [...buttons].map((button, index) => ({ button, index, score: score(button) }))
    .sort((a, b) => b.score - a.score || a.index - b.index)
  const primary = ranked[0]?.button
  if (primary === undefined) return { primary: undefined, secondary: undefined }
  const styledApart = (button: StyleSample) =>
    isFilled(button) !== isFilled(primary) ||
    (button.background !== null && primary.background !== null && colorDistance(button.background, primary.background) >= SAME_COLOR)
  const secondary = buttons.find((button) => button !== primary && /secondary|outline|ghost/.test(button.hint)) ??
    buttons.find((button) => button !== primary && styledApart(button))
  return { primary, secondary }
}

export const components = (samples: BrandingSamples, buttons: Buttons): Record<string, Record<string, string>> => {
  const out: Record<string, Record<string, string>> = {}
  const { primary, secondary } = buttons
  if (primary !== undefined) {
    out.buttonPrimary = compact({ background: hex(primary.background), textColor: hex(primary.color), borderRadius: primary.borderRadius })
  }
  if (secondary !== undefined) {
    out.buttonSecondary = compact({
      background: hex(secondary.background),
      borderColor: secondary.borderWidth > 0 ? hex(secondary.borderColor) : "transparent",
      borderRadius: secondary.borderRadius,
      textColor: hex(secondary.color)
    })
  }
  const input = samples.elements.find((element) => element.kind === "input")
  if (input !== undefined) {
    out.input = compact({
      background: hex(input.background),
      borderColor: input.borderWidth > 0 ? hex(input.borderColor) : "transparent",
      borderRadius: input.borderRadius,
      textColor: hex(input.color)
    })
  }
  return out
}

/** Lower-case words of the site's name: og:site_name, else the title's last part, else the host's name. */
const nameWords = (samples: BrandingSamples): ReadonlyArray<string> => {
  const host = URL.canParse(samples.url) ? new URL(samples.url).hostname.replace(/^www\./, "").split(".")[0] : ""
  const titlePart = samples.title.split(/\s[|\-–—·:]\s/).map((part) => part.trim()).filter((part) => part !== "")
  const name = samples.siteName ?? (titlePart.length > 1 ? titlePart[titlePart.length - 1] : "")
  // A host that is an address (127, 10...) names nothing.
  const words = [...name.toLowerCase().split(/[^\p{L}\p{N}]+/u), /^[0-9]+$/.test(host) ? "" : host.toLowerCase()]
  return [...new Set(words.filter((word) => word.length >= 3))]
}

/**
 * A logo candidate's score; `LOGO_SCORE` or more makes it a logo: two signals besides its size
 * (where it sits and what it is called, or a link home), so a footer image named `logo` (a parent
 * company's) or any image at the top is not enough alone. Set on 30 WCXB dev pages, checked on
 * 30 others (bench/results/branding-corpus.md).
 */
export const LOGO_SCORE = 5

export const logoScore = (candidate: LogoCandidate, words: ReadonlyArray<string>): number => {
  const text = `${candidate.alt} ${candidate.hint}`.toLowerCase()
  let score = 0
  if (candidate.inHeader || candidate.top < 200) score += 2
  if (candidate.linksHome) score += 3
  if (/logo|brand/.test(text)) score += 3
  if (words.some((word) => text.includes(word))) score += 2
  const { width, height } = candidate
  if (width >= 16 && width <= 600 && height >= 10 && height <= 300) score += 1
  // Icons (a search glass, a menu burger) and banners are not logos.
  if (width < 16 || height < 10 || (width <= 32 && height <= 32 && !/logo|brand/.test(text))) score -= 3
  if (height > 300 || width > 800) score -= 3
  return score
}

export const pickLogo = (samples: BrandingSamples): string | undefined => {
  const words = nameWords(samples)
  let best: { candidate: LogoCandidate; score: number } | undefined
  for (const candidate of samples.logos) {
    const score = logoScore(candidate, words)
    if (score >= LOGO_SCORE && (best === undefined || score > best.score)) best = { candidate, score }
  }
  return best?.candidate.src
}
